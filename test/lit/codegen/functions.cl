// Helper functions: spir_func, static ones internal; calls use the spir_func convention (issue 2 item 7).
// RUN: %clcoop %s -o - | FileCheck %s

// CHECK-LABEL: define internal spir_func i32 @helper(i32 %x)
// CHECK: %x.addr = alloca i32, align 4
// CHECK: store i32 %x, ptr %x.addr, align 4
// CHECK: %mul = mul nsw i32 %{{[0-9]+}}, 2
// CHECK: ret i32 %mul
static int helper(int x) { return x * 2; }

// CHECK-LABEL: define spir_func float @scale(float %v, ptr addrspace(1) %p)
float scale(float v, global float *p) { return v * p[0]; }

// CHECK-LABEL: define spir_func void @nothing()
// CHECK: ret void
void nothing(void) { }

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: %call = call spir_func i32 @helper(i32 %{{[0-9]+}})
// CHECK: %call{{[0-9]+}} = call spir_func float @scale(float %conv, ptr addrspace(1) %{{[0-9]+}})
// CHECK: call spir_func void @nothing()
kernel void k(global float *a, int n) {
  int h = helper(n);
  a[0] = scale((float)h, a);
  nothing();
}
