// The work-group size: without reqd_work_group_size it is `OpExecutionModeId LocalSizeId` of
// the spec constants SpecIds 0, 1, 2 (default 1); with it, LocalSize. get_local_size reads a
// composite of the same values.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s
// RUN: %clcoop %s -DFIXED --emit-spirv --target-env=vulkan1.3 -o %t.fixed.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.fixed.spv
// RUN: %spirv-dis %t.fixed.spv | FileCheck %s --check-prefix=FIXED

// CHECK-NOT: OpExecutionMode %sizes LocalSize
// CHECK: OpExecutionModeId %sizes LocalSizeId %[[X:[0-9]+]] %[[Y:[0-9]+]] %[[Z:[0-9]+]]
// CHECK-DAG: OpDecorate %[[X]] SpecId 0
// CHECK-DAG: OpDecorate %[[Y]] SpecId 1
// CHECK-DAG: OpDecorate %[[Z]] SpecId 2
// CHECK: %[[WG:[0-9]+]] = OpSpecConstantComposite %v3uint %[[X]] %[[Y]] %[[Z]]
// CHECK: OpCopyObject %v3uint %[[WG]]

// FIXED: OpExecutionMode %sizes LocalSize 64 2 1
// FIXED-NOT: SpecId
// FIXED: OpConstantComposite %v3uint %uint_64 %uint_2 %uint_1

#ifdef FIXED
__attribute__((reqd_work_group_size(64, 2, 1)))
#endif
__kernel void sizes(__global uint *out)
{
    out[get_global_id(0)] = get_local_size(0) + get_local_size(1);
}
