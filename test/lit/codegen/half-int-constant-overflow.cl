// An integer constant converted to half is rounded once to half (ties to even) and is
// infinite beyond half's range, as clang-22 folds it: 70000 had been an internal compiler
// error (struct's 'e' format refuses it; found by scripts/fuzz.py --seed 1622).
// RUN: %clcoop %s -o - | FileCheck %s --implicit-check-not="internal compiler error"
// RUN: %if clang %{ %clang -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 -finclude-default-header -emit-llvm -O0 -disable-llvm-passes -w %s -o - | FileCheck %s %}
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

kernel void k(global half *p) {
  p[0] = 4294967296;
  p[1] = 65520;
  p[2] = 65519;
  p[3] = 2049;
  p[4] = 70000L;
}
// CHECK: store half 0xH7C00, ptr addrspace(1)
// CHECK: store half 0xH7C00, ptr addrspace(1)
// CHECK: store half 0xH7BFF, ptr addrspace(1)
// CHECK: store half 0xH6800, ptr addrspace(1)
// CHECK: store half 0xH7C00, ptr addrspace(1)
