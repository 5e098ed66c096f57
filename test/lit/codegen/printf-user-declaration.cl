// A kernel that declares printf itself (pocl and Rodinia do) keeps the built-in: the
// declaration's `...` stays, and later calls take any number of arguments.
// RUN: %clcoop %s -o - | FileCheck %s
int printf(__constant const char *st, ...);
kernel void k(global int *o) { printf("%d %d\n", o[0], 2); printf("x\n"); }
// CHECK: call spir_func i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @.str, i32 %{{[0-9]+}}, i32 2)
// CHECK: call spir_func i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @.str.1)
// CHECK: declare spir_func i32 @printf(ptr addrspace(2), ...)
