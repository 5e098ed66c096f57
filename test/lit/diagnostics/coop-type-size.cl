// rows and cols are positive integer constant expressions.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float z __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 0, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef float n __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, -8, CLK_COOPERATIVE_MATRIX_A)));
typedef float big __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 1 << 20, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef float fl __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 2.5f, CLK_COOPERATIVE_MATRIX_A)));
typedef float three __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8)));
void f(int rows) {
  float m __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, rows, 8, CLK_COOPERATIVE_MATRIX_A)));
}
// constant expressions are fine:
typedef float ok __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 2 * 4, sizeof(int) * 4, CLK_COOPERATIVE_MATRIX_A)));

// CHECK: {{.*}}coop-type-size.cl:4:80: error: zero matrix size
// CHECK: {{.*}}coop-type-size.cl:5:83: error: matrix column size must be positive
// CHECK: {{.*}}coop-type-size.cl:6:84: error: matrix row size too large
// CHECK: {{.*}}coop-type-size.cl:7:84: error: 'coop_mat' attribute requires an integer constant
// CHECK: {{.*}}coop-type-size.cl:8:36: error: 'coop_mat' attribute requires exactly 4 arguments
// CHECK: {{.*}}coop-type-size.cl:10:74: error: 'coop_mat' attribute requires an integer constant
// CHECK: 6 errors generated.
