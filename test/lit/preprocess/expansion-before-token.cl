// An object-like macro whose expansion is exactly as long as its name, right before the next
// token on the line (Rodinia lavaMD's `fp a2`): the two must stay separate tokens.
// RUN: %clcoop %s -o - | FileCheck %s
#define T int
#define fp float
kernel void k(global float *o) {
 T x = 1;
 fp a2 = 2.0f;
 o[0] = x + a2;
}
// CHECK: %x = alloca i32
// CHECK: %a2 = alloca float
// CHECK: store i32 1, ptr %x
// CHECK: store float 2.000000e+00, ptr %a2
