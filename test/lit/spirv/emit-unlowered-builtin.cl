// --emit-spirv (Kernel flavour) refuses, by name, an OpenCL C built-in llc-22 leaves an imported
// function (the OpenCL 1.x atomic_min on a __local uint, sub_group_barrier): a module importing
// it would not link, as no library defines it. The Vulkan target lowers both itself.
// REQUIRES: llc, spirv-tools
// RUN: %not %clcoop %s --emit-spirv -o %t.spv 2>&1 | FileCheck %s
// RUN: %clcoop %s --emit-spirv --target-env vulkan1.3 -o %t.vk.spv
// CHECK: error: llc-22 leaves the OpenCL C built-ins atomic_min, sub_group_barrier unlowered
kernel void k(global const uint *in, global uint *out)
{
    local uint low[64];
    low[get_local_id(0)] = 0xFFFFFFFFu;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_min(&low[get_local_id(0) % 4], in[get_global_id(0)]);
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = low[get_local_id(0) % 4];
}
