// A half constant is the folded value rounded once to half (ties to even), infinite beyond
// half's range, as clang-22 folds it: an integer converted to half, a literal, a global's
// initializer folded from a sum. 70000 had been an internal compiler error (llvmlite's formatting
// uses struct's 'e' format, which refuses it; found by scripts/fuzz.py --seed 1622).
// RUN: %clcoop %s -o - | FileCheck %s --implicit-check-not="internal compiler error"
// RUN: %if clang %{ %clang -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 -finclude-default-header -emit-llvm -O0 -disable-llvm-passes -w %s -o - | FileCheck %s %}
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

constant half g = 60000.0h + 60000.0h;
// CHECK: @g = {{.*}}constant half 0xH7C00

kernel void k(global half *p) {
  p[0] = 4294967296;
  p[1] = 65520;
  p[2] = 65519;
  p[3] = 2049;
  p[4] = 70000L;
  p[5] = 70000.0h;
}
// CHECK: store half 0xH7C00, ptr addrspace(1)
// CHECK: store half 0xH7C00, ptr addrspace(1)
// CHECK: store half 0xH7BFF, ptr addrspace(1)
// CHECK: store half 0xH6800, ptr addrspace(1)
// CHECK: store half 0xH7C00, ptr addrspace(1)
// CHECK: store half 0xH7C00, ptr addrspace(1)
