// Call arity errors worded and located like clang-22: "too few" at the closing ')', "too many"
// at the first extra argument, a single named parameter named; calling an undeclared function
// is an undeclared identifier (OpenCL C has no implicit declarations).
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

int one(int a);
int two(int a, int b);
kernel void k(global int *o) {
  o[0] = one();
  o[1] = one(1, 2);
  o[2] = two(1);
  o[3] = (int)get_global_id();
  o[4] = nowhere(3);
}

// CHECK: {{.*}}call-arity.cl:9:14: error: too few arguments to function call, single argument 'a' was not specified
// CHECK: {{.*}}call-arity.cl:10:17: error: too many arguments to function call, expected single argument 'a', have 2 arguments
// CHECK: {{.*}}call-arity.cl:11:15: error: too few arguments to function call, expected 2, have 1
// CHECK: {{.*}}call-arity.cl:12:29: error: too few arguments to function call, expected 1, have 0
// CHECK: {{.*}}call-arity.cl:13:10: error: use of undeclared identifier 'nowhere'
