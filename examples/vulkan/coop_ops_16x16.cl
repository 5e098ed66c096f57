// Every KHR operation besides mul-add on one 16 x 16 f32 accumulator per subgroup of 32 (a shape
// NVIDIA's driver lists): X and Y are 16 x 16 row-major float tiles; the results go to
// consecutive 16 x 16 tiles of `out` (tile t at out + t * 256):
//   0: X + Y   1: X - Y   2: X * Y   3: X / Y   4: -X   5: X * alpha
//   6: element access, 2 * x + 1 on every component the invocation holds
//   7: (float)(half)X through an f16 accumulator (a conversion each way)
// and out_h = (half)X stored from the f16 matrix, out_len[invocation] = coop_mat_length(X).
// None of the tiles depends on which invocation holds which element. Global = local = 32.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

typedef float fmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef half  hmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
#define ROW_MAJOR CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
#define TILE 256

__kernel __attribute__((reqd_work_group_size(32, 1, 1)))
void coop_ops_16x16(__global const float *X, __global const float *Y, float alpha, __global float *out,
                    __global half *out_h, __global uint *out_len)
{
    fmat x = coop_mat_load(X, ROW_MAJOR, (size_t)16);
    fmat y = coop_mat_load(Y, ROW_MAJOR, (size_t)16);
    coop_mat_store(out + 0 * TILE, x + y, ROW_MAJOR, (size_t)16);
    coop_mat_store(out + 1 * TILE, x - y, ROW_MAJOR, (size_t)16);
    coop_mat_store(out + 2 * TILE, x * y, ROW_MAJOR, (size_t)16);
    coop_mat_store(out + 3 * TILE, x / y, ROW_MAJOR, (size_t)16);
    coop_mat_store(out + 4 * TILE, -x, ROW_MAJOR, (size_t)16);
    coop_mat_store(out + 5 * TILE, x * alpha, ROW_MAJOR, (size_t)16);
    fmat z = x;
    for (uint i = 0; i < coop_mat_length(z); ++i)
        z[i] = 2.0f * z[i] + 1.0f;
    coop_mat_store(out + 6 * TILE, z, ROW_MAJOR, (size_t)16);
    hmat h = (hmat)x;
    coop_mat_store(out_h, h, ROW_MAJOR, (size_t)16);
    coop_mat_store(out + 7 * TILE, (fmat)h, ROW_MAJOR, (size_t)16);
    out_len[get_sub_group_local_id()] = coop_mat_length(x);
}
