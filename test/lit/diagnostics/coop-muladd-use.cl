// coop_mat_mulAdd / coop_matmul_add take an A, a B and an ACCUMULATOR matrix, in that order.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float matB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef float matC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int matI __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

kernel void k(global float *p) {
  matA a; matB b; matC c;
  c = coop_mat_mulAdd(b, b, c);
  c = coop_mat_mulAdd(a, a, c);
  c = coop_matmul_add(a, b, a, CLK_COOPERATIVE_MATRIX_OPERAND_NONE);
  c = coop_mat_mulAdd(a, b, 1.0f);
  c = coop_mat_mulAdd(a, b);
  c = coop_mat_mulAdd(a, b, c, 0, 0);
  c = coop_matmul_add(a, b, c);
}

// CHECK: {{.*}}coop-muladd-use.cl:11:23: error: argument of cooperative matrix must have 'CLK_COOPERATIVE_MATRIX_A' use
// CHECK: {{.*}}coop-muladd-use.cl:5:15: note: 'matB' declared here
// CHECK: {{.*}}coop-muladd-use.cl:12:26: error: argument of cooperative matrix must have 'CLK_COOPERATIVE_MATRIX_B' use
// CHECK: {{.*}}coop-muladd-use.cl:4:15: note: 'matA' declared here
// CHECK: {{.*}}coop-muladd-use.cl:13:29: error: argument of cooperative matrix must have 'CLK_COOPERATIVE_MATRIX_ACCUMULATOR' use
// CHECK: {{.*}}coop-muladd-use.cl:4:15: note: 'matA' declared here
// CHECK: {{.*}}coop-muladd-use.cl:14:29: error: argument must be a valid cooperative matrix type
// CHECK: {{.*}}coop-muladd-use.cl:15:7: error: too few arguments to function call, expected 3, have 2
// CHECK: {{.*}}coop-muladd-use.cl:16:35: error: too many arguments to function call, expected 4, have 5
// CHECK: {{.*}}coop-muladd-use.cl:17:7: error: too few arguments to function call, expected 4, have 3
// CHECK: 7 errors generated.
