// LLVM's structurizecfg runs before llc-22 only where llc-22's own structurizer writes an invalid
// module: its Flow blocks (a loop's exit through a block of phis of undef) cost the GEMMs of
// docs/gpu.md 35-40% on the H200 (clcoop/spirv/vulkan.py, STRUCTURIZE_PASSES). A plain counted
// loop keeps llc-22's own form: the loop header branches straight to the body or the exit.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s -O2 --emit-spirv --target-env vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s
// CHECK: OpLoopMerge
// CHECK-NEXT: OpBranchConditional
// CHECK-NOT: %Flow
kernel void prefix(global float *data, uint n)
{
    float total = 0.0f;
    for (uint i = 0; i < n; i++) {
        total += data[i];
        data[i] = total;
    }
}
