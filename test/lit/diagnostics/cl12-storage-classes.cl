// OpenCL C 1.2 has no program-scope global variables (6.5: program-scope and extern
// variables are __constant) and no static variables in functions (6.8); both came with
// OpenCL C 2.0. clang-22's errors and wording; at CL2.0 the same source is accepted.
// RUN: not %clcoop %s -fsyntax-only -cl-std=CL1.2 2>&1 | FileCheck %s
// RUN: %clcoop %s -fsyntax-only -cl-std=CL2.0

constant int table = 1;
extern constant float declared_constant;
// CHECK: cl12-storage-classes.cl:10:12: error: program scope variable must reside in constant address space
global int counter = 0;
// CHECK: cl12-storage-classes.cl:12:5: error: program scope variable must reside in constant address space
int plain = 0;
// CHECK: cl12-storage-classes.cl:14:21: error: extern variable must reside in constant address space
extern global float declared_global;

kernel void k(global int *out) {
  // CHECK: cl12-storage-classes.cl:18:14: error: variables in function scope cannot be declared static
  static int calls = 0;
  out[0] = table;
}
// CHECK: 4 errors generated.
