// A cooperative matrix cannot be a kernel parameter (it is a per-subgroup value, not host data);
// it may be a parameter of other functions.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));

static matA helper(matA m) { return m; }

kernel void k(global float *p, matA m) {}

// CHECK: {{.*}}coop-kernel-param.cl:9:37: error: 'matA' cannot be used as the type of a kernel parameter
// CHECK: {{.*}}coop-kernel-param.cl:5:15: note: 'matA' declared here
// CHECK: 1 error generated.
