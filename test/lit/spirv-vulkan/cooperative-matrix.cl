// KHR cooperative matrices on the Vulkan target: loads and stores through PhysicalStorageBuffer
// pointers typed by the OpenCL pointee (the stride counts its elements) with Aligned (16: the
// buffers themselves, no offset), mul-add with
// its signedness operands, element-wise operators, length and element access, conversion.
// REQUIRES: llc, spirv-tools
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK: OpCapability CooperativeMatrixKHR
// CHECK: OpExtension "SPV_KHR_cooperative_matrix"
// CHECK: OpSourceExtension "clcoop-reflect-v1:
// CHECK: OpCooperativeMatrixLoadKHR %{{.*}} %{{[0-9]+}} %uint_0 %{{[0-9]+}} Aligned|NonPrivatePointer 16
// CHECK: OpCooperativeMatrixLoadKHR %{{.*}} %{{[0-9]+}} %uint_1 %{{[0-9]+}} Aligned|NonPrivatePointer 16
// CHECK: OpCooperativeMatrixMulAddKHR %{{.*}} MatrixASignedComponentsKHR|MatrixBSignedComponentsKHR|MatrixCSignedComponentsKHR|MatrixResultSignedComponentsKHR
// CHECK-DAG: OpCooperativeMatrixLengthKHR %uint
// CHECK-DAG: OpAccessChain %_ptr_Function_uint
// CHECK-DAG: OpConvertSToF
// CHECK-DAG: OpCooperativeMatrixStoreKHR %{{[0-9]+}} %{{[0-9]+}} %uint_0 %{{[0-9]+}} Aligned|NonPrivatePointer 16

typedef char amat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef char bmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 32, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef int cmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float fmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
#define SIGNED (CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED | \
                CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED)

__kernel void k(__global const char *A, __global const char *B, __global float *C)
{
    amat a = coop_mat_load(A, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)32);
    bmat b = coop_mat_load(B, CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR, (size_t)32);
    cmat c = coop_mat_mulAdd(a, b, coop_mat_init(0), SIGNED);
    for (uint i = 0; i < coop_mat_length(c); ++i)
        c[i] = c[i] * 2;
    coop_mat_store(C, (fmat)c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
