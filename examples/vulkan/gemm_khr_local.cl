// Subgroup-scope GEMM staged through __local memory (SPV_KHR_cooperative_matrix): C = A * B,
// A M x K half and B K x N half row-major, C M x N float row-major, f32 accumulators.
//
// A work-group of 256 invocations (8 subgroups of 32) computes a 128 x 128 tile of C. Each step
// of the K loop copies a 128 x 32 block of A and a 32 x 128 block of B into __local memory
// (every invocation reads 16 halves of each as two 16-byte vectors), waits at a barrier, and each subgroup
// multiplies its 64 x 32 part with 4 x 2 accumulators of 16 x 16 loaded from __local memory.
// The rows of the __local blocks are padded by 8 halves (16 bytes) so that the rows of a 16 x 16
// load fall on different banks. M and N must be multiples of 128, K of 32.
//
// NDRange: global (N / 128 * 256, M / 128), local (256, 1); subgroup size 32.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define BM 128
#define BN 128
#define BK 32
#define A_STRIDE (BK + 8)
#define B_STRIDE (BN + 8)

typedef half  mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef half  mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

#define ROW_MAJOR CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
#define FOR_ALL(X) X(0, 0) X(0, 1) X(1, 0) X(1, 1) X(2, 0) X(2, 1) X(3, 0) X(3, 1)
#define DECLARE(i, j) mat_c c##i##j = coop_mat_init(0.0f);
#define MUL_ADD(i, j) c##i##j = coop_mat_mulAdd(a##i, b##j, c##i##j);
#define STORE(i, j) coop_mat_store(C + (row0 + 16 * i) * ldc + col0 + 16 * j, c##i##j, ROW_MAJOR, ldc);

// Sixteen bytes (eight halves) into __local memory, two halves at a time: the Vulkan target has
// no vstore8, a reinterpreting cast of a __local pointer has no form in Vulkan's logical
// addressing, and an 8-wide vector (half8) would make the target split every vector of the
// kernel into 32-bit pieces, the 16-byte global loads included (docs/vulkan.md).
void store8(__local half *to, uint4 v)
{
    const half2 p0 = as_half2(v.x), p1 = as_half2(v.y), p2 = as_half2(v.z), p3 = as_half2(v.w);
    to[0] = p0.s0; to[1] = p0.s1; to[2] = p1.s0; to[3] = p1.s1;
    to[4] = p2.s0; to[5] = p2.s1; to[6] = p3.s0; to[7] = p3.s1;
}

__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void gemm_khr_local(__global const half *A, __global const half *B, __global float *C,
                             uint M, uint N, uint K)
{
    __local half a_block[BM * A_STRIDE];
    __local half b_block[BK * B_STRIDE];
    const uint lid = get_local_id(0);
    const uint subgroup = get_sub_group_id();
    const uint block_row = get_group_id(1) * BM, block_col = get_group_id(0) * BN;
    const uint sub_row = (subgroup / 4) * 64, sub_col = (subgroup % 4) * 32;
    const uint row0 = block_row + sub_row, col0 = block_col + sub_col;
    const size_t lda = K, ldb = N, ldc = N;
    // This invocation's share of the copies: A rows lid / 2, halves 16 * (lid % 2) ..;
    // B rows lid / 8, halves 16 * (lid % 8) ...
    const uint a_row = lid / 2, a_col = 16 * (lid % 2);
    const uint b_row = lid / 8, b_col = 16 * (lid % 8);

    FOR_ALL(DECLARE)
    for (uint k = 0; k < K; k += BK) {
        __global const half *a_src = A + (block_row + a_row) * lda + k + a_col;
        __global const half *b_src = B + (k + b_row) * ldb + block_col + b_col;
        const uint4 a_lo = ((__global const uint4 *)a_src)[0], a_hi = ((__global const uint4 *)a_src)[1];
        const uint4 b_lo = ((__global const uint4 *)b_src)[0], b_hi = ((__global const uint4 *)b_src)[1];
        barrier(CLK_LOCAL_MEM_FENCE);           // the previous step's loads are done
        store8(a_block + a_row * A_STRIDE + a_col, a_lo);
        store8(a_block + a_row * A_STRIDE + a_col + 8, a_hi);
        store8(b_block + b_row * B_STRIDE + b_col, b_lo);
        store8(b_block + b_row * B_STRIDE + b_col + 8, b_hi);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint kk = 0; kk < BK; kk += 16) {
            const __local half *a_tile = a_block + sub_row * A_STRIDE + kk;
            const __local half *b_tile = b_block + kk * B_STRIDE + sub_col;
            mat_a a0 = coop_mat_load(a_tile, ROW_MAJOR, (size_t)A_STRIDE);
            mat_a a1 = coop_mat_load(a_tile + 16 * A_STRIDE, ROW_MAJOR, (size_t)A_STRIDE);
            mat_a a2 = coop_mat_load(a_tile + 32 * A_STRIDE, ROW_MAJOR, (size_t)A_STRIDE);
            mat_a a3 = coop_mat_load(a_tile + 48 * A_STRIDE, ROW_MAJOR, (size_t)A_STRIDE);
            mat_b b0 = coop_mat_load(b_tile, ROW_MAJOR, (size_t)B_STRIDE);
            mat_b b1 = coop_mat_load(b_tile + 16, ROW_MAJOR, (size_t)B_STRIDE);
            FOR_ALL(MUL_ADD)
        }
    }
    FOR_ALL(STORE)
}
