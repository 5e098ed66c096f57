// RFC section 4.6, operators.
// RUN: %clcoop %s -o - | FileCheck %s
//
// RFC text:
//   %2 = call target("spirv.CooperativeMatrixKHR", float, 4, 8, 0, 0) @_Z34__spirv_CooperativeMatrixScalarMul(target(...) % 1, i32 4)
//   store target("spirv.CooperativeMatrixKHR", float, 4, 8, 0, 0) %2, ptr %c
//   %4 = call target(...) @_Z34__spirv_CooperativeMatrixScalarNeg(target(...) %3)
//   store target(...) %4, ptr %c
//   %6 = load target(...), ptr %c
//   %7 = call target(...) @_Z34__spirv_CooperativeMatrixBinaryAdd(target(...) %5, target(...) %6)
//   store target(...) %7, ptr %c
// Deviations:
// - `a * 4` on a float matrix passes the scalar converted to the component type: `float 4.000000e+00`,
//   not `i32 4` (the RFC: "the scalar type matching the component type of the matrix").
// - The RFC's attribute arguments are string literals ("CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP");
//   they are enum constants here.
// - Scope in the types (3, 4, 8, 0); spir_func calls; callee names carry the template tail
//   (result first, then each matrix operand) and the scalar's code (`f`).
// - The RFC never declares `a`; here it is a loaded matrix.

typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 4, 8, CLK_COOPERATIVE_MATRIX_A)));

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: %[[A:[0-9]+]] = load target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0), ptr %a
// CHECK-NEXT: %[[M:mul[0-9]*]] = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0) @_Z34__spirv_CooperativeMatrixScalarMulIfLi3ELi4ELi8ELi0EfLi3ELi4ELi8ELi0EEvf(target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0) %[[A]], float 4.000000e+00)
// CHECK-NEXT: store target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0) %[[M]], ptr %c
// CHECK-NEXT: %[[C1:[0-9]+]] = load target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0), ptr %c
// CHECK-NEXT: %[[N:fneg[0-9]*]] = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0) @_Z34__spirv_CooperativeMatrixScalarNegIfLi3ELi4ELi8ELi0EfLi3ELi4ELi8ELi0EEv(target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0) %[[C1]])
// CHECK-NEXT: store target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0) %[[N]], ptr %c
// CHECK-NEXT: %[[X:[0-9]+]] = load target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0), ptr %c
// CHECK-NEXT: %[[Y:[0-9]+]] = load target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0), ptr %c
// CHECK-NEXT: %[[S:add[0-9]*]] = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0) @_Z34__spirv_CooperativeMatrixBinaryAddIfLi3ELi4ELi8ELi0EfLi3ELi4ELi8ELi0EfLi3ELi4ELi8ELi0EEv(target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0) %[[X]], target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0) %[[Y]])
// CHECK-NEXT: store target("spirv.CooperativeMatrixKHR", float, 3, 4, 8, 0) %[[S]], ptr %c
kernel void k(global float *p) {
  matA a = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8);
  matA c = a * 4;
  c = -c;
  c = c + c;
  coop_mat_store(p, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8);
}
