// Only a function declarator may have a body (fuzzer finding: `static int calls { ... }`
// reached the checker as a function definition). Line and column as clang-22.
// RUN: %not %clcoop %s -o %t.ll 2>&1 | FileCheck %s
static int calls { return 1; }
kernel void ok(global int *p) { p[0] = 1; }
int table[3](int x) { }
// CHECK: body-after-declarator.cl:4:17: error: expected ';' after top level declarator
// CHECK-NEXT: static int calls { return 1; }
// CHECK-NEXT: {{^                \^$}}
// CHECK: body-after-declarator.cl:6:10: error: expected ';' after top level declarator
// CHECK: 2 errors generated.
