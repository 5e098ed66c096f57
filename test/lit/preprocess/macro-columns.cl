// Tokens keep their columns after preprocessing, so errors point at the right token
// even on lines that use macros before the error.
// RUN: %not %clcoop %s -o %t.ll 2>&1 | FileCheck %s
#define N 16
kernel void k(global float *p) {
        p[N] = p[N] + ;
}
// CHECK: macro-columns.cl:6:23: error: expected expression
