// The cl_khr_fp16 macros of OpenCL C 3.0 6.15.2 (HALF_DIG ... HALF_EPSILON, M_*_H), spelled
// as clang-22's opencl-c-base.h: same values as clang's IR at -O2 (OpenCL-CTS
// test_numeric_constants uses them).
// RUN: %clcoop %s -O2 -o - | FileCheck %s
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// CHECK-LABEL: define {{.*}}spir_kernel void @half_macros
// CHECK: store i32 3,
// CHECK: store i32 11,
// CHECK: store i32 4,
// CHECK: store i32 16,
// CHECK: store i32 -4,
// CHECK: store i32 -13,
// CHECK: store i32 2,
// CHECK: store half 0xH7BFF,
// CHECK: store half 0xH0400,
// CHECK: store half 0xH1400,
// CHECK: store half 0xH4248,
// CHECK: store half 0xH39A8,
// CHECK: store half 0xH4170,
// CHECK: store half 0xH3E48,
kernel void half_macros(global int *i, global half *h) {
  i[0] = HALF_DIG; i[1] = HALF_MANT_DIG; i[2] = HALF_MAX_10_EXP; i[3] = HALF_MAX_EXP;
  i[4] = HALF_MIN_10_EXP; i[5] = HALF_MIN_EXP; i[6] = HALF_RADIX;
  h[0] = HALF_MAX; h[1] = HALF_MIN; h[2] = HALF_EPSILON; h[3] = M_PI_H; h[4] = M_SQRT1_2_H;
  h[5] = M_E_H; h[6] = M_PI_2_H;
}
