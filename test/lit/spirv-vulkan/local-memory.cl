// __local memory: a __local argument is a Workgroup array whose length is the spec constant
// SpecId 100 + argument index; a __local array of the kernel is a Workgroup variable; barrier
// is OpControlBarrier Workgroup Workgroup AcquireRelease|WorkgroupMemory|MakeAvailable|MakeVisible
// (0x6108), with UniformMemory (0x40) added for CLK_GLOBAL_MEM_FENCE; Workgroup accesses are
// NonPrivatePointer (the Vulkan memory model orders only those).
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK-DAG: OpDecorate %[[LEN:[0-9]+]] SpecId 101
// CHECK-DAG: %[[LEN]] = OpSpecConstant %uint 1
// CHECK-DAG: %[[ARR:[a-zA-Z_0-9]+]] = OpTypeArray %float %[[LEN]]
// CHECK-DAG: %[[PTR:[a-zA-Z_0-9]+]] = OpTypePointer Workgroup %[[ARR]]
// CHECK-DAG: %shuffle_vk_local_1 = OpVariable %[[PTR]] Workgroup
// CHECK-DAG: %shuffle_staged = OpVariable %_ptr_Workgroup__arr_float_uint_32 Workgroup
// CHECK: OpStore %{{[0-9]+}} %{{[0-9]+}} Aligned|NonPrivatePointer 4
// CHECK: OpControlBarrier %uint_2 %uint_2 %uint_24840
// CHECK: OpControlBarrier %uint_2 %uint_2 %uint_24904

__kernel void shuffle(__global float *data, __local float *scratch)
{
    __local float staged[32];
    size_t l = get_local_id(0);
    scratch[l] = data[get_global_id(0)];
    staged[l % 32] = scratch[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    data[get_global_id(0)] = scratch[get_local_size(0) - 1 - l] + staged[0];
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}
