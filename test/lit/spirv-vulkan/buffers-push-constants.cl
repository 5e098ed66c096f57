// The Vulkan target's module shape: Shader, PhysicalStorageBuffer64 + Vulkan memory model, one
// GLCompute entry point, the arguments in one push-constant Block (device addresses as 64-bit
// members, scalars as their own type, the global offset last), each address made a
// PhysicalStorageBuffer pointer with OpConvertUToPtr, and Aligned on every access through it,
// NonPrivatePointer as the Vulkan memory model needs for accesses barriers and atomics order.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK: OpCapability Shader
// CHECK: OpCapability PhysicalStorageBufferAddresses
// CHECK: OpCapability VulkanMemoryModel
// CHECK-NOT: OpCapability Linkage
// CHECK: OpMemoryModel PhysicalStorageBuffer64 Vulkan
// CHECK: OpEntryPoint GLCompute %add "add"
// CHECK: OpDecorate %[[BLOCK:add_vk_args]] Block
// CHECK: OpMemberDecorate %[[BLOCK]] 0 Offset 0
// CHECK: OpMemberDecorate %[[BLOCK]] 1 Offset 8
// CHECK: OpMemberDecorate %[[BLOCK]] 2 Offset 16
// CHECK: OpMemberDecorate %[[BLOCK]] 3 Offset 20
// CHECK: %[[BLOCK]] = OpTypeStruct %ulong %ulong %float %_arr_uint_uint_3
// CHECK: OpVariable %_ptr_PushConstant_[[BLOCK]] PushConstant
// CHECK: OpConvertUToPtr %_ptr_PhysicalStorageBuffer_float
// CHECK: OpLoad %float %{{[0-9]+}} Aligned|NonPrivatePointer 4
// CHECK: OpStore %{{[0-9]+}} %{{[0-9]+}} Aligned|NonPrivatePointer 4
// CHECK-NOT: CrossWorkgroup

__kernel void add(__global const float *in, __global float *out, float bias)
{
    size_t i = get_global_id(0);
    out[i] = in[i] + bias;
}
