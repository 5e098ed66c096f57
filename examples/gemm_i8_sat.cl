// Signed int8 GEMM accumulating into int8 with saturating accumulation: C = sat(C + A * B).
// SPV_KHR_cooperative_matrix: with SaturatingAccumulation the product A * B is computed
// exactly and its addition to C saturates to the signedness of the result (signed here).
// NDRange: dimension 0 = (N / 16) * subgroup size, dimension 1 = M / 8.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#define TILE_M 8
#define TILE_N 16
#define TILE_K 32

typedef char mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_K, CLK_COOPERATIVE_MATRIX_A)));
typedef char mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_K, TILE_N, CLK_COOPERATIVE_MATRIX_B)));
typedef char mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

#define SIGNED_SATURATING (CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED | \
                           CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED | \
                           CLK_COOPERATIVE_MATRIX_OPERAND_SATURATING_ACCUMULATION)

__kernel void gemm_i8_sat(__global const char *A, __global const char *B, __global char *C,
                          int M, int N, int K)
{
    const size_t tile_col = get_global_id(0) / get_sub_group_size();
    const size_t tile_row = get_global_id(1);
    __global char *c_tile = C + tile_row * TILE_M * N + tile_col * TILE_N;

    mat_c acc = coop_mat_load(c_tile, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
    for (int k = 0; k < K; k += TILE_K) {
        mat_a a = coop_mat_load(A + tile_row * TILE_M * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
        mat_b b = coop_mat_load(B + (size_t)k * N + tile_col * TILE_N, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
        acc = coop_matmul_add(a, b, acc, SIGNED_SATURATING);
    }
    coop_mat_store(c_tile, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
}
