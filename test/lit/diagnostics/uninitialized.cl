// clang's -Wuninitialized (on by default in clcoop): a local read where no path assigned it
// warns at the use, with the note at the declaration; the wording is clang-22's.
// Reads that a loop's back edge or an earlier assignment may reach do not warn.
// RUN: %clcoop -Wno-coop-portability %s -o %t 2>&1 | FileCheck %s
// RUN: %clcoop -Wno-coop-portability -Wno-uninitialized %s -o %t 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// RUN: %not %clcoop -Wno-coop-portability -Werror=uninitialized %s -o %t 2>&1 | FileCheck %s --check-prefix=ERROR

typedef float mc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

kernel void k(global float *C, global int *o, int n) {
  mc c;
  coop_mat_store(C, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  int x;
  o[0] = x + 1;
  int y;
  for (int i = 0; i < n; i++) { if (i) o[i] = y; y = i; }
  float4 v; v.x = 1.0f; o[2] = v.x;
  int w; int *p = &w; *p = 3; o[4] = w;
}

// CHECK: uninitialized.cl:12:21: warning: variable 'c' is uninitialized when used here [-Wuninitialized]
// CHECK-NEXT: coop_mat_store(C, c,
// CHECK-NEXT: {{^}}                    ^
// CHECK-NEXT: uninitialized.cl:11:7: note: initialize the variable 'c' to silence this warning
// CHECK: uninitialized.cl:14:10: warning: variable 'x' is uninitialized when used here [-Wuninitialized]
// CHECK: uninitialized.cl:13:8: note: initialize the variable 'x' to silence this warning
// CHECK: 2 warnings generated.
// QUIET-NOT: warning
// ERROR: uninitialized.cl:12:21: error: variable 'c' is uninitialized when used here [-Werror,-Wuninitialized]
