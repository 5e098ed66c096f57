// Kernel attributes (OpenCL C 3.0 6.11.2): reqd_work_group_size takes three positive constants,
// intel_reqd_sub_group_size one; they apply to kernels only. Unknown attributes are ignored
// with clang's warning.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

__kernel __attribute__((reqd_work_group_size(16, 1))) void two_args(global int *p) {}
__kernel __attribute__((reqd_work_group_size(16, 0, 1))) void zero(global int *p) {}
__kernel __attribute__((intel_reqd_sub_group_size(-8))) void negative(global int *p) {}
__attribute__((reqd_work_group_size(8, 1, 1))) void not_a_kernel(void) {}
__kernel __attribute__((frobnicate)) void unknown(global int *p) {}
__kernel __attribute__((reqd_work_group_size(8, 8, 1))) __attribute__((intel_reqd_sub_group_size(16))) void fine(global int *p) {}

// CHECK: {{.*}}kernel-attributes.cl:6:25: error: 'reqd_work_group_size' attribute requires exactly 3 arguments
// CHECK: {{.*}}kernel-attributes.cl:7:50: error: 'reqd_work_group_size' attribute must be greater than 0
// CHECK: {{.*}}kernel-attributes.cl:8:51: error: 'intel_reqd_sub_group_size' attribute requires a positive integral compile time constant expression
// CHECK: {{.*}}kernel-attributes.cl:9:16: error: 'reqd_work_group_size' attribute only applies to kernel functions
// CHECK: {{.*}}kernel-attributes.cl:10:25: warning: unknown attribute 'frobnicate' ignored
// CHECK: 1 warning and 4 errors generated.
