// C11 atomic_compare_exchange_strong/weak[_explicit]: OpAtomicCompareExchange with the success
// order's semantics (seq_cst as AcquireRelease|UniformMemory|MakeAvailable|MakeVisible = 0x6048
// on a buffer) and Unequal relaxed; where the exchange failed, *expected takes the value found
// (a private `expected` is SSA here: the phi of the loaded and the found value).
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK: %[[OLD:[0-9]+]] = OpAtomicCompareExchange %uint %{{[0-9]+}} %uint_1 %uint_24648 %uint_0 %uint_1 %[[WANT:[0-9]+]]
// CHECK: %[[SAME:[0-9]+]] = OpIEqual %bool %[[OLD]] %[[WANT]]
// CHECK: OpBranchConditional %[[SAME]] %{{[^ ]+}} %[[DIFFER:[^ ]+]]
// CHECK: OpPhi %uint %[[WANT]] %{{[^ ]+}} %[[OLD]] %[[DIFFER]]

__kernel void k(__global int *counter, __global int *seen)
{
    int expected = seen[get_global_id(0)];
    bool won = atomic_compare_exchange_strong((volatile __global atomic_int *)counter, &expected, 1);
    seen[get_global_id(0)] = won ? -1 : expected;
}
