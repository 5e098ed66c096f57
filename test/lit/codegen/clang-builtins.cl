// The clang built-ins OpenCL code uses, lowered as clang-22 lowers them at -O0: the same
// CHECK lines hold for clcoop's IR and clang-22's.
// RUN: %clcoop %s -o - | FileCheck %s
// RUN: %if clang %{ %clang -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 -finclude-default-header -emit-llvm -O0 -disable-llvm-passes %s -o - | FileCheck %s %}
kernel void k(global int *o, global float *f, int x, float y, double d) {
  int a[4];
  if (__builtin_expect(x > 3, 0)) o[0] = 1;
  __builtin_memcpy(a, o, sizeof(a));
  __builtin_memset(a, 0, sizeof(a));
  o[1] = __builtin_clz(x) + __builtin_ctz(x) + __builtin_popcount(x) + __builtin_clzl((long)x);
  o[2] = __builtin_isnan(y) + __builtin_isinf(y) + __builtin_isfinite(d);
  f[0] = __builtin_astype(x, float) + __builtin_fabsf(y);
  if (x == 99) __builtin_unreachable();
  __builtin_assume(x > 0);
}
// CHECK: icmp sgt i32 %{{[0-9]+}}, 3
// CHECK-NEXT: zext i1 %{{.*}} to i32
// CHECK-NEXT: sext i32 %{{.*}} to i64
// CHECK-NEXT: icmp ne i64 %{{.*}}, 0
// CHECK: call void @llvm.memcpy.p0.p1.i64(ptr {{.*}}%arraydecay, ptr addrspace(1) {{.*}}, i64 16, i1 false)
// CHECK: call void @llvm.memset.p0.i64(ptr {{.*}}%arraydecay{{[0-9]*}}, i8 0, i64 16, i1 false)
// CHECK: call i32 @llvm.ctlz.i32(i32 %{{[0-9]+}}, i1 true)
// CHECK: call i32 @llvm.cttz.i32(i32 %{{[0-9]+}}, i1 true)
// CHECK: call i32 @llvm.ctpop.i32(i32 %{{[0-9]+}})
// CHECK: [[L:%[0-9]+]] = call i64 @llvm.ctlz.i64(i64 %{{.*}}, i1 true)
// CHECK-NEXT: %cast = trunc i64 [[L]] to i32
// CHECK: call i1 @llvm.is.fpclass.f32(float %{{[0-9]+}}, i32 3)
// CHECK: call i1 @llvm.is.fpclass.f32(float %{{[0-9]+}}, i32 516)
// CHECK: call i1 @llvm.is.fpclass.f64(double %{{[0-9]+}}, i32 504)
// CHECK: %astype = bitcast i32 %{{[0-9]+}} to float
// CHECK: call float @llvm.fabs.f32(float %{{[0-9]+}})
// CHECK: unreachable
// CHECK: call void @llvm.assume(i1 %cmp{{[0-9]*}})
