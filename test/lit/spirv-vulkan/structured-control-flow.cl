// Loops with break and continue, and an if/else, come out structured (OpLoopMerge,
// OpSelectionMerge), as Vulkan requires.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK: OpLoopMerge
// CHECK: OpSelectionMerge

__kernel void search(__global const int *in, __global int *out, int n)
{
    int found = -1;
    for (int i = 0; i < n; ++i) {
        if (in[i] < 0)
            continue;
        if (in[i] == 7) {
            found = i;
            break;
        }
    }
    if (found >= 0)
        out[get_global_id(0)] = found;
    else
        out[get_global_id(0)] = n;
}
