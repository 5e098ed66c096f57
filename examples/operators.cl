// Every cooperative-matrix operator on one 8 x 16 tile per subgroup.
// X and Y are 8 x 16 row-major float tiles; the results go to consecutive 8 x 16 tiles of
// `out` (tile t at out + t * 128) and the int conversion to `out_int`:
//   0: X + Y   1: X - Y   2: X * Y   3: X / Y   4: -X   5: X * alpha
//   6: element access: every component held by the work-item becomes 2 * x + 1
//   7: (float)(int)X: a float -> int -> float round trip (truncation toward zero)
// and out_int = (int)X, out_len[work-item] = coop_mat_length(X).
// NDRange: one subgroup (global = local = subgroup size).
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#define ROWS 8
#define COLS 16
#define TILE (ROWS * COLS)

typedef float fmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, ROWS, COLS, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int   imat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, ROWS, COLS, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

#define ROW_MAJOR CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR

static fmat twice_plus_one(fmat m)
{
    for (uint i = 0; i < coop_mat_length(m); ++i)
        m[i] = 2.0f * m[i] + 1.0f;
    return m;
}

__kernel void operators(__global const float *X, __global const float *Y, float alpha,
                        __global float *out, __global int *out_int, __global uint *out_len)
{
    fmat x = coop_mat_load(X, ROW_MAJOR, (size_t)COLS);
    fmat y = coop_mat_load(Y, ROW_MAJOR, (size_t)COLS);

    coop_mat_store(out + 0 * TILE, x + y, ROW_MAJOR, (size_t)COLS);
    coop_mat_store(out + 1 * TILE, x - y, ROW_MAJOR, (size_t)COLS);
    coop_mat_store(out + 2 * TILE, x * y, ROW_MAJOR, (size_t)COLS);
    coop_mat_store(out + 3 * TILE, x / y, ROW_MAJOR, (size_t)COLS);
    coop_mat_store(out + 4 * TILE, -x, ROW_MAJOR, (size_t)COLS);
    coop_mat_store(out + 5 * TILE, x * alpha, ROW_MAJOR, (size_t)COLS);
    coop_mat_store(out + 6 * TILE, twice_plus_one(x), ROW_MAJOR, (size_t)COLS);

    imat xi = (imat)x;
    coop_mat_store(out_int, xi, ROW_MAJOR, (size_t)COLS);
    coop_mat_store(out + 7 * TILE, (fmat)xi, ROW_MAJOR, (size_t)COLS);

    out_len[get_sub_group_local_id()] = coop_mat_length(x);
}
