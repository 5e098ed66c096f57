// Floating-point contraction as clang-22 does it (OpenCL C 3.0 6.11.1: FP_CONTRACT is ON by
// default): the same CHECK lines hold for clcoop's IR and for clang-22's, at every site.
// RUN: %clcoop %s -o - | FileCheck %s --check-prefixes=CHECK,ON
// RUN: %clcoop -ffp-contract=on %s -o - | FileCheck %s --check-prefixes=CHECK,ON
// RUN: %clcoop -ffp-contract=off %s -o - | FileCheck %s --check-prefixes=CHECK,OFF
// RUN: %if clang %{ %clang -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 -finclude-default-header -emit-llvm -O0 -disable-llvm-passes %s -o - | FileCheck %s --check-prefixes=CHECK,ON %}
// RUN: %if clang %{ %clang -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 -finclude-default-header -emit-llvm -O0 -disable-llvm-passes -ffp-contract=off %s -o - | FileCheck %s --check-prefixes=CHECK,OFF %}

// CHECK-LABEL: @forms(
// ON: [[R:%[0-9]+]] = call float @llvm.fmuladd.f32(float [[A:%[0-9]+]], float [[B:%[0-9]+]], float [[C:%[0-9]+]])
// OFF: fmul float
// OFF-NOT: fmuladd
// OFF: fadd float
// ON: [[R:%[0-9]+]] = call float @llvm.fmuladd.f32(float [[A:%[0-9]+]], float [[B:%[0-9]+]], float [[C:%[0-9]+]])
// c - a*b: the first factor is negated.
// ON: [[N:%neg[0-9]*]] = fneg float [[C:%[0-9]+]]
// ON-NEXT: call float @llvm.fmuladd.f32(float {{%[0-9]+}}, float {{%[0-9]+}}, float [[N]])
// ON: [[N:%neg[0-9]*]] = fneg float [[A:%[0-9]+]]
// ON-NEXT: call float @llvm.fmuladd.f32(float [[N]], float {{%[0-9]+}}, float {{%[0-9]+}})
// A product stored first is not fused with a later statement.
// CHECK: store float {{%mul[0-9]*}}, ptr %t
// CHECK: [[T:%[0-9]+]] = load float, ptr %t
// CHECK: fadd float [[T]],
// The left product is fused, the right one stays a multiplication.
// ON: [[M:%mul[0-9]*]] = fmul float
// ON-NEXT: call float @llvm.fmuladd.f32(float {{%[0-9]+}}, float {{%[0-9]+}}, float [[M]])
// -(a*b) + c and c - -(a*b)
// ON: [[N:%neg[0-9]*]] = fneg float
// ON-NEXT: call float @llvm.fmuladd.f32(float [[N]],
// ON-NOT: fneg
// ON: call float @llvm.fmuladd.f32(
// x += a*b and x -= a*b
// ON: call float @llvm.fmuladd.f32(
// ON: fneg float
// ON: call float @llvm.fmuladd.f32(
// (a*b)*c + e: the outer product only; a conversion between stops fusion.
// ON: fmul float
// ON-NEXT: load float
// ON-NEXT: load float
// ON-NEXT: call float @llvm.fmuladd.f32(
// CHECK: fmul double
// CHECK-NEXT: fptrunc double
// CHECK: fadd float
// CHECK: ret void
kernel void forms(global float *o, float a, float b, float c, float e, global double *d) {
  o[0] = a * b + c;
  o[1] = c + a * b;
  o[2] = a * b - c;
  o[3] = c - a * b;
  float t = a * b;
  o[4] = t + c;
  o[5] = (a * b) + (c * e);
  o[6] = -(a * b) + c;
  o[7] = c - -(a * b);
  o[8] += a * b;
  o[9] -= a * b;
  o[10] = a * b * c + e;
  o[11] = (float)(d[0] * d[1]) + c;
}

// CHECK-LABEL: @types(
// ON: call <4 x float> @llvm.fmuladd.v4f32(
// ON: call <4 x float> @llvm.fmuladd.v4f32(<4 x float> {{%[0-9]+}}, <4 x float> %splat.splat
// ON: call double @llvm.fmuladd.f64(
// ON: call half @llvm.fmuladd.f16(
// OFF-NOT: fmuladd
// CHECK: ret void
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void types(global float4 *v, global double *d, global half *h, float a, float c) {
  v[0] = v[1] * v[2] + v[3];
  v[1] = v[1] * a + c;
  d[0] = d[1] * d[2] + d[3];
  h[0] = h[1] * h[2] + h[3];
}

// The pragmas: OFF until the end of the file or of the compound statement that starts with it.
// CHECK-LABEL: @pragmas(
// CHECK: fmul float
// CHECK-NOT: fmuladd
// CHECK: fadd float
// CHECK: call float @llvm.fmuladd.f32(
// CHECK: fmul float
// CHECK-NOT: fmuladd
// CHECK: fadd float
// CHECK: ret void
#pragma OPENCL FP_CONTRACT OFF
kernel void pragmas(global float *o, float a, float b, float c) {
  o[0] = a * b + c;
  {
#pragma STDC FP_CONTRACT ON
    o[1] = a * b + c;
  }
  o[2] = a * b + c;
}
