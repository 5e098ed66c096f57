// exp, log, sin, cos, pow, tanh (and exp2, exp10, log2, log10, tan, sinh, cosh, powr) are
// exact sequences, not GLSL.std.450 instructions,
// whose Vulkan precision is looser than OpenCL C's (docs/vulkan.md "Math"): sin's reduction
// multiplies the significand by the words of 2/pi in 64 bits and turns the fraction into a
// double; a float division by a variable scales both operands when |y| is outside
// [2^-126, 2^126]; a division by a constant in range stays one OpFDiv.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK-NOT: OpExtInst %float %{{[0-9]+}} Exp
// CHECK-NOT: OpExtInst %float %{{[0-9]+}} Log
// CHECK-NOT: OpExtInst %float %{{[0-9]+}} Sin
// CHECK-NOT: OpExtInst %float %{{[0-9]+}} Cos
// CHECK-NOT: OpExtInst %float %{{[0-9]+}} Pow
// CHECK-NOT: OpExtInst %float %{{[0-9]+}} Tanh
// CHECK: OpFunction
// CHECK: OpIMul %ulong %{{[0-9]+}} %ulong_2734261102
// CHECK: OpConvertSToF %double
// CHECK: OpFOrdGreaterThan %bool %{{[0-9]+}} %float_8_50705917e_37
// CHECK: OpFDiv %float
// CHECK: OpFDiv %float %{{[0-9]+}} %float_3

__kernel void m(__global float *x, __global float *y)
{
    size_t g = get_global_id(0);
    float v = x[g];
    y[g] = exp(v) + log(v) + sin(v) + cos(v) + exp2(v) + log2(v) + log10(v) + pow(v, 2.5f) + tanh(v);
    x[g] = v / y[g];
    y[g + 1] = v / 3.0f;
}
