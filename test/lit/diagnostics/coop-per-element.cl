// coop_mat_per_element misuses: an fn that is not a function name, an fn of the wrong
// signature, extra operands that do not match fn's parameters.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int iacc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

float ident(uint r, uint c, float x) { return x; }
float scaled(uint r, uint c, float x, float s) { return x * s; }
float wrong_order(float x, uint r, uint c) { return x; }
float with_vector(uint r, uint c, float x, float4 v) { return x + v.x; }
kernel void kern(global float *p) {}

kernel void k(global float *p, float s) {
  acc m = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  iacc im = coop_mat_init(1);
  acc a = coop_mat_per_element(m, s);
  acc b = coop_mat_per_element(m, ident(0, 0, 1.0f));
  acc c = coop_mat_per_element(m, wrong_order);
  acc d = coop_mat_per_element(m, ident, s);
  acc e = coop_mat_per_element(m, scaled);
  acc f = coop_mat_per_element(m, scaled, im);
  acc g = coop_mat_per_element(m, kern);
  acc h = coop_mat_per_element(m, with_vector, (float4)(1.0f));
  acc i = coop_mat_per_element(im, ident);
}

// CHECK: coop-per-element.cl:17:35: error: second argument of 'coop_mat_per_element' must be the name of a function; 's' is not a function
// CHECK: coop-per-element.cl:18:35: error: second argument of 'coop_mat_per_element' must be the name of a function (OpenCL C has no function pointers)
// CHECK: coop-per-element.cl:19:35: error: second argument of 'coop_mat_per_element': the function must have type 'float (uint, uint, float, ...)': row, column, element, then the extra operands
// CHECK: note: 'wrong_order' has type 'float (float, uint, uint)'
// CHECK: coop-per-element.cl:20:35: error: second argument of 'coop_mat_per_element': the function takes 0 extra operand(s) after (row, column, element), but the call passes 1
// CHECK: coop-per-element.cl:21:35: error: second argument of 'coop_mat_per_element': the function takes 1 extra operand(s) after (row, column, element), but the call passes 0
// CHECK: coop-per-element.cl:22:43: error: matrix operand of 'coop_mat_per_element' must have the type of its first argument ('acc', not 'iacc')
// CHECK: coop-per-element.cl:23:35: error: second argument of 'coop_mat_per_element' must not be a kernel
// CHECK: coop-per-element.cl:24:48: error: extra operand of 'coop_mat_per_element' must be a scalar, a pointer or a matrix of the first argument's type (parameter 4 of 'with_vector' has type 'float4')
// CHECK: coop-per-element.cl:25:36: error: second argument of 'coop_mat_per_element': the function must have type 'int (uint, uint, int, ...)'
