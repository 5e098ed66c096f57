// The OpenCL C printf grammar (OpenCL C 3.0 6.15.14.2; clcoop/printf_format.py): C's L, j, z,
// t and ll length modifiers and unknown conversions are warnings at the conversion specifier
// (clang-22's location for -Wformat-invalid-specifier), in the interpreter's words (it faults
// on them); each still takes its data argument.
// RUN: %clcoop %s -fsyntax-only 2>&1 | FileCheck %s
kernel void k(global float *p, long l) {
  printf("%Lf\n", p[0]);
  printf("%jd %zd %td %lld\n", l, l, l, l);
  printf("%y|%hlf\n", 1, 1.0f);
  printf("%ld %v4hlf %%\n", l, (float4)(1));
}
// CHECK: printf-format.cl:7:13: warning: invalid printf format: length modifier 'L' in '%Lf' is not supported by OpenCL C printf
// CHECK: printf-format.cl:8:13: warning: invalid printf format: length modifier 'j' in '%jd' is not supported by OpenCL C printf
// CHECK: printf-format.cl:8:17: warning: invalid printf format: length modifier 'z' in '%zd'
// CHECK: printf-format.cl:8:21: warning: invalid printf format: length modifier 't' in '%td'
// CHECK: printf-format.cl:8:26: warning: invalid printf format: length modifier 'll' in '%lld' is not supported by OpenCL C printf (use 'l' for long)
// CHECK: printf-format.cl:9:12: warning: invalid printf format: unknown conversion specifier 'y' in '%y'
// CHECK: printf-format.cl:9:17: warning: invalid printf format: length modifier 'hl' in '%hlf' is only valid with a vector specifier
// CHECK-NOT: warning:
// CHECK: 7 warnings generated.
