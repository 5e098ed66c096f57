// m[i] reads and writes the i-th component the work-item holds (issue 2 item 5): the index is an
// integer (converted to size_t), not a negative constant, and m a matrix variable.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float matC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

static matC make(void) { matC m = coop_mat_init(1.0f); return m; }

kernel void k(global float *p) {
  matC m = coop_mat_init(0.0f);
  for (uint i = 0; i < coop_mat_length(m); ++i)
    m[i] = m[i] * 2.0f + 1.0f;
  m[1.5f] = 0.0f;
  m[-1] = 0.0f;
  float x = make()[0];
  float *q = &m[0];
  coop_mat_store(p, m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 8);
}

// CHECK: {{.*}}coop-element-access.cl:13:5: error: array subscript is not an integer
// CHECK: {{.*}}coop-element-access.cl:14:5: error: cooperative matrix element index -1 is negative
// CHECK: {{.*}}coop-element-access.cl:15:13: error: cooperative matrix element access requires a matrix variable
// CHECK: {{.*}}coop-element-access.cl:16:14: error: cannot take the address of a cooperative matrix element
// CHECK: 4 errors generated.
