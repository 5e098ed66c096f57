// Loop attributes: opencl_unroll_hint (OpenCL C 3.0 6.11.5) with and without a count (a literal
// or a constant expression, e.g. from a macro) is accepted before for/while/do, also as a
// sub-statement; a count that is not positive is clang-22's error (the loop is still parsed:
// one error each). The metadata: codegen/opencl-unroll-hint.cl.
// RUN: %clcoop %s -DGOOD -o - | FileCheck %s --check-prefix=GOOD
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s
#define UNROLL (2 * 2)
kernel void k(global int *o, int n) {
  __attribute__((opencl_unroll_hint(UNROLL))) for (int i = 0; i < 8; i++) o[i] = i;
  __attribute__((opencl_unroll_hint)) while (n--) o[n] += 1;
  if (n) __attribute__((opencl_unroll_hint(2))) do { o[0]++; } while (0);
#ifndef GOOD
  __attribute__((opencl_unroll_hint(0))) for (int i = 0; i < 8; i++) o[i] = i;
  __attribute__((opencl_unroll_hint(1 - 3))) for (int i = 0; i < 8; i++) o[i] = i;
#endif
}
// GOOD: define spir_kernel void @k(
// GOOD: !llvm.loop [[FOR:![0-9]+]]
// GOOD: [[FOR]] = distinct !{[[FOR]], [[COUNT:![0-9]+]]}
// GOOD: [[COUNT]] = !{!"llvm.loop.unroll.count", i32 4}
// CHECK: opencl-unroll-hint.cl:13:18: error: 'opencl_unroll_hint' attribute requires a positive integral compile time constant expression
// CHECK: opencl-unroll-hint.cl:14:18: error: 'opencl_unroll_hint' attribute requires a positive integral compile time constant expression
// CHECK: 2 errors generated.
