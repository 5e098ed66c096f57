// Function operands on the Vulkan target (llc-22 takes no SPV_INTEL_function_pointers there):
// coop_mat_reduce's combine function and coop_mat_per_element's function are the ids of their
// OpFunctions, and a tensor load's decode function takes a PhysicalStorageBuffer pointer to
// its block, `uchar[sizeof(block)]` with ArrayStride 1, so that a driver steps one block at a time.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// CHECK-DAG: OpCapability CooperativeMatrixReductionsNV
// CHECK-DAG: OpCapability CooperativeMatrixPerElementOperationsNV
// CHECK-DAG: OpCapability CooperativeMatrixBlockLoadsNV
// CHECK-DAG: OpDecorate %[[BLOCK:[a-zA-Z_0-9]+]] ArrayStride 1
// CHECK-DAG: %[[BLOCK]] = OpTypeArray %uchar %uint_6
// CHECK-DAG: %[[BLOCK_PTR:[a-zA-Z_0-9]+]] = OpTypePointer PhysicalStorageBuffer %[[BLOCK]]
// CHECK-DAG: OpCooperativeMatrixReduceNV %{{.*}} Row %larger
// CHECK-DAG: OpCooperativeMatrixPerElementOpNV %{{.*}} %scaled
// CHECK-DAG: OpCooperativeMatrixLoadTensorNV %{{.*}} Aligned|NonPrivatePointer 16 DecodeFunc %decode_pair_decode
// CHECK: %decode_pair_decode = OpFunction %half
// CHECK-NEXT: OpFunctionParameter %[[BLOCK_PTR]]

typedef half mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t layout2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED)));
typedef struct { half scale; uchar q[4]; } pair_block;

half decode_pair(const __global pair_block *block, const uint block_coord[2], const uint coord_in_block[2])
{
    return (half)block->q[coord_in_block[1]] * block->scale;
}
float larger(float a, float b) { return a > b ? a : b; }
float scaled(uint row, uint col, float x) { return x * 2.0f; }

__kernel void k(__global const pair_block *W, __global half *decoded, __global float *out)
{
    layout2 layout = coop_tensor_layout_set_block_size(coop_tensor_layout_create(), 1, 4);
    layout = coop_tensor_layout_set_dimension(layout, 16, 16);
    mat_b b = coop_mat_load_tensor(W, layout, decode_pair);
    coop_mat_store(decoded, b, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
    mat_c c = coop_mat_load(out, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
    c = coop_mat_per_element(c, scaled);
    c = coop_mat_reduce(c, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, larger);
    coop_mat_store(out, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
