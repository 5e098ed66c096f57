// The _Pragma operator (C99 6.10.9) acts as the #pragma its destringized literal spells:
// the extension pragma enables half at file scope, an unknown pragma in a block is ignored,
// as in clang-22. Any _Pragma had been a Python AttributeError (the checker read the
// literal node as text; found by hand after scripts/fuzz.py --seed 1700).
// RUN: %clcoop %s -o - 2>&1 | FileCheck %s --implicit-check-not="internal compiler error" --implicit-check-not=error
// RUN: %if clang %{ %clang -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 -finclude-default-header -emit-llvm -O0 -disable-llvm-passes %s -o - 2>&1 | FileCheck %s --implicit-check-not=error %}
_Pragma("OPENCL EXTENSION cl_khr_fp16 : enable")

kernel void k(global half *p) {
  _Pragma("clcoop_unknown \"quoted\" \\ words")
  p[0] = 1.0h;
}
// CHECK: define {{.*}}spir_kernel void @k(
// CHECK: store half 0xH3C00
