// __constant objects and pointers to const are read-only (OpenCL C 3.0 6.7.3; C99 6.5.16);
// clang points at the assignment operator.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

__constant float table[2] = {1.0f, 2.0f};

kernel void k(constant float *c, const global float *g, global float *o) {
  c[0] = 1.0f;
  g[1] += 2.0f;
  table[0] = o[0];
  o[0] = c[0] + g[1] + table[1];
}

// CHECK: {{.*}}read-only.cl:8:8: error: read-only variable is not assignable
// CHECK: {{.*}}read-only.cl:9:8: error: read-only variable is not assignable
// CHECK: {{.*}}read-only.cl:10:12: error: read-only variable is not assignable
// CHECK: 3 errors generated.
