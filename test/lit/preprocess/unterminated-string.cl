// RUN: %not %clcoop %s -o %t.ll 2>&1 | FileCheck %s
kernel void k(global int *p) {
  p[0] = "abc;
}
// CHECK: unterminated-string.cl:3:10: error: missing terminating '"' character
// CHECK-NEXT: {{^  p\[0\] = "abc;$}}
// CHECK-NEXT: {{^         \^$}}
