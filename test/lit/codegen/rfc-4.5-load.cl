// RFC section 4.5, coop_mat_load.
// RUN: %clcoop %s -o - | FileCheck %s
//
// RFC text:
//   %2 = call target("spirv.CooperativeMatrixKHR", float, 8, 4, 0, 0) @_Z32__spirv_CooperativeMatrixLoadKHR(ptr %1, i32 0, i32 3)
//   store target("spirv.CooperativeMatrixKHR", float, 8, 4, 0, 0) %2, ptr %m
// Deviations: the type carries the scope (3, 8, 4, 0); the call is spir_func; the callee name
// carries the template tail and the mangled pointer (`IfLi3ELi8ELi4ELi0EEvPU3AS1fim`) so each
// signature is its own declaration; A is a __global pointer here (addrspace(1)); the stride is
// size_t (i64 on spir64), not i32.

typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 4, CLK_COOPERATIVE_MATRIX_A)));

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: %[[P:[0-9]+]] = load ptr addrspace(1), ptr %A.addr
// CHECK-NEXT: %[[R:call[0-9]*]] = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 4, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi4ELi0EEvPU3AS1fim(ptr addrspace(1) %[[P]], i32 0, i64 3)
// CHECK-NEXT: store target("spirv.CooperativeMatrixKHR", float, 3, 8, 4, 0) %[[R]], ptr %m
// CHECK: declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 4, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi4ELi0EEvPU3AS1fim(ptr addrspace(1), i32, i64)
kernel void k(global float *A) {
  matA m;
  m = coop_mat_load(A, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 3);
}
