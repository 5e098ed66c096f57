// OpenCL C 3.0 6.5.7: the first operand of ?: may be scalar or vector, "except float".
// clang-22 rejects float, double and half conditions (scalar or vector) at the '?';
// an integer or integer-vector condition is fine, and if/while/! still take floats.
// RUN: not %clcoop %s -fsyntax-only 2>&1 | FileCheck %s
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

kernel void k(global float4 *p, global int *q) {
  float f = p[0].x;
  p[1].x = f ? 1.0f : 2.0f;
  p[2] = p[0] ? p[1] : p[2];
  double d = 1.0;
  p[3].x = (d) ? 1.0f : 0.0f;
  half h = 0;
  p[4].x = h ? 1.0f : 0.0f;
  p[5] = (int4)(1, 0, 1, 0) ? p[1] : p[2];
  q[0] = q[1] ? 3 : 4;
  if (f) q[2] = !f;
  while (f) f -= 1.0f;
}

// CHECK: conditional-float-condition.cl:9:14: error: used type 'float' where floating point type is not allowed
// CHECK: conditional-float-condition.cl:10:15: error: used type 'float4' (vector of 4 'float' values) where floating point type is not allowed
// CHECK: conditional-float-condition.cl:12:16: error: used type 'double' where floating point type is not allowed
// CHECK: conditional-float-condition.cl:14:14: error: used type 'half' where floating point type is not allowed
// CHECK-NOT: error:
// CHECK: 4 errors generated.
