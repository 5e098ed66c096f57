// A function and a variable may not share a name (clang: "as different kind of symbol").
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

const int k = 1;
kernel void k(global int *a) { a[0] = 1; }
// CHECK: redefinition-kind.cl:5:13: error: redefinition of 'k' as different kind of symbol
// CHECK: redefinition-kind.cl:4:11: note: previous definition is here

void helper(void) {}
int helper;
// CHECK: redefinition-kind.cl:10:5: error: redefinition of 'helper' as different kind of symbol
// CHECK: redefinition-kind.cl:9:6: note: previous definition is here
