// Layout is ROW_MAJOR or COLUMN_MAJOR (a constant); stride is an integer (size_t); a store's
// constant stride is positive. A pointee type other than the component type is only a warning:
// SPV_KHR_cooperative_matrix issue 8 allows it (stride then counts pointee elements); -Wcoop-portability.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float matB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef float matC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int matI __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

kernel void k(global float *p, global uint4 *q, constant float *cp, int layout, int n) {
  matA a;
  a = coop_mat_load(p, 2, 16);
  a = coop_mat_load(p, layout, 16);
  a = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16.0f);
  a = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, -1);
  a = coop_mat_load(n, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  a = coop_mat_load(q, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 4);
  coop_mat_store(p, a, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 0);
  coop_mat_store(cp, a, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  coop_mat_store(p, n, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  coop_mat_store(p, a, CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR, n);
}

// CHECK: {{.*}}coop-load-store-args.cl:13:24: error: memory layout should be ROW_MAJOR or COLUMN_MAJOR
// CHECK: {{.*}}coop-load-store-args.cl:14:24: error: memory layout should be ROW_MAJOR or COLUMN_MAJOR
// CHECK: {{.*}}coop-load-store-args.cl:15:65: error: stride argument must have type 'size_t' ('float' invalid)
// CHECK: {{.*}}coop-load-store-args.cl:16:65: error: stride argument must not be negative
// CHECK: {{.*}}coop-load-store-args.cl:17:21: error: first argument of 'coop_mat_load' must be a pointer ('int' invalid)
// CHECK: {{.*}}coop-load-store-args.cl:18:21: warning: inconsistent between cooperative matrix element type and buffer pointer type [-Wcoop-portability]
// CHECK: {{.*}}coop-load-store-args.cl:18:21: note: matrix element type is 'float', buffer pointer type is '__global uint4 *'
// CHECK: {{.*}}coop-load-store-args.cl:19:65: error: stride of 'coop_mat_store' must be greater than zero
// CHECK: {{.*}}coop-load-store-args.cl:20:18: error: cannot store a cooperative matrix to '__constant' memory
// CHECK: {{.*}}coop-load-store-args.cl:21:21: error: argument must be a valid cooperative matrix type
// CHECK: 6 warnings and 8 errors generated.
