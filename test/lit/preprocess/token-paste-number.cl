// C99 6.10.3.3: `x##f` with x = 0.5 is the one pp-number 0.5f (Rodinia leukocyte's FP_CONST).
// RUN: %clcoop %s -o - | FileCheck %s
#define FP_CONST(x) x##f
#define SUFFIX(x, s) x##s
kernel void k(global float *o, global ulong *u) {
 o[0] = FP_CONST(0.5);
 o[1] = FP_CONST(1.25e3) * 2;
 u[0] = SUFFIX(7, ul);
}
// CHECK: store float 5.000000e-01
// CHECK: fmul float 1.250000e+03, 2.000000e+00
// CHECK: store i64 7
