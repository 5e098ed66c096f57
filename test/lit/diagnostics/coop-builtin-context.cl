// coop_mat_load and coop_mat_init take their type from the matrix they initialize, are assigned
// to, are returned as, or are passed as, from the other matrix operand of + - * / (and of a
// compound assignment), and as the accumulator of a mul-add whose result type the context
// gives; anywhere else there is no type to give them, and the pull request's words say so.
// (test/unit/interp/test_coop_calls.py runs the accepted forms against NumPy.)
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float matB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef float matC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int matI __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

static matC load_c(global float *p) { return coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8); }
static void take(matC m) {}

kernel void k(global float *p) {
  matA a = coop_mat_load(p, 0, 16); matB b = coop_mat_load(p, 0, 8); matC c = coop_mat_init(1.0f);
  take(coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8));
  coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8);
  float x = coop_mat_init(2.0f);
  c = c + coop_mat_init(1.0f);
  coop_mat_store(p, coop_mat_load(p, 0, 8), 0, 8);
  c = coop_mat_init(2.0f) * c - c / coop_mat_init(x);
  c += coop_mat_init(x);
  c = coop_mat_mulAdd(a, b, coop_mat_init(0.0f)) + 2.0f * coop_mat_init(1.0f);
  coop_mat_store(p, coop_mat_mulAdd(a, b, coop_mat_init(0.0f)), 0, 8);
  coop_mat_init(1.0f) + coop_mat_init(2.0f);
}

// CHECK-NOT: coop-builtin-context.cl:{{17|18|21|23|24|25}}:{{.*}}error
// CHECK: {{.*}}coop-builtin-context.cl:19:3: error: builtin return value should be assigned to cooperative matrix type variable
// CHECK: {{.*}}coop-builtin-context.cl:20:13: error: builtin return value should be assigned to cooperative matrix type variable
// CHECK-NOT: coop-builtin-context.cl:21:
// CHECK: {{.*}}coop-builtin-context.cl:22:21: error: builtin return value should be assigned to cooperative matrix type variable
// CHECK-NOT: coop-builtin-context.cl:{{23|24|25}}:
// CHECK: {{.*}}coop-builtin-context.cl:26:43: error: builtin return value should be assigned to cooperative matrix type variable
// CHECK: {{.*}}coop-builtin-context.cl:27:3: error: builtin return value should be assigned to cooperative matrix type variable
// CHECK: {{[0-9]+}} warnings and 5 errors generated.
