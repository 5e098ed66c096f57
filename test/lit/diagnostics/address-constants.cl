// C99 6.6p9: program-scope pointer initializers must be address constants; clang-22 points at
// the expression's operator. Pointer-to-pointer types are spelled like clang's type printer.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

global int g[4];
global int i;
global int *ok1 = &g[1];
global int *bad1 = &g[i];
global int *bad2 = g + i;
global int bad3 = g[1];
void f(const global int **pp) { int x; x = pp; }

// CHECK-NOT: address-constants.cl:7:
// CHECK: {{.*}}address-constants.cl:8:20: error: initializer element is not a compile-time constant
// CHECK: {{.*}}address-constants.cl:9:22: error: initializer element is not a compile-time constant
// CHECK: {{.*}}address-constants.cl:10:19: error: initializer element is not a compile-time constant
// CHECK: {{.*}}address-constants.cl:11:42: error: incompatible pointer to integer conversion assigning to 'int' from 'const __global int *__generic *'
// CHECK: 4 errors generated.
