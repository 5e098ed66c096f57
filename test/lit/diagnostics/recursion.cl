// OpenCL C 3.0 6.11: recursion is not supported; each cycle of the call graph is one error,
// at the call that closes it.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

int odd(int n);
int even(int n) { return n == 0 ? 1 : odd(n - 1); }
int odd(int n) { return n == 0 ? 0 : even(n - 1); }
int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
int fine(int n) { return even(n) + 1; }
kernel void k(global int *p) { p[0] = fine(p[1]) + fact(3); }

// CHECK: {{.*}}recursion.cl:6:39: error: recursion is not supported in OpenCL C ('even' calls 'odd', which calls 'even' again)
// CHECK: {{.*}}recursion.cl:8:43: error: recursion is not supported in OpenCL C ('fact' calls itself)
// CHECK: 2 errors generated.
