// The OpenCL C surface the parser must accept (issue 2 item 2): every address-space
// spelling, kernel/__kernel, attributes on functions, typedefs and variables (both
// coop_mat spellings, the RFC's quoted form too), vector literals, swizzles, half, bool.
// This goes through the checker too (-fsyntax-only), so it needs check.py.
// RUN: %clcoop -fsyntax-only %s 2>&1 | FileCheck %s --allow-empty
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
// CHECK-NOT: error
typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float matB __attribute__((coop_mat("CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP", 16, 16, "CLK_COOPERATIVE_MATRIX_B")));
typedef float matC __attribute__((coop_mat(memory_scope_sub_group, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

__constant float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};

float helper(__generic const float *p) { return p[0]; }

__attribute__((reqd_work_group_size(16, 1, 1)))
__kernel void spellings(__global float *a, global const half *h, __local float *l,
                        local int *li, __constant float *c, constant int *ci)
    __attribute__((intel_reqd_sub_group_size(16)))
{
  __private float x = a[0];
  private int n = li[0];
  bool flag = x > 0.0f;
  half hv = h[0];
  float4 v = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
  float2 w = v.xy + v.s01 + v.lo;
  v.zw = w;
  a[1] = helper(a) + c[0] + ci[0] + n + (flag ? 1.0f : 0.0f) + (float)hv + table[1] + w.x + l[0];
}

kernel void matrices(global float *a, global float *b, global float *c) {
  matA ma = coop_mat_load(a, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  matB mb = coop_mat_load(b, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  float mc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)))
      = coop_mat_load(c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  mc = coop_matmul_add(ma, mb, mc, CLK_COOPERATIVE_MATRIX_OPERAND_NONE);
  coop_mat_store(c, mc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
}
