// Mixed-precision GEMM: half inputs, float accumulation. C = A * B.
// A is M x K row-major half; B is K x N stored COLUMN-major (element (k, n) at B[n * K + k]),
// which is how a transposed weight matrix usually sits in memory; C is M x N row-major float.
// NDRange as in gemm_f32.cl: dimension 0 = (N / 16) * subgroup size, dimension 1 = M / 8.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define TILE_M 8
#define TILE_N 16
#define TILE_K 16

typedef half  mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_K, CLK_COOPERATIVE_MATRIX_A)));
typedef half  mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_K, TILE_N, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

__kernel void gemm_f16_f32(__global const half *A, __global const half *B, __global float *C,
                           int M, int N, int K)
{
    const size_t tile_col = get_global_id(0) / get_sub_group_size();
    const size_t tile_row = get_global_id(1);

    mat_c acc = coop_mat_init(0.0f);
    for (int k = 0; k < K; k += TILE_K) {
        mat_a a = coop_mat_load(A + tile_row * TILE_M * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
        mat_b b = coop_mat_load(B + tile_col * TILE_N * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR, (size_t)K);
        acc = coop_matmul_add(a, b, acc, CLK_COOPERATIVE_MATRIX_OPERAND_NONE);
    }
    coop_mat_store(C + tile_row * TILE_M * N + tile_col * TILE_N, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
}
