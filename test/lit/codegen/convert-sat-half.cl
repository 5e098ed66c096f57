// convert_<int>_sat(half): a limit beyond half's largest finite value (65504) is compared as
// an infinity, which only an infinity reaches. Before, building the half constant 65535.0
// crashed the compiler with Python's OverflowError.
// RUN: %clcoop %s -o - | FileCheck %s
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// CHECK-LABEL: define spir_kernel void @k(
// convert_ushort_sat: 0 as a half, 65535 as +inf
// CHECK: fcmp ole half %{{.*}}, 0xH0000
// CHECK: fcmp oge half %{{.*}}, 0xH7C00
// convert_int_sat: both limits are infinities
// CHECK: fcmp ole half %{{.*}}, 0xHFC00
// CHECK: fcmp oge half %{{.*}}, 0xH7C00
// convert_short_sat: -32768 and 32767 (a half rounds it to 32768)
// CHECK: fcmp ole half %{{.*}}, 0xHF800
// CHECK: fcmp oge half %{{.*}}, 0xH7800
kernel void k(global const half *h, global ushort *us, global int *i, global short *s) {
  us[0] = convert_ushort_sat(h[0]);
  i[0] = convert_int_sat(h[1]);
  s[0] = convert_short_sat(h[2]);
}
