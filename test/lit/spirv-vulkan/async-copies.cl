// async_work_group_copy / _strided_copy: a loop in which each work-item copies every
// local-size-th element from its local linear id; wait_group_events: a work-group barrier over
// __local and __global memory (WorkgroupMemory|UniformMemory|AcquireRelease|MakeAvailable|
// MakeVisible = 0x6148 = 24904). No event type is left in the module.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK-NOT: OpTypeEvent
// CHECK: OpLoopMerge
// CHECK-DAG: OpControlBarrier %uint_2 %uint_2 %uint_24904
// CHECK-DAG: OpLoad %float {{.*}} Aligned|NonPrivatePointer 4
// CHECK-DAG: OpStore {{.*}} Aligned|NonPrivatePointer 4

__kernel void k(__global const float *x, __global float *y, __local float *tile)
{
    event_t e = async_work_group_copy(tile, x + get_group_id(0) * 64, 64, 0);
    wait_group_events(1, &e);
    y[get_global_id(0)] = tile[63 - get_local_id(0)];
}
