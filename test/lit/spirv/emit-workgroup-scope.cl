// Workgroup-scope matrices in SPIR-V: the types carry Scope Workgroup (2), and the kernel's
// reqd_work_group_size becomes OpExecutionMode LocalSize, which spirv-val requires for them
// (SPV_KHR_cooperative_matrix). llc-22 lowers every operation at this scope as at subgroup
// scope; nothing is rewritten. Also a helper function taking and returning one, and -O0 code.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv -o %t.spv
// RUN: %spirv-val %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s
// RUN: %clcoop %s -cl-opt-disable --emit-spirv -o %t0.spv
// RUN: %spirv-val %t0.spv
// RUN: %spirv-dis %t0.spv | FileCheck %s
// Without LocalSize the same module is invalid, which is why the compiler requires
// reqd_work_group_size (test/lit/diagnostics/coop-workgroup-scope.cl):
// RUN: %spirv-dis %t.spv | grep -v LocalSize > %t.nols.spvasm
// RUN: %spirv-as %t.nols.spvasm -o %t.nols.spv
// RUN: %not %spirv-val %t.nols.spv 2>&1 | FileCheck %s --check-prefix=NOLS
// NOLS: OpTypeCooperativeMatrixKHR with ScopeWorkgroup used without specifying LocalSize or LocalSizeId for entry point

#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half amat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP, 40, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef half bmat __attribute__((coop_mat(memory_scope_work_group, 16, 24, CLK_COOPERATIVE_MATRIX_B)));
typedef float cmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP, 40, 24, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int imat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP, 40, 24, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

#define RM CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR

// CHECK: OpCapability CooperativeMatrixKHR
// CHECK: OpEntryPoint Kernel %[[K:[A-Za-z_0-9]+]] "wg_gemm"
// CHECK: OpExecutionMode %[[K]] LocalSize 32 2 1
// CHECK-DAG: %[[TWO:[A-Za-z_0-9]+]] = OpConstant %uint 2
// CHECK-DAG: %[[A:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %half %[[TWO]] %uint_40 %uint_16 %{{[A-Za-z_0-9]+}}
// CHECK-DAG: %[[B:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %half %[[TWO]] %uint_16 %uint_24 %{{[A-Za-z_0-9]+}}
// CHECK-DAG: %[[C:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %float %[[TWO]] %uint_40 %uint_24 %[[TWO]]
// CHECK-DAG: %[[I:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %uint %[[TWO]] %uint_40 %uint_24 %[[TWO]]
// CHECK-DAG: OpCooperativeMatrixLoadKHR %[[A]]
// CHECK-DAG: OpCooperativeMatrixLoadKHR %[[B]]
// CHECK-DAG: OpCooperativeMatrixMulAddKHR %[[C]]
// CHECK-DAG: OpCooperativeMatrixLengthKHR %uint %[[C]]
// CHECK-DAG: OpConvertFToS %[[I]]
// CHECK-DAG: OpCooperativeMatrixStoreKHR

static cmat scaled(cmat m, float s)
{
    for (uint i = 0; i < coop_mat_length(m); ++i)
        m[i] = m[i] * s;
    return m - (cmat)coop_mat_init(1.0f);
}

__attribute__((reqd_work_group_size(32, 2, 1)))
kernel void wg_gemm(global const half *a, global const half *b, global float *c, global int *ci)
{
    amat x = coop_mat_load(a, RM, (size_t)16);
    bmat y = coop_mat_load(b, RM, (size_t)24);
    cmat z = coop_mat_init(0.0f);
    z = coop_mat_mulAdd(x, y, z);
    z = scaled(z * 2.0f, 0.5f) + (-z) / (cmat)coop_mat_init(4.0f);
    coop_mat_store(c, z, RM, (size_t)24);
    coop_mat_store(ci, (imat)z, RM, (size_t)24);
}
