// goto and labels: a label is a block named after it; code after a goto lands in a fresh block.
// RUN: %clcoop %s -o - | FileCheck %s

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: br label %again
// CHECK: again:
// CHECK: br i1 %cmp, label %if.then, label %if.end
// CHECK: if.then:
// CHECK-NEXT: br label %again
// CHECK: ret void
kernel void k(global int *o) {
  int n = 0;
again:
  n++;
  if (n < 3) goto again;
  o[0] = n;
}
