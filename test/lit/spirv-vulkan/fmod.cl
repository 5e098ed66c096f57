// fmod is exact (no GLSL.std.450 instruction has it): integer significands, the remainder
// taken with 64-bit OpUMod in a loop over the exponent difference, the result scaled back.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK-NOT: OpFRem
// CHECK-NOT: OpFMod
// CHECK: OpUMod %ulong
// CHECK: OpLoopMerge
// CHECK-DAG: OpUMod %ulong
// CHECK-DAG: OpConvertUToF %float

__kernel void k(__global float *x, __global const float *y)
{
    size_t i = get_global_id(0);
    x[i] = fmod(x[i], y[i]);
}
