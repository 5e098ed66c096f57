// fp8 values (SPV_EXT_float8) take no arithmetic and no implicit conversion; `_sat` only into fp8;
// no rounding suffix but `_rte`; no bool; fp8 matrices take no operators, and an fp8 multiply-add
// accumulates in half or float (docs/coopmat2-semantics.md "fp8").
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable

kernel void scalars(global __fp8_e4m3 *p, global float *f) {
  // CHECK: fp8-errors.cl:10:{{[0-9]+}}: error: invalid operands to binary expression ('__fp8_e4m3' and '__fp8_e4m3')
  p[0] = p[1] + p[2];
  // CHECK: fp8-errors.cl:12:{{[0-9]+}}: error: assigning to '__fp8_e4m3' from incompatible type 'float'
  p[0] = f[0];
  // CHECK: fp8-errors.cl:14:{{[0-9]+}}: error: '_sat' is not allowed in a conversion from an fp8 type
  f[0] = convert_float_sat(p[0]);
  // CHECK: fp8-errors.cl:16:{{[0-9]+}}: error: 'convert___fp8_e4m3_rtz': an fp8 conversion rounds to nearest even only
  p[0] = convert___fp8_e4m3_rtz(f[0]);
  // CHECK: fp8-errors.cl:18:{{[0-9]+}}: error: invalid cast from '__fp8_e4m3' to 'bool'
  f[1] = (bool)p[0];
}

typedef __fp8_e4m3 mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef __fp8_e4m3 mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef __fp8_e4m3 mat_q __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

kernel void matrices(global __fp8_e4m3 *p) {
  mat_a a = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  mat_b b = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)8);
  mat_q q = coop_mat_init(0.0f);
  // CHECK: fp8-errors.cl:30:{{[0-9]+}}: error: invalid operands to binary expression ('mat_a' and 'mat_a'): SPV_EXT_float8 has no arithmetic on fp8 matrices
  a = a * a;
  // CHECK: fp8-errors.cl:32:{{[0-9]+}}: error: inconsistent cooperative matrix element types
  q = coop_mat_mulAdd(a, b, q);
  // CHECK: note: element types are '__fp8_e4m3', '__fp8_e4m3' and '__fp8_e4m3': the accumulator of an fp8 multiply-add is half or float
}
