// #include with -I: a quoted include is searched next to the including file first
// (sub/inner.h from Inputs/tile.h), then in the -I directories.
// RUN: %clcoop -E -I %S/Inputs %s -o - | FileCheck %s
#include "tile.h"
#include <tile.h>
int m = TILE_M;
int n = TILE_N;
// CHECK: #line 6 "{{.*}}include.cl"
// CHECK-NEXT: int m = 8 ;
// CHECK-NEXT: int n = ( 2 * 8 )
