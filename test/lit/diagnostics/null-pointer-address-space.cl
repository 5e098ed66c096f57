// A null pointer constant is 0 cast to `void *` (C99 6.3.2.3p3) in the default or generic
// address space; `(global void *)0` is an ordinary __global pointer, which does not
// convert to another named address space (clang-22's errors and wording).
// RUN: not %clcoop %s -fsyntax-only 2>&1 | FileCheck %s
// RUN: not %clcoop %s -fsyntax-only -cl-std=CL2.0 2>&1 | FileCheck %s

kernel void k(global int *out) {
  global int *fine = (void *)0;
  constant int *also_fine = (void *)0;
  // CHECK: null-pointer-address-space.cl:11:17: error: initializing '__constant int *' with an expression of type '__global void *' changes address space of pointer
  constant int *wrong_a = (global void *)0;
  // CHECK: null-pointer-address-space.cl:13:17: error: comparison between ('__global int *' and '__local void *') which are pointers to non-overlapping address spaces
  out[0] = fine == (local void *)0;
  out[1] = fine == (void *)0;
}
// CHECK: 2 errors generated.
