// vloadN/vstoreN on the Vulkan target are element loads/stores (OpenCL C 6.15.11 promises only
// the element's alignment): on a buffer, N addresses in 64-bit integers, each access Aligned to
// the element; on __local memory, access chains into the Workgroup array. copysign negates |x|
// when y's sign bit is set and round steps half away from zero after a trunc (both exact).
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK: OpLoad %float %{{[0-9]+}} Aligned|NonPrivatePointer 4
// CHECK: OpCompositeInsert %v4float
// CHECK: OpStore %{{[0-9]+}} %{{[0-9]+}} Aligned|NonPrivatePointer 4
// CHECK: OpInBoundsAccessChain %_ptr_Workgroup_float %k_vk_local_2
// CHECK-DAG: OpSLessThan %bool
// CHECK-DAG: OpFNegate %float
// CHECK-DAG: OpExtInst %float %{{[0-9]+}} Trunc

__kernel void k(__global float *x, __global float *y, __local float *t)
{
    size_t i = get_global_id(0);
    float4 v = vload4(i, x);
    vstore4(v * 2.0f, i, y);
    float3 w = vload3(0, t);
    vstore3(w, 1, t);
    x[i] = copysign(x[i], y[i]) + round(y[i]);
}
