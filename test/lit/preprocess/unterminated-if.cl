// RUN: %not %clcoop %s -o %t.ll 2>&1 | FileCheck %s
#ifdef FOO
int x;
#endif
  #if 1
int y;
// CHECK: unterminated-if.cl:5:4: error: unterminated conditional directive
// CHECK-NEXT: {{^  #if 1$}}
// CHECK-NEXT: {{^   \^$}}
