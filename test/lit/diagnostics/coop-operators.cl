// Operators on matrices (RFC 4.6): + - * / between identical types, unary -, matrix * scalar.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float matB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef float matC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int matI __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

kernel void k(global float *p, float s) {
  matC c; matC d; matI i; matA a;
  c = c & d;
  c = c % d;
  c = c << d;
  int eq = c == d;
  c = c / 2.0f;
  c = c + 1;
  c = 1 - c;
  c = ~c;
  c = !c;
  c++;
  c = c + i;
  c = a;
  c = c * s + d * 2 - (-c) / d;
}

// CHECK: {{.*}}coop-operators.cl:11:9: error: unsupported cooperative matrix binary operator
// CHECK: {{.*}}coop-operators.cl:12:9: error: unsupported cooperative matrix binary operator
// CHECK: {{.*}}coop-operators.cl:13:9: error: unsupported cooperative matrix binary operator
// CHECK: {{.*}}coop-operators.cl:14:14: error: unsupported cooperative matrix binary operator
// CHECK: {{.*}}coop-operators.cl:15:9: error: unsupported cooperative matrix scalar operator
// CHECK: {{.*}}coop-operators.cl:16:9: error: unsupported cooperative matrix scalar operator
// CHECK: {{.*}}coop-operators.cl:17:9: error: unsupported cooperative matrix scalar operator
// CHECK: {{.*}}coop-operators.cl:18:7: error: unsupported cooperative matrix unary operator
// CHECK: {{.*}}coop-operators.cl:19:7: error: unsupported cooperative matrix unary operator
// CHECK: {{.*}}coop-operators.cl:20:3: error: unsupported cooperative matrix unary operator
// CHECK: {{.*}}coop-operators.cl:21:9: error: incompatible cooperative matrix types
// CHECK: {{.*}}coop-operators.cl:21:7: note: operand types are 'matC' and 'matI'
// CHECK: {{.*}}coop-operators.cl:22:7: error: incompatible cooperative matrix types
// CHECK: {{.*}}coop-operators.cl:22:7: note: 'matA' converted to 'matC'
// CHECK: 12 errors generated.
