// A workgroup-scope matrix is spread over the whole work-group, so a kernel that uses one (in
// its body or in a function it calls) needs reqd_work_group_size (SPIR-V: OpExecutionMode
// LocalSize). Matrices of the two scopes do not mix in one operation.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float wacc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float wa __attribute__((coop_mat(memory_scope_work_group, 16, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float sacc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float sb __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));

void store_zero(global float *p) {
  wacc z = coop_mat_init(0.0f);
  coop_mat_store(p, z, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
}

kernel void through_call(global float *p) { store_zero(p); }

kernel void direct(global float *p) {
  p[0] = 1.0f;
  p[1] = coop_mat_length((wacc)coop_mat_init(2.0f));
}

kernel void subgroup_only(global float *p) { sacc m = coop_mat_init(1.0f); }

__attribute__((reqd_work_group_size(32, 2, 1)))
kernel void mixed(global float *p) {
  store_zero(p);
  wacc w = coop_mat_init(1.0f);
  sacc s = coop_mat_init(1.0f);
  wa a = coop_mat_init(1.0f);
  sb b = coop_mat_init(1.0f);
  w = w + s;
  w = s;
  w = coop_mat_mulAdd(a, b, w);
}

// CHECK: {{.*}}coop-workgroup-scope.cl:32:9: error: incompatible cooperative matrix types
// CHECK: {{.*}}coop-workgroup-scope.cl:32:7: note: operand types are 'wacc' and 'sacc' (of workgroup and subgroup scope)
// CHECK: {{.*}}coop-workgroup-scope.cl:33:7: error: incompatible cooperative matrix types
// CHECK: {{.*}}coop-workgroup-scope.cl:34:29: error: cooperative matrices of a multiply-add must have the same scope
// CHECK: {{.*}}coop-workgroup-scope.cl:16:13: error: kernel 'through_call' uses a workgroup-scope cooperative matrix and must have the 'reqd_work_group_size' attribute
// CHECK: {{.*}}coop-workgroup-scope.cl:12:8: note: workgroup-scope matrix type 'wacc' used here
// CHECK: {{.*}}coop-workgroup-scope.cl:18:13: error: kernel 'direct' uses a workgroup-scope cooperative matrix and must have the 'reqd_work_group_size' attribute
// CHECK: {{.*}}coop-workgroup-scope.cl:20:{{[0-9]+}}: note: workgroup-scope matrix type 'wacc' used here
// CHECK-NOT: subgroup_only
// CHECK: 5 errors generated.
