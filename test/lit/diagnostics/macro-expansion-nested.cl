// A semantic error in a nested expansion: at the outer invocation, then one note per macro,
// outermost first, each at the token's place in its #define (clang-22's output).
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s
#define BAD(x) (x + undefined_name)
#define TWICE(x) BAD(x) * 2
kernel void k(global int *o) {
  o[0] = 1; o[1] = TWICE(o[0]);
}
// CHECK: macro-expansion-nested.cl:7:20: error: use of undeclared identifier 'undefined_name'
// CHECK: macro-expansion-nested.cl:5:18: note: expanded from macro 'TWICE'
// CHECK: macro-expansion-nested.cl:4:21: note: expanded from macro 'BAD'
// CHECK: 1 error generated.
