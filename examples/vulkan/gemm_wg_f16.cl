// Workgroup-scope GEMM for matrix hardware (SPV_NV_cooperative_matrix2, workgroup scope, with
// SPV_NV_tensor_addressing): C = A * B with A M x K half, B K x N half, both row-major, and an
// f32 result C (half with -DHALF_C), M x N row-major. The benchmark kernel of docs/gpu.md ("GEMM f16 -> f32").
//
// One work-group of WG_SIZE invocations computes one TILE_M x TILE_N tile of C with matrices the
// whole work-group shares; the driver chooses how the tile is spread over the invocations and
// how the loads are staged. The tensor layouts bound every read by (M, K) and (K, N) and clamp
// to zero past them (CLAMP_MODE_CONSTANT), and the store through a layout drops the elements
// outside C, so M, N and K may be any size (SPV_NV_cooperative_matrix2, "Tensor Addressing").
// The shapes must be multiples of the device's workgroup-scope granularity: on NVIDIA's driver
// 32 x 32 x 16 with 256 invocations (../shared/notes/gpu-vulkan.md).
//
// NDRange: global (ceil(N / TILE_N) * WG_SIZE, ceil(M / TILE_M)), local (WG_SIZE, 1).
//
// On the GPU engine, launch it with specialize=("M", "N", "K") (clcoop-run --specialize M,N,K):
// the pipeline is then made for those sizes, and NVIDIA's driver compiles the loop and the
// tensor layouts with known dimensions about twice as fast (docs/gpu.md, "Performance").
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#ifndef TILE_M
#define TILE_M 128
#endif
#ifndef TILE_N
#define TILE_N 128
#endif
#ifndef TILE_K
#define TILE_K 32
#endif
#ifndef WG_SIZE
#define WG_SIZE 256
#endif
// -DCLAMP=CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED drops the bounds (M, N, K multiples of the tile).
#ifndef CLAMP
#define CLAMP CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT
#endif

#define WORKGROUP CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP
typedef half mat_a __attribute__((coop_mat(WORKGROUP, TILE_M, TILE_K, CLK_COOPERATIVE_MATRIX_A)));
typedef half mat_b __attribute__((coop_mat(WORKGROUP, TILE_K, TILE_N, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(WORKGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
// -DHALF_C: C is half, the f32 sums rounded once when stored (what torch.matmul on half tensors
// returns: cuBLAS accumulates in f32 and writes half).
#ifdef HALF_C
typedef half c_element;
typedef half mat_c_out __attribute__((coop_mat(WORKGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
#define RESULT(acc) ((mat_c_out)(acc))
#else
typedef float c_element;
#define RESULT(acc) (acc)
#endif
typedef coop_tensor_layout_t layout2 __attribute__((coop_tensor_layout(2, CLAMP)));
// -DPIPELINE: each step loads the next step's operands before its mul-add.
// -DUNROLL2: each iteration loads two steps' operands, then does both mul-adds (with
// CLAMP_MODE_UNDEFINED, K must then be a multiple of 2 * TILE_K; clamped, any K).
// -DB_COLUMN_MAJOR: B is stored N x K row-major (element (k, n) at B[n * K + k], as weights
// usually are) and read through a transposing view (SPV_NV_tensor_addressing, "Tensor Views").
typedef coop_tensor_view_t transposed __attribute__((coop_tensor_view(2, false, 1, 0)));

__attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
__kernel void gemm_wg_f16(__global const half *A, __global const half *B, __global c_element *C,
                          uint M, uint N, uint K)
{
    const uint tile_row = TILE_M * get_group_id(1);
    const uint tile_col = TILE_N * get_group_id(0);
    const layout2 layout_a = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), M, K);
#ifdef B_COLUMN_MAJOR
    const layout2 layout_b = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), N, K);
    const transposed b_view = coop_tensor_view_create();
#else
    const layout2 layout_b = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), K, N);
#endif
    const layout2 layout_c = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), M, N);

#ifdef B_COLUMN_MAJOR
#define LOAD_B(k) coop_mat_load_tensor(B, coop_tensor_layout_slice(layout_b, tile_col, TILE_N, k, TILE_K), b_view)
#else
#define LOAD_B(k) coop_mat_load_tensor(B, coop_tensor_layout_slice(layout_b, k, TILE_K, tile_col, TILE_N))
#endif
#define LOAD_A(k) coop_mat_load_tensor(A, coop_tensor_layout_slice(layout_a, tile_row, TILE_M, k, TILE_K))

    mat_c acc = coop_mat_init(0.0f);
#ifdef PIPELINE
    // The next step's operands are loaded before this step's mul-add, so that the loads of one
    // step overlap the multiplications of the other (past K the clamped layout reads zeros).
    mat_a a = LOAD_A(0);
    mat_b b = LOAD_B(0);
    for (uint k = 0; k < K; k += TILE_K) {
        const mat_a next_a = LOAD_A(k + TILE_K);
        const mat_b next_b = LOAD_B(k + TILE_K);
        acc = coop_mat_mulAdd(a, b, acc);
        a = next_a;
        b = next_b;
    }
#elif defined(UNROLL2)
    for (uint k = 0; k < K; k += 2 * TILE_K) {
        const mat_a a0 = LOAD_A(k);
        const mat_b b0 = LOAD_B(k);
        const mat_a a1 = LOAD_A(k + TILE_K);
        const mat_b b1 = LOAD_B(k + TILE_K);
        acc = coop_mat_mulAdd(a0, b0, acc);
        acc = coop_mat_mulAdd(a1, b1, acc);
    }
#else
    for (uint k = 0; k < K; k += TILE_K) {
        const mat_a a = LOAD_A(k);
        const mat_b b = LOAD_B(k);
        acc = coop_mat_mulAdd(a, b, acc);
    }
#endif
    coop_mat_store_tensor(C, RESULT(acc), coop_tensor_layout_slice(layout_c, tile_row, TILE_M, tile_col, TILE_N));
}
