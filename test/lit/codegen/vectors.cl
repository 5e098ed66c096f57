// Vector types, literals, swizzles and component-wise operators (issue 2 item 7).
// RUN: %clcoop %s -o - | FileCheck %s

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: %v = alloca <4 x float>, align 16
// CHECK: insertelement <4 x float>
// CHECK: fadd <4 x float>
// CHECK: shufflevector <4 x float> %{{.*}}, <4 x float> undef, <2 x i32> <i32 3, i32 0>
// CHECK: extractelement <4 x float> %{{.*}}, i32 1
// CHECK: icmp sgt <4 x i32>
// CHECK: sext <4 x i1> %{{.*}} to <4 x i32>
kernel void k(global float4 *out, global int4 *m, float x) {
  float4 v = (float4)(x, 1.0f, 2.0f, 3.0f);
  v = v + out[0];
  float2 s = v.wx;
  out[1] = (float4)(s, v.y, 0.0f);
  m[0] = m[1] > m[2];
}
