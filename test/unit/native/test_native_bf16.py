"""__bf16 on the native engine (issue 29): scalar arithmetic and conversions and bf16
cooperative matrices run natively (no fallback), bit for bit as the interpreter (the
reference: ml_dtypes, one rounding from doubles and integers, clcoop/ir/rounding.py),
on inputs that reach every rounding case: ties, subnormals, overflow, NaNs, infinities,
64-bit integers past 2**53."""
import warnings
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from clcoop.native.support import NativeFallbackWarning
from test_bf16 import MATRICES, SCALAR_KERNELS, oracle_bf16

BF16 = np.dtype(ml_dtypes.bfloat16)
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
RNG = np.random.default_rng(2916)


_BUILDS = []


@pytest.fixture(autouse=True)
def _session_builds(shared_builds):
    """build() takes its programs from the session's shared_builds (test_bf16's native test
    launches the scalar kernels' build too)."""
    _BUILDS[:] = [shared_builds]


def build(source, engine, options=("-w",), ir=False):
    """One build per source and engine in the session (native builds take seconds);
    engine="auto" must not fall back."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeFallbackWarning)
        if ir:
            return _BUILDS[0].from_ir(source, engine)
        return _BUILDS[0].build(source, engine, options)


def on_both(source, name, launch, options=("-w",), ir=False):
    """launch(kernel) -> arrays, on the interpreter and natively; returns (interpreter's
    arrays, native arrays) as bytes."""
    results = []
    for engine in ("interp", "auto"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", NativeFallbackWarning)
            kernel = getattr(build(source, engine, tuple(options), ir), name)
            results.append([np.asarray(a).tobytes() for a in launch(kernel)])
        if engine == "auto":
            assert kernel.engine == "native"
    return results


def assert_same(source, name, launch, options=("-w",), ir=False):
    interp, native = on_both(source, name, launch, options, ir)
    for k, (x, y) in enumerate(zip(interp, native)):
        assert x == y, f"array {k} differs"
    return native


def _special_doubles():
    special = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 3.4e38, -3.5e38, 3.3895e38, 1e-40, 1e-45,
               9.2e-41, 1 + 2 ** -8, 1 + 2 ** -8 + 2 ** -30, -(1 + 3 * 2 ** -9), 2.0 ** -133, 2.0 ** -134]
    n = 400
    return np.concatenate([special, RNG.standard_normal(n) * 10.0 ** RNG.integers(-46, 39, n)])


DOUBLES = _special_doubles()
# bf16 bit patterns: specials, then random ones (NaNs, infinities and subnormals included).
BITS = np.concatenate([[0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x0000, 0x8000, 0x0001, 0x8001, 0x7F7F, 0xFF7F,
                        0x0080, 0x3F80, 0x3F81, 0x4F00, 0xCF00, 0x5F00, 0xDF00, 0x7F01, 0x4B00],
                       RNG.integers(0, 0x10000, 400)]).astype(np.uint16)
N = BITS.size


@pytest.mark.parametrize("name, source_type, values", [
    ("from_double", np.float64, DOUBLES),
    ("from_float", np.float32, DOUBLES),
    ("from_int", np.int32, np.concatenate([[0, 1, -1, 257, 2 ** 24 + 1, 2 ** 31 - 1, -2 ** 31, 0x01010101],
                                           RNG.integers(-2 ** 31, 2 ** 31, 300)])),
    ("from_long", np.int64, np.concatenate([[2 ** 62 + 2 ** 54 + 1, -(2 ** 60) - 1, 2 ** 53 + 1, -2 ** 63, 2 ** 63 - 1, 0],
                                            RNG.integers(-2 ** 63, 2 ** 63, 300, dtype=np.int64)
                                            >> RNG.integers(0, 63, 300)])),
])
def test_conversions_to_bf16_round_once_as_the_interpreter(name, source_type, values):
    with np.errstate(over="ignore"):
        x = np.asarray(values).astype(source_type)
    native = assert_same(SCALAR_KERNELS, name, lambda k: [x, k((x.size,), (1,), x, out := np.zeros(x.size, BF16)) or out])
    if name == "from_long":         # above a tie, below one, 2**53 + 1 (test_bf16's cases)
        assert np.frombuffer(native[1], np.uint16)[:3].tolist() == [0x5E81, 0xDD80, 0x5A00]
    elif name != "from_int":
        expected = oracle_bf16(x.astype(np.float64)).view(np.uint16)
        got = np.frombuffer(native[1], np.uint16)
        nan = np.isnan(x)
        np.testing.assert_array_equal(got[~nan], expected[~nan])


@pytest.mark.parametrize("name, out_type", [("to_double", np.float64), ("to_int", np.int32)])
def test_conversions_from_bf16_match_the_interpreter(name, out_type):
    x = BITS.view(BF16)
    assert_same(SCALAR_KERNELS, name, lambda k: [k((N,), (1,), x, out := np.zeros(N, out_type)) or out])


def test_arithmetic_and_contracted_mul_add_match_the_interpreter():
    a, b, c = BITS.view(BF16), RNG.permutation(BITS).view(BF16), RNG.permutation(BITS).view(BF16)
    assert_same(SCALAR_KERNELS, "arith", lambda k: [k((N,), (1,), a, b, out := np.zeros(4 * N, BF16)) or out])
    assert_same(SCALAR_KERNELS, "muladd", lambda k: [k((N,), (1,), a, b, c, out := np.zeros(N, BF16)) or out])
    assert_same(SCALAR_KERNELS, "literal", lambda k: [k((1,), (1,), out := np.zeros(3, BF16)) or out])


MORE_SCALARS = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void ops(global __bf16 *a, global __bf16 *b, global __bf16 *c, global __bf16 *out,
                global int *cmp, global half *h, global ulong *u, __bf16 s) {
  size_t i = get_global_id(0);
  out[6 * i] = -a[i];
  out[6 * i + 1] = a[i] / b[i] - c[i];
  out[6 * i + 2] = a[i] * s;
  out[6 * i + 3] = (__bf16)h[i];
  out[6 * i + 4] = (__bf16)u[i];
  out[6 * i + 5] = a[i] < b[i] ? a[i] : (__bf16)(float)b[i];
  cmp[3 * i] = a[i] < b[i];
  cmp[3 * i + 1] = a[i] == b[i];
  cmp[3 * i + 2] = (uint)a[i];
  h[i] = (half)a[i];
}
"""


def test_negation_comparisons_and_half_and_ulong_conversions_match_the_interpreter():
    a, b, c = BITS.view(BF16), RNG.permutation(BITS).view(BF16), RNG.permutation(BITS).view(BF16)
    h = RNG.permutation(np.concatenate([RNG.integers(0, 0x10000, N - 4), [0x7C00, 0xFC00, 0x0001, 0x7E01]])
                        .astype(np.uint16)).view(np.float16)
    u = np.concatenate([np.array([2 ** 64 - 1, 2 ** 63 + 2 ** 55 + 1, 0], np.uint64),
                        RNG.integers(0, 2 ** 63, N - 3, dtype=np.int64).astype(np.uint64)
                        << RNG.integers(0, 2, N - 3).astype(np.uint64)])

    def launch(k):
        out, cmp, hh = np.zeros(6 * N, BF16), np.zeros(3 * N, np.int32), h.copy()
        k((N,), (1,), a, b, c, out, cmp, hh, u, 1 + 2 ** -8 + 2 ** -30)
        return [out, cmp, hh]
    native = assert_same(MORE_SCALARS, "ops", launch)
    out = np.frombuffer(native[0], np.uint16).reshape(N, 6)
    np.testing.assert_array_equal(out[:, 0], BITS ^ 0x8000)
    assert out[0, 4] == 0x5F80 and out[1, 4] == 0x5F01      # 2**64 - 1 -> 2**64; above a tie: up



INTRINSICS_IR = """
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"

define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, ptr addrspace(1) %out) {
entry:
  %id = call spir_func i64 @_Z13get_global_idj(i32 0)
  %pa = getelementptr inbounds bfloat, ptr addrspace(1) %a, i64 %id
  %pb = getelementptr inbounds bfloat, ptr addrspace(1) %b, i64 %id
  %x = load bfloat, ptr addrspace(1) %pa, align 2
  %y = load bfloat, ptr addrspace(1) %pb, align 2
  %pc = getelementptr inbounds bfloat, ptr addrspace(1) %c, i64 %id
  %z = load bfloat, ptr addrspace(1) %pc, align 2
  %f = call bfloat @llvm.fma.bf16(bfloat %x, bfloat %y, bfloat %z)
  %g = call bfloat @llvm.fabs.bf16(bfloat %x)
  %r = frem bfloat %x, %y
  %o = mul i64 %id, 3
  %p0 = getelementptr inbounds bfloat, ptr addrspace(1) %out, i64 %o
  store bfloat %f, ptr addrspace(1) %p0, align 2
  %p1 = getelementptr inbounds bfloat, ptr addrspace(1) %p0, i64 1
  store bfloat %g, ptr addrspace(1) %p1, align 2
  %p2 = getelementptr inbounds bfloat, ptr addrspace(1) %p0, i64 2
  store bfloat %r, ptr addrspace(1) %p2, align 2
  ret void
}

declare spir_func i64 @_Z13get_global_idj(i32)
declare bfloat @llvm.fma.bf16(bfloat, bfloat, bfloat)
declare bfloat @llvm.fabs.bf16(bfloat)
"""


def test_fma_fabs_and_frem_intrinsics_in_ir_match_the_interpreter():
    """llvm.fma.bf16 rounds once (interp/fused.py), as other producers' IR may call it: the
    sum rounded to odd in double (rounded to nearest, 0x6430 * 0x4168 - 0x8540... would
    round twice)."""
    first = np.array([[0x6430, 0x4168, 0x8540]], np.uint16)       # fma: 0x661F, not 0x6620
    rng = np.random.default_rng(2919)
    cases = np.concatenate([first, rng.integers(0, 0x10000, (2000, 3)).astype(np.uint16)])
    a, b, c = (np.ascontiguousarray(cases[:, k]).view(BF16) for k in range(3))
    n = len(cases)
    native = assert_same(INTRINSICS_IR, "k", lambda k: [k((n,), (1,), a, b, c, out := np.zeros(3 * n, BF16)) or out],
                         ir=True)
    out = np.frombuffer(native[0], np.uint16).reshape(n, 3)
    assert out[0, 0] == 0x661F
    np.testing.assert_array_equal(out[:, 1], cases[:, 0] & 0x7FFF)


# ---------------------------------------------------------------- matrices

def _matrices(M, N, K, opt="-O2"):
    return MATRICES, (f"-DM={M}", f"-DN={N}", f"-DK={K}", opt, "-w")


@pytest.mark.parametrize("S", [16, pytest.param(8, marks=pytest.mark.slow), pytest.param(32, marks=pytest.mark.slow)])
@pytest.mark.parametrize("M, N, K", [(8, 16, 16), pytest.param(16, 8, 16, marks=pytest.mark.slow)])
def test_mul_add_into_float_and_bf16_matches_the_interpreter(M, N, K, S):
    source, options = _matrices(M, N, K)
    a = (RNG.standard_normal((M, K)) * 4).astype(BF16)
    b = (RNG.standard_normal((K, N)) * 4).astype(BF16)
    c = (RNG.standard_normal((M, N)) * 100).astype(np.float32)
    assert_same(source, "mul_add_f32", lambda k: [k((S,), (S,), a, b, c, out := np.zeros((M, N), np.float32),
                                                    subgroup_size=S) or out], options)
    native = assert_same(source, "mul_add_bf16", lambda k: [k((S,), (S,), a, b, c.astype(BF16),
                                                              out := np.zeros((M, N), BF16), subgroup_size=S) or out],
                         options)
    # Integer data: every sum exact in float32, so the result is the exact one rounded once.
    ai, bi = RNG.integers(-64, 65, (M, K)).astype(BF16), RNG.integers(-64, 65, (K, N)).astype(BF16)
    ci = (RNG.standard_normal((M, N)) * 1000).astype(BF16)
    native = assert_same(source, "mul_add_bf16", lambda k: [k((S,), (S,), ai, bi, ci, out := np.zeros((M, N), BF16),
                                                              subgroup_size=S) or out], options)
    exact = ai.astype(np.float64) @ bi.astype(np.float64) + ci.astype(np.float64)
    np.testing.assert_array_equal(np.frombuffer(native[0], np.uint16), oracle_bf16(exact).view(np.uint16).ravel())


def test_matrix_conversions_to_and_from_every_float_type_and_int_match_the_interpreter():
    M, N, K = 8, 16, 16
    source, options = _matrices(M, N, K)
    d = RNG.standard_normal((M, N)) * 10.0 ** RNG.integers(-42, 39, (M, N))
    d[0, :6] = [1 + 2 ** -8 + 2 ** -30, 1 + 2 ** -8, 70000.5, np.nan, -np.inf, 1e-40]
    with np.errstate(over="ignore"):
        f, h = d.astype(np.float32), (d / 10).astype(np.float16)
    i = RNG.integers(-2 ** 31, 2 ** 31 - 1, (M, N)).astype(np.int32)

    def launch(k):
        outs = [np.zeros((4, M, N), BF16), np.zeros((M, N), np.float32), np.zeros((M, N), np.float64),
                np.zeros((M, N), np.float16), np.zeros((M, N), np.int32), np.zeros((M, N), BF16)]
        k((16,), (16,), f, d, h, i, *outs, subgroup_size=16)
        return outs
    native = assert_same(source, "conversions", launch, options)
    got = np.frombuffer(native[0], np.uint16).reshape(4, M, N)
    finite = np.isfinite(d)
    np.testing.assert_array_equal(got[1][finite], oracle_bf16(d).view(np.uint16)[finite])


def test_element_wise_arithmetic_and_scalar_multiply_match_the_interpreter():
    M, N, K = 8, 16, 16
    source, options = _matrices(M, N, K)
    a = BITS[:M * N].view(BF16).reshape(M, N)
    assert_same(source, "elementwise", lambda k: [k((16,), (16,), a, out := np.zeros((M, N), BF16),
                                                    subgroup_size=16) or out], options)


def test_the_bf16_gemm_example_runs_natively_bit_equal():
    source = open(EXAMPLES / "bf16_gemm.cl").read()
    M, N, K = 32, 32, 48
    a = (RNG.standard_normal((M, K)) * 3).astype(BF16)
    b = (RNG.standard_normal((K, N)) * 3).astype(BF16)

    def launch(k):
        c, cb = np.zeros((M, N), np.float32), np.zeros((M, N), BF16)
        k((N // 16 * 16, M // 8), (16, 1), a, b, c, cb, M, N, K, subgroup_size=16)
        return [c, cb]
    native = assert_same(source, "bf16_gemm", launch, ())
    c = np.frombuffer(native[0], np.float32).reshape(M, N)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(np.frombuffer(native[1], np.uint16), oracle_bf16(c).view(np.uint16).ravel())


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_bf16_to_and_from_fp8_scalars_match_the_interpreter(fmt):
    """float8_ir's conversions with a bf16 side: every bf16 pattern to fp8 (one rounding of
    the exact value), every fp8 pattern to bf16 (exact)."""
    from test_fp8 import BF16_KERNELS, FORMATS
    dtype = FORMATS[f"__fp8_{fmt}"][0]
    b = np.arange(65536, dtype=np.uint16).view(BF16)
    assert_same(BF16_KERNELS, f"{fmt}_from_bf16", lambda k: [k((b.size,), (64,), b, o := np.zeros(b.size, dtype)) or o],
                ())
    x = np.arange(256, dtype=np.uint8).view(dtype)
    assert_same(BF16_KERNELS, f"{fmt}_to_bf16", lambda k: [k((256,), (1,), x, o := np.zeros(256, BF16)) or o], ())
