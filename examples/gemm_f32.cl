// Tiled f32 GEMM with cooperative matrices: C = A * B (+ C0 when accumulate != 0).
// A is M x K, B is K x N, C is M x N, all row-major.
//
// One subgroup computes one 8 x 16 tile of C, stepping K by 16.
// NDRange: dimension 0 = (N / 16) * subgroup size, dimension 1 = M / 8;
// the local size in dimension 0 must be a multiple of the subgroup size, so that
// the work-items of one subgroup share get_global_id(0) / get_sub_group_size().
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#define TILE_M 8
#define TILE_N 16
#define TILE_K 16

typedef float mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_K, CLK_COOPERATIVE_MATRIX_A)));
typedef float mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_K, TILE_N, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

__kernel void gemm_f32(__global const float *A, __global const float *B, __global float *C,
                       int M, int N, int K, int accumulate)
{
    const size_t tile_col = get_global_id(0) / get_sub_group_size();
    const size_t tile_row = get_global_id(1);
    __global float *c_tile = C + tile_row * TILE_M * N + tile_col * TILE_N;

    mat_c acc;
    if (accumulate)
        acc = coop_mat_load(c_tile, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
    else
        acc = coop_mat_init(0.0f);

    for (int k = 0; k < K; k += TILE_K) {
        mat_a a = coop_mat_load(A + tile_row * TILE_M * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
        mat_b b = coop_mat_load(B + (size_t)k * N + tile_col * TILE_N, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
        acc = coop_mat_mulAdd(a, b, acc);
    }
    coop_mat_store(c_tile, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
}
