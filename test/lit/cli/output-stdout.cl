// `-o -` writes the IR to stdout; the default output name is <stem>.ll in the current
// directory. Needs check.py and lower.py (end to end).
// RUN: %clcoop %s -o - | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t && cd %t && %clcoop %s && FileCheck %s --input-file %t/output-stdout.ll
// RUN: cd %t && %clcoop -triple spir-unknown-unknown %s -o k32.ll && FileCheck %s --check-prefix=SPIR32 --input-file %t/k32.ll
// CHECK: target triple = "spir64-unknown-unknown"
// CHECK: define spir_kernel void @k(
// SPIR32: target triple = "spir-unknown-unknown"
kernel void k(global int *p) {
  p[get_global_id(0)] = 1;
}
