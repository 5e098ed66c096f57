// Program-scope __constant data on the Vulkan target is an initialized Private variable (a
// module has no global memory of its own), read through access chains into it.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK: %[[INIT:[0-9]+]] = OpConstantComposite %_arr_float_uint_4 %float_0_5 %float_1 %float_2 %float_4
// CHECK: %table = OpVariable %_ptr_Private__arr_float_uint_4 Private %[[INIT]]
// CHECK: OpInBoundsAccessChain %_ptr_Private_float %table
// CHECK-NOT: OpDecorate %table LinkageAttributes

__constant float table[4] = {0.5f, 1.0f, 2.0f, 4.0f};

__kernel void scale(__global float *x)
{
    size_t i = get_global_id(0);
    x[i] *= table[i & 3];
}
