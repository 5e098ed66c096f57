// coop_mat_load and coop_mat_init take their type from the matrix they initialize, are assigned
// to, are returned as, or are passed as; anywhere else there is no type to give them.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float matB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef float matC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int matI __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

static matC load_c(global float *p) { return coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8); }
static void take(matC m) {}

kernel void k(global float *p) {
  matC c = coop_mat_init(1.0f);
  take(coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8));
  coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8);
  float x = coop_mat_init(2.0f);
  c = c + coop_mat_init(1.0f);
  coop_mat_store(p, coop_mat_load(p, 0, 8), 0, 8);
}

// CHECK: {{.*}}coop-builtin-context.cl:16:3: error: builtin return value should be assigned to cooperative matrix type variable
// CHECK: {{.*}}coop-builtin-context.cl:17:13: error: builtin return value should be assigned to cooperative matrix type variable
// CHECK: {{.*}}coop-builtin-context.cl:18:11: error: builtin return value should be assigned to cooperative matrix type variable
// CHECK: {{.*}}coop-builtin-context.cl:19:21: error: builtin return value should be assigned to cooperative matrix type variable
// CHECK: 4 errors generated.
