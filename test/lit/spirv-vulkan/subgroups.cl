// Sub-group functions are OpGroupNonUniform* at Subgroup scope (3), with the capabilities each
// needs; sizes and ids come from the Vulkan built-ins.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK-DAG: OpCapability GroupNonUniformArithmetic
// CHECK-DAG: OpCapability GroupNonUniformBallot
// CHECK-DAG: OpCapability GroupNonUniformVote
// CHECK-DAG: OpDecorate %{{.*}} BuiltIn SubgroupSize
// CHECK-DAG: OpDecorate %{{.*}} BuiltIn SubgroupLocalInvocationId
// CHECK: OpGroupNonUniformFAdd %float %uint_3 Reduce
// CHECK: OpGroupNonUniformSMin %uint %uint_3 InclusiveScan
// CHECK: OpGroupNonUniformUMax %uint %uint_3 ExclusiveScan
// CHECK: OpGroupNonUniformBroadcast %float %uint_3
// CHECK: OpGroupNonUniformAny %bool %uint_3
// CHECK: OpControlBarrier %uint_3 %uint_3 %uint_24840

__kernel void collectives(__global float *f, __global int *i, __global uint *u)
{
    size_t g = get_global_id(0);
    f[g] = sub_group_reduce_add(f[g]);
    i[g] = sub_group_scan_inclusive_min(i[g]);
    u[g] = sub_group_scan_exclusive_max(u[g]) + get_sub_group_size() + get_sub_group_local_id();
    f[g] += sub_group_broadcast(f[g], 0);
    i[g] += sub_group_any(i[g] > 3);
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
}
