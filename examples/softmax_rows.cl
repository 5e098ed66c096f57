// Row-wise softmax of an M x TILE_N matrix (TILE_N = 32) with cooperative-matrix reductions, as the softmax of
// flash attention does it: Y[r, :] = exp(X[r, :] - max(X[r, :])) / sum(exp(X[r, :] - max(X[r, :]))),
// and LSE[r] = max + log(sum) (the log-sum-exp attention keeps for the backward pass).
//
// One subgroup handles one TILE_M x TILE_N tile (TILE_M whole rows).
// NDRange: dimension 0 = (M / TILE_M) * subgroup size, local size a multiple of the subgroup size.
// TILE_M x TILE_N is 8 x 32; -DTILE_M=16 -DTILE_N=16 gives a shape NVIDIA's driver takes (docs/gpu.md).
//
// A row reduction keeps the rows and may have any number of columns: reduced into an 8 x 32
// matrix, every column of a row holds that row's result (the broadcast real shaders use to
// combine it with the tile element by element); reduced into 8 x 1, one value per row.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#ifndef TILE_M
#define TILE_M 8
#endif
#ifndef TILE_N
#define TILE_N 32
#endif

typedef float tile_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
// LSE_COLUMNS: the columns of the per-row result (1: one value per row). A device whose matrices
// start at 16 columns (NVIDIA's) takes -DLSE_COLUMNS=16: LSE is then M x 16, every column of a
// row holding that row's value.
#ifndef LSE_COLUMNS
#define LSE_COLUMNS 1
#endif
typedef float rows_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, LSE_COLUMNS, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

static float max_of(float a, float b) { return fmax(a, b); }
static float sum_of(float a, float b) { return a + b; }

// Per-element functions: (row, column, element, extra operands...); a matrix extra passes its
// element at the same (row, column).
static float exp_shifted(uint row, uint col, float x, float row_max) { return exp(x - row_max); }
static float divided(uint row, uint col, float e, float row_sum) { return e / row_sum; }
static float log_sum_exp(uint row, uint col, float row_max, float row_sum) { return row_max + log(row_sum); }

__kernel void softmax_rows(__global const float *X, __global float *Y, __global float *LSE)
{
    const size_t tile = get_global_id(0) / get_sub_group_size();
    const size_t first_row = tile * TILE_M;

    tile_t x = coop_mat_load(X + first_row * TILE_N, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)TILE_N);
    tile_t row_max = coop_mat_reduce(x, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, max_of);
    tile_t e = coop_mat_per_element(x, exp_shifted, row_max);
    tile_t row_sum = coop_mat_reduce(e, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, sum_of);
    tile_t y = coop_mat_per_element(e, divided, row_sum);
    coop_mat_store(Y + first_row * TILE_N, y, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)TILE_N);

    rows_t max1 = coop_mat_reduce(x, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, max_of);
    rows_t sum1 = coop_mat_reduce(e, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, sum_of);
    rows_t lse = coop_mat_per_element(max1, log_sum_exp, sum1);
    coop_mat_store(LSE + first_row * LSE_COLUMNS, lse, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)LSE_COLUMNS);
}
