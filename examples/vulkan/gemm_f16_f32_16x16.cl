// GPU-shaped GEMM for the Vulkan target: f16 x f16 -> f32, 16 x 16 x 16 tiles, subgroup scope,
// the KHR configuration NVIDIA's driver lists first (shared/notes/gpu-vulkan.md). C = A * B + C.
// A is M x K row-major half, B is K x N row-major half, C is M x N row-major float.
// NDRange: dimension 0 = (N / 16) * 32, dimension 1 = M / 16; local size (32, 1): one subgroup
// of 32 invocations per 16 x 16 tile of C. Runs in the interpreter with subgroup_size=32.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

typedef half  mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef half  mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

__kernel void gemm_f16_f32_16x16(__global const half *A, __global const half *B, __global float *C,
                                 int M, int N, int K)
{
    const size_t tile_col = get_global_id(0) / get_sub_group_size();
    const size_t tile_row = get_global_id(1);
    __global float *c = C + tile_row * 16 * N + tile_col * 16;

    mat_c acc = coop_mat_load(c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
    for (int k = 0; k < K; k += 16) {
        mat_a a = coop_mat_load(A + tile_row * 16 * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
        mat_b b = coop_mat_load(B + (size_t)k * N + tile_col * 16, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
        acc = coop_mat_mulAdd(a, b, acc);
    }
    coop_mat_store(c, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
}
