// bf16 GEMM: __bf16 inputs, float accumulation (SPV_KHR_bfloat16). C = A * B, and Cb = C rounded to bf16.
// A is M x K row-major __bf16, B is K x N row-major __bf16, C is M x N row-major float, Cb the same
// values converted to __bf16 (one nearest-even rounding each). From Python, a __bf16 buffer is an
// ml_dtypes.bfloat16 array or a uint16 array of bit patterns.
// NDRange as in gemm_f32.cl: dimension 0 = (N / 16) * subgroup size, dimension 1 = M / 8.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable

#define TILE_M 8
#define TILE_N 16
#define TILE_K 16

typedef __bf16 mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_K, CLK_COOPERATIVE_MATRIX_A)));
typedef __bf16 mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_K, TILE_N, CLK_COOPERATIVE_MATRIX_B)));
typedef float  mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef __bf16 mat_cb __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

__kernel void bf16_gemm(__global const __bf16 *A, __global const __bf16 *B, __global float *C,
                        __global __bf16 *Cb, int M, int N, int K)
{
    const size_t tile_col = get_global_id(0) / get_sub_group_size();
    const size_t tile_row = get_global_id(1);

    mat_c acc = coop_mat_init(0.0f);
    for (int k = 0; k < K; k += TILE_K) {
        mat_a a = coop_mat_load(A + tile_row * TILE_M * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
        mat_b b = coop_mat_load(B + (size_t)k * N + tile_col * TILE_N, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
        acc = coop_mat_mulAdd(a, b, acc);
    }
    size_t at = tile_row * TILE_M * N + tile_col * TILE_N;
    coop_mat_store(C + at, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
    coop_mat_store(Cb + at, (mat_cb)acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
}
