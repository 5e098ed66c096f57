// RUN: %not %clcoop %s -o %t.ll 2>&1 | FileCheck %s
kernel void k(global int *p) {
  p[0] = 1;
}
}
int x = ;
// CHECK: extra-brace.cl:5:1: error: extraneous closing brace ('}')
// CHECK: extra-brace.cl:6:9: error: expected expression
// CHECK: 2 errors generated.
