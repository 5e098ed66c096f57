"""__bf16 (SPV_KHR_bfloat16) end to end: scalars as clang-22 takes them, bf16 matrices
(load, store, conversions to and from every float type, mul-add into float and bf16
accumulators), __bf16 * arguments from Python; checked against NumPy with an oracle that
does not use ml_dtypes' rounding (the nearest of all finite bf16 values)."""
import ml_dtypes
import numpy as np
import pytest

import clcoop
from clcoop.errors import ArgumentError

BF16 = np.dtype(ml_dtypes.bfloat16)
RNG = np.random.default_rng(16)

# Every finite non-negative bf16 value, ascending (bit patterns 0x0000..0x7F7F), and 2**128
# standing for the first value past the largest (rounds to inf).
_POSITIVE = np.arange(0x7F80, dtype=np.uint32)
_VALUES = np.append((_POSITIVE << 16).view(np.float32).astype(np.float64), 2.0 ** 128)


def oracle_bf16(x):
    """Nearest bf16 of each double, ties to the even bit pattern; independent of ml_dtypes."""
    x = np.asarray(x, dtype=np.float64)
    mag = np.abs(x)
    hi = np.clip(np.searchsorted(_VALUES, mag), 1, len(_VALUES) - 1)
    lo = hi - 1
    d_lo, d_hi = mag - _VALUES[lo], _VALUES[hi] - mag
    pick_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (hi % 2 == 0))
    idx = np.where(mag <= 0, 0, np.where(pick_hi, hi, lo))
    bits = np.where(idx >= 0x7F80, 0x7F80, idx).astype(np.uint16)
    bits = np.where(np.signbit(x), bits | 0x8000, bits).astype(np.uint16)
    bits = np.where(np.isnan(x), 0x7FC0, bits).astype(np.uint16)
    return bits.view(BF16)


def test_oracle_agrees_with_known_values():
    assert oracle_bf16([1 + 2 ** -8])[0] == 1.0                 # tie -> even
    assert oracle_bf16([1 + 2 ** -8 + 2 ** -30])[0] == 1 + 2 ** -7
    assert np.isinf(oracle_bf16([3.5e38])[0])


# ---------------------------------------------------------------- scalars

SCALAR_KERNELS = """
kernel void from_double(global double *x, global __bf16 *out) { size_t i = get_global_id(0); out[i] = (__bf16)x[i]; }
kernel void from_float(global float *x, global __bf16 *out) { size_t i = get_global_id(0); out[i] = x[i]; }
kernel void from_int(global int *x, global __bf16 *out) { size_t i = get_global_id(0); out[i] = x[i]; }
kernel void from_long(global long *x, global __bf16 *out) { size_t i = get_global_id(0); out[i] = x[i]; }
kernel void to_double(global __bf16 *x, global double *out) { size_t i = get_global_id(0); out[i] = x[i]; }
kernel void to_int(global __bf16 *x, global int *out) { size_t i = get_global_id(0); out[i] = (int)x[i]; }
kernel void arith(global __bf16 *a, global __bf16 *b, global __bf16 *out) {
  size_t i = get_global_id(0);
  out[4 * i] = a[i] + b[i]; out[4 * i + 1] = a[i] * b[i]; out[4 * i + 2] = a[i] - b[i];
  out[4 * i + 3] = a[i] / b[i];
}
kernel void muladd(global __bf16 *a, global __bf16 *b, global __bf16 *c, global __bf16 *out) {
  size_t i = get_global_id(0);
  out[i] = a[i] * b[i] + c[i];      /* contracted to llvm.fmuladd.bf16, as clang-22 does */
}
kernel void literal(global __bf16 *out) { out[0] = 1.00390625; out[1] = 1.0039062500000002; out[2] = -0.0; }
"""


@pytest.fixture(scope="module")
def scalars():
    return clcoop.Program(SCALAR_KERNELS).build()


def test_double_to_bf16_rounds_once(scalars):
    # 1 + 2**-8 + 2**-30: through float32 it would become the tie 1 + 2**-8 and round to 1.
    x = np.concatenate([[1 + 2 ** -8 + 2 ** -30, 1 + 2 ** -8, -(1 + 3 * 2 ** -9), 3.4e38, 1e-40, -0.0],
                        RNG.standard_normal(250) * 10.0 ** RNG.integers(-40, 38, 250)])
    out = np.zeros(x.size, BF16)
    scalars.from_double((x.size,), (1,), x, out)
    np.testing.assert_array_equal(out.view(np.uint16), oracle_bf16(x).view(np.uint16))


def test_float_int_and_long_to_bf16(scalars):
    f = (RNG.standard_normal(64) * 1000).astype(np.float32)
    out = np.zeros(64, BF16)
    scalars.from_float((64,), (1,), f, out)
    np.testing.assert_array_equal(out.view(np.uint16), oracle_bf16(f).view(np.uint16))
    i = np.array([0, 1, -1, 257, 2 ** 24 + 1, 2 ** 31 - 1, -2 ** 31, 0x01010101], np.int32)
    out = np.zeros(i.size, BF16)
    scalars.from_int((i.size,), (1,), i, out)
    np.testing.assert_array_equal(out.view(np.uint16), oracle_bf16(i.astype(np.float64)).view(np.uint16))
    big = np.array([2 ** 62 + 2 ** 54 + 1, -(2 ** 60) - 1, 2 ** 53 + 1], np.int64)
    out = np.zeros(big.size, BF16)
    scalars.from_long((big.size,), (1,), big, out)
    # 2**62 + 2**54 + 1 lies just above the tie 2**62 + 2**54 (half a bf16 ulp): one rounding
    # goes up, while rounding through a double (2**62 + 2**54, the tie) would go down to even.
    assert out.view(np.uint16).tolist() == [0x5E81, 0xDD80, 0x5A00]


def test_bf16_to_double_and_int(scalars):
    bits = RNG.integers(0, 0x7F80, 200).astype(np.uint16)
    x = bits.view(BF16)
    out = np.zeros(200, np.float64)
    scalars.to_double((200,), (1,), x, out)
    np.testing.assert_array_equal(out, (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64))
    small = np.array([1.5, -2.75, 100.0, -0.5], BF16)
    ints = np.zeros(4, np.int32)
    scalars.to_int((4,), (1,), small, ints)
    np.testing.assert_array_equal(ints, [1, -2, 100, 0])


def test_arithmetic_is_rounded_once_to_bf16(scalars):
    """clang-22 emits fadd/fmul/... bfloat: the exact result rounded once (float32 holds the
    exact sum, product and a correctly rounded quotient of two bf16 values closely enough)."""
    a = (RNG.standard_normal(100) * 8).astype(BF16)
    b = (RNG.standard_normal(100) * 8).astype(BF16)
    out = np.zeros(400, BF16)
    scalars.arith((100,), (1,), a, b, out)
    A, B = a.astype(np.float64), b.astype(np.float64)
    expected = np.stack([A + B, A * B, A - B, A / B], axis=1).reshape(-1)
    np.testing.assert_array_equal(out.view(np.uint16), oracle_bf16(expected).view(np.uint16))


def test_contracted_mul_add_rounds_product_then_sum(scalars):
    """llvm.fmuladd.bf16 runs unfused (docs/ir-conventions.md): the product rounded to bf16,
    then the sum; so the result does not depend on -ffp-contract."""
    a = (RNG.standard_normal(100) * 8).astype(BF16)
    b = (RNG.standard_normal(100) * 8).astype(BF16)
    c = (RNG.standard_normal(100) * 8).astype(BF16)
    out = np.zeros(100, BF16)
    scalars.muladd((100,), (1,), a, b, c, out)
    product = oracle_bf16(a.astype(np.float64) * b.astype(np.float64)).astype(np.float64)
    expected = oracle_bf16(product + c.astype(np.float64))
    np.testing.assert_array_equal(out.view(np.uint16), expected.view(np.uint16))


def test_literals_fold_as_clang(scalars):
    out = np.zeros(3, BF16)
    scalars.literal((1,), (1,), out)
    assert out.view(np.uint16).tolist() == [0x3F80, 0x3F81, 0x8000]


def test_bf16_buffers_take_bfloat16_or_uint16_arrays(scalars):
    x = np.array([1.0, 2.5], np.float64)
    as_bits = np.zeros(2, np.uint16)
    scalars.from_double((2,), (1,), x, as_bits)
    assert as_bits.tolist() == [0x3F80, 0x4020]
    with pytest.raises(ArgumentError, match="bfloat16 array .* or a uint16 array"):
        scalars.from_double((2,), (1,), x, np.zeros(2, np.float16))


def test_scalar_bf16_argument_rounds_once():
    prog = clcoop.Program("kernel void k(__bf16 s, global float *out) { out[0] = s; }").build()
    out = np.zeros(1, np.float32)
    prog.k((1,), (1,), 1 + 2 ** -8 + 2 ** -30, out)
    assert out[0] == 1 + 2 ** -7


# ---------------------------------------------------------------- matrices

MATRICES = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
#define ROW CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
#define ACC CLK_COOPERATIVE_MATRIX_ACCUMULATOR
typedef __bf16 bA __attribute__((coop_mat(SG, M, K, CLK_COOPERATIVE_MATRIX_A)));
typedef __bf16 bB __attribute__((coop_mat(SG, K, N, CLK_COOPERATIVE_MATRIX_B)));
typedef float fC __attribute__((coop_mat(SG, M, N, ACC)));
typedef __bf16 bC __attribute__((coop_mat(SG, M, N, ACC)));
typedef half hC __attribute__((coop_mat(SG, M, N, ACC)));
typedef double dC __attribute__((coop_mat(SG, M, N, ACC)));
typedef int iC __attribute__((coop_mat(SG, M, N, ACC)));
typedef __bf16 bCA __attribute__((coop_mat(SG, M, N, CLK_COOPERATIVE_MATRIX_A)));

kernel void mul_add_f32(global __bf16 *a, global __bf16 *b, global float *c, global float *out) {
  bA x = coop_mat_load(a, ROW, (size_t)K);
  bB y = coop_mat_load(b, ROW, (size_t)N);
  fC z = coop_mat_load(c, ROW, (size_t)N);
  coop_mat_store(out, coop_mat_mulAdd(x, y, z), ROW, (size_t)N);
}
kernel void mul_add_bf16(global __bf16 *a, global __bf16 *b, global __bf16 *c, global __bf16 *out) {
  bA x = coop_mat_load(a, ROW, (size_t)K);
  bB y = coop_mat_load(b, ROW, (size_t)N);
  bC z = coop_mat_load(c, ROW, (size_t)N);
  coop_mat_store(out, coop_mat_mulAdd(x, y, z), ROW, (size_t)N);
}
kernel void conversions(global float *f, global double *d, global half *h, global int *i,
                        global __bf16 *out, global float *back_f, global double *back_d,
                        global half *back_h, global int *back_i, global __bf16 *as_a) {
  bC from_f = (bC)(fC)coop_mat_load(f, ROW, (size_t)N);
  bC from_d = (bC)(dC)coop_mat_load(d, ROW, (size_t)N);
  bC from_h = (bC)(hC)coop_mat_load(h, ROW, (size_t)N);
  bC from_i = (bC)(iC)coop_mat_load(i, ROW, (size_t)N);
  coop_mat_store(out, from_f, ROW, (size_t)N);
  coop_mat_store(out + M * N, from_d, ROW, (size_t)N);
  coop_mat_store(out + 2 * M * N, from_h, ROW, (size_t)N);
  coop_mat_store(out + 3 * M * N, from_i, ROW, (size_t)N);
  coop_mat_store(back_f, (fC)from_f, ROW, (size_t)N);
  coop_mat_store(back_d, (dC)from_d, ROW, (size_t)N);
  coop_mat_store(back_h, (hC)from_f, ROW, (size_t)N);
  coop_mat_store(back_i, (iC)from_f, ROW, (size_t)N);
  coop_mat_store(as_a, (bCA)(fC)coop_mat_load(f, ROW, (size_t)N), ROW, (size_t)N);
}
kernel void elementwise(global __bf16 *a, global __bf16 *out) {
  bC x = coop_mat_load(a, ROW, (size_t)N);
  bC one = coop_mat_init(1.0f);
  bC y = x * x + x * (__bf16)0.5f - one;
  coop_mat_store(out, y, ROW, (size_t)N);
}
"""


def build_matrices(M, N, K, *options):
    return clcoop.Program(MATRICES).build(options=[f"-DM={M}", f"-DN={N}", f"-DK={K}", *options])


SHAPES = [(8, 16, 16), (16, 8, 32), (8, 8, 8)]


@pytest.mark.parametrize("S", [8, 16, 32])
@pytest.mark.parametrize("M,N,K", SHAPES)
def test_bf16_mul_add_into_float(M, N, K, S):
    prog = build_matrices(M, N, K)
    a = RNG.standard_normal((M, K)).astype(BF16)
    b = RNG.standard_normal((K, N)).astype(BF16)
    c = RNG.standard_normal((M, N)).astype(np.float32)
    out = np.zeros((M, N), np.float32)
    prog.mul_add_f32((S,), (S,), a, b, c, out, subgroup_size=S)
    exact = a.astype(np.float64) @ b.astype(np.float64) + c
    np.testing.assert_allclose(out, exact, rtol=1e-6, atol=1e-5 * K)
    # Each product is exact in float32: integer-valued data gives exact sums.
    ai = RNG.integers(-8, 9, (M, K)).astype(BF16)
    bi = RNG.integers(-8, 9, (K, N)).astype(BF16)
    ci = RNG.integers(-100, 100, (M, N)).astype(np.float32)
    prog.mul_add_f32((S,), (S,), ai, bi, ci, out, subgroup_size=S)
    np.testing.assert_array_equal(out, ai.astype(np.float64) @ bi.astype(np.float64) + ci)


@pytest.mark.parametrize("S", [8, 16, 32])
def test_bf16_mul_add_into_bf16_rounds_once(S):
    M, N, K = 8, 16, 16
    prog = build_matrices(M, N, K)
    a = RNG.integers(-64, 65, (M, K)).astype(BF16)
    b = RNG.integers(-64, 65, (K, N)).astype(BF16)
    c = (RNG.standard_normal((M, N)) * 1000).astype(BF16)
    out = np.zeros((M, N), BF16)
    prog.mul_add_bf16((S,), (S,), a, b, c, out, subgroup_size=S)
    exact = a.astype(np.float64) @ b.astype(np.float64) + c.astype(np.float64)   # exact in float32 too
    np.testing.assert_array_equal(out.view(np.uint16), oracle_bf16(exact).view(np.uint16))


@pytest.mark.parametrize("S,opt", [(8, "-O2"), (16, "-O2"), (16, "-O0")])
def test_bf16_matrix_conversions_to_and_from_every_float_type(S, opt):
    """At -O0 every converted matrix goes through a private variable (a bf16 MatrixValue
    stored to an alloca: NumPy's "No cast function available" before)."""
    M, N, K = 8, 16, 16
    prog = build_matrices(M, N, K, opt)
    d = RNG.standard_normal((M, N)) * 300
    d[0, :4] = [1 + 2 ** -8 + 2 ** -30, 1 + 2 ** -8, 70000.5, -3.3e4]   # 70000: inf as half
    f = d.astype(np.float32)
    h = (d / 10).astype(np.float16)
    i = RNG.integers(-2 ** 31, 2 ** 31 - 1, (M, N)).astype(np.int32)
    out = np.zeros((4, M, N), BF16)
    back_f, back_d = np.zeros((M, N), np.float32), np.zeros((M, N), np.float64)
    back_h, back_i = np.zeros((M, N), np.float16), np.zeros((M, N), np.int32)
    as_a = np.zeros((M, N), BF16)
    prog.conversions((S,), (S,), f, d, h, i, out, back_f, back_d, back_h, back_i, as_a, subgroup_size=S)
    for k, source in enumerate((f, d, h, i)):
        np.testing.assert_array_equal(out[k].view(np.uint16),
                                      oracle_bf16(source.astype(np.float64)).view(np.uint16), err_msg=str(k))
    exact_f = out[0].astype(np.float64)
    np.testing.assert_array_equal(back_f, exact_f)
    np.testing.assert_array_equal(back_d, out[1].astype(np.float64))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(back_h, exact_f.astype(np.float16))  # one rounding of the exact value
    np.testing.assert_array_equal(back_i, np.trunc(exact_f).astype(np.int32))
    np.testing.assert_array_equal(as_a, out[0])                            # use and type at once


def test_bf16_element_wise_arithmetic_runs_in_the_interpreter():
    M, N, K = 8, 16, 16
    prog = build_matrices(M, N, K)
    a = RNG.integers(-16, 17, (M, N)).astype(BF16)
    out = np.zeros((M, N), BF16)
    prog.elementwise((16,), (16,), a, out, subgroup_size=16)
    x = a.astype(np.float64)
    def r(v):           # each operation rounds once to bf16
        return oracle_bf16(v).astype(np.float64)
    np.testing.assert_array_equal(out.astype(np.float64), r(r(r(x * x) + r(x * 0.5)) - 1))


def test_native_engine_runs_bf16_kernels(shared_builds):
    """engine="auto" runs bf16 kernels natively (issue 29; test_native_bf16.py compares
    them with the interpreter, on this build of the session), with the interpreter's one
    rounding."""
    from clcoop.native.support import NativeFallbackWarning
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeFallbackWarning)
        prog = shared_builds.build(SCALAR_KERNELS, "auto", ("-w",))
        out = np.zeros(1, BF16)
        prog.from_double((1,), (1,), np.array([1 + 2 ** -8 + 2 ** -30]), out)
    assert prog.from_double.engine == "native"
    assert out[0] == 1 + 2 ** -7


def test_printf_of_a_bf16_value(capfd):
    """Passed unpromoted, as clang-22 does; printed exactly."""
    prog = clcoop.Program('kernel void k(global __bf16 *p) { printf("%f\\n", p[0]); }').build()
    prog.k((1,), (1,), np.array([1.5078125], BF16))
    assert capfd.readouterr().out == "1.507812\n"
