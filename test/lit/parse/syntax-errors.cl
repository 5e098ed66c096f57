// Several syntax errors in one run, each at clang's line and column (checked against
// clang-22 -fsyntax-only): after an error the parser skips to the end of the statement.
// RUN: %not %clcoop %s -o %t.ll 2>&1 | FileCheck %s --match-full-lines
kernel void k(global float *a, int n) {
  int x = 1
  a[0] = x;
  a[1] = (x + ;
  for (int i = 0; i < n; i++ {
    a[i] = 0;
  }
  float y = a[;
  int 3x = 2;
}
void g(void) { return }
kernel void after(global int *p) {
  p[0] = 1
}
// CHECK:      {{.*}}syntax-errors.cl:5:12: error: expected ';' at end of declaration
// CHECK-NEXT:   int x = 1
// CHECK-NEXT:            ^
// CHECK-NEXT: {{.*}}syntax-errors.cl:7:15: error: expected expression
// CHECK:      {{.*}}syntax-errors.cl:8:30: error: expected ')'
// CHECK:      {{.*}}syntax-errors.cl:11:15: error: expected expression
// CHECK:      {{.*}}syntax-errors.cl:12:7: error: expected identifier or '('
// CHECK:      {{.*}}syntax-errors.cl:14:23: error: expected expression
// CHECK:      {{.*}}syntax-errors.cl:16:11: error: expected ';' after expression
// CHECK:      7 errors generated.
