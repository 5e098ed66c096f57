// RFC section 4.3: the cooperative matrix type lowers to a target extension type.
// RUN: %clcoop %s -o - | FileCheck %s
//
// RFC text: target("spirv.CooperativeMatrixKHR", half, 2, 4, 0, 0)
// Deviation: the RFC omits the scope parameter. The SPIR-V backend's type is
// (component, scope, rows, cols, use) with scope 3 = Subgroup (docs/ir-conventions.md), so
// `matA` (2x4, use A) is target("spirv.CooperativeMatrixKHR", half, 3, 2, 4, 0).

typedef half matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 2, 4, CLK_COOPERATIVE_MATRIX_A)));

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: %m = alloca target("spirv.CooperativeMatrixKHR", half, 3, 2, 4, 0)
kernel void k(global half *p) {
  matA m;
  m = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 4);
}
