// RFC section 4.5, coop_matmul_add.
// RUN: %clcoop %s -o - | FileCheck %s
//
// RFC text:
//   %3 = call target("spirv.CooperativeMatrixKHR", float, 4, 2, 0, 2) @_Z34__spirv_CooperativeMatrixMulAddKHR(
//          target("spirv.CooperativeMatrixKHR", float, 4, 8, 0, 0) %0, target("spirv.CooperativeMatrixKHR", float, 8, 2, 0, 1) %1,
//          target("spirv.CooperativeMatrixKHR", float, 4, 2, 0, 2) %2, i8 8)
//   store target("spirv.CooperativeMatrixKHR", float, 4, 2, 0, 2) %3, ptr %d
// Deviations: scope in the types; spir_func; template tail (result, A, B, C) in the callee name;
// the operands mask is an i32 constant (SPV_KHR_cooperative_matrix: operands are a 32-bit mask),
// not i8. MATRIX_RESULT_SIGNED is 8 (SPIR-V value).

typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 4, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef float matB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 2, CLK_COOPERATIVE_MATRIX_B)));
typedef float matC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 4, 2, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: %[[A:[0-9]+]] = load target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0), ptr %a
// CHECK-NEXT: %[[B:[0-9]+]] = load target("spirv.CooperativeMatrixKHR", float, 3, 8, 2, 1), ptr %b
// CHECK-NEXT: %[[C:[0-9]+]] = load target("spirv.CooperativeMatrixKHR", float, 3, 4, 2, 2), ptr %c
// CHECK-NEXT: %[[D:call[0-9]*]] = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 4, 2, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIfLi3ELi4ELi2ELi2EfLi3ELi4ELi8ELi0EfLi3ELi8ELi2ELi1EfLi3ELi4ELi2ELi2EEvi(target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0) %[[A]], target("spirv.CooperativeMatrixKHR", float, 3, 8, 2, 1) %[[B]], target("spirv.CooperativeMatrixKHR", float, 3, 4, 2, 2) %[[C]], i32 8)
// CHECK-NEXT: store target("spirv.CooperativeMatrixKHR", float, 3, 4, 2, 2) %[[D]], ptr %d
kernel void k(global float *p) {
  matA a = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8);
  matB b = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 2);
  matC c = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 2), d;
  d = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED);
  coop_mat_store(p, d, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 2);
}
