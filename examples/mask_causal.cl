// Causally masked attention scores, as attention computes them: S = (Q * K^T) * scale, with
// S[i, j] = -INFINITY where key j comes after query i (j > i), so that a softmax ignores it.
// Q is M x 16 and Kt (K transposed) 16 x N, both row-major; S is M x N.
//
// One subgroup computes one 8 x 16 tile of S; a per-element function masks it, using the
// (row, column) of each element within the tile plus the tile's position (scalar extras).
// NDRange: dimension 0 = (N / 16) * subgroup size, dimension 1 = M / 8.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#define TILE_M 8
#define TILE_N 16
#define HEAD_DIM 16

typedef float mat_q __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, HEAD_DIM, CLK_COOPERATIVE_MATRIX_A)));
typedef float mat_k __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, HEAD_DIM, TILE_N, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_s __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

static float causal(uint row, uint col, float score, uint first_row, uint first_col, float scale)
{
    return first_col + col > first_row + row ? -INFINITY : score * scale;
}

__kernel void mask_causal(__global const float *Q, __global const float *Kt, __global float *S,
                          int N, float scale)
{
    const uint first_col = get_global_id(0) / get_sub_group_size() * TILE_N;
    const uint first_row = get_global_id(1) * TILE_M;

    mat_q q = coop_mat_load(Q + first_row * HEAD_DIM, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)HEAD_DIM);
    mat_k k = coop_mat_load(Kt + first_col, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
    mat_s zero = coop_mat_init(0.0f);
    mat_s s = coop_mat_mulAdd(q, k, zero);
    s = coop_mat_per_element(s, causal, first_row, first_col, scale);
    coop_mat_store(S + (size_t)first_row * N + first_col, s, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
}
