"""The ports of llama.cpp's two cooperative-matrix-2 shaders (examples/llama/, issue 29): the
quantized GEMM (mul_mm_q.cl, from mul_mm_cm2.comp) with Q4_0 and Q8_0 weights laid out as
llama.cpp lays out its blocks, and flash attention (flash_attn.cl, from flash_attn_cm2.comp),
in the interpreter against NumPy within derived bounds, at sizes that are and are not
multiples of the tiles; their Vulkan modules through spirv-val; and the native engine, which
must be bit for bit the interpreter when it takes them.

Bounds (u32 = 2^-24, u16 = 2^-11, the unit roundoffs of float and half):
- GEMM: the decode functions compute (q - 8) * d and q * d in half, one rounding of an exact
  product, which NumPy's float16 product repeats exactly, so the dequantized weights W are
  exact. Products of two halves are exact in float, so D differs from the float64 product
  B W^T only by the float sums of K terms: |D - exact| <= gamma_K * sum_k |b w| with
  gamma_K = K u32 / (1 - K u32) (Higham, Accuracy and Stability, (3.4)), whatever the order.
- Attention, per output row r and column c, with p_j = exp(s_j - m) (exact), o = sum p v / sum p:
  each p_j reaches P V as half (P converted to an A operand: relative u16) and P V accumulates
  in half (one rounding per block of keys: relative u16 of sum p|v| over the block, after a
  float sum of Bc <= 64 exact products: 64 u32 relative), while the row sum uses the float p:
  together at most (2 u16 + u16^2 + 64 u32) * sum p|v| / sum p. The scores
  carry e_r = max_j [(HSK + 2) u32 sum_k |q k| + 2 u32 |s_j - m| + 4 u32] (float sums, the
  subtraction, exp within 4 ulp), which moves each p_j by a relative e_r and o by at most
  2 e_r max_j |v_jc|; the float rescaling and division add a few u32 per block (bounded by
  (4 blocks + 8) u32 * max|v|). Q * scale is rounded to half in the kernel and in the oracle
  alike (one rounding of an exact product).
"""
import warnings
import zlib
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

import clcoop
from tool_marks import needs_tools
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[3]
LLAMA = ROOT / "examples" / "llama"
U32 = 2.0 ** -24
U16 = 2.0 ** -11

# The native engine takes both ports (issue 29): mul_mm_q since its tensor layouts, decode
# functions and workgroup scope, flash_attn since exp and tanh in double (native/math_ir.py),
# work_group_all (native/votes.py) and Qf16 * (half)scale (a scalar computed from
# kernel arguments). Before that, flash_attn fell back with "the built-in 'exp' is not
# compiled natively yet". test_native_engine_is_the_interpreter_bit_for_bit holds them to the
# interpreter's bits, test_native_engine_takes_the_ports to no fallback.


def seed_of(case):
    return zlib.crc32(repr(case).encode())


@lru_cache(maxsize=None)
def build(name, options, engine="interp"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # engine="auto": the fallback warning is checked below
        return clcoop.Program((LLAMA / f"{name}.cl").read_text()).build(options=list(options), engine=engine)


# ---------------------------------------------------------------- llama.cpp's blocks

Q4_0 = np.dtype([("d", np.float16), ("qs", np.uint8, 16)])      # block_q4_0: 18 bytes
Q8_0 = np.dtype([("d", np.float16), ("qs", np.int8, 32)])       # block_q8_0: 34 bytes


def q4_0_blocks(q, d):
    """Rows of 4-bit values q (0..15) and scales d (one per 32) as block_q4_0 bytes: weight j of a
    block in the low nibble of byte j, weight j + 16 in its high nibble (ggml-quants.c)."""
    rows, k = q.shape
    blocks = np.zeros((rows, k // 32), Q4_0)
    nibbles = q.reshape(rows, k // 32, 32).astype(np.uint8)
    blocks["qs"] = nibbles[:, :, :16] | (nibbles[:, :, 16:] << 4)
    blocks["d"] = d
    return blocks


def q8_0_blocks(q, d):
    rows, k = q.shape
    blocks = np.zeros((rows, k // 32), Q8_0)
    blocks["qs"] = q.reshape(rows, k // 32, 32)
    blocks["d"] = d
    return blocks


def dequantize(blocks, qtype):
    """The weights as the decode functions compute them: (nibble - 8) * d or q * d in half."""
    if qtype == "Q4_0":
        qs = blocks["qs"]
        q = np.concatenate([qs & 0xF, qs >> 4], axis=-1).astype(np.float16) - np.float16(8)
    else:
        q = blocks["qs"].astype(np.float16)
    values = q * blocks["d"][..., None]          # float16 * float16: one rounding of an exact product
    assert values.dtype == np.float16
    return values.reshape(blocks.shape[0], -1)


def random_weights(rng, qtype, rows, k):
    d = (rng.random((rows, k // 32)) * 0.1 + 0.01).astype(np.float16)
    if qtype == "Q4_0":
        return q4_0_blocks(rng.integers(0, 16, (rows, k)), d)
    return q8_0_blocks(rng.integers(-128, 128, (rows, k)).astype(np.int8), d)


def test_block_layouts_are_llamas():
    """Byte for byte: block_q4_0 is d then 16 bytes, element j low nibble of byte j; Q8_0 d then
    32 signed bytes."""
    q = np.arange(32).reshape(1, 32) % 16
    raw = q4_0_blocks(q, np.float16([[0.5]])).view(np.uint8).reshape(-1)
    assert raw.size == 18 and raw[:2].view(np.float16)[0] == 0.5
    assert list(raw[2:6]) == [0x00, 0x11, 0x22, 0x33]         # weight j and j + 16 share byte j
    np.testing.assert_array_equal(dequantize(q4_0_blocks(q, np.float16([[0.5]])), "Q4_0")[0],
                                  (q[0] - 8) * 0.5)
    q8 = (np.arange(32) - 16).astype(np.int8).reshape(1, 32)
    raw8 = q8_0_blocks(q8, np.float16([[2]])).view(np.uint8).reshape(-1)
    assert raw8.size == 34 and raw8[2:].view(np.int8)[0] == -16
    np.testing.assert_array_equal(dequantize(q8_0_blocks(q8, np.float16([[2]])), "Q8_0")[0], q8[0] * 2.0)


# ---------------------------------------------------------------- mul_mm_q

def gemm_options(qtype, bm, bn, wg):
    return (f"-DDATA_A_{qtype}", f"-DBM={bm}", f"-DBN={bn}", f"-DBLOCK_SIZE={wg}")


def gemm_problem(rng, qtype, M, N, K, batches=1):
    """Inputs with row strides wider than the rows and a batch stride (the kernel must use
    them), and D filled with NaN where it must not write (the padding of its rows)."""
    stride_a, stride_b, stride_d = K + 32, K + 5, M + 3
    weights = random_weights(rng, qtype, batches * M, K + 32)       # one padding block per row
    A = weights.reshape(batches, M, -1)
    B = np.zeros((batches, N, stride_b), np.float16)
    B[:, :, :K] = rng.standard_normal((batches, N, K))
    D = np.full((batches, N, stride_d), np.nan, np.float32)
    scalars = [np.uint32(x) for x in (M, N, K, stride_a, stride_b, stride_d,
                                      M * stride_a, N * stride_b, N * stride_d)]
    return A, B, D, scalars


def run_gemm(program, A, B, D, scalars, bm, bn, wg, subgroup_size=16):
    batches, M, N = A.shape[0], int(scalars[0]), int(scalars[1])
    program.mul_mm_q((-(-M // bm) * wg, -(-N // bn), batches), (wg, 1, 1),
                     A.view(np.uint8).reshape(-1), B, D, *scalars, subgroup_size=subgroup_size)


def check_gemm(A, B, D, qtype, M, N, K):
    for batch in range(A.shape[0]):
        W = dequantize(A[batch], qtype)[:, :K].astype(np.float64)
        Bb = B[batch, :, :K].astype(np.float64)
        exact = Bb @ W.T
        gamma = K * U32 / (1 - K * U32)
        bound = gamma * (np.abs(Bb) @ np.abs(W).T)
        got = D[batch, :, :M]
        assert not np.isnan(got).any(), "an element of D was not written"
        assert (np.abs(got - exact) <= bound).all(), np.max(np.abs(got - exact) / np.maximum(bound, 1e-300))
        assert np.isnan(D[batch, :, M:]).all(), "the kernel wrote past M in a row of D"


GEMM_CASES = [
    # (qtype, M, N, K, BM, BN, work-group size, batches): whole tiles (the unclamped path),
    # M and N ending inside a tile (the clamped path), several K blocks, two batches.
    ("Q4_0", 32, 32, 64, 32, 32, 64, 1),
    ("Q4_0", 40, 23, 96, 32, 32, 64, 2),
    ("Q8_0", 45, 17, 64, 32, 32, 64, 1),
    ("Q8_0", 32, 64, 128, 32, 32, 64, 2),
]
SLOW_GEMM_CASES = [
    ("Q4_0", 100, 70, 320, 64, 64, 256, 1),    # llama.cpp's default tile and work-group
    ("Q8_0", 128, 128, 256, 64, 64, 256, 1),
    ("Q4_0", 17, 130, 512, 32, 64, 128, 2),
]


def _gemm_id(case):
    return "{}-{}x{}x{}-tile{}x{}-wg{}-batch{}".format(*case)


@pytest.mark.parametrize("case", GEMM_CASES + [pytest.param(c, marks=pytest.mark.slow) for c in SLOW_GEMM_CASES],
                         ids=_gemm_id)
def test_mul_mm_q_matches_numpy(case):
    qtype, M, N, K, bm, bn, wg, batches = case
    rng = np.random.default_rng(seed_of(case))
    A, B, D, scalars = gemm_problem(rng, qtype, M, N, K, batches)
    run_gemm(build("mul_mm_q", gemm_options(qtype, bm, bn, wg)), A, B, D, scalars, bm, bn, wg)
    check_gemm(A, B, D, qtype, M, N, K)


def test_mul_mm_q_at_the_gpus_subgroup_size():
    """Sub-group size 32 (NVIDIA's): another layout of the workgroup-scope tiles, same results."""
    rng = np.random.default_rng(32)
    A, B, D, scalars = gemm_problem(rng, "Q4_0", 40, 23, 64)
    run_gemm(build("mul_mm_q", gemm_options("Q4_0", 32, 32, 64)), A, B, D, scalars, 32, 32, 64, subgroup_size=32)
    check_gemm(A, B, D, "Q4_0", 40, 23, 64)


def test_the_gemm_bound_is_not_vacuous():
    """One byte of weights decoded wrongly (both nibbles q -> 15 - q) is far outside it."""
    rng = np.random.default_rng(4)
    A, B, D, scalars = gemm_problem(rng, "Q4_0", 32, 32, 64)
    run_gemm(build("mul_mm_q", gemm_options("Q4_0", 32, 32, 64)), A, B, D, scalars, 32, 32, 64)
    wrong = A.copy()
    wrong["qs"][0, 3, 0, 5] ^= 0xFF         # both nibbles q -> 15 - q
    with pytest.raises(AssertionError):
        check_gemm(wrong, B, D, "Q4_0", 32, 32, 64)


# ---------------------------------------------------------------- flash_attn

def attention_options(hsk, hsv, br, bc, wg, clamp=None):
    options = (f"-DHSK={hsk}", f"-DHSV={hsv}", f"-DBr={br}", f"-DBc={bc}", f"-DWG_SIZE={wg}")
    return options + ((f"-DCLAMP=CLK_COOPERATIVE_MATRIX_CLAMP_MODE_{clamp}",) if clamp else ())


class Attention:
    """One attention problem: inputs, the kernel's arguments, the oracle and its bound."""

    def __init__(self, rng, N, KV, n_head, n_head_kv, hsk, hsv, causal, softcap=0.0):
        self.N, self.KV, self.n_head, self.n_head_kv, self.hsk, self.hsv = N, KV, n_head, n_head_kv, hsk, hsv
        self.softcap = np.float32(softcap)
        self.scale = np.float32(1 / np.sqrt(hsk))
        self.Q = rng.standard_normal((n_head, N, hsk)).astype(np.float32)
        self.K = rng.standard_normal((n_head_kv, KV, hsk)).astype(np.float16)
        self.V = rng.standard_normal((n_head_kv, KV, hsv)).astype(np.float16)
        self.mask = np.zeros((N, KV), np.float16)
        if causal:      # query r sees keys up to r + KV - N (the last query sees every key)
            rows, cols = np.arange(N)[:, None], np.arange(KV)[None, :]
            self.mask[cols > rows + (KV - N)] = -np.inf
        self.mask_enable = int(causal)
        self.O = np.full((N, n_head, hsv), np.nan, np.float32)

    def args(self):
        N, KV, hsk, hsv = self.N, self.KV, self.hsk, self.hsv
        return [self.Q, self.K, self.V, self.mask, self.O, np.uint32(N), np.uint32(KV), np.uint32(self.n_head),
                np.uint32(self.n_head_kv), np.uint32(hsk), np.uint32(hsk), np.uint32(hsv), np.uint32(KV),
                np.uint32(N * hsk), np.uint32(KV * hsk), np.uint32(KV * hsv), self.scale, self.softcap,
                np.uint32(self.mask_enable)]

    def run(self, program, br, wg, subgroup_size=16):
        program.flash_attn((-(-self.N // br) * wg, self.n_head, 1), (wg, 1, 1), *self.args(),
                           subgroup_size=subgroup_size)

    def oracle(self, head):
        """(exact output, bound) of one head in float64."""
        kv = head // (self.n_head // self.n_head_kv)
        q = self.Q[head].astype(np.float16) * np.float16(self.scale)      # as the kernel: in half
        k = self.K[kv].astype(np.float64)
        v = self.V[kv].astype(np.float64)
        s = q.astype(np.float64) @ k.T
        error_s = (self.hsk + 2) * U32 * (np.abs(q.astype(np.float64)) @ np.abs(k).T)
        if self.softcap:
            error_s = self.softcap * (error_s + 8 * U32)        # d/ds c tanh(s) <= c; tanh within a few ulp
            s = self.softcap * np.tanh(s)
        s = s + self.mask.astype(np.float64)
        m = s.max(axis=1, keepdims=True)
        p = np.exp(s - m)
        o = p @ v / p.sum(axis=1, keepdims=True)
        finite = np.isfinite(s)
        e = np.where(finite, error_s + 2 * U32 * np.abs(np.where(finite, s - m, 0)) + 4 * U32, 0).max(axis=1)
        weighted_abs = p @ np.abs(v) / p.sum(axis=1, keepdims=True)
        blocks = -(-self.KV // 16)
        vmax = np.abs(v).max(axis=0)
        bound = ((2 * U16 + U16 ** 2 + 64 * U32) * weighted_abs + 2 * e[:, None] * vmax[None, :]
                 + (4 * blocks + 8) * U32 * vmax[None, :])
        return o, bound

    def check(self, O=None):
        O = self.O if O is None else O
        assert not np.isnan(O).any(), "an element of O was not written"
        for head in range(self.n_head):
            exact, bound = self.oracle(head)
            difference = np.abs(O[:, head, :] - exact)
            assert (difference <= bound).all(), (head, float((difference / bound).max()))


ATTENTION_CASES = [
    # (N, KV, n_head, n_head_kv, HSK, HSV, causal, Br, Bc, work-group size)
    (32, 32, 1, 1, 64, 64, False, 16, 16, 64),        # whole tiles
    (21, 37, 2, 1, 40, 40, True, 16, 16, 64),         # ragged N, KV and head size; GQA
    (48, 48, 2, 2, 16, 32, True, 16, 16, 32),         # fully masked blocks are skipped; HSK != HSV
    (7, 50, 1, 1, 80, 80, False, 16, 32, 64),         # fewer queries than one tile; Bc 32
]
SLOW_ATTENTION_CASES = [
    (128, 128, 4, 2, 64, 64, True, 32, 32, 128),
    (100, 300, 2, 2, 128, 128, True, 16, 32, 64),
    (64, 200, 2, 1, 96, 96, False, 32, 16, 128),
    (33, 65, 1, 1, 256, 256, True, 16, 16, 64),
]


def _attention_id(case):
    return "N{}-KV{}-h{}-hkv{}-hsk{}-hsv{}-{}-Br{}-Bc{}-wg{}".format(*case[:6], "causal" if case[6] else "full",
                                                                   *case[7:])


@pytest.mark.parametrize("case", ATTENTION_CASES +
                         [pytest.param(c, marks=pytest.mark.slow) for c in SLOW_ATTENTION_CASES], ids=_attention_id)
def test_flash_attn_matches_numpy(case):
    N, KV, n_head, n_head_kv, hsk, hsv, causal, br, bc, wg = case
    problem = Attention(np.random.default_rng(seed_of(case)), N, KV, n_head, n_head_kv, hsk, hsv, causal)
    problem.run(build("flash_attn", attention_options(hsk, hsv, br, bc, wg)), br, wg)
    problem.check()


def test_flash_attn_with_a_logit_softcap():
    """S = softcap * tanh(S), element by element through S[k] (the shader's loop)."""
    problem = Attention(np.random.default_rng(11), 21, 37, 1, 1, 32, 32, True, softcap=2.5)
    problem.run(build("flash_attn", attention_options(32, 32, 16, 16, 64)), 16, 64)
    problem.check()


def test_flash_attn_aligned_variant_without_clamping():
    """-DCLAMP=..._UNDEFINED (the shader's aligned variant): no padding work, same results where
    N, KV and the head sizes fit the tiles."""
    problem = Attention(np.random.default_rng(12), 32, 48, 2, 1, 32, 32, True)
    problem.run(build("flash_attn", attention_options(32, 32, 16, 16, 64, "UNDEFINED")), 16, 64)
    problem.check()


def test_flash_attn_at_the_gpus_subgroup_size():
    problem = Attention(np.random.default_rng(13), 21, 37, 2, 1, 40, 40, True)
    problem.run(build("flash_attn", attention_options(40, 40, 16, 16, 64)), 16, 64, subgroup_size=32)
    problem.check()


def test_the_attention_bound_is_not_vacuous():
    """Dropping the causal mask, or one key, is far outside the bound."""
    problem = Attention(np.random.default_rng(14), 21, 37, 1, 1, 40, 40, True)
    problem.run(build("flash_attn", attention_options(40, 40, 16, 16, 64)), 16, 64)
    problem.check()
    unmasked = Attention(np.random.default_rng(14), 21, 37, 1, 1, 40, 40, False)
    with pytest.raises(AssertionError):
        unmasked.check(problem.O)
    fewer = Attention(np.random.default_rng(14), 21, 37, 1, 1, 40, 40, True)
    fewer.mask[:, 36] = -np.inf
    with pytest.raises(AssertionError):
        fewer.check(problem.O)


@pytest.mark.parametrize("name", ["mul_mm_q", "flash_attn"])
def test_unoptimized_and_one_work_group_at_a_time_give_the_same_bits(name):
    """-O0 (matrices in private memory, element access through their address) and a launch
    that runs one work-group at a time (serial_subgroups) give exactly the -O2 batched result."""
    results = []
    for options, serial in ((("-O2",), False), (("-O0",), False), (("-O2",), True)):
        rng = np.random.default_rng(8)
        if name == "mul_mm_q":
            A, B, D, scalars = gemm_problem(rng, "Q8_0", 40, 23, 96, 2)
            program = build(name, gemm_options("Q8_0", 32, 32, 64) + options)
            program.mul_mm_q((2 * 64, 1, 2), (64, 1, 1), A.view(np.uint8).reshape(-1), B, D, *scalars,
                             subgroup_size=16, serial_subgroups=serial)
            check_gemm(A, B, D, "Q8_0", 40, 23, 96)
            results.append(D)
        else:
            problem = Attention(rng, 21, 37, 2, 1, 40, 40, True)
            program = build(name, attention_options(40, 40, 16, 16, 64) + options)
            program.flash_attn((2 * 64, 2, 1), (64, 1, 1), *problem.args(), subgroup_size=16, serial_subgroups=serial)
            problem.check()
            results.append(problem.O)
    assert results[0].tobytes() == results[1].tobytes() == results[2].tobytes()


# ---------------------------------------------------------------- Vulkan

VULKAN_BUILDS = [
    ("mul_mm_q", ("-DDATA_A_Q4_0",)),
    pytest.param("mul_mm_q", ("-DDATA_A_Q8_0",), marks=pytest.mark.slow),
    ("flash_attn", ()),
    pytest.param("flash_attn", ("-DHSK=40", "-DHSV=72", "-DBr=32", "-DBc=16", "-DWG_SIZE=128"), marks=pytest.mark.slow),
    pytest.param("flash_attn", ("-DCLAMP=CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED",), marks=pytest.mark.slow),
    pytest.param("mul_mm_q", ("-DDATA_A_Q8_0", "-DBM=32", "-DBN=32", "-DBLOCK_SIZE=64"), marks=pytest.mark.slow),
]


@needs_tools("llc", "opt", "spirv-val")
@pytest.mark.parametrize("name,options", VULKAN_BUILDS)
def test_vulkan_module_validates(name, options, tmp_path):
    """`clcoop k.cl --emit-spirv --target-env vulkan1.3` (the command line: -O0) writes a module
    that spirv-val --target-env vulkan1.3 accepts as it is, with the NV2 instructions."""
    import subprocess
    import sys
    from clcoop.spirv.tools import find_tool
    out = tmp_path / f"{name}.spv"
    done = subprocess.run([sys.executable, "-m", "clcoop.cli.compile_main", str(LLAMA / f"{name}.cl"), "--emit-spirv",
                           "--target-env", "vulkan1.3", *options, "-o", str(out)], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    checked = subprocess.run([find_tool("spirv-val"), "--target-env", "vulkan1.3", str(out)], capture_output=True,
                             text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    text = subprocess.run([find_tool("spirv-dis"), "--no-color", str(out)], capture_output=True, text=True,
                          check=True).stdout
    assert "OpCooperativeMatrixLoadTensorNV" in text and "OpCreateTensorLayoutNV" in text
    if name == "flash_attn":
        assert "OpCooperativeMatrixReduceNV" in text and "OpCooperativeMatrixPerElementOpNV" in text
        assert "OpCooperativeMatrixConvertNV" in text or "OpFConvert" in text
    else:
        assert "OpCooperativeMatrixStoreTensorNV" in text and "OpCooperativeMatrixMulAddKHR" in text


# ---------------------------------------------------------------- native engine

NATIVE_CASES = [
    ("mul_mm_q", gemm_options("Q4_0", 32, 32, 64), ("Q4_0", 40, 23, 96, 32, 32, 64, 2)),
    ("mul_mm_q", gemm_options("Q8_0", 32, 32, 64), ("Q8_0", 32, 32, 64, 32, 32, 64, 1)),
    ("flash_attn", attention_options(40, 40, 16, 16, 64), (21, 37, 2, 1, 40, 40, True, 16, 16, 64)),
    ("flash_attn", attention_options(64, 64, 16, 16, 64), (32, 32, 1, 1, 64, 64, False, 16, 16, 64)),
]


def _native_id(case):
    return f"{case[0]}-{'-'.join(str(x) for x in case[2])}"


def _launch(name, program, case, seed):
    """Runs one case on `program`; returns the output array."""
    rng = np.random.default_rng(seed)
    if name == "mul_mm_q":
        qtype, M, N, K, bm, bn, wg, batches = case
        A, B, D, scalars = gemm_problem(rng, qtype, M, N, K, batches)
        run_gemm(program, A, B, D, scalars, bm, bn, wg)
        check_gemm(A, B, D, qtype, M, N, K)
        return D
    N, KV, n_head, n_head_kv, hsk, hsv, causal, br, bc, wg = case
    problem = Attention(rng, N, KV, n_head, n_head_kv, hsk, hsv, causal)
    problem.run(program, br, wg)
    problem.check()
    return problem.O


@pytest.mark.parametrize("name,options,case", [
    pytest.param(*c, id=_native_id(c), marks=[pytest.mark.slow] if i % 2 else []) for i, c in enumerate(NATIVE_CASES)])
def test_native_engine_is_the_interpreter_bit_for_bit(name, options, case):
    """engine="auto" runs the ports natively, and their output is the interpreter's, bit for
    bit (NaN sentinels included)."""
    auto = build(name, options, "auto")
    reference = _launch(name, build(name, options), case, seed=21)
    got = _launch(name, auto, case, seed=21)
    kernel = auto.kernel(name)
    assert kernel.engine == "native", kernel.fallback_reason
    assert got.tobytes() == reference.tobytes()


@pytest.mark.parametrize("name,options,case", [
    pytest.param(*c, id=_native_id(c), marks=[] if i % 2 else [pytest.mark.slow]) for i, c in enumerate(NATIVE_CASES)])
def test_native_engine_takes_the_ports(name, options, case):
    """Issue 29's acceptance test: the ports run natively (no fallback). The default run keeps
    the cases that test_native_engine_is_the_interpreter_bit_for_bit leaves to --all; it
    checks the others' engine itself."""
    kernel = build(name, options, "auto").kernel(name)
    assert kernel.fallback_reason is None, kernel.fallback_reason
    assert kernel.engine == "native"


ATTENTION_VARIANTS = [
    # (extra options, softcap, sub-group size): tanh through S[k], the aligned variant, -O0
    # (matrices in private memory), the GPU's sub-group size (another layout, another module).
    ((), 2.5, 16),
    (("-DCLAMP=CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED",), 0.0, 16),
    pytest.param(("-O0",), 0.0, 16, marks=pytest.mark.slow),
    pytest.param((), 0.0, 32, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("extra,softcap,subgroup_size", ATTENTION_VARIANTS)
def test_native_flash_attn_variants_are_the_interpreter_bit_for_bit(extra, softcap, subgroup_size):
    options = attention_options(32, 32, 16, 16, 64) + extra
    aligned = bool(extra) and "UNDEFINED" in extra[0]
    results = []
    for engine in ("interp", "auto"):
        problem = Attention(np.random.default_rng(15), 32 if aligned else 21, 48 if aligned else 37, 2, 1, 32, 32,
                            True, softcap=softcap)
        program = build("flash_attn", options, engine)
        problem.run(program, 16, 64, subgroup_size=subgroup_size)
        problem.check()
        results.append(problem.O)
    assert program.kernel("flash_attn").engine == "native", program.kernel("flash_attn").fallback_reason
    assert results[0].tobytes() == results[1].tobytes()


# ---------------------------------------------------------------- scripts/gpu_check.py

@pytest.fixture(scope="module")
def gpu_check():
    import importlib.util
    import sys
    return load_script("gpu_check.py", register=True)


@pytest.mark.parametrize("qtype", ["Q4_0", "Q8_0"])
def test_gpu_check_lays_out_and_decodes_the_blocks_as_llama(gpu_check, qtype):
    raw = gpu_check.quant_blocks(np.random.default_rng(5), qtype, 3, 64)
    blocks = raw.view(Q4_0 if qtype == "Q4_0" else Q8_0).reshape(3, 2)
    np.testing.assert_array_equal(gpu_check.dequantize_blocks(raw, qtype, 64), dequantize(blocks, qtype))


@pytest.mark.slow
def test_gpu_check_prepares_the_ports_within_their_bounds(gpu_check, tmp_path):
    """The GPU check's cases of the ports compile for Vulkan and run in the interpreter; the
    interpreter's results lie within the bound the GPU's are held to (quant_gemm: of the exact
    product; of_max_arg: against this file's oracle), and a wrong result does not."""
    import json
    names = ["mul_mm_q_q4_0", "mul_mm_q_q8_0", "flash_attn", "flash_attn_hs40"]
    gpu_check.prepare(tmp_path, set(names), perf=False)
    manifest = {entry["name"]: entry for entry in json.loads((tmp_path / "manifest.json").read_text())}
    assert sorted(manifest) == sorted(names) and not any("not_compiled" in e for e in manifest.values())
    for name, entry in manifest.items():
        stored = np.load(tmp_path / f"{name}.npz")
        args = gpu_check._restore(entry, stored)
        expected = stored[f"expected{entry['outputs'][0]}"]
        allowed = gpu_check.allowed_difference(entry, args, expected)
        if name.startswith("mul_mm_q"):
            _kind, _a, _b, qtype, K = entry["tolerance"]
            W = gpu_check.dequantize_blocks(args[0], qtype, K).astype(np.float64)
            exact = args[1].astype(np.float64) @ W.T
        else:
            N, KV, n_head, n_head_kv, hs = (int(a) for a in args[5:10])
            problem = Attention(np.random.default_rng(0), N, KV, n_head, n_head_kv, hs, hs, bool(args[18]))
            problem.Q, problem.K, problem.V, problem.mask = args[0], args[1], args[2], args[3]
            problem.check(expected)
            exact = np.stack([problem.oracle(h)[0] for h in range(n_head)], axis=1)
        assert (np.abs(expected - exact) <= allowed).all(), name
        wrong = expected.copy()
        wrong.reshape(-1)[7] += 8 * allowed.reshape(-1)[7] + 1e-3
        assert not (np.abs(wrong - exact) <= allowed).all(), name
