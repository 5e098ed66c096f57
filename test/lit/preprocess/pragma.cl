// #pragma OPENCL EXTENSION lines reach the parser (check follows which extensions are
// enabled where, test/lit/diagnostics/fp16-extension.cl); #pragma unroll and other pragmas
// do not (they would break a for statement); the lines stay so line numbers do not move.
// RUN: %clcoop -E %s -o - | FileCheck %s
// RUN: %clcoop %s -o - | FileCheck %s --check-prefix=IR
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
kernel void k(global int *p) {
#pragma unroll
  for (int i = 0; i < 4; i++)
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
    p[i] = i;
}
// CHECK: #line 6 "{{.*}}pragma.cl"
// CHECK-NEXT: #pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
// CHECK-NEXT: kernel void k(global int *p) {
// CHECK-EMPTY:
// CHECK-NEXT: for (int i = 0; i < 4; i++)
// CHECK-NEXT: #pragma OPENCL EXTENSION cl_khr_fp16 : enable
// CHECK-NEXT: p[i] = i;
// CHECK-NOT: #pragma
// IR: define spir_kernel void @k(
// IR: store i32 %{{.*}}, ptr addrspace(1)
