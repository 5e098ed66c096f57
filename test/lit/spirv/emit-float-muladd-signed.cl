// --emit-spirv of a float mul-add with signedness flags (the RFC 4.5 example passes
// MATRIX_RESULT_SIGNED): SPV_KHR_cooperative_matrix 2.16.1 allows Matrix{A,B,C,Result}SignedComponentsKHR
// only on integer matrices, so they are dropped (the compiler warns they are ignored); saturating
// accumulation stays. spirv-val 2025.5 does not check this rule, hence the CHECK lines.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv -o %t.spv 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %spirv-val %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float matB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float matC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

// WARN: warning: signed-component operands of a floating-point cooperative matrix are ignored
// CHECK-NOT: SignedComponentsKHR
// CHECK: OpCooperativeMatrixMulAddKHR %{{[A-Za-z_0-9]+}} %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} NoneKHR{{$}}
// CHECK: OpCooperativeMatrixMulAddKHR %{{[A-Za-z_0-9]+}} %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} SaturatingAccumulationKHR{{$}}
// CHECK-NOT: SignedComponentsKHR
kernel void k(global float *p) {
  matA a = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  matB b = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  matC c = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  c = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED);
  c = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED |
                               CLK_COOPERATIVE_MATRIX_OPERAND_SATURATING_ACCUMULATION);
  coop_mat_store(p, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
}
