// coop_mat_reduce misuses: a combine of the wrong signature or that is not a function name, a mode that is not
// a constant, 2X2 with ROW, a result shape the mode forbids, non-accumulators, no context type.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float acc8x8 __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float acc4x16 __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 4, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float acc4x8 __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 4, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float amat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef int iacc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

float add(float a, float b) { return a + b; }
int iadd(int a, int b) { return a + b; }
float add3(float a, float b, float c) { return a + b + c; }

kernel void k(global float *p, int mode) {
  acc m = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  acc8x8 r1 = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, iadd);
  acc8x8 r2 = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add3);
  acc8x8 r3 = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, &add);
  acc8x8 r4 = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, mode);
  acc8x8 r5 = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, nothing);
  acc8x8 r6 = coop_mat_reduce(m, mode, add);
  acc4x8 r7 = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_2X2 | CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add);
  acc4x16 r8 = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add);
  acc4x16 r9 = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_2X2, add);
  acc8x8 r10 = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_COLUMN, add);
  amat r11 = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add);
  coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add);
  amat a = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  acc r12 = coop_mat_reduce(a, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add);
  iacc r13 = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add);
  acc r14 = coop_mat_reduce(m, 8, add);
}

// CHECK: coop-reduce.cl:18:69: error: third argument of 'coop_mat_reduce': the function must have type 'float (float, float)'
// CHECK: note: 'iadd' has type 'int (int, int)'
// CHECK: coop-reduce.cl:19:69: error: third argument of 'coop_mat_reduce': the function must have type 'float (float, float)'
// CHECK: note: 'add3' has type 'float (float, float, float)'
// CHECK: coop-reduce.cl:20:69: error: third argument of 'coop_mat_reduce' must be the name of a function (OpenCL C has no function pointers)
// CHECK: coop-reduce.cl:21:69: error: third argument of 'coop_mat_reduce' must be the name of a function; 'mode' is not a function
// CHECK: coop-reduce.cl:22:69: error: use of undeclared identifier 'nothing'
// CHECK: coop-reduce.cl:23:34: error: reduce mode of 'coop_mat_reduce' must be an integer constant expression
// CHECK: coop-reduce.cl:24:68: error: reduce mode 5: CLK_COOPERATIVE_MATRIX_REDUCE_2X2 cannot be combined with ROW or COLUMN
// CHECK: coop-reduce.cl:25:16: error: a row reduction keeps the number of rows
// CHECK: note: 8 rows reduce to 4
// CHECK: coop-reduce.cl:26:16: error: a 2x2 reduction halves both dimensions
// CHECK: note: 8x16 reduces to 4x8
// CHECK: coop-reduce.cl:27:16: error: a column reduction keeps the number of columns
// CHECK: note: 16 columns reduce to 8
// CHECK: coop-reduce.cl:28:14: error: the result of a reduction must be an accumulator
// CHECK: coop-reduce.cl:29:3: error: builtin return value should be assigned to cooperative matrix type variable
// CHECK: coop-reduce.cl:31:29: error: the matrix to reduce must be an accumulator
// CHECK: coop-reduce.cl:32:14: error: the result of a reduction must keep the component type and scope
// CHECK: coop-reduce.cl:33:32: error: invalid reduce mode 8 (CLK_COOPERATIVE_MATRIX_REDUCE_ROW, _COLUMN, _ROW | _COLUMN or _2X2)
