// Misuse of tensor layouts and views (issue 14): a wrong dimension count, a non-constant
// clamp mode, a block size on a store, a decode function with a wrong signature, a tensor
// operation on a non-matrix, and the type attributes themselves.
// RUN: %not %clcoop -Wno-coop-portability -ferror-limit=0 %s -o %t 2>&1 | FileCheck %s

typedef float acc_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t L2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
typedef coop_tensor_layout_t L3 __attribute__((coop_tensor_layout(3, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED)));
typedef coop_tensor_view_t V2 __attribute__((coop_tensor_view(2, false, 1, 0)));
typedef coop_tensor_view_t V3 __attribute__((coop_tensor_view(3, false)));
typedef coop_tensor_layout_t L6 __attribute__((coop_tensor_layout(6, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
typedef coop_tensor_layout_t LM __attribute__((coop_tensor_layout(2, 9)));
typedef coop_tensor_view_t VP __attribute__((coop_tensor_view(2, true, 1, 1)));
typedef coop_tensor_view_t VC __attribute__((coop_tensor_view(2, true, 1)));

int clamp_mode(void);
typedef coop_tensor_layout_t LN __attribute__((coop_tensor_layout(2, clamp_mode())));

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
int bad_return(const global float *b, const uint c[2], const uint i[2]) { return 0; }
half short_decode(const global float *b, const uint c[2]) { return 0; }
half wrong_block(const global int *b, const uint c[2], const uint i[2]) { return 0; }

typedef half hacc_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

kernel void k(global float *p, constant float *cp, int n) {
  L2 t = coop_tensor_layout_create();
  t = coop_tensor_layout_set_dimension(t, 8);
  t = coop_tensor_layout_set_stride(t, 1, 2, 3);
  t = coop_tensor_layout_slice(t, 0, 8, 0);
  t = coop_tensor_layout_set_clamp_value(t, 1.0f);
  V2 v = coop_tensor_view_create();
  v = coop_tensor_view_set_clip(v, 0, 8, 0);
  acc_t a = coop_mat_load_tensor(p, t);
  int x = coop_mat_load_tensor(p, t);
  coop_mat_store_tensor(p, n, t);
  coop_mat_store_tensor(p, a, n);
  coop_mat_store_tensor(cp, a, t);
  L2 blocked = coop_tensor_layout_set_block_size(coop_tensor_layout_create(), 1, 32);
  const L2 cblocked = coop_tensor_layout_set_block_size(coop_tensor_layout_create(), 1, 32);
  coop_mat_store_tensor(p, a, coop_tensor_layout_set_block_size(t, 2, 1));
  coop_mat_store_tensor(p, a, cblocked);
  coop_mat_store_tensor(p, a, blocked);
  L3 t3 = coop_tensor_layout_create();
  V3 v3 = coop_tensor_view_create();
  a = coop_mat_load_tensor(a, p, t, v3);
  a = coop_mat_load_tensor(p, t, bad_return);
  hacc_t h = coop_mat_load_tensor(p, t, short_decode);
  h = coop_mat_load_tensor(p, t, wrong_block);
  coop_tensor_layout_t bare;
  t = coop_tensor_view_set_clip(t, 0, 8, 0, 16);
  t = coop_tensor_layout_create(1);
  coop_mat_store_tensor(p, a, t, v, short_decode);
  printf("%d", t);
}

// CHECK: coop-tensor-errors.cl:11:67: error: a tensor layout or view has 1 to 5 dimensions, not 6
// CHECK: coop-tensor-errors.cl:12:70: error: invalid tensor clamp mode 9
// CHECK: coop-tensor-errors.cl:12:70: note: a clamp mode is UNDEFINED, CONSTANT, CLAMP_TO_EDGE, REPEAT or REPEAT_MIRRORED
// CHECK: coop-tensor-errors.cl:13:72: error: tensor view permutation (1, 1) is not a permutation of 0..1
// CHECK: coop-tensor-errors.cl:14:72: error: 'coop_tensor_view' permutation has 1 values for 2 dimensions
// CHECK: coop-tensor-errors.cl:17:70: error: tensor clamp mode must be a constant (CLK_COOPERATIVE_MATRIX_CLAMP_MODE_*)
// CHECK: coop-tensor-errors.cl:28:43: error: 'coop_tensor_layout_set_dimension' takes 2 operands after the layout for a 2-dimensional tensor, 1 given
// CHECK: coop-tensor-errors.cl:29:46: error: 'coop_tensor_layout_set_stride' takes 2 operands after the layout for a 2-dimensional tensor, 3 given
// CHECK: coop-tensor-errors.cl:30:41: error: 'coop_tensor_layout_slice' takes 4 operands after the layout for a 2-dimensional tensor, 3 given
// CHECK: coop-tensor-errors.cl:31:45: error: argument of 'coop_tensor_layout_set_clamp_value' must be an integer ('float' invalid) (the clamp value is a bit pattern: pass as_uint(x))
// CHECK: coop-tensor-errors.cl:33:42: error: 'coop_tensor_view_set_clip' takes 4 operands after the view for a 2-dimensional tensor, 3 given
// CHECK: coop-tensor-errors.cl:35:11: error: 'coop_mat_load_tensor' must initialize or be assigned to a cooperative matrix variable (it takes its type from there)
// CHECK: coop-tensor-errors.cl:36:28: error: second argument of 'coop_mat_store_tensor' must be a cooperative matrix ('int' invalid)
// CHECK: coop-tensor-errors.cl:37:31: error: first argument of 'coop_mat_store_tensor' must be a tensor layout ('int' invalid)
// CHECK: coop-tensor-errors.cl:38:25: error: cannot store a cooperative matrix to '__constant' memory
// CHECK: coop-tensor-errors.cl:41:31: error: tensor store with block size (2, 1): a block size greater than 1 must not be used with a store (SPV_NV_cooperative_matrix2)
// CHECK: coop-tensor-errors.cl:42:31: error: tensor store with block size (1, 32): a block size greater than 1 must not be used with a store (SPV_NV_cooperative_matrix2)
// CHECK-NOT: coop-tensor-errors.cl:43:
// CHECK: coop-tensor-errors.cl:46:37: error: a tensor view without dimensions uses the layout's span, so it must have the layout's 2 dimensions, not 3
// CHECK: coop-tensor-errors.cl:47:34: error: third argument of 'coop_mat_load_tensor': invalid decode function 'bad_return': it returns 'int', not the component type 'float' (a decode function for this load is 'float bad_return(const __global float *block, const uint block_coord[2], const uint coord_in_block[2])')
// CHECK: coop-tensor-errors.cl:20:5: note: 'bad_return' has type 'int (__global const float *, __generic uint *, __generic uint *)'
// CHECK: coop-tensor-errors.cl:48:41: error: third argument of 'coop_mat_load_tensor': invalid decode function 'short_decode': it has 2 parameters, not 3
// CHECK: coop-tensor-errors.cl:49:34: error: third argument of 'coop_mat_load_tensor': invalid decode function 'wrong_block': its first parameter is 'const __global int *', not a pointer to the loaded 'float' in the pointer's address space
// CHECK: coop-tensor-errors.cl:50:24: error: 'coop_tensor_layout_t' needs its attribute
// CHECK: coop-tensor-errors.cl:51:33: error: first argument of 'coop_tensor_view_set_clip' must be a tensor view ('L2' invalid)
// CHECK: coop-tensor-errors.cl:52:33: error: too many arguments to function call, expected 0, have 1
// CHECK: coop-tensor-errors.cl:53:37: error: 'coop_mat_store_tensor' takes no decode function (SPV_NV_cooperative_matrix2: DecodeFunc is for loads only)
// CHECK: coop-tensor-errors.cl:54:16: error: cannot pass a tensor layout of type 'L2' to printf
