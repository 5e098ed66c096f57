// Cooperative-matrix component types are scalar numeric types (issue 2 item 3; clang PR #221328).
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef bool bmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef float4 vmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef float *pmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_A)));
// Every scalar numeric type is fine:
typedef char cm __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef ulong um __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef double dm __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef half hm __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_A)));

// CHECK: {{.*}}coop-type-element.cl:4:9: error: 'bool' is invalid cooperative matrix element type
// CHECK: {{.*}}coop-type-element.cl:5:9: error: 'float4' is invalid cooperative matrix element type
// CHECK: {{.*}}coop-type-element.cl:6:9: error: '__generic float *' is invalid cooperative matrix element type
// CHECK: 3 errors generated.
