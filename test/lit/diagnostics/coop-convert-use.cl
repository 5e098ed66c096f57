// Misuses of use conversions and coop_mat_transpose (coopmat_spec.conversion_problem / transpose_problem):
// each at the cast or the call, with the shapes in a note.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

#define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
typedef float acc_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float a_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float b_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float tb_t __attribute__((coop_mat(SG, 16, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef float tacc_t __attribute__((coop_mat(SG, 16, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef half thb_t __attribute__((coop_mat(SG, 16, 8, CLK_COOPERATIVE_MATRIX_B)));

kernel void k(global float *p) {
  acc_t c = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  a_t a = (a_t)c;
  b_t b = (b_t)a;
  tb_t t1 = (tb_t)c;
  tacc_t t2 = coop_mat_transpose(c);
  tb_t t3 = coop_mat_transpose(a);
  b_t t4 = coop_mat_transpose(c);
  thb_t t5 = coop_mat_transpose(c);
  coop_mat_transpose(c);
}

// CHECK: coop-convert-use.cl:16:11: error: invalid conversion between cooperative matrix types 'a_t' and 'b_t': a use conversion is from or to an accumulator (A <-> B is not allowed)
// CHECK: coop-convert-use.cl:17:13: error: invalid conversion between cooperative matrix types 'acc_t' and 'tb_t': rows and columns must match
// CHECK: coop-convert-use.cl:17:13: note: 8x16 to 16x8
// CHECK: coop-convert-use.cl:18:15: error: cannot transpose into an accumulator
// CHECK: coop-convert-use.cl:18:15: note: the result type is 'tacc_t'
// CHECK: coop-convert-use.cl:19:32: error: the matrix to transpose must be an accumulator
// CHECK: coop-convert-use.cl:20:12: error: transpose result must swap rows and columns
// CHECK: coop-convert-use.cl:20:31: note: 8x16 transposes to 16x8
// CHECK: coop-convert-use.cl:21:14: error: transpose result must keep the component type and scope
// CHECK: coop-convert-use.cl:22:3: error: builtin return value should be assigned to cooperative matrix type variable
// CHECK: 1 warning and 7 errors generated.
