// Atomic objects are read and written only through the atomic functions (OpenCL C 3.0
// 6.15.12.6). Assignments get clang-22's wording; other reads, which clang lets through as
// implicit seq_cst loads or reports as invalid operands, are rejected with the rule.
// RUN: not %clcoop %s -fsyntax-only 2>&1 | FileCheck %s
global atomic_int g;
kernel void k(global atomic_int *a, global int *o) {
  *a = 3;
  g = 2;
  o[0] = *a;
  int x = *a + 1;
  o[1] = atomic_fetch_add(a, 1.5f) + x;
  o[2] = atomic_fetch_add(o, 1);
}
// CHECK: atomics-c11.cl:7:6: error: atomic variable can be assigned to a variable only in global address space
// CHECK: atomics-c11.cl:8:5: error: atomic variable can be assigned to a variable only in global address space
// CHECK: atomics-c11.cl:9:8: error: atomic variable can be assigned to a variable only in global address space
// CHECK: atomics-c11.cl:10:12: error: an object of type 'atomic_int' is read only through the atomic functions (e.g. atomic_load; OpenCL C 3.0 6.15.12.6)
// CHECK: atomics-c11.cl:12:10: error: call to 'atomic_fetch_add' is ambiguous
// CHECK-NOT: error:
