// cl_khr_fp16 (OpenCL C 3.0 6.2.1, 6.3.1.1): without `#pragma OPENCL EXTENSION cl_khr_fp16 :
// enable`, half values are errors with clang-22's wording and locations; pointers to half,
// half vectors, half cooperative matrices and vload_half/vstore_half stay allowed. The
// pragma takes effect from its line on, and `disable` (or `all : disable`) turns it off.
// RUN: not %clcoop %s -fsyntax-only 2>&1 | FileCheck %s
typedef half H;
typedef half mat_a __attribute__((coop_mat(memory_scope_sub_group, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
half ret(void);
void param(global half *p, half x, half2 v);
kernel void k(global half *p, global float *o, global half4 *q) {
  p[0] = o[0];
  *p = 1;
  o[1] = *p;
  o[2] = p[3] + 1.0f;
  half a = p[0];
  H b;
  half c[2];
  o[3] = (half)1.0f;
  o[4] = 0.5h;
  half4 w = q[0];
  mat_a m = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  o[5] = vload_half(0, p) + sizeof(half);
  vstore_half(o[0] + w.x, 1, p);
}
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void enabled(global half *p) { half a = p[0]; p[1] = a * 0.5h; }
#pragma OPENCL EXTENSION all : disable
kernel void disabled(global half *p) { half a = p[0]; }

// CHECK: fp16-extension.cl:8:6: error: declaring function return value of type 'half' is not allowed ; did you forget * ?
// CHECK: fp16-extension.cl:9:33: error: declaring function parameter of type '__private half' is not allowed; did you forget * ?
// CHECK: fp16-extension.cl:11:8: error: assigning directly to pointer to type 'half' requires cl_khr_fp16. Use vector data store builtin functions instead
// CHECK: fp16-extension.cl:12:6: error: assigning directly to pointer to type 'half'
// CHECK: fp16-extension.cl:13:10: error: loading directly from pointer to type '__global half' requires cl_khr_fp16. Use vector data load builtin functions instead
// CHECK: fp16-extension.cl:14:10: error: loading directly from pointer to type '__global half'
// CHECK: fp16-extension.cl:15:8: error: declaring variable of type '__private half' is not allowed
// CHECK: fp16-extension.cl:16:5: error: declaring variable of type '__private H' (aka '__private half') is not allowed
// CHECK: fp16-extension.cl:17:8: error: declaring variable of type '__private half[2]' is not allowed
// CHECK: fp16-extension.cl:18:16: error: casting to type 'half' is not allowed
// CHECK: fp16-extension.cl:19:10: error: half precision constant requires cl_khr_fp16
// CHECK: fp16-extension.cl:28:45: error: declaring variable of type '__private half' is not allowed
// CHECK-NOT: error:
// CHECK: 12 errors generated.
