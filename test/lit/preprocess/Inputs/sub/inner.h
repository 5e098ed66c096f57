#define INNER 8
