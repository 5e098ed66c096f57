// A used extern variable must be defined in the file: clcoop has no linker (clang-22 would
// leave an external global that nothing can run).
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s
extern global int counter;
kernel void k(global int *o) { o[0] = counter; }
// CHECK: extern-undefined.cl:5:39: error: 'counter' is declared extern but not defined in this translation unit (clcoop compiles and runs one translation unit)
// CHECK: extern-undefined.cl:4:19: note: declared here
