// Multiply-add: A and B share one component type, C (and the result) may be wider but of the same
// kind (half x half -> float and char x char -> int are fine); shapes are MxK, KxN, MxN.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float matB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef float matC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int matI __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef half hA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float wideB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float tallB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_B)));

kernel void k(global float *p) {
  matA a; matB b; matC c; matI ci; hA ha; wideB wb; tallB tb;
  c = coop_mat_mulAdd(ha, b, c);
  ci = coop_mat_mulAdd(a, b, ci);
  c = coop_mat_mulAdd(a, tb, c);
  c = coop_mat_mulAdd(a, wb, c);
  ci = coop_mat_mulAdd(a, b, c);
}

// CHECK: {{.*}}coop-muladd-types-shapes.cl:15:27: error: inconsistent cooperative matrix element types
// CHECK: {{.*}}coop-muladd-types-shapes.cl:15:7: note: element types are 'half', 'float' and 'float'
// CHECK: {{.*}}coop-muladd-types-shapes.cl:16:30: error: inconsistent cooperative matrix element types
// CHECK: {{.*}}coop-muladd-types-shapes.cl:16:8: note: element types are 'float', 'float' and 'int'
// CHECK: {{.*}}coop-muladd-types-shapes.cl:17:26: error: two cooperative matrices with incompatible shapes
// CHECK: {{.*}}coop-muladd-types-shapes.cl:17:23: note: A is 8x16, B is 8x8: B must have 16 rows
// CHECK: {{.*}}coop-muladd-types-shapes.cl:18:30: error: two cooperative matrices with incompatible shapes
// CHECK: {{.*}}coop-muladd-types-shapes.cl:18:23: note: A x B is 8x16, C is 8x8
// CHECK: {{.*}}coop-muladd-types-shapes.cl:19:8: error: incompatible cooperative matrix types
// CHECK: {{.*}}coop-muladd-types-shapes.cl:19:8: note: 'matC' converted to 'matI'
// CHECK: 5 errors generated.
