// -O0 is the default (optnone, allocas); -O2 runs LLVM's pipeline through llvmlite.
// RUN: %clcoop %s -o - | FileCheck %s --check-prefix=O0
// RUN: %clcoop -O2 %s -o - | FileCheck %s --check-prefix=O2

// O0: alloca
// O0: attributes #{{[0-9]+}} = { convergent noinline nounwind optnone }
// O2-LABEL: define spir_kernel void @k(
// O2-NOT: alloca
// O2: ret void
// O2-NOT: optnone
kernel void k(global float *a, float s) {
  size_t i = get_global_id(0);
  a[i] = a[i] * s + 1.0f;
}
