// C99 6.6p9: program-scope pointer initializers must be address constants; clang-22 points at
// the expression's operator. Pointer-to-pointer types are spelled like clang's type printer.
// A cast to a pointer-sized integer is constant (test/lit/codegen/address-constants.cl);
// to a smaller one it is not, with clang's -Wpointer-to-int-cast warning.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

global int g[4];
global int i;
global int *ok1 = &g[1];
global int *bad1 = &g[i];
global int *bad2 = g + i;
global int bad3 = g[1];
void f(const global int **pp) { int x; x = pp; }
global int small = (int)&g[1];

// CHECK-NOT: address-constants.cl:9:
// CHECK: {{.*}}address-constants.cl:10:20: error: initializer element is not a compile-time constant
// CHECK: {{.*}}address-constants.cl:11:22: error: initializer element is not a compile-time constant
// CHECK: {{.*}}address-constants.cl:12:19: error: initializer element is not a compile-time constant
// CHECK: {{.*}}address-constants.cl:13:42: error: incompatible pointer to integer conversion assigning to 'int' from 'const __global int *__generic *'
// CHECK: {{.*}}address-constants.cl:14:20: warning: cast to smaller integer type 'int' from '__global int *'
// CHECK: {{.*}}address-constants.cl:14:20: error: initializer element is not a compile-time constant
// CHECK: 1 warning and 5 errors generated.
