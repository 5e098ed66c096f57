// The input ends inside a GNU asm statement's operand list: a located "expected expression",
// not an internal compiler error (there was no token to take the list's location from;
// found by scripts/fuzz.py --seed 1619).
// RUN: %not %clcoop %s -fsyntax-only 2>&1 | FileCheck %s --implicit-check-not="internal compiler error"
// CHECK: asm-operands-at-end.cl:[[# @LINE + 3]]:{{[0-9]+}}: error: expected expression
kernel void k(global int *o) {
  int x = o[0];
  __asm__("" :
