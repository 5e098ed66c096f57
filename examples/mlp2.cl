// Two-layer perceptron: Y = relu(X * W1) * W2, two chained GEMMs in one kernel.
// The first accumulator (float) becomes the second GEMM's A operand by a cast, which changes its
// use and its component type at once ((hidden_a)h: SPV_NV_cooperative_matrix2 lets a conversion
// change the use); ReLU runs on the accumulator through coop_mat_per_element.
// X is M x K row-major half, W1 is K x HIDDEN row-major half, W2 is HIDDEN x N row-major half,
// Y is M x N row-major float. NDRange as in gemm_f32.cl: dimension 0 = (N / 16) * subgroup size,
// dimension 1 = M / TILE_M; each sub-group computes the whole hidden row block of its TILE_M
// rows. TILE_M is 8; -DTILE_M=16 gives the 16-row tiles NVIDIA's driver takes (docs/gpu.md).
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#ifndef TILE_M
#define TILE_M 8
#endif
#define TILE_N 16
#define TILE_K 16
#ifndef HIDDEN
#define HIDDEN 32
#endif
#define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
#define ROW CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR

typedef half  x_tile   __attribute__((coop_mat(SG, TILE_M, TILE_K, CLK_COOPERATIVE_MATRIX_A)));
typedef half  w1_tile  __attribute__((coop_mat(SG, TILE_K, HIDDEN, CLK_COOPERATIVE_MATRIX_B)));
typedef float hidden_c __attribute__((coop_mat(SG, TILE_M, HIDDEN, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef half  hidden_a __attribute__((coop_mat(SG, TILE_M, HIDDEN, CLK_COOPERATIVE_MATRIX_A)));
typedef half  w2_tile  __attribute__((coop_mat(SG, HIDDEN, TILE_N, CLK_COOPERATIVE_MATRIX_B)));
typedef float y_tile   __attribute__((coop_mat(SG, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

// The per-element function: called for every element of the matrix with its (row, col).
float relu(uint row, uint col, float x) { return x > 0.0f ? x : 0.0f; }

__kernel void mlp2(__global const half *X, __global const half *W1, __global const half *W2,
                   __global float *Y, int M, int N, int K)
{
    const size_t tile_col = get_global_id(0) / get_sub_group_size();
    const size_t tile_row = get_global_id(1);

    hidden_c h = coop_mat_init(0.0f);
    for (int k = 0; k < K; k += TILE_K) {
        x_tile x = coop_mat_load(X + tile_row * TILE_M * K + k, ROW, (size_t)K);
        w1_tile w1 = coop_mat_load(W1 + (size_t)k * HIDDEN, ROW, (size_t)HIDDEN);
        h = coop_mat_mulAdd(x, w1, h);
    }
    h = coop_mat_per_element(h, relu);

    w2_tile w2 = coop_mat_load(W2 + tile_col * TILE_N, ROW, (size_t)N);
    y_tile y = coop_mat_init(0.0f);
    y = coop_mat_mulAdd((hidden_a)h, w2, y);
    coop_mat_store(Y + tile_row * TILE_M * N + tile_col * TILE_N, y, ROW, (size_t)N);
}
