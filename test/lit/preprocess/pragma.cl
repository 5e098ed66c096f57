// #pragma OPENCL EXTENSION and #pragma unroll do not reach the parser (they would break
// a for statement); the lines stay so line numbers do not move.
// RUN: %clcoop -E %s -o - | FileCheck %s
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
kernel void k(global int *p) {
#pragma unroll
  for (int i = 0; i < 4; i++)
    p[i] = i;
}
// CHECK-NOT: #pragma
// CHECK: #line 5 "{{.*}}pragma.cl"
// CHECK-NEXT: kernel void k(global int *p) {
// CHECK-EMPTY:
// CHECK-NEXT: for (int i = 0; i < 4; i++)
