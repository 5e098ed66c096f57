// Conversions: implicit/explicit casts pick the instruction by the source's (int->int, int->float) or the
// destination's (float->int) signedness; convert_<type>_sat clamps with compares and selects
// (NaN -> 0 for float sources, OpenCL C 3.0 6.4.3.3); as_<type> is a bitcast (3-component vectors
// widened to 4 first).
// RUN: %clcoop %s -o - | FileCheck %s
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: sext i8 %{{[0-9]+}} to i32
// CHECK: zext i8 %{{[0-9]+}} to i32
// CHECK: uitofp i32 %{{[0-9]+}} to float
// CHECK: fptoui float %{{[0-9]+}} to i32
// CHECK: fpext float %{{[0-9]+}} to double
// CHECK: fptrunc float %{{[0-9]+}} to half
// convert_char_sat(int): clamp to [-128, 127] in i32, then truncate
// CHECK: icmp slt i32 %{{[0-9]+}}, -128
// CHECK: icmp sgt i32 %{{.*}}, 127
// CHECK: trunc i32 %{{.*}} to i8
// convert_int_sat(float): NaN -> 0
// CHECK: fcmp uno float
// CHECK: %astype = bitcast float %{{[0-9]+}} to i32
// CHECK: shufflevector <3 x float> %{{[0-9]+}}, <3 x float> undef, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
// CHECK: bitcast <4 x float> %{{.*}} to <4 x i32>
kernel void k(global char *c, global uchar *uc, global int *i, global uint *u, global float *f,
              global double *d, global half *h, global float3 *f3, global int4 *i4) {
  i[0] = c[0];
  i[1] = uc[0];
  f[0] = u[0];
  u[1] = f[1];
  d[0] = f[2];
  h[0] = f[3];
  c[1] = convert_char_sat(i[2]);
  i[3] = convert_int_sat(f[4]);
  i[4] = as_int(f[5]);
  i4[0] = as_int4(f3[0]);
}
