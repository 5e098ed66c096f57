// The operands mask is an integer constant made of the CLK_COOPERATIVE_MATRIX_OPERAND_* bits.
// Signed-component bits mean nothing for floating-point matrices: a warning (the RFC 4.5 example
// passes MATRIX_RESULT_SIGNED for float matrices).
// RUN: %not %clcoop -Wno-coop-portability %s -o %t 2>&1 | FileCheck %s

typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float matB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef float matC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int matI __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

kernel void k(global float *p, int flags) {
  matA a; matB b; matC c;
  c = coop_mat_mulAdd(a, b, c, flags);
  c = coop_mat_mulAdd(a, b, c, 1.5f);
  c = coop_matmul_add(a, b, c, 32);
  c = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED);
  c = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_SATURATING_ACCUMULATION);
}

// CHECK: {{.*}}coop-muladd-operands.cl:13:32: error: fourth argument of 'coop_mat_mulAdd' must be an integer constant expression
// CHECK: {{.*}}coop-muladd-operands.cl:14:32: error: fourth argument of 'coop_mat_mulAdd' must have enum type
// CHECK: {{.*}}coop-muladd-operands.cl:15:32: error: invalid cooperative matrix operands value 32
// CHECK: {{.*}}coop-muladd-operands.cl:16:32: warning: signed-component operands of a floating-point cooperative matrix are ignored
// CHECK: {{.*}}coop-muladd-operands.cl:17:32: warning: saturating accumulation has no effect on a floating-point cooperative matrix
// CHECK: 2 warnings and 3 errors generated.
