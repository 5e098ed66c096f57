// GPU-shaped GEMM for the Vulkan target: s8 x s8 -> s32, 16 x 16 x 32 tiles, subgroup scope; every
// operand flagged signed (without the flags components are zero-extended). Exact: C = A * B.
// A is M x K row-major char, B is K x N row-major char, C is M x N row-major int.
// NDRange: dimension 0 = (N / 16) * 32, dimension 1 = M / 16; local size (32, 1).
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable

typedef char mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef char mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 32, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef int  mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

#define ALL_SIGNED (CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED | \
                    CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED)

__kernel void gemm_s8_s32(__global const char *A, __global const char *B, __global int *C, int M, int N, int K)
{
    const size_t tile_col = get_global_id(0) / get_sub_group_size();
    const size_t tile_row = get_global_id(1);

    mat_c acc = coop_mat_init(0);
    for (int k = 0; k < K; k += 32) {
        mat_a a = coop_mat_load(A + tile_row * 16 * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
        mat_b b = coop_mat_load(B + (size_t)k * N + tile_col * 16, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
        acc = coop_mat_mulAdd(a, b, acc, ALL_SIGNED);
    }
    coop_mat_store(C + tile_row * 16 * N + tile_col * 16, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
}
