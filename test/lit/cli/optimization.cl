// -O levels reach LLVM's pipeline: -O0 keeps the allocas clang emits, -O2 removes them.
// RUN: %clcoop -O0 %s -o - | FileCheck %s --check-prefix=O0
// RUN: %clcoop -O2 %s -o - | FileCheck %s --check-prefix=O2
// O0: alloca
// O2-NOT: alloca
// O2: define spir_kernel void @k(
kernel void k(global float *a, float s) {
  float t = s * 2.0f;
  a[get_global_id(0)] = t;
}
