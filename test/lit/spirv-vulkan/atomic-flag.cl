// atomic_flag_test_and_set: OpAtomicExchange of 1 (seq_cst as AcquireRelease|UniformMemory|
// MakeAvailable|MakeVisible = 0x6048 on a buffer), the result whether the old value was not 0;
// atomic_flag_clear_explicit(release): OpAtomicStore of 0 with Release|UniformMemory|
// MakeAvailable = 0x2044 at the given scope (Workgroup = 2).
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK: %[[OLD:[0-9]+]] = OpAtomicExchange %uint %{{[0-9]+}} %uint_1 %uint_24648 %uint_1
// CHECK: OpINotEqual %bool %[[OLD]] %uint_0
// CHECK: OpAtomicStore %{{[0-9]+}} %uint_2 %uint_8260 %uint_0

__kernel void k(__global int *flags, __global int *out)
{
    out[get_global_id(0)] = atomic_flag_test_and_set((volatile __global atomic_flag *)flags);
    atomic_flag_clear_explicit((volatile __global atomic_flag *)(flags + 1), memory_order_release,
                               memory_scope_work_group);
}
