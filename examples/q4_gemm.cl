// GEMM with 4-bit quantized weights (llama.cpp's Q4_0): Y = X * W^T.
//   X: M x K half, row-major.  Y: M x N float, row-major.
//   W: N x K weights, each row stored as K / 32 blocks of 32 weights:
//      struct block_q4_0 { half d; uchar qs[16]; }   (18 bytes)
//      weight j of a block = ((j < 16 ? qs[j] & 0xF : qs[j - 16] >> 4) - 8) * d
//
// The weights are dequantized as they are loaded: a tensor layout over W with block size
// (1, 32) addresses whole blocks (index = n * K/32 + k / 32, in blocks), and the decode
// function gets the block, its coordinate (n, k / 32) and the coordinate inside it
// (0, k % 32). A view with permutation (1, 0) reads W transposed, as the B operand
// (K x N). Constant clamping supplies zeros where a tile hangs over M or N, and the
// stores through a layout discard what lies outside Y.
//
// One subgroup computes one 8 x 16 tile of Y, stepping K by 16.
// NDRange: dimension 0 = ceil(N / 16) * subgroup size, dimension 1 = ceil(M / TILE_M).
// TILE_M is 8; -DTILE_M=16 gives the 16-row tiles NVIDIA's driver takes (docs/gpu.md).
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#ifndef TILE_M
#define TILE_M 8
#endif
#define TILE_N 16
#define TILE_K 16
#define QK 32

typedef struct { half d; uchar qs[QK / 2]; } block_q4_0;

typedef half mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_K, CLK_COOPERATIVE_MATRIX_A)));
typedef half mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_K, TILE_N, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t layout2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
typedef coop_tensor_view_t transposed __attribute__((coop_tensor_view(2, false, 1, 0)));

half dequantize_q4_0(const __global block_q4_0 *block, const uint block_coord[2],
                     const uint coord_in_block[2])
{
    const uint j = coord_in_block[1];
    const uint q = j < QK / 2 ? block->qs[j] & 0xF : block->qs[j - QK / 2] >> 4;
    return (half)((int)q - 8) * block->d;
}

__kernel void q4_gemm(__global const half *X, __global const block_q4_0 *W, __global float *Y,
                      uint M, uint N, uint K)
{
    const uint n0 = get_global_id(0) / get_sub_group_size() * TILE_N;
    const uint m0 = get_global_id(1) * TILE_M;

    const layout2 x_layout = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), M, K);
    layout2 w_layout = coop_tensor_layout_set_block_size(coop_tensor_layout_create(), 1, QK);
    w_layout = coop_tensor_layout_set_dimension(w_layout, N, K);
    const transposed w_as_b = coop_tensor_view_create();

    mat_c acc = coop_mat_init(0.0f);
    for (uint k = 0; k < K; k += TILE_K) {
        mat_a a = coop_mat_load_tensor(X, coop_tensor_layout_slice(x_layout, m0, TILE_M, k, TILE_K));
        mat_b b = coop_mat_load_tensor(W, coop_tensor_layout_slice(w_layout, n0, TILE_N, k, TILE_K),
                                       w_as_b, dequantize_q4_0);
        acc = coop_mat_mulAdd(a, b, acc);
    }
    const layout2 y_layout = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), M, N);
    coop_mat_store_tensor(Y, acc, coop_tensor_layout_slice(y_layout, m0, TILE_M, n0, TILE_N));
}
