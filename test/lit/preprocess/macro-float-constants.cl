// Float constants that reach the source through macros stay one token: the header's FLT_MAX
// and MAXFLOAT are hex floats, M_PI_F a long decimal; a macro body `x-NEG` must not paste
// into `--`.
// RUN: %clcoop %s -O2 -o - | FileCheck %s

#define NEG -1
#define MINUS(x) x-NEG
#define E 1.5e+3f
#define P 0x1p-2f

// CHECK-LABEL: define {{.*}}spir_kernel void @constants
// CHECK: store float 0x47EFFFFFE0000000
// CHECK: store float 0x400921FB60000000
// CHECK: store float 0x47EFFFFFE0000000
// CHECK: store float 1.500000e+03
// CHECK: store float 2.500000e-01
kernel void constants(global float *o) {
    o[0] = FLT_MAX;
    o[1] = M_PI_F;
    o[2] = MAXFLOAT;
    o[3] = E;
    o[4] = P;
}

// CHECK-LABEL: define {{.*}}spir_kernel void @no_pasting
// CHECK: store i32 3
// CHECK: store i32 1
kernel void no_pasting(global int *o) {
    int a = 2;
    o[0] = MINUS(a);
    o[1] = -NEG;
}
