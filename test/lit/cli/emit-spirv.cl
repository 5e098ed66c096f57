// --emit-spirv writes a SPIR-V binary (default name <stem>.spv) that spirv-val accepts.
// REQUIRES: llc, spirv-tools
// RUN: rm -rf %t && mkdir -p %t && cd %t && %clcoop --emit-spirv %s
// RUN: %spirv-val %t/emit-spirv.spv
// RUN: %spirv-dis %t/emit-spirv.spv | FileCheck %s
// CHECK: OpEntryPoint Kernel %{{[0-9a-z_]+}} "k"
kernel void k(global float *a) {
  a[get_global_id(0)] *= 2.0f;
}
