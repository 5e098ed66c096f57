"""Every kernel in examples/ compiles, runs in the interpreter and matches NumPy."""
from pathlib import Path

import numpy as np
import pytest

import clcoop

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
RNG = np.random.default_rng(1234)


def build(name, options=()):
    return clcoop.Program((EXAMPLES / name).read_text()).build(options=list(options))


def gemm_launch(M, N, S):
    """NDRange of the examples' GEMMs: one subgroup per 8 x 16 tile of C."""
    return (N // 16 * S, M // 8), (S, 1)


@pytest.mark.parametrize("options", [[], ["-cl-opt-disable"]], ids=["O2", "O0"])
@pytest.mark.parametrize("S", [8, 16, 32])
def test_gemm_f32(S, options):
    M, N, K = 32, 64, 48
    A = RNG.standard_normal((M, K)).astype(np.float32)
    B = RNG.standard_normal((K, N)).astype(np.float32)
    C = np.zeros((M, N), np.float32)
    prog = build("gemm_f32.cl", options)
    gsize, lsize = gemm_launch(M, N, S)
    prog.gemm_f32(gsize, lsize, A, B, C, M, N, K, 0, subgroup_size=S)
    np.testing.assert_allclose(C, A @ B, rtol=1e-5, atol=1e-4)


def test_gemm_f32_accumulates_into_c():
    M, N, K = 16, 32, 32
    A = RNG.standard_normal((M, K)).astype(np.float32)
    B = RNG.standard_normal((K, N)).astype(np.float32)
    C0 = RNG.standard_normal((M, N)).astype(np.float32)
    C = C0.copy()
    gsize, lsize = gemm_launch(M, N, 16)
    build("gemm_f32.cl").run("gemm_f32", gsize, lsize, A, B, C, M, N, K, 1)
    np.testing.assert_allclose(C, C0 + A @ B, rtol=1e-5, atol=1e-4)


def test_gemm_f16_f32_reads_b_column_major():
    M, N, K = 16, 32, 32
    A = RNG.standard_normal((M, K)).astype(np.float16)
    B = RNG.standard_normal((K, N)).astype(np.float16)
    B_col_major = np.ascontiguousarray(B.T)   # element (k, n) at B[n * K + k]
    C = np.zeros((M, N), np.float32)
    gsize, lsize = gemm_launch(M, N, 16)
    build("gemm_f16_f32.cl").gemm_f16_f32(gsize, lsize, A, B_col_major, C, M, N, K)
    expected = A.astype(np.float32) @ B.astype(np.float32)
    np.testing.assert_allclose(C, expected, rtol=1e-4, atol=1e-3)


def test_gemm_i8_i32_is_exact_and_signed():
    M, N, K = 16, 32, 64
    A = RNG.integers(-128, 128, (M, K), dtype=np.int8)
    B = RNG.integers(-128, 128, (K, N), dtype=np.int8)
    C = np.zeros((M, N), np.int32)
    gsize, lsize = gemm_launch(M, N, 16)
    build("gemm_i8_i32.cl").gemm_i8_i32(gsize, lsize, A, B, C, M, N, K)
    np.testing.assert_array_equal(C, A.astype(np.int32) @ B.astype(np.int32))


def test_gemm_i8_saturates_each_accumulation():
    M, N, K = 8, 16, 96
    A = RNG.integers(-128, 128, (M, K), dtype=np.int8)
    B = RNG.integers(-128, 128, (K, N), dtype=np.int8)
    C = RNG.integers(-128, 128, (M, N), dtype=np.int8)
    expected = C.astype(np.int64)
    for k in range(0, K, 32):   # one saturating mul-add per K step of the kernel
        product = A[:, k:k + 32].astype(np.int64) @ B[k:k + 32].astype(np.int64)
        expected = np.clip(expected + product, -128, 127)
    gsize, lsize = gemm_launch(M, N, 16)
    build("gemm_i8_sat.cl").gemm_i8_sat(gsize, lsize, A, B, C, M, N, K)
    assert np.abs(expected).max() == 128 or (expected == 127).any(), "data must reach saturation"
    np.testing.assert_array_equal(C, expected.astype(np.int8))


@pytest.mark.parametrize("options", [[], ["-cl-opt-disable"]], ids=["O2", "O0"])
@pytest.mark.parametrize("S", [8, 16])
def test_operators(S, options):
    X = RNG.uniform(-10, 10, (8, 16)).astype(np.float32)
    Y = RNG.uniform(1, 4, (8, 16)).astype(np.float32)
    alpha = np.float32(0.5)
    out = np.zeros((8, 8, 16), np.float32)
    out_int = np.zeros((8, 16), np.int32)
    out_len = np.zeros(S, np.uint32)
    build("operators.cl", options).operators(S, S, X, Y, alpha, out, out_int, out_len, subgroup_size=S)
    expected = [X + Y, X - Y, X * Y, X / Y, -X, X * alpha, 2 * X + 1,
                np.trunc(X).astype(np.int32).astype(np.float32)]
    for index, want in enumerate(expected):
        np.testing.assert_allclose(out[index], want, rtol=1e-6, err_msg=f"result tile {index}")
    np.testing.assert_array_equal(out_int, np.trunc(X).astype(np.int32))
    # 8 x 16 accumulator over S work-items: no padding, so each holds 128 / S components.
    np.testing.assert_array_equal(out_len, np.full(S, 128 // S))


def test_reduction_local():
    n, local = 1000, 64
    data = RNG.standard_normal(n).astype(np.float32)
    groups = -(-n // local)
    partial = np.zeros(groups, np.float32)
    prog = build("reduction_local.cl")
    prog.reduce_sum(groups * local, local, data, partial, clcoop.LocalMemory(local * 4), n)
    padded = np.zeros(groups * local, np.float32)
    padded[:n] = data
    np.testing.assert_allclose(partial, padded.reshape(groups, local).sum(axis=1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("S", [8, 16, 32])
@pytest.mark.parametrize("as_bits", [False, True], ids=["bfloat16", "uint16"])
def test_bf16_gemm(S, as_bits):
    """bf16 x bf16 -> float: every product is exact in float32, so the float result is the
    float32 sum of exact products; Cb is that result rounded once to bf16."""
    import ml_dtypes
    bf16 = np.dtype(ml_dtypes.bfloat16)
    M, N, K = 16, 32, 48
    A = RNG.standard_normal((M, K)).astype(bf16)
    B = RNG.standard_normal((K, N)).astype(bf16)
    C = np.zeros((M, N), np.float32)
    Cb = np.zeros((M, N), np.uint16 if as_bits else bf16)
    args = (A.view(np.uint16), B.view(np.uint16)) if as_bits else (A, B)
    gsize, lsize = gemm_launch(M, N, S)
    build("bf16_gemm.cl").bf16_gemm(gsize, lsize, *args, C, Cb, M, N, K, subgroup_size=S)
    exact = A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(C, exact, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(Cb.view(bf16), C.astype(bf16))    # float32 -> bf16 is one rounding


def mlp2_reference(X, W1, W2):
    """relu(X W1) in float32, rounded to half as the second GEMM's A, times W2."""
    hidden = np.maximum(X.astype(np.float32) @ W1.astype(np.float32), 0).astype(np.float16)
    return hidden.astype(np.float64) @ W2.astype(np.float64)


@pytest.mark.parametrize("S", [8, 16, 32])
def test_mlp2_exact_on_integers(S):
    """Small integers keep every step exact (products, float sums, half rounding)."""
    M, N, K, H = 16, 32, 48, 32
    X = RNG.integers(-3, 4, (M, K)).astype(np.float16)
    W1 = RNG.integers(-3, 4, (K, H)).astype(np.float16)
    W2 = RNG.integers(-3, 4, (H, N)).astype(np.float16)
    Y = np.zeros((M, N), np.float32)
    gsize, lsize = gemm_launch(M, N, S)
    build("mlp2.cl").mlp2(gsize, lsize, X, W1, W2, Y, M, N, K, subgroup_size=S)
    hidden = np.maximum(X.astype(np.int64) @ W1.astype(np.int64), 0)
    np.testing.assert_array_equal(Y, hidden @ W2.astype(np.int64))
    assert (X.astype(np.int64) @ W1.astype(np.int64) < 0).any()      # ReLU did something


def test_mlp2_random_with_a_wider_hidden_layer():
    M, N, K, H = 8, 48, 32, 64
    X = RNG.standard_normal((M, K)).astype(np.float16)
    W1 = RNG.standard_normal((K, H)).astype(np.float16)
    W2 = RNG.standard_normal((H, N)).astype(np.float16)
    Y = np.zeros((M, N), np.float32)
    gsize, lsize = gemm_launch(M, N, 16)
    build("mlp2.cl", [f"-DHIDDEN={H}"]).mlp2(gsize, lsize, X, W1, W2, Y, M, N, K, subgroup_size=16)
    np.testing.assert_allclose(Y, mlp2_reference(X, W1, W2), rtol=1e-2, atol=2e-2)
@pytest.mark.parametrize("options", [[], ["-cl-opt-disable"]], ids=["O2", "O0"])
@pytest.mark.parametrize("S", [8, 16, 32])
def test_softmax_rows(S, options):
    M = 32
    X = (RNG.standard_normal((M, 32)) * 3).astype(np.float32)
    Y = np.zeros_like(X)
    LSE = np.zeros(M, np.float32)
    build("softmax_rows.cl", options).softmax_rows((M // 8 * S,), (S,), X, Y, LSE, subgroup_size=S)
    x = X.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(Y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(LSE, np.log(np.exp(x).sum(axis=1)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("options", [[], ["-cl-opt-disable"]], ids=["O2", "O0"])
@pytest.mark.parametrize("S", [8, 16, 32])
def test_mask_causal(S, options):
    M, N, D = 32, 48, 16
    Q = RNG.standard_normal((M, D)).astype(np.float32)
    K = RNG.standard_normal((N, D)).astype(np.float32)
    Kt = np.ascontiguousarray(K.T)
    out = np.zeros((M, N), np.float32)
    build("mask_causal.cl", options).mask_causal((N // 16 * S, M // 8), (S, 1), Q, Kt, out, N,
                                                 np.float32(0.25), subgroup_size=S)
    expected = (Q.astype(np.float64) @ K.T.astype(np.float64)) * 0.25
    expected[np.triu(np.ones((M, N), bool), k=1)] = -np.inf
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def gemm_wg_launch(M, N, tile_m=32, tile_n=32, wg_size=64):
    """NDRange of gemm_wg.cl: one work-group per TILE_M x TILE_N tile of D."""
    return (-(-N // tile_n) * wg_size, -(-M // tile_m)), (wg_size, 1)


@pytest.mark.parametrize("options", [[], ["-cl-opt-disable"]], ids=["O2", "O0"])
@pytest.mark.parametrize("M, N, K, S", [(70, 45, 37, 16), (32, 64, 48, 8), (1, 1, 1, 16),
                                        (33, 31, 17, 32)])
def test_gemm_wg_edges_read_zeros(M, N, K, S, options):
    """The workgroup-scope GEMM of the cooperative-matrix2 proposal over M, N, K that are not
    multiples of the tile: constant clamping supplies the zeros; stores past D are dropped."""
    A = RNG.standard_normal((M, K)).astype(np.float32)
    B = RNG.standard_normal((K, N)).astype(np.float32)
    C = RNG.standard_normal((M, N)).astype(np.float32)
    D = np.full((M, N), np.nan, np.float32)
    gsize, lsize = gemm_wg_launch(M, N)
    build("gemm_wg.cl", options).gemm_wg(gsize, lsize, A, B, C, D, M, N, K, np.float32(1.5),
                                         np.float32(-0.5), subgroup_size=S)
    np.testing.assert_allclose(D, 1.5 * (A @ B) - 0.5 * C, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("tile_m, tile_n, tile_k, wg_size", [(16, 48, 8, 48), (40, 8, 24, 32)])
def test_gemm_wg_other_tiles_and_batching(tile_m, tile_n, tile_k, wg_size):
    """Other tile shapes and work-group sizes (one tile per work-group whatever W is), and
    the same result one work-group at a time (serial_subgroups) as batched."""
    M, N, K = 50, 61, 29
    A = RNG.standard_normal((M, K)).astype(np.float32)
    B = RNG.standard_normal((K, N)).astype(np.float32)
    C = np.zeros((M, N), np.float32)
    prog = build("gemm_wg.cl", [f"-DTILE_M={tile_m}", f"-DTILE_N={tile_n}", f"-DTILE_K={tile_k}",
                                f"-DWG_SIZE={wg_size}"])
    gsize, lsize = gemm_wg_launch(M, N, tile_m, tile_n, wg_size)
    results = []
    for serial in (False, True):
        D = np.zeros((M, N), np.float32)
        prog.gemm_wg(gsize, lsize, A, B, C, D, M, N, K, np.float32(1), np.float32(0),
                     serial_subgroups=serial)
        results.append(D)
    np.testing.assert_allclose(results[0], A @ B, rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(results[0], results[1])
