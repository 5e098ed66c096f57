// Cooperative-matrix kernels that fault on purpose (fault reports name the source line).
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

__kernel void load_past_end(__global float *src, __global float *dst, ulong stride) {
  mat_c c = coop_mat_load(src, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, stride);
  coop_mat_store(dst, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (ulong)16);
}

__kernel void store_past_end(__global float *src, __global float *dst, int offset) {
  mat_c c = coop_mat_load(src, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (ulong)16);
  coop_mat_store(dst + offset, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (ulong)16);
}

__kernel void store_stride(__global float *src, __global float *dst, ulong stride) {
  mat_c c = coop_mat_load(src, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (ulong)16);
  coop_mat_store(dst, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, stride);
}

__kernel void non_uniform(__global float *src, __global float *dst) {
  if (get_sub_group_local_id() < 3) {
    mat_c c = coop_mat_load(src, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (ulong)16);
    coop_mat_store(dst, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (ulong)16);
  }
}
