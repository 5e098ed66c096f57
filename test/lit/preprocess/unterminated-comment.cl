// RUN: %not %clcoop %s -o %t.ll 2>&1 | FileCheck %s
kernel void k(global int *p) {
  p[0] = 1; /* this comment never ends
  p[1] = 2;
}
// CHECK: unterminated-comment.cl:3:13: error: unterminated /* comment
// CHECK-NEXT: {{^  p\[0\] = 1; /\* this comment never ends$}}
// CHECK-NEXT: {{^            \^$}}
