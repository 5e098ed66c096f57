// cl_khr_fp16 half constants (OpenCL C 3.0 6.1.1.1): the h/H suffix on decimal and hex
// floating constants gives a half; an identifier character after it is still an error.
// RUN: %clcoop %s -o - | FileCheck %s
// RUN: not %clcoop %s -fsyntax-only -DBAD 2>&1 | FileCheck %s --check-prefix=BAD
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

kernel void k(global half *p, global float *f) {
  // CHECK: store half 0xH3800, ptr addrspace(1)
  p[0] = 0.5h;
  // CHECK: store half 0xH3400, ptr addrspace(1)
  p[1] = .25H;
  // CHECK: store half 0xH3400, ptr addrspace(1)
  p[2] = 0x1p-2h;
  // half ranks below float: 1.5h * 2.0f is a float multiply.
  // CHECK: fmul float
  f[0] = 1.5h * f[1];
#ifdef BAD
  // BAD: half-literals.cl:19:10: error: invalid suffix 'hx' on floating constant
  p[3] = 0.5hx;
#endif
}
