// Checking goes on after an error (per statement and declaration), so one run reports several.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float matC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef bool bad __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_A)));

kernel void k(global float *p, matC m) {
  matC c = coop_mat_load(p, 5, 8);
  c = c % c;
  if (c) { c = c * 2.0f; }
  for (int i = 0; i < 4; i++) c = c / 2.0f;
  coop_mat_store(p, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8);
}

void later(void) { y = 2; }

// CHECK: {{.*}}multiple-errors.cl:5:9: error: 'bool' is invalid cooperative matrix element type
// CHECK: {{.*}}multiple-errors.cl:7:37: error: 'matC' cannot be used as the type of a kernel parameter
// CHECK: {{.*}}multiple-errors.cl:4:15: note: 'matC' declared here
// CHECK: {{.*}}multiple-errors.cl:8:29: error: memory layout should be ROW_MAJOR or COLUMN_MAJOR
// CHECK: {{.*}}multiple-errors.cl:9:9: error: unsupported cooperative matrix binary operator
// CHECK: {{.*}}multiple-errors.cl:10:7: error: statement requires expression of scalar type ('matC' invalid)
// CHECK: {{.*}}multiple-errors.cl:11:37: error: unsupported cooperative matrix scalar operator
// CHECK: {{.*}}multiple-errors.cl:15:20: error: use of undeclared identifier 'y'
// CHECK: 7 errors generated.
