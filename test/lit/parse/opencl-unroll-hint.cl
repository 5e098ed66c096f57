// Loop attributes: opencl_unroll_hint (OpenCL C 3.0 6.11.5) with and without a count is
// accepted before for/while/do, also as a sub-statement; a non-positive count is clang-22's
// error (the loop is still parsed: one error). The metadata: codegen/opencl-unroll-hint.cl.
// RUN: %clcoop %s -DGOOD -o - | FileCheck %s --check-prefix=GOOD
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s
kernel void k(global int *o, int n) {
  __attribute__((opencl_unroll_hint(4))) for (int i = 0; i < 8; i++) o[i] = i;
  __attribute__((opencl_unroll_hint)) while (n--) o[n] += 1;
  if (n) __attribute__((opencl_unroll_hint(2))) do { o[0]++; } while (0);
#ifndef GOOD
  __attribute__((opencl_unroll_hint(0))) for (int i = 0; i < 8; i++) o[i] = i;
#endif
}
// GOOD: define spir_kernel void @k(
// GOOD: for.cond:
// GOOD: while.cond:
// GOOD: do.body:
// CHECK: opencl-unroll-hint.cl:11:18: error: 'opencl_unroll_hint' attribute requires a positive integral compile time constant expression
// CHECK: 1 error generated.
