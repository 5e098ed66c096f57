// C99 statements lower to clang's block structure (issue 2 item 7).
// RUN: %clcoop %s -o - | FileCheck %s

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: br label %for.cond
// CHECK: for.cond:
// CHECK: %cmp = icmp slt i32
// CHECK: br i1 %cmp, label %for.body, label %for.end
// CHECK: for.body:
// CHECK: if.then:
// CHECK: br label %for.inc
// CHECK: for.inc:
// CHECK: %inc = add nsw i32
// CHECK: for.end:
// CHECK: while.cond:
// CHECK: while.body:
// CHECK: while.end:
// CHECK: do.body:
// CHECK: do.cond:
// CHECK: do.end:
// CHECK: switch i32 %{{[0-9]+}}, label %sw.default [
// CHECK-NEXT: i32 1, label %sw.bb
// CHECK-NEXT: i32 2, label %sw.bb{{[0-9]+}}
// CHECK: sw.epilog:
// CHECK: ret void
kernel void k(global int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    if (i == 3) continue;
    if (i > 10) break;
    s += a[i];
  }
  while (s > 100) s -= 7;
  do { s++; } while (s < 5);
  switch (n) {
  case 1: s = 10; break;
  case 2: s = 20;
  default: s += 1;
  }
  a[0] = s;
}
