// An ambiguous call to a user's overloadable functions: clang-22's error and notes.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s
__attribute__((overloadable)) float f(float x) { return x; }
__attribute__((overloadable)) double f(double x) { return x; }
kernel void k(global float *o, int i) { o[0] = f(i); }
// CHECK: overloadable-ambiguous.cl:5:48: error: call to 'f' is ambiguous
// CHECK: overloadable-ambiguous.cl:3:37: note: candidate function
// CHECK: overloadable-ambiguous.cl:4:38: note: candidate function
