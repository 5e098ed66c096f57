// Workgroup-scope matrices with tensor layouts (SPV_NV_cooperative_matrix2 +
// SPV_NV_tensor_addressing) on the Vulkan target: the layout operations and tensor
// loads/stores are their NV instructions, through PhysicalStorageBuffer pointers with
// Aligned 16 (the extension's alignment), and reqd_work_group_size gives LocalSize (required
// by workgroup scope).
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// CHECK-DAG: OpCapability CooperativeMatrixTensorAddressingNV
// CHECK-DAG: OpCapability TensorAddressingNV
// CHECK-DAG: OpExtension "SPV_NV_cooperative_matrix2"
// CHECK-DAG: OpExtension "SPV_NV_tensor_addressing"
// CHECK: OpExecutionMode %k LocalSize 128 1 1
// CHECK: OpTypeCooperativeMatrixKHR %half %uint_2 %uint_64 %uint_32 %uint_0
// CHECK: OpCreateTensorLayoutNV
// CHECK: OpTensorLayoutSetDimensionNV
// CHECK: OpTensorLayoutSliceNV
// CHECK: OpCooperativeMatrixLoadTensorNV %{{.*}} Aligned|NonPrivatePointer 16 None
// CHECK: OpCooperativeMatrixStoreTensorNV %{{.*}} Aligned|NonPrivatePointer 16 None

typedef half mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP, 64, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef coop_tensor_layout_t layout2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));

__attribute__((reqd_work_group_size(128, 1, 1)))
__kernel void k(__global const half *A, __global half *B, uint rows, uint cols)
{
    layout2 layout = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), rows, cols);
    layout2 tile = coop_tensor_layout_slice(layout, 64 * get_group_id(0), 64, 0, 32);
    mat_a a = coop_mat_load_tensor(A, tile);
    coop_mat_store_tensor(B, a, tile);
}
