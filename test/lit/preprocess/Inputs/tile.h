#ifndef TILE_H
#define TILE_H
#include "sub/inner.h"
#define TILE_M 8
#define TILE_N (2 * INNER)
#endif
