// fp8 GEMM (SPV_EXT_float8): E4M3 A and E5M2 B (the usual training pair: weights and
// activations in E4M3, gradients in E5M2), float accumulation. C = A * B + bias, and Cq = C
// converted back to E4M3 with saturation (values past +-448 clamp instead of becoming NaN).
// A is M x K row-major __fp8_e4m3, B is K x N row-major __fp8_e5m2, C is M x N row-major
// float, Cq the same shape of __fp8_e4m3. From Python, an fp8 buffer is an ml_dtypes array
// (float8_e4m3fn, float8_e5m2) or a uint8 array of bit patterns.
// Each product of two fp8 values is exact; products and C are summed in float
// (docs/coopmat2-semantics.md "fp8").
// NDRange as in gemm_f32.cl: dimension 0 = (N / 16) * subgroup size, dimension 1 = M / 8.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable

#define TILE_M 8
#define TILE_N 16
#define TILE_K 32

typedef __fp8_e4m3 mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_K, CLK_COOPERATIVE_MATRIX_A)));
typedef __fp8_e5m2 mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_K, TILE_N, CLK_COOPERATIVE_MATRIX_B)));
typedef float      mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef __fp8_e4m3 mat_q __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, TILE_M, TILE_N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

__kernel void gemm_fp8(__global const __fp8_e4m3 *A, __global const __fp8_e5m2 *B, float bias,
                       __global float *C, __global __fp8_e4m3 *Cq, int M, int N, int K)
{
    const size_t tile_col = get_global_id(0) / get_sub_group_size();
    const size_t tile_row = get_global_id(1);

    mat_c acc = coop_mat_init(bias);
    for (int k = 0; k < K; k += TILE_K) {
        mat_a a = coop_mat_load(A + tile_row * TILE_M * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
        mat_b b = coop_mat_load(B + (size_t)k * N + tile_col * TILE_N, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
        acc = coop_mat_mulAdd(a, b, acc);
    }
    size_t at = tile_row * TILE_M * N + tile_col * TILE_N;
    coop_mat_store(C + at, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
    // Saturating, element by element (a matrix cast, (mat_q)acc, would give NaN past +-448).
    mat_q q = coop_mat_init((__fp8_e4m3)0.0f);
    for (uint i = 0; i < coop_mat_length(acc); i++)
        q[i] = convert___fp8_e4m3_sat(acc[i]);
    coop_mat_store(Cq + at, q, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
}
