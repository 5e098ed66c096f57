// 3x3 convolution (stride 1, zero padding 1: the output has the input's size) as an
// implicit GEMM, NHWC:
//   input  In[N][H][W][C]     float
//   filter F[K][3][3][C]      float (output channel, filter row, filter column, input channel)
//   output Out[N][H][W][K]    float
//   Out[n][h][w][k] = sum over r, s, c of In[n][h + r - 1][w + s - 1][c] * F[k][r][s][c]
//
// GEMM view: rows = output pixels, columns = output channels, reduction = (r, s, c).
// One subgroup computes 8 consecutive pixels of one output row (n, h, w0..w0+7) times 16
// output channels (k0..k0+15), for each filter tap (r, s) and each block of 16 input
// channels:
// - A (8 pixels x 16 channels): a 4D layout over In sliced at (n, h + r - 1, w0 + s - 1, c0)
//   with spans (1, 1, 8, 16). Constant clamping reads 0 outside the image: that is the
//   zero padding, and it also covers a W that is not a multiple of 8 and a C that is not a
//   multiple of 16.
// - B (16 channels x 16 output channels): a 4D layout over F sliced at (k0, r, s, c0) with
//   spans (16, 1, 1, 16), read through a view with permutation (1, 2, 3, 0), which makes
//   the output channel the fastest-varying matrix index (the column) and the input
//   channel the row: B = F[k0.., r, s, c0..]^T without copying.
// - The result goes through a 4D layout over Out: stores outside it are discarded.
//
// NDRange: dimension 0 = ceil(K / 16) * subgroup size, dimension 1 = ceil(W / 8),
// dimension 2 = N * H.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#define TILE_M 8
#define TILE_N 16
#define TILE_K 16

typedef float mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_K, CLK_COOPERATIVE_MATRIX_A)));
typedef float mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_K, TILE_N, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t nhwc __attribute__((coop_tensor_layout(4, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
typedef coop_tensor_view_t channels_by_k __attribute__((coop_tensor_view(4, false, 1, 2, 3, 0)));

__kernel void conv2d_nhwc(__global const float *In, __global const float *F, __global float *Out,
                          int N, int H, int W, int C, int K)
{
    const int k0 = get_global_id(0) / get_sub_group_size() * TILE_N;
    const int w0 = get_global_id(1) * TILE_M;
    const int n = get_global_id(2) / H;
    const int h = get_global_id(2) % H;

    const nhwc input = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), N, H, W, C);
    const nhwc filter = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), K, 3, 3, C);
    const channels_by_k as_b = coop_tensor_view_create();

    mat_c acc = coop_mat_init(0.0f);
    for (int r = 0; r < 3; r++) {
        for (int s = 0; s < 3; s++) {
            for (int c0 = 0; c0 < C; c0 += TILE_K) {
                mat_a a = coop_mat_load_tensor(In, coop_tensor_layout_slice(input, n, 1, h + r - 1, 1,
                                                                            w0 + s - 1, TILE_M, c0, TILE_K));
                mat_b b = coop_mat_load_tensor(F, coop_tensor_layout_slice(filter, k0, TILE_N, r, 1, s, 1,
                                                                            c0, TILE_K), as_b);
                acc = coop_mat_mulAdd(a, b, acc);
            }
        }
    }
    const nhwc output = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), N, H, W, K);
    coop_mat_store_tensor(Out, acc, coop_tensor_layout_slice(output, n, 1, h, 1, w0, TILE_M, k0, TILE_N));
}
