// __local and __constant variables belong in the outermost scope of a kernel (OpenCL C 3.0
// 6.7.1, 6.7.3), and kernels cannot be static: clang-22's errors and wording. The outermost
// scope and static __constant variables of functions are fine.
// RUN: not %clcoop %s -fsyntax-only 2>&1 | FileCheck %s

void helper(global int *o) {
  static constant int fine = 2;
  // CHECK: local-constant-scope.cl:9:16: error: non-kernel function variable cannot be declared in constant address space
  constant int table = 1;
  o[0] = table + fine;
}

kernel void k(global int *o) {
  local int top[4];
  constant int also_top = 3;
  if (o) {
    // CHECK: local-constant-scope.cl:18:18: error: variables in the constant address space can only be declared in the outermost scope of a kernel function
    constant int c = 1;
    // CHECK: local-constant-scope.cl:20:15: error: variables in the local address space can only be declared in the outermost scope of a kernel function
    local int d;
    o[0] = c + d + top[0] + also_top;
  }
}

// CHECK: local-constant-scope.cl:26:20: error: kernel functions cannot be declared static
static kernel void not_a_kernel(void) {}
// CHECK: 4 errors generated.
