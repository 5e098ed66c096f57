// Workgroup-scope GEMM staged through __local memory (SPV_NV_cooperative_matrix2, workgroup
// scope): C = A * B, A M x K half and B K x N half row-major, C M x N float row-major.
//
// A work-group of 256 invocations computes a TILE_M x TILE_N tile of C with one workgroup-scope
// accumulator. Each step of the K loop copies a TILE_M x 32 block of A and a 32 x TILE_N block of
// B into __local memory (16-byte vector reads from global memory), waits at a barrier, and loads
// the workgroup-scope A and B operands from there. Rows are padded by 8 halves (16 bytes) against
// bank conflicts. M must be a multiple of TILE_M, N of TILE_N, K of 32.
//
// NDRange: global (N / TILE_N * 256, M / TILE_M), local (256, 1).
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#ifndef TILE_M
#define TILE_M 128
#endif
#ifndef TILE_N
#define TILE_N 256
#endif
#define TILE_K 32
#define WG_SIZE 256
#define A_STRIDE (TILE_K + 8)
#define B_STRIDE (TILE_N + 8)

#define WORKGROUP CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP
typedef half mat_a __attribute__((coop_mat(WORKGROUP, TILE_M, TILE_K, CLK_COOPERATIVE_MATRIX_A)));
typedef half mat_b __attribute__((coop_mat(WORKGROUP, TILE_K, TILE_N, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(WORKGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

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

__attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
__kernel void gemm_wg_local(__global const half *A, __global const half *B, __global float *C,
                            uint M, uint N, uint K)
{
    __local half a_block[TILE_M * A_STRIDE];
    __local half b_block[TILE_K * B_STRIDE];
    const uint lid = get_local_id(0);
    const uint row0 = get_group_id(1) * TILE_M, col0 = get_group_id(0) * TILE_N;
    const size_t lda = K, ldb = N, ldc = N;

    mat_c acc = coop_mat_init(0.0f);
    for (uint k = 0; k < K; k += TILE_K) {
        barrier(CLK_LOCAL_MEM_FENCE);           // the previous step's operand loads are done
        // TILE_M * 32 / 8 vectors of A and 32 * TILE_N / 8 of B, WG_SIZE at a time.
        for (uint v = lid; v < TILE_M * TILE_K / 8; v += WG_SIZE) {
            const uint r = v / (TILE_K / 8), c = 8 * (v % (TILE_K / 8));
            store8(a_block + r * A_STRIDE + c, *(__global const uint4 *)(A + (row0 + r) * lda + k + c));
        }
        for (uint v = lid; v < TILE_K * TILE_N / 8; v += WG_SIZE) {
            const uint r = v / (TILE_N / 8), c = 8 * (v % (TILE_N / 8));
            store8(b_block + r * B_STRIDE + c, *(__global const uint4 *)(B + (k + r) * ldb + col0 + c));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // `+ get_local_id(1)` (always 0 with the local size (256, 1)) keeps the operand an element
        // pointer: the Vulkan target fails on a load straight from a __local array's base (to fix).
        mat_a a = coop_mat_load(a_block + get_local_id(1), CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)A_STRIDE);
        mat_b b = coop_mat_load(b_block + get_local_id(1), CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)B_STRIDE);
        acc = coop_mat_mulAdd(a, b, acc);
    }
    coop_mat_store(C + row0 * ldc + col0, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, ldc);
}
