// A port to OpenCL C of llama.cpp's quantized matrix multiplication for NV cooperative matrix 2
// (ggml/src/ggml-vulkan/vulkan-shaders/mul_mm_cm2.comp at commit
// 048703462055cdb8f01b87c44a14f319b19adb6a, with its decode functions dequantFuncQ4_0 and
// dequantFuncQ8_0 from dequant_funcs_cm2.glsl at commit 9fa991d7be4110974f8954bb35ac38d78a2260cb
// and the block structs of types.glsl). llama.cpp is MIT licensed: LICENSE-llama.cpp beside this
// file. Written for clcoop's OpenCL C cooperative-matrix extensions (docs/tensor.md,
// docs/coopmat2-semantics.md), not translated mechanically.
//
// D = A * B^T, per batch:
//   A  M x K weights, each row K / 32 blocks of llama.cpp's Q4_0 or Q8_0 (below), row stride
//      stride_a weights (a multiple of 32), batch stride batch_stride_a weights;
//   B  N x K half activations, row stride stride_b, batch stride batch_stride_b (elements);
//   D  N x M float, row n at D + n * stride_d (ggml's dst: ne0 = M fastest), batch stride
//      batch_stride_d.
// Build with -DDATA_A_Q4_0 (the default) or -DDATA_A_Q8_0, as llama.cpp builds one shader per
// weight type.
//
// One work-group of BLOCK_SIZE invocations computes one BM x BN tile of the product with
// workgroup-scope matrices, stepping K by BK = 32 (one quant block). NDRange:
//   global (ceil(M / BM) * BLOCK_SIZE, ceil(N / BN), batches), local (BLOCK_SIZE, 1, 1).
// The shapes must be multiples of the device's workgroup-scope granularity (NVIDIA's driver:
// 16x16x16 at 32 or 64 invocations, 32x16x16 at 128, 32x32x16 at 256).
//
// As in the shader:
// - The A tile is decoded as it is loaded: a layout with block size (1, 32) over the weights
//   addresses whole blocks, and the decode function gets the block and the element's
//   coordinate in it (SPV_NV_cooperative_matrix2 "Tensor Addressing", block loads).
// - B is read transposed through a tensor view with permutation (1, 0), and D is written
//   transposed through the same view (D's layout is (N, M)).
// - Tiles entirely inside M, N and K take layouts with Undefined clamping (no bounds work);
//   the others take layouts with Constant clamping, which read zeros past M, N and K, and
//   the store through a layout drops what lies outside D.
// What differs:
// - B and D are bounded by N (the shader bounds B by padded_N, ggml's padding of src1).
// - Only Q4_0 and Q8_0 weights (llama.cpp also builds f16, f32, bf16, the other legacy quants,
//   the K-quants with their scale staging, and the IQ quants), B in half only, D in float.
// - No split_k, no broadcast of A across batches (ne02/ne12, broadcast2/3), no MUL_MAT_ID (the
//   expert routing with ballots), no enable_smaller_matrices variants (BN/2, BN/4), no manual
//   unroll by 8 of the fast path's K loop (the compiler may unroll), no ACC_TYPE_MAX clamp
//   (the accumulator is float).
// - The fast path needs K % BK == 0 and whole tiles, as the shader's; the shader's 16-byte
//   stride alignment hints (stride & ~7) have no OpenCL C counterpart and are left out.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#define BK 32           // "Assumed to be 32 if working with a quant"
#define QUANT_K 32

#if defined(DATA_A_Q4_0) && defined(DATA_A_Q8_0)
#error "define one of DATA_A_Q4_0 and DATA_A_Q8_0"
#endif
#if !defined(DATA_A_Q8_0) && !defined(DATA_A_Q4_0)
#define DATA_A_Q4_0
#endif

// llama.cpp's blocks as the shader reads them (types.glsl, "packed16": 16-bit words).
// block_q4_0: weight j is the low nibble of byte j (j < 16) or the high nibble of byte j - 16.
typedef struct { half d; ushort qs[QUANT_K / 4]; } block_q4_0_packed16;     // 18 bytes
// block_q8_0: weight j is the signed byte j.
typedef struct { half d; short qs[QUANT_K / 2]; } block_q8_0_packed16;      // 34 bytes

// dequantFuncQ4_0: (nibble - 8) * d in half.
half dequant_q4_0(const __global block_q4_0_packed16 *bl, const uint block_coords[2],
                  const uint coord_in_block[2])
{
    const half d = bl->d;
    const uint idx = coord_in_block[1];
    const uint shift = (idx & 0x10) >> 2;
    uint qs = bl->qs[(idx & 0xE) >> 1];
    qs >>= shift;
    qs &= 0x0F0F;
    qs = (qs >> (8 * (idx & 1))) & 0xFF;      // unpack8(qs)[idx & 1]
    return ((half)qs - (half)8) * d;
}

// dequantFuncQ8_0: the signed byte times d in half.
half dequant_q8_0(const __global block_q8_0_packed16 *bl, const uint block_coords[2],
                  const uint coord_in_block[2])
{
    const half d = bl->d;
    const uint idx = coord_in_block[1];
    const short word = bl->qs[(idx & 0x1E) >> 1];
    const char qs = (idx & 1) ? (char)(word >> 8) : (char)word;   // unpack8(word)[idx & 1]
    return (half)qs * d;
}

#ifdef DATA_A_Q8_0
typedef block_q8_0_packed16 block_a;
#define DECODE_A dequant_q8_0
#else
typedef block_q4_0_packed16 block_a;
#define DECODE_A dequant_q4_0
#endif

#define WORKGROUP CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP
typedef half  mat_a __attribute__((coop_mat(WORKGROUP, BM, BK, CLK_COOPERATIVE_MATRIX_A)));
typedef half  mat_b __attribute__((coop_mat(WORKGROUP, BK, BN, CLK_COOPERATIVE_MATRIX_B)));
typedef float acc_t __attribute__((coop_mat(WORKGROUP, BM, BN, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t layout_t __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED)));
typedef coop_tensor_layout_t layout_clamp_t __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
typedef coop_tensor_view_t transpose_t __attribute__((coop_tensor_view(2, false, 1, 0)));

__attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))
__kernel void mul_mm_q(__global const block_a *data_a, __global const half *data_b, __global float *data_d,
                       uint M, uint N, uint K, uint stride_a, uint stride_b, uint stride_d,
                       uint batch_stride_a, uint batch_stride_b, uint batch_stride_d)
{
    const uint ir = get_group_id(0);          // tile row (of M)
    const uint ic = get_group_id(1);          // tile column (of N)
    const uint batch = get_group_id(2);

    const uint pos_a = batch * (batch_stride_a / QUANT_K);      // in blocks
    const uint pos_b = batch * batch_stride_b;
    const uint pos_d = batch * batch_stride_d;
    const __global block_a *a = data_a + pos_a;
    const __global half *b = data_b + pos_b;
    __global float *d = data_d + pos_d;

    // Layouts for unclamped and clamped accesses; A's strides count blocks (set the block size
    // before the dimension: the packed strides are computed in blocks).
    layout_t layout_a = coop_tensor_layout_set_block_size(coop_tensor_layout_create(), 1, QUANT_K);
    layout_clamp_t layout_a_clamp = coop_tensor_layout_set_block_size(coop_tensor_layout_create(), 1, QUANT_K);
    layout_a = coop_tensor_layout_set_dimension(layout_a, M, K);
    layout_a_clamp = coop_tensor_layout_set_dimension(layout_a_clamp, M, K);
    layout_a = coop_tensor_layout_set_stride(layout_a, stride_a / QUANT_K, 1);
    layout_a_clamp = coop_tensor_layout_set_stride(layout_a_clamp, stride_a / QUANT_K, 1);

    layout_t layout_b = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), N, K);
    layout_clamp_t layout_b_clamp = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), N, K);
    layout_b = coop_tensor_layout_set_stride(layout_b, stride_b, 1);
    layout_b_clamp = coop_tensor_layout_set_stride(layout_b_clamp, stride_b, 1);

    layout_clamp_t layout_d = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), N, M);
    layout_d = coop_tensor_layout_set_stride(layout_d, stride_d, 1);

    const transpose_t transpose = coop_tensor_view_create();

    acc_t sum = coop_mat_init(0.0f);
    if ((ir + 1) * BM <= M && (ic + 1) * BN <= N && K % BK == 0) {
        // Fast path: every load is inside the tensors, no clamping.
        for (uint block_k = 0; block_k < K; block_k += BK) {
            const mat_a mat_a_tile = coop_mat_load_tensor(a, coop_tensor_layout_slice(layout_a, ir * BM, BM, block_k, BK), DECODE_A);
            const mat_b mat_b_tile = coop_mat_load_tensor(b, coop_tensor_layout_slice(layout_b, ic * BN, BN, block_k, BK), transpose);
            sum = coop_mat_mulAdd(mat_a_tile, mat_b_tile, sum);
        }
    } else {
        // Edge tiles: the tiles of this work-group that reach past M or K read A through the
        // clamped layout; B always goes through its clamped layout (N may end inside the tile).
        for (uint block_k = 0; block_k < K; block_k += BK) {
            mat_a mat_a_tile;
            if ((ir + 1) * BM <= M && block_k + BK <= K)
                mat_a_tile = coop_mat_load_tensor(a, coop_tensor_layout_slice(layout_a, ir * BM, BM, block_k, BK), DECODE_A);
            else
                mat_a_tile = coop_mat_load_tensor(a, coop_tensor_layout_slice(layout_a_clamp, ir * BM, BM, block_k, BK), DECODE_A);
            const mat_b mat_b_tile = coop_mat_load_tensor(b, coop_tensor_layout_slice(layout_b_clamp, ic * BN, BN, block_k, BK), transpose);
            sum = coop_mat_mulAdd(mat_a_tile, mat_b_tile, sum);
        }
    }
    // D is N x M: the tile's (row m, column n) goes to D[n, m] through the transposing view;
    // elements past N or M are dropped by the clamped layout's store.
    coop_mat_store_tensor(d, sum, coop_tensor_layout_slice(layout_d, ic * BN, BN, ir * BM, BM), transpose);
}
