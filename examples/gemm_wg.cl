// Workgroup-scope GEMM of the cooperative-matrix2 proposal (section 4, "A workgroup scope
// GEMM"): D = alpha * (A * B) + beta * C, with A M x K, B K x N, C and D M x N, all
// row-major, and M, N, K of any size: tiles that hang over an edge read zeros through a
// tensor layout with constant clamping (clamp value 0), and their stores drop the elements
// outside D (SPV_NV_cooperative_matrix2: a store discards out-of-bounds elements in every
// clamp mode but Undefined).
//
// One work-group computes one TILE_M x TILE_N tile of D with workgroup-scope matrices,
// which the work-group shares (docs/layout.md "Workgroup scope"): work-group (x, y) the tile
// at rows TILE_M * y, columns TILE_N * x. NDRange: global (ceil(N / TILE_N) * WG_SIZE,
// ceil(M / TILE_M)), local (WG_SIZE, 1).
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable

#ifndef TILE_M
#define TILE_M 32
#endif
#ifndef TILE_N
#define TILE_N 32
#endif
#ifndef TILE_K
#define TILE_K 16
#endif
#ifndef WG_SIZE
#define WG_SIZE 64
#endif

#define WORKGROUP CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP
typedef float mat_a __attribute__((coop_mat(WORKGROUP, TILE_M, TILE_K, CLK_COOPERATIVE_MATRIX_A)));
typedef float mat_b __attribute__((coop_mat(WORKGROUP, TILE_K, TILE_N, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(WORKGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t layout2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));

__attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
__kernel void gemm_wg(__global const float *A, __global const float *B, __global const float *C,
                      __global float *D, uint M, uint N, uint K, float alpha, float beta)
{
    const uint tile_row = TILE_M * get_group_id(1);
    const uint tile_col = TILE_N * get_group_id(0);

    // Initialize the result to zero.
    mat_c result = coop_mat_init(0.0f);

    // Tensor layouts for A, B and the accumulator: their dimensions bound the reads.
    layout2 layout_a = coop_tensor_layout_create();
    layout2 layout_b = coop_tensor_layout_create();
    layout2 layout_c = coop_tensor_layout_create();
    layout_a = coop_tensor_layout_set_dimension(layout_a, M, K);
    layout_b = coop_tensor_layout_set_dimension(layout_b, K, N);
    layout_c = coop_tensor_layout_set_dimension(layout_c, M, N);

    // Loop over K and accumulate partial results.
    for (uint chunk_k = 0; chunk_k < K; chunk_k += TILE_K) {
        mat_a a = coop_mat_load_tensor(A, coop_tensor_layout_slice(layout_a, tile_row, TILE_M, chunk_k, TILE_K));
        mat_b b = coop_mat_load_tensor(B, coop_tensor_layout_slice(layout_b, chunk_k, TILE_K, tile_col, TILE_N));
        result = coop_mat_mulAdd(a, b, result);
    }

    // Load C and compute alpha * (A * B) + beta * C.
    layout2 tile_c = coop_tensor_layout_slice(layout_c, tile_row, TILE_M, tile_col, TILE_N);
    mat_c c = coop_mat_load_tensor(C, tile_c);
    result = alpha * result + beta * c;

    // Store the result.
    coop_mat_store_tensor(D, result, tile_c);
}
