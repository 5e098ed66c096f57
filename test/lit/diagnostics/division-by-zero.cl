// clang -Wdivision-by-zero: integer division or remainder by a constant zero warns at the operator;
// float division and vector operands do not.
// RUN: %clcoop %s -o %t 2>&1 | FileCheck %s

kernel void k(global int *o) {
  int q = 1 / 0;
  o[0] = q % (2 - 2);
  o[1] /= 0;
  float f = 1.0f / 0; o[2] = f + (o[3] / 0.0f);
  int4 v = (int4)(1) / (int4)(0);
  o[4] = v.x;
}

// CHECK: {{.*}}division-by-zero.cl:6:13: warning: division by zero is undefined
// CHECK: {{.*}}division-by-zero.cl:7:12: warning: remainder by zero is undefined
// CHECK: {{.*}}division-by-zero.cl:8:8: warning: division by zero is undefined
// CHECK: 3 warnings generated.
