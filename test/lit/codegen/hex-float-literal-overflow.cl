// A hexadecimal floating constant beyond double's range is infinite, as a decimal one is and
// as clang-22 folds it (C99 6.4.4.2p3: the nearest representable value, or, as IEEE
// rounding gives, infinity); 0x1p1024 had been an internal compiler error (Python's
// float.fromhex raises OverflowError; found by hand).
// RUN: %clcoop %s -o - 2>&1 | FileCheck %s --implicit-check-not="internal compiler error"
// RUN: %if clang %{ %clang -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 -finclude-default-header -emit-llvm -O0 -disable-llvm-passes -w %s -o - | FileCheck %s %}
kernel void k(global float *p, global double *q) {
  p[0] = 0x1p1000000f;
  q[0] = 0x1p1024;
  q[1] = 0x1.8p99999999999999999999;
  q[2] = 0x1p-1000000;
}
// CHECK: store float 0x7FF0000000000000, ptr addrspace(1)
// CHECK: store double 0x7FF0000000000000, ptr addrspace(1)
// CHECK: store double 0x7FF0000000000000, ptr addrspace(1)
// CHECK: store double 0.000000e+00, ptr addrspace(1)
