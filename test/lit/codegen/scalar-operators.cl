// Scalar operators: signedness picks the instruction; shift counts are masked (OpenCL C 3.0 6.15.3);
// && short-circuits with a phi; ?: uses a phi; comparisons are 0/1 ints.
// RUN: %clcoop %s -o - | FileCheck %s

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: sdiv i32
// CHECK: udiv i32
// CHECK: srem i32
// CHECK: %shl.mask = and i32 %{{.*}}, 31
// CHECK: shl i32 %{{.*}}, %shl.mask
// CHECK: %shr.mask = and i32 %{{.*}}, 31
// CHECK: ashr i32 %{{.*}}, %shr.mask
// constant counts are reduced at compile time (33 & 31 = 1)
// CHECK: lshr i32 %{{[0-9]+}}, 2
// CHECK: shl i32 %{{[0-9]+}}, 1
// CHECK: land.rhs:
// CHECK: land.end:
// CHECK: phi i1 [ false, %{{.*}} ], [ %{{.*}}, %land.rhs ]
// CHECK: %land.ext = zext i1
// CHECK: cond.true:
// CHECK: cond.false:
// CHECK: %cond = phi i32
// CHECK: fcmp olt float
// CHECK: sitofp i32
// CHECK: fptosi float
kernel void k(global int *a, global uint *u, global float *f, int x, uint y) {
  a[0] = x / 3;
  u[0] = y / 3u;
  a[1] = x % 5;
  a[2] = x << y;
  a[3] = x >> y;
  u[1] = y >> 2;
  a[8] = x << 33;
  a[4] = (x > 0) && (y < 10u);
  a[5] = x ? 7 : 9;
  a[6] = f[0] < f[1];
  f[2] = (float)x;
  a[7] = (int)f[3];
}
