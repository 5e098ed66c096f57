// General C/OpenCL C errors, located at the offending token like clang.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

int add(int a, int b) { return a + b; }

kernel void k(global float *p, constant int *c, int n) {
  undeclared = 1;
  missing(n);
  n = add(1);
  n = add(1, 2, 3);
  p = 3;
  global int *g = c;
  float4 v = (float4)(1.0f, 2.0f);
  v.s9 = 1.0f;
  v.xq = 1.0f;
  float r = p[0] % 2;
  const int k = 1;
  k = 2;
  break;
  printf(n);
}

kernel int bad_return(void) { return 0; }
kernel void private_pointer(int *p) {}
void not_a_kernel(void) { local int x; }

// CHECK: {{.*}}c-errors.cl:7:3: error: use of undeclared identifier 'undeclared'
// CHECK: {{.*}}c-errors.cl:8:3: error: use of undeclared identifier 'missing'
// CHECK: {{.*}}c-errors.cl:9:12: error: too few arguments to function call, expected 2, have 1
// CHECK: {{.*}}c-errors.cl:4:5: note: 'add' declared here
// CHECK: {{.*}}c-errors.cl:10:17: error: too many arguments to function call, expected 2, have 3
// CHECK: {{.*}}c-errors.cl:4:5: note: 'add' declared here
// CHECK: {{.*}}c-errors.cl:11:5: error: incompatible integer to pointer conversion assigning to '__global float *' from 'int'
// CHECK: {{.*}}c-errors.cl:12:15: error: initializing '__global int *' with an expression of type '__constant int *' changes address space of pointer
// CHECK: {{.*}}c-errors.cl:13:22: error: too few elements in vector initialization (expected 4 elements, have 2)
// CHECK: {{.*}}c-errors.cl:14:4: error: vector component access exceeds type 'float4'
// CHECK: {{.*}}c-errors.cl:15:6: error: illegal vector component name 'q'
// CHECK: {{.*}}c-errors.cl:16:18: error: invalid operands to binary expression ('float' and 'int')
// CHECK: {{.*}}c-errors.cl:18:5: error: cannot assign to variable 'k' with const-qualified type 'const int'
// CHECK: {{.*}}c-errors.cl:19:3: error: 'break' statement not in loop or switch statement
// CHECK: {{.*}}c-errors.cl:20:10: error: incompatible integer to pointer conversion passing 'int' to parameter of type 'const __constant char *'
// CHECK: {{.*}}c-errors.cl:23:12: error: kernel must have void return type
// CHECK: {{.*}}c-errors.cl:24:34: error: pointer arguments to kernel functions must reside in '__global', '__constant' or '__local' address space
// CHECK: {{.*}}c-errors.cl:25:37: error: non-kernel function variable cannot be declared in local address space
// CHECK: 16 errors generated.
