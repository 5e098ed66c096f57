// GPU-shaped GEMM for the Vulkan target: bf16 x bf16 -> f32, 16 x 16 x 16 tiles, subgroup scope
// (VK_KHR_shader_bfloat16). C = A * B; A is M x K row-major __bf16, B is K x N row-major __bf16,
// C is M x N row-major float. From Python, a __bf16 buffer is an ml_dtypes.bfloat16 array.
// NDRange: dimension 0 = (N / 16) * 32, dimension 1 = M / 16; local size (32, 1).
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable

typedef __bf16 mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef __bf16 mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float  mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

__kernel void gemm_bf16(__global const __bf16 *A, __global const __bf16 *B, __global float *C, int M, int N, int K)
{
    const size_t tile_col = get_global_id(0) / get_sub_group_size();
    const size_t tile_row = get_global_id(1);

    mat_c acc = coop_mat_init(0.0f);
    for (int k = 0; k < K; k += 16) {
        mat_a a = coop_mat_load(A + tile_row * 16 * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
        mat_b b = coop_mat_load(B + (size_t)k * N + tile_col * 16, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
        acc = coop_mat_mulAdd(a, b, acc);
    }
    coop_mat_store(C + tile_row * 16 * N + tile_col * 16, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
}
