// Math built-ins are GLSL.std.450 instructions (never OpenCL.std; exp and the other functions of
// exact-math.cl are sequences, native_exp is Exp); a scalar operand of a vector
// built-in is replicated; fmin/fmax are NMin/NMax (OpenCL's NaN rule).
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK: %[[GLSL:[0-9]+]] = OpExtInstImport "GLSL.std.450"
// CHECK-NOT: OpenCL.std
// CHECK: OpExtInst %float %[[GLSL]] Exp
// CHECK: OpExtInst %float %[[GLSL]] NMax
// CHECK: %[[SPLAT:[0-9]+]] = OpCompositeConstruct %v4float
// CHECK: OpExtInst %v4float %[[GLSL]] NMin %{{[0-9]+}} %[[SPLAT]]
// CHECK: OpExtInst %uint %[[GLSL]] SMax

__kernel void m(__global float *x, __global float4 *v, __global int *k)
{
    size_t g = get_global_id(0);
    x[g] = fmax(native_exp(x[g]), 0.5f);
    v[g] = fmin(v[g], x[0]);
    k[g] = max(k[g], 3);
}
