// A port to OpenCL C of llama.cpp's flash attention for NV cooperative matrix 2
// (ggml/src/ggml-vulkan/vulkan-shaders/flash_attn_cm2.comp at commit
// 1ed1f354c7ea758bf973d689b01efef9f62507b0, with the index set-up of flash_attn_base.glsl at
// commit 29752441c32e5ed0d74140b2d75944761176bea8). llama.cpp is MIT licensed:
// LICENSE-llama.cpp beside this file. Written for clcoop's OpenCL C cooperative-matrix
// extensions (docs/tensor.md, docs/coopmat2-semantics.md), not translated mechanically.
//
// For each head h and query row r:  O[r, h, :] = softmax(scale * Q_h[r] K_h'^T + mask[r]) V_h'
// with h' = h / (n_head / n_head_kv) (grouped-query attention shares K and V between heads).
//   Q      float, row r of head h at data_q + h * q_head_stride + r * q_stride, HSK columns;
//   K, V   half, row j of KV head h' at data_k + h' * k_head_stride + j * k_stride (HSK
//          columns), likewise V with v_head_stride, v_stride (HSV columns);
//   mask   half N x KV, row r at data_m + r * m_stride, added to the scores (0 or -inf for a
//          causal mask), read when mask_enable is not 0; rows and columns past (N, KV) read
//          as -inf (the shader's clamp value 0xfc00);
//   O      float N x n_head x HSV (ggml's dst: heads between rows and head dimensions).
// N query rows and KV keys may be any size. The head sizes are build options, as llama.cpp's
// specialization constants: -DHSK=64 -DHSV=64 (padded to multiples of 16; the clamped tensor
// layouts read zeros past them).
//
// One work-group of WG_SIZE invocations computes Br query rows of one head with
// workgroup-scope matrices, stepping over the keys Bc at a time with the online softmax of
// FlashAttention-2: a running row maximum M, a running row sum L and an unnormalized output O,
// rescaled by exp(M_old - M) at each step and divided by L at the end.
// NDRange: global (ceil(N / Br) * WG_SIZE, n_head, 1), local (WG_SIZE, 1, 1).
// Br, Bc, HSK_pad and HSV_pad must be multiples of the device's workgroup-scope granularity
// (NVIDIA's driver: 16x16x16 at 32 or 64 invocations, 32x16x16 at 128).
//
// As in the shader: Q is loaded into a float accumulator and converted to a half A operand,
// then scaled; S = Q K^T through a transposing tensor view; the row maximum by a Row reduction
// (every column of a row holds it); M = max(rowmax, M_old), P = exp(S - M) and
// eM = exp(M_old - M) by per-element functions; padding rows and columns (past N or KV) set to
// -FLT_MAX/2 before the maximum and to 0 after the exponential by a per-element function with
// scalar operands; P converted to a half A operand for P V, which accumulates in half, as the
// shader's ("multiply with fp16 accumulation, then add to O"); eM and L resized to the width
// of O by a Row reduction that keeps its first operand ("smear"); 1/L by element access;
// the output stored through a 3-D layout and a permuting view (1, 0, 2). A mask block that is
// -inf everywhere is skipped, as in the shader (a Row|Column reduction of the mask).
// What differs:
// - The row sum is a Row reduction of P (float) where the shader multiplies the half P by a
//   matrix of ones (a mul-add into float).
// - The skip test asks work_group_all() of every invocation's element 0 of the reduced mask:
//   the shader reads element 0 alone, which assumes every invocation holds a real element (a
//   padding component of clcoop's layout reads 0, and the branch must be uniform).
// - Q, K and V in f32/f16 only (no quantized K and V through decode functions), no ALiBi
//   slopes (max_bias), no attention sinks, no split_k (the partial O, L and M stores), no
//   GQA row packing (gqa_ratio > 1 rows of several heads per work-group), one batch (iq3 = 0),
//   the mask of one head for all heads (nem2 = nem3 = 1), no ACC_TYPE_MAX clamp.
// - The clamp mode of the K, V and mask layouts is a build option, -DCLAMP (Constant by
//   default; CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED is the shader's aligned variant, for
//   N % Br == 0, KV % Bc == 0 and head sizes that are multiples of 16).
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#ifndef HSK
#define HSK 64
#endif
#ifndef HSV
#define HSV 64
#endif
#ifndef Br
#define Br 16
#endif
#ifndef Bc
#define Bc 32
#endif
#ifndef WG_SIZE
#define WG_SIZE 64
#endif
#ifndef CLAMP
#define CLAMP CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT
#endif
// Head sizes rounded up to a multiple of 16 (flash_attn_base.glsl).
#define HSK_pad ((HSK + 15) & ~15)
#define HSV_pad ((HSV + 15) & ~15)

#define WG CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP
#define ACC CLK_COOPERATIVE_MATRIX_ACCUMULATOR
typedef float q_acc_t  __attribute__((coop_mat(WG, Br, HSK_pad, ACC)));
typedef half  q_a_t    __attribute__((coop_mat(WG, Br, HSK_pad, CLK_COOPERATIVE_MATRIX_A)));
typedef half  k_t      __attribute__((coop_mat(WG, HSK_pad, Bc, CLK_COOPERATIVE_MATRIX_B)));
typedef float s_t      __attribute__((coop_mat(WG, Br, Bc, ACC)));
typedef half  mask_t   __attribute__((coop_mat(WG, Br, Bc, ACC)));
typedef half  p_a_t    __attribute__((coop_mat(WG, Br, Bc, CLK_COOPERATIVE_MATRIX_A)));
typedef half  v_t      __attribute__((coop_mat(WG, Bc, HSV_pad, CLK_COOPERATIVE_MATRIX_B)));
typedef float o_t      __attribute__((coop_mat(WG, Br, HSV_pad, ACC)));
typedef half  pv_t     __attribute__((coop_mat(WG, Br, HSV_pad, ACC)));

typedef coop_tensor_layout_t layout_const_t __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
typedef coop_tensor_layout_t layout_t __attribute__((coop_tensor_layout(2, CLAMP)));
typedef coop_tensor_layout_t layout3_t __attribute__((coop_tensor_layout(3, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
typedef coop_tensor_view_t transpose_t __attribute__((coop_tensor_view(2, false, 1, 0)));
typedef coop_tensor_view_t permute_t __attribute__((coop_tensor_view(3, false, 1, 0, 2)));

// -FLT_MAX / 2 rather than -inf, so that M_old - M is never inf - inf (the shader's reason).
#define NEG_FLT_MAX_OVER_2 as_float(0xFEFFFFFFu)
#define NEG_INF_HALF_BITS 0xfc00u

// Combine functions of the reductions.
static float max_reduce(float x, float y) { return fmax(x, y); }
static half max_reduce_f16(half x, half y) { return fmax(x, y); }
static float add_reduce(float x, float y) { return x + y; }
static float smear_reduce(float x, float y) { return x; }

// Per-element functions: (row, column, element, extra operands...).
// Elements at or past (num_rows, num_cols) become `replace`.
static float replace_padding(uint row, uint col, float elem, float replace, uint num_rows, uint num_cols)
{
    return row >= num_rows || col >= num_cols ? replace : elem;
}
static float exp_elem(uint row, uint col, float elem) { return exp(elem); }
static float max_elem(uint row, uint col, float elem0, float elem1) { return fmax(elem0, elem1); }

__attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
__kernel void flash_attn(__global const float *data_q, __global const half *data_k, __global const half *data_v,
                         __global const half *data_m, __global float *data_o,
                         uint N, uint KV, uint n_head, uint n_head_kv,
                         uint q_stride, uint k_stride, uint v_stride, uint m_stride,
                         uint q_head_stride, uint k_head_stride, uint v_head_stride,
                         float scale, float logit_softcap, uint mask_enable)
{
    // init_indices(): query block i, head iq2, and the K/V head it reads (broadcast factor).
    const uint i = get_group_id(0);
    const uint iq2 = get_group_id(1);
    const uint ik2 = iq2 / (n_head / n_head_kv);
    const uint end_j = (KV + Bc - 1) / Bc;

    layout_const_t layout_q = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), N, HSK);
    layout_t layout_k = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), KV, HSK);
    layout_t layout_v = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), KV, HSV);
    layout_q = coop_tensor_layout_set_stride(layout_q, q_stride, 1);
    layout_k = coop_tensor_layout_set_stride(layout_k, k_stride, 1);
    layout_v = coop_tensor_layout_set_stride(layout_v, v_stride, 1);
    const transpose_t transpose = coop_tensor_view_create();

    const q_acc_t Q = coop_mat_load_tensor(data_q + iq2 * q_head_stride,
                                           coop_tensor_layout_slice(layout_q, i * Br, Br, 0, HSK_pad));
    q_a_t Qf16 = (q_a_t)Q;
    Qf16 = Qf16 * (half)scale;

    o_t O = coop_mat_init(0.0f);
    s_t L = coop_mat_init(0.0f);
    s_t M = coop_mat_init(NEG_FLT_MAX_OVER_2);

    const __global half *k_base = data_k + ik2 * k_head_stride;
    const __global half *v_base = data_v + ik2 * v_head_stride;

    for (uint j = 0; j < end_j; ++j) {
        mask_t mv;
        if (mask_enable != 0) {
            layout_const_t layout_m = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), N, KV);
            layout_m = coop_tensor_layout_set_stride(layout_m, m_stride, 1);
            layout_m = coop_tensor_layout_set_clamp_value(layout_m, NEG_INF_HALF_BITS);   // -inf in half
            mv = coop_mat_load_tensor(data_m, coop_tensor_layout_slice(layout_m, i * Br, Br, j * Bc, Bc));

            // Skip the block if the mask is -inf everywhere.
            const mask_t mvmax = coop_mat_reduce(mv, CLK_COOPERATIVE_MATRIX_REDUCE_ROW | CLK_COOPERATIVE_MATRIX_REDUCE_COLUMN,
                                                 max_reduce_f16);
            if (work_group_all(mvmax[0] <= NEG_FLT_MAX_OVER_2))
                continue;
        }

        s_t S = coop_mat_init(0.0f);
        const k_t K_T = coop_mat_load_tensor(k_base, coop_tensor_layout_slice(layout_k, j * Bc, Bc, 0, HSK_pad), transpose);
        S = coop_mat_mulAdd(Qf16, K_T, S);

        if (logit_softcap != 0.0f) {
            for (uint k = 0; k < coop_mat_length(S); ++k)
                S[k] = logit_softcap * tanh(S[k]);
        }

        if (mask_enable != 0)
            S += (s_t)mv;

        // Padding rows and columns (past N or KV) must not contribute to the row maximum.
        const bool padded = CLAMP != CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED &&
                            ((j + 1) * Bc > KV || (i + 1) * Br > N);
        const uint R = (i + 1) * Br > N ? N % Br : Br;
        const uint C = (j + 1) * Bc > KV ? KV % Bc : Bc;
        if (padded)
            S = coop_mat_per_element(S, replace_padding, NEG_FLT_MAX_OVER_2, R, C);

        const s_t rowmax = coop_mat_reduce(S, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, max_reduce);
        const s_t Mold = M;

        // M = max(rowmax, Mold), P = e^(S - M), eM = e^(Mold - M)
        M = coop_mat_per_element(rowmax, max_elem, Mold);
        s_t P = coop_mat_per_element(S - M, exp_elem);
        const s_t eM = coop_mat_per_element(Mold - M, exp_elem);

        // ... and must not contribute to the row sum.
        if (padded)
            P = coop_mat_per_element(P, replace_padding, 0.0f, R, C);

        const p_a_t P_A = (p_a_t)P;
        const s_t rowsum = coop_mat_reduce(P, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add_reduce);

        const v_t V = coop_mat_load_tensor(v_base, coop_tensor_layout_slice(layout_v, j * Bc, Bc, 0, HSV_pad));

        L = eM * L + rowsum;

        // The paper's diagonal matrix, its diagonal element smeared across the row: eM resized
        // to O's width by a reduction that keeps the first element.
        const o_t eMdiag = coop_mat_reduce(eM, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, smear_reduce);

        // Multiply with half accumulation, then add to O.
        pv_t PV = coop_mat_init((half)0.0f);
        PV = coop_mat_mulAdd(P_A, V, PV);

        O = eMdiag * O + (o_t)PV;
    }

    o_t Ldiag = coop_mat_reduce(L, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, smear_reduce);
    for (uint k = 0; k < coop_mat_length(Ldiag); ++k)
        Ldiag[k] = Ldiag[k] == 0.0f ? 0.0f : 1.0f / Ldiag[k];
    O = Ldiag * O;

    // O is N x n_head x HSV: the tile's rows are dimension 0 and its columns dimension 2 of a
    // 3-D layout, read through a view that puts dimension 1 (the head) outermost.
    layout3_t layout_d = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), N, n_head, HSV);
    const permute_t permute = coop_tensor_view_create();
    coop_mat_store_tensor(data_o, O, coop_tensor_layout_slice(layout_d, i * Br, Br, iq2, N, 0, HSV_pad), permute);
}
