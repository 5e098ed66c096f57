// Initializers are checked and lowered element by element, so an initialized array of more
// than 2^20 elements is a located error instead of exhausting memory (a fuzzer finding:
// `table[2147483648] = {...}`); clang accepts these and emits a zero tail. Arrays without
// an initializer may be larger.
// RUN: not %clcoop %s -fsyntax-only 2>&1 | FileCheck %s
__constant float table[2147483648] = {1.0f, 2.0f};
constant char text[2147483648] = "abc";
global int fine[1 << 21];
kernel void k(global int *o) {
  int sparse[] = {[2000000000] = 1};
  int ok[1048576] = {1};
  o[0] = (int)table[1] + text[0] + sparse[0] + fine[3] + ok[0];
}
// CHECK: huge-array-initializer.cl:6:39: error: an initializer for an array of 2147483648 elements is not supported by clcoop (at most 1048576)
// CHECK: huge-array-initializer.cl:7:34: error: an initializer for an array of 2147483648 elements is not supported by clcoop (at most 1048576)
// CHECK: huge-array-initializer.cl:10:20: error: an initializer for an array of more than 1048576 elements is not supported by clcoop
// CHECK-NOT: error:
// CHECK: 3 errors generated.
