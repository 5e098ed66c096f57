// OpenCL C 2.0+ (3.0 6.7.1): program-scope, static and extern variables live in __global or
// __constant; __generic is no address space for an object. clang-22's errors and wording.
// RUN: not %clcoop %s -fsyntax-only -cl-std=CL2.0 2>&1 | FileCheck %s
// RUN: not %clcoop %s -fsyntax-only -cl-std=CL3.0 2>&1 | FileCheck %s

global int fine_global = 0;
static constant int fine_constant = 1;
extern global float fine_extern;
// CHECK: cl20-storage-address-spaces.cl:10:22: error: program scope variable must reside in global or constant address space
static generic float program_generic = 0;
// CHECK: cl20-storage-address-spaces.cl:12:20: error: extern variable must reside in global or constant address space
extern local float extern_local;
// CHECK: cl20-storage-address-spaces.cl:14:22: error: extern variable must reside in global or constant address space
extern private float extern_private;

kernel void k(global int *o) {
  static global int fine_static = 0;
  // CHECK: cl20-storage-address-spaces.cl:19:22: error: static local variable must reside in global or constant address space
  static local float static_local = 0;
  // CHECK: cl20-storage-address-spaces.cl:21:24: error: static local variable must reside in global or constant address space
  static private float static_private = 0;
  // CHECK: cl20-storage-address-spaces.cl:23:15: error: automatic variable qualified with an invalid address space
  generic int automatic_generic;
  o[0] = fine_static + fine_global + fine_constant;
}
// CHECK: 6 errors generated.
