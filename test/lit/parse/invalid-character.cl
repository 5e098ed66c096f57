// A character that is no C token: reported where it is, and parsing goes on.
// RUN: %not %clcoop %s -o %t.ll 2>&1 | FileCheck %s
kernel void k(global int *p) {
  p[0] = 1 @ 2;
  p[1] = `;
}
// CHECK: invalid-character.cl:4:12: error: invalid character '@' in source
// CHECK: invalid-character.cl:5:10: error: invalid character '`' in source
