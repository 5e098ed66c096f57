// Subgroup-scope GEMM for matrix hardware with register blocking (SPV_KHR_cooperative_matrix):
// C = A * B, A M x K half and B K x N half row-major, C M x N float row-major, f32 accumulators.
// The benchmark kernel of docs/gpu.md for the subgroup scope.
//
// Each subgroup of 32 invocations computes a 64 x 64 tile of C: 4 x 4 accumulators of
// 16 x 16, which stay in registers for the whole K loop, so every fragment of A and of B is used
// four times per load (OpenCL C has no arrays of matrices, RFC "Restrictions": the sixteen are
// named by macros) (the 16 x 16 x 16 f16 shape is
// the one NVIDIA's driver lists first: ../shared/notes/gpu-vulkan.md). The work-group is
// SG_M x SG_N subgroups, whose tiles are neighbours and share their A rows and B columns in the
// cache. M must be a multiple of 64 * SG_M, N of 64 * SG_N and K of 16.
//
// NDRange: global (N / (64 * SG_N) * 32 * SG_M * SG_N, M / (64 * SG_M)),
// local (32 * SG_M * SG_N, 1); subgroup size 32.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#ifndef SG_M
#define SG_M 2
#endif
#ifndef SG_N
#define SG_N 2
#endif

typedef half  mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef half  mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

#define ROW_MAJOR CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
#define FOR_ROW(X, j) X(0, j) X(1, j) X(2, j) X(3, j)
#define FOR_ALL(X) FOR_ROW(X, 0) FOR_ROW(X, 1) FOR_ROW(X, 2) FOR_ROW(X, 3)
#define DECLARE(i, j) mat_c c##i##j = coop_mat_init(0.0f);
#define MUL_ADD(i, j) c##i##j = coop_mat_mulAdd(a##i, b##j, c##i##j);
#define STORE(i, j) coop_mat_store(C + (row0 + 16 * i) * ldc + col0 + 16 * j, c##i##j, ROW_MAJOR, ldc);

__attribute__((reqd_work_group_size(32 * SG_M * SG_N, 1, 1)))
__kernel void gemm_khr_blocked(__global const half *A, __global const half *B, __global float *C,
                               uint M, uint N, uint K)
{
    const uint subgroup = get_sub_group_id();
    const uint row0 = (get_group_id(1) * SG_M + subgroup / SG_N) * 64;
    const uint col0 = (get_group_id(0) * SG_N + subgroup % SG_N) * 64;
    const size_t lda = K, ldb = N, ldc = N;

    FOR_ALL(DECLARE)
    for (uint k = 0; k < K; k += 16) {
        __global const half *a_tile = A + row0 * lda + k;
        __global const half *b_tile = B + k * ldb + col0;
        mat_a a0 = coop_mat_load(a_tile, ROW_MAJOR, lda);
        mat_a a1 = coop_mat_load(a_tile + 16 * lda, ROW_MAJOR, lda);
        mat_a a2 = coop_mat_load(a_tile + 32 * lda, ROW_MAJOR, lda);
        mat_a a3 = coop_mat_load(a_tile + 48 * lda, ROW_MAJOR, lda);
        mat_b b0 = coop_mat_load(b_tile, ROW_MAJOR, ldb);
        mat_b b1 = coop_mat_load(b_tile + 16, ROW_MAJOR, ldb);
        mat_b b2 = coop_mat_load(b_tile + 32, ROW_MAJOR, ldb);
        mat_b b3 = coop_mat_load(b_tile + 48, ROW_MAJOR, ldb);
        FOR_ALL(MUL_ADD)
    }
    FOR_ALL(STORE)
}
