// printf (OpenCL C 3.0 6.15.14) lowers as clang-22 does: a variadic spir_func call of
// `i32 @printf(ptr addrspace(2), ...)`, string literals as private unnamed_addr constants in
// __constant memory (addrspace 2), and the default argument promotions of a variadic call
// (float and half to double, char/short/bool to int; vectors as they are).
// RUN: %clcoop %s -o - | FileCheck %s
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
constant char fmt[] = "id %d\n";

// CHECK-DAG: @.str = private unnamed_addr addrspace(2) constant [19 x i8] c"%d %u %f %s %c %f\0A\00", align 1
// CHECK-DAG: @.str.1 = private unnamed_addr addrspace(2) constant [3 x i8] c"hi\00", align 1
// CHECK-DAG: @.str.2 = private unnamed_addr addrspace(2) constant [8 x i8] c"%v4hlf\0A\00", align 1
// CHECK-LABEL: define spir_kernel void @k(
kernel void k(global float *f, global half *h, global char *c) {
  // CHECK: [[F:%[a-z0-9.]+]] = fpext float %{{.*}} to double
  // CHECK: [[C:%[a-z0-9.]+]] = sext i8 %{{.*}} to i32
  // CHECK: [[H:%[a-z0-9.]+]] = fpext half %{{.*}} to double
  // CHECK: %call = call spir_func i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @.str, i32 1, i32 2, double [[F]], ptr addrspace(2) @.str.1, i32 [[C]], double [[H]])
  printf("%d %u %f %s %c %f\n", 1, 2u, f[0], "hi", c[0], h[0]);
  // CHECK: call spir_func i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @.str.2, <4 x float> %{{.*}})
  printf("%v4hlf\n", (float4)(f[1]));
  // CHECK: call spir_func i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) %{{.*}}, i32 %{{.*}})
  int r = printf(fmt, (int)get_global_id(0));
  f[2] = r;
}
// CHECK: declare spir_func i32 @printf(ptr addrspace(2), ...)
