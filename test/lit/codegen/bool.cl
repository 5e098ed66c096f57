// bool is i1 as a value and i8 in memory (zext on store, trunc on load), like clang.
// RUN: %clcoop %s -o - | FileCheck %s

// CHECK-LABEL: define spir_func i1 @pos(float %x)
// CHECK: %cmp = fcmp ogt float
// CHECK: ret i1 %cmp
bool pos(float x) { return x > 0.0f; }

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: %b = alloca i8, align 1
// CHECK: %call = call spir_func i1 @pos(
// CHECK: %frombool = zext i1 %call to i8
// CHECK: store i8 %frombool, ptr %b, align 1
// CHECK: %[[B:[0-9]+]] = load i8, ptr %b, align 1
// CHECK: %loadedv = trunc i8 %[[B]] to i1
// CHECK: br i1 %loadedv, label %if.then, label %if.end
kernel void k(global float *f) {
  bool b = pos(f[0]);
  if (b) f[1] = 1.0f;
}
