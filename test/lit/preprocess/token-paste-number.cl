// C99 6.10.3.3: `x##f` with x = 0.5 is the one pp-number 0.5f (Rodinia leukocyte's FP_CONST).
// Only the argument's last token is pasted: x = -1.5 gives `-` and 1.5f (SHOC s3d's CPREC),
// x = 3 - 1.25 gives 3 - 1.25f (clang-22 -E -P writes the same tokens).
// RUN: %clcoop %s -o - | FileCheck %s
// RUN: %clcoop -E %s | FileCheck %s --check-prefix=TEXT
#define FP_CONST(x) x##f
#define SUFFIX(x, s) x##s
kernel void k(global float *o, global ulong *u) {
 o[0] = FP_CONST(0.5);
 o[1] = FP_CONST(1.25e3) * 2;
 u[0] = SUFFIX(7, ul);
 o[2] = FP_CONST(-1.5);
 o[3] = FP_CONST(-.5e-3) + FP_CONST(3 - 1.25);
}
// CHECK: store float 5.000000e-01
// CHECK: fmul float 1.250000e+03, 2.000000e+00
// CHECK: store i64 7
// CHECK: float 1.500000e+00
// TEXT: o[2] = {{ *}}-1.5f;
// TEXT: o[3] = {{ *}}-.5e-3f + {{ *}}3 - 1.25f;
