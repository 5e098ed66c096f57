// OpenCL C has no variadic functions but printf (clang-22's wording and location).
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s
int printf(__constant const char *st, ...);
int foo(int a, ...);
// CHECK-NOT: printf
// CHECK: variadic-function.cl:4:5: error: invalid prototype, variadic arguments are not allowed in OpenCL
// CHECK: 1 error generated.
