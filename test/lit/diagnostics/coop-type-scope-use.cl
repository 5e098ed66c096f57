// scope must name the subgroup (RFC CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP or the PR's
// memory_scope_sub_group) or the work-group (CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP or
// memory_scope_work_group); no other memory_scope enumerator, although memory_scope_device
// and memory_scope_all_svm_devices have the values of the SPIR-V Workgroup and Subgroup scopes.
// use must be A, B or ACCUMULATOR. The RFC 4.6 quoted form is accepted.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float s1 __attribute__((coop_mat(memory_scope_device, 8, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef float s2 __attribute__((coop_mat("CLK_COOPERATIVE_MATRIX_SCOPE_DEVICE", 8, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef float u1 __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, 3)));
typedef float u2 __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, "CLK_COOPERATIVE_MATRIX_C")));
typedef float s3 __attribute__((coop_mat(memory_scope_all_svm_devices, 8, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef float s4 __attribute__((coop_mat(5, 8, 8, CLK_COOPERATIVE_MATRIX_A)));
// accepted:
typedef float ok1 __attribute__((coop_mat(memory_scope_sub_group, 8, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef float ok2 __attribute__((coop_mat("CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP", 8, 8, "CLK_COOPERATIVE_MATRIX_ACCUMULATOR")));
typedef float ok3 __attribute__((coop_mat(memory_scope_work_group, 8, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef float ok4 __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef float ok5 __attribute__((coop_mat("CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP", 8, 8, CLK_COOPERATIVE_MATRIX_A)));

// CHECK: {{.*}}coop-type-scope-use.cl:8:42: error: invalid 'scope' argument of cooperative matrix attribute
// CHECK: {{.*}}coop-type-scope-use.cl:9:42: error: invalid 'scope' argument of cooperative matrix attribute
// CHECK: {{.*}}coop-type-scope-use.cl:10:87: error: invalid 'use' argument of cooperative matrix attribute
// CHECK: {{.*}}coop-type-scope-use.cl:11:87: error: invalid 'use' argument of cooperative matrix attribute
// CHECK: {{.*}}coop-type-scope-use.cl:12:42: error: invalid 'scope' argument of cooperative matrix attribute
// CHECK: {{.*}}coop-type-scope-use.cl:13:42: error: invalid 'scope' argument of cooperative matrix attribute
// CHECK: 6 errors generated.
