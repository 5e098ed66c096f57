// Atomics on the Vulkan target: OpenCL 1.x forms are relaxed at the pointer's scope (Device
// for a buffer, with VulkanMemoryModelDeviceScope; Workgroup for __local); C11 forms keep
// their order, seq_cst becoming acquire-release (the Vulkan memory model has no seq_cst), with
// the storage class's semantics bit (UniformMemory 0x40, WorkgroupMemory 0x100) and the
// availability (release) and visibility (acquire) operations (0x2000, 0x4000).
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK: OpCapability VulkanMemoryModelDeviceScope
// CHECK: OpAtomicIAdd %uint %{{[a-z_0-9]+}} %uint_1 %uint_0 %
// CHECK: OpAtomicUMin %uint %{{[a-z_0-9]+}} %uint_2 %uint_0 %
// CHECK: OpAtomicCompareExchange %uint %{{[a-z_0-9]+}} %uint_1 %uint_0 %uint_0 %
// CHECK: OpAtomicIAdd %uint %{{[a-z_0-9]+}} %uint_1 %uint_24648 %
// CHECK: OpAtomicLoad %uint %{{[a-z_0-9]+}} %uint_2 %uint_16642
// CHECK: OpAtomicIIncrement %uint %{{[a-z_0-9]+}} %uint_2 %uint_0

__kernel void k(__global int *counter, __global uint *low, __global atomic_int *c11, __local uint *slots)
{
    __local atomic_uint seen;
    atomic_add(counter, 1);
    atomic_min(&slots[get_local_id(0)], low[get_global_id(0)]);
    atomic_cmpxchg(counter, 0, 2);
    atomic_fetch_add(c11, 3);
    low[0] = atomic_load_explicit(&seen, memory_order_acquire, memory_scope_work_group);
    atomic_inc(&slots[0]);
}
