// No implicit conversion changes the address space below a pointer's first level (OpenCL C
// 3.0 6.7.9): clang-22's "changes address space of nested pointer" error, with its
// "assigning 'from' to 'to'" order and its `int **` spelling. Same-space pointees of
// another type only warn.
// RUN: not %clcoop %s -fsyntax-only 2>&1 | FileCheck %s

void nested(__global int *g, __global int *__private *gg, __local int *__private *ll,
            __global float *__private *gg_f, __local int *__global *__private *lll) {
  // CHECK: nested-pointer-address-space.cl:10:6: error: assigning '__local int **' to '__global int **' changes address space of nested pointer
  gg = ll;
  // CHECK: nested-pointer-address-space.cl:12:6: error: assigning '__global float **' to '__local int **' changes address space of nested pointer
  ll = gg_f;
  // CHECK: nested-pointer-address-space.cl:14:6: warning: incompatible pointer types assigning to '__global int **' from '__global float **'
  gg = gg_f;
  // CHECK: nested-pointer-address-space.cl:16:5: error: assigning '__global int **' to '__global int *' changes address space of pointer
  g = gg;
  // The spelling of a qualified middle level, as clang's.
  // CHECK: nested-pointer-address-space.cl:19:5: error: assigning '__local int *__global **' to '__global int *' changes address space of pointer
  g = lll;
}
