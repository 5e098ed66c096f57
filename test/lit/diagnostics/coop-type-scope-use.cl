// scope must name the subgroup (RFC CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP or the PR's
// memory_scope_sub_group); use must be A, B or ACCUMULATOR. The RFC 4.6 quoted form is accepted.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float s1 __attribute__((coop_mat(memory_scope_work_group, 8, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef float s2 __attribute__((coop_mat("CLK_COOPERATIVE_MATRIX_SCOPE_DEVICE", 8, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef float u1 __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, 3)));
typedef float u2 __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, "CLK_COOPERATIVE_MATRIX_C")));
// accepted:
typedef float ok1 __attribute__((coop_mat(memory_scope_sub_group, 8, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef float ok2 __attribute__((coop_mat("CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP", 8, 8, "CLK_COOPERATIVE_MATRIX_ACCUMULATOR")));

// CHECK: {{.*}}coop-type-scope-use.cl:5:42: error: invalid 'scope' argument of cooperative matrix attribute
// CHECK: {{.*}}coop-type-scope-use.cl:6:42: error: invalid 'scope' argument of cooperative matrix attribute
// CHECK: {{.*}}coop-type-scope-use.cl:7:87: error: invalid 'use' argument of cooperative matrix attribute
// CHECK: {{.*}}coop-type-scope-use.cl:8:87: error: invalid 'use' argument of cooperative matrix attribute
// CHECK: 4 errors generated.
