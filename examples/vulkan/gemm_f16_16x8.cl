// GPU-shaped GEMM for the Vulkan target: f16 x f16 -> f16, 16 x 8 x 16 tiles (M x N x K), subgroup
// scope, with B stored COLUMN-major (element (k, n) at B[n * K + k]) and a fixed work-group size.
// C (M x N row-major half) = A (M x K row-major half) * B.
// NDRange: dimension 0 = (N / 8) * 32, dimension 1 = M / 16; local size (32, 1, 1).
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

typedef half mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef half mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef half mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

__kernel __attribute__((reqd_work_group_size(32, 1, 1)))
void gemm_f16_16x8(__global const half *A, __global const half *B, __global half *C, int M, int N, int K)
{
    const size_t tile_col = get_group_id(0);
    const size_t tile_row = get_global_id(1);

    mat_c acc = coop_mat_init((half)0.0f);
    for (int k = 0; k < K; k += 16) {
        mat_a a = coop_mat_load(A + tile_row * 16 * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
        mat_b b = coop_mat_load(B + tile_col * 8 * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR, (size_t)K);
        acc = coop_mat_mulAdd(a, b, acc);
    }
    coop_mat_store(C + tile_row * 16 * N + tile_col * 8, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
}
