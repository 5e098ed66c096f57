"""fma rounds once (OpenCL C 3.0 6.15.2; LLVM's llvm.fma: "without any intermediate
rounding"): clcoop/interp/fused.py, the interpreter's fma() built-in and llvm.fma, and the
native engine's. The oracle is exact rational arithmetic (fractions), rounded to the type
by comparing the neighbours of a candidate: nothing in it rounds twice."""
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import clcoop
from clcoop.interp.fused import fma

BF16 = np.dtype(ml_dtypes.bfloat16)
BITS = {np.dtype(np.float16): np.uint16, BF16: np.uint16, np.dtype(np.float32): np.uint32,
        np.dtype(np.float64): np.uint64}


def rounded(exact, dtype):
    """The value of `dtype` nearest to the rational `exact` (ties to the even significand),
    finite results only."""
    dtype = np.dtype(dtype)
    if exact == 0:
        return np.zeros((), dtype)
    guess = np.array(float(exact)).astype(dtype)
    ubits = BITS[dtype]
    bits = int(guess.view(ubits))
    candidates = [np.array(b, ubits).view(dtype) for b in (bits - 1, bits, bits + 1)
                  if 0 <= b < 2 ** (8 * dtype.itemsize)]
    candidates = [c for c in candidates if np.isfinite(c) and (c > 0) == (exact > 0) or c == 0]

    def distance(c):
        return abs(Fraction(float(c)) - exact), int(np.array(c).view(ubits)) & 1
    return min(candidates, key=distance)


def oracle(a, b, c):
    out = np.empty(a.shape, a.dtype)
    for i in np.ndindex(a.shape):
        exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
        out[i] = rounded(exact, a.dtype)
        if exact == 0 and (a[i] == 0 or b[i] == 0):
            out[i] = a[i] * b[i] + c[i]   # exact: IEEE 754 6.3's sign of a sum of zeros
    return out


def same_bits(x, y):
    ubits = BITS[np.dtype(x.dtype)]
    return np.array_equal(np.asarray(x).view(ubits), np.asarray(y).view(ubits))


def samples(dtype, n, seed):
    """Operands whose sums cancel, or nearly, and exponents far apart: the cases where
    rounding twice differs."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n)
    b = rng.standard_normal(n) * 2.0 ** rng.integers(-8, 8, n)
    near = -(a.astype(dtype).astype(np.float64) * b.astype(dtype).astype(np.float64))
    c = np.where(rng.random(n) < 0.5, near * (1 + rng.standard_normal(n) * 1e-3),
                 rng.standard_normal(n) * 2.0 ** rng.integers(-30, 4, n))
    return a.astype(dtype), b.astype(dtype), c.astype(dtype)


# Rounded twice, each of these gives another value than rounded once.
WITNESSES = {
    # (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 is a tie of float; + 2^-70 puts it above. Rounded
    # to double first, the 2^-70 is lost and the tie goes to even.
    np.float32: (1 + 2.0 ** -12, 1 + 2.0 ** -12, 2.0 ** -70),
    # (1 + 2^-27)^2 - (1 + 2^-26) = 2^-54: in double, the product rounds to 1 + 2^-26.
    np.float64: (1 + 2.0 ** -27, 1 + 2.0 ** -27, -(1 + 2.0 ** -26)),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_witness_of_double_rounding_rounds_once(dtype):
    a, b, c = (np.array([x], dtype) for x in WITNESSES[dtype])
    want = oracle(a, b, c)
    twice = (a.astype(np.float64) * b + c).astype(dtype) if dtype == np.float32 else a * b + c
    assert not same_bits(twice, want)
    assert same_bits(fma(a, b, c), want)


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float32, np.float64], ids=str)
def test_random_operands_match_exact_arithmetic(dtype):
    a, b, c = samples(dtype, 3000, seed=1)
    assert same_bits(fma(a, b, c), oracle(a, b, c))


def test_double_far_from_the_fast_paths_range():
    # Huge, tiny, subnormal and zero operands, and a product that overflows alone, take
    # the exact path (fused._exact_fma) or the plain one (a zero product).
    cases = [(2.0 ** 1000, 2.0 ** 20, -2.0 ** 1020),     # exactly 0: +0
             (2.0 ** -1000, 2.0 ** -60, 2.0 ** -1070),   # subnormal result
             (5e-324, 3.0, 5e-324), (0.0, 5.0, -0.0), (-0.0, 2.0, -0.0),
             (1e308, 2.0, -1.5e308),                     # 2e308 alone; the sum is finite
             (3.0, 1e-320, 1e-323), (2.0 ** 996, 2.0 ** 2, -2.0 ** 997)]
    a, b, c = (np.array(column, np.float64) for column in zip(*cases))
    got = fma(a, b, c)
    assert same_bits(got, oracle(a, b, c))
    assert not np.signbit(got[0]) and np.signbit(got[4]) and not np.signbit(got[3])


def test_scalar_operands_take_the_exact_path_too():
    # 0-d operands (a uniform value): the exact path indexed them as arrays and raised.
    got = fma(np.float64(1e308), 2.0, -1.5e308)
    assert got.shape == () and got == float(Fraction(1e308) * 2 + Fraction(-1.5e308))
    assert fma(np.float64(3.0), 1e-320, 1e-323) == oracle(*(np.array([x]) for x in (3.0, 1e-320, 1e-323)))[0]


def test_infinities_and_nan_as_ieee():
    a = np.array([np.inf, np.inf, 1.0, np.nan, 1e308], np.float64)
    b = np.array([0.0, 2.0, 1.0, 1.0, -10.0], np.float64)
    c = np.array([1.0, -np.inf, np.inf, 0.0, np.inf], np.float64)
    got = fma(a, b, c)
    assert np.isnan(got[0]) and np.isnan(got[1]) and np.isnan(got[3])
    assert got[2] == np.inf
    assert got[4] == np.inf          # a finite product plus +inf, however large the product


FMA_KERNEL = """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void k(__global const {t} *a, __global const {t} *b, __global const {t} *c,
                __global {t} *out) {{
    size_t i = get_global_id(0);
    out[i] = fma(a[i], b[i], c[i]);
}}"""

FMA_IR = """
define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c,
                           ptr addrspace(1) %out) {{
  %i = call i64 @_Z13get_global_idj(i32 0)
  %pa = getelementptr {t}, ptr addrspace(1) %a, i64 %i
  %pb = getelementptr {t}, ptr addrspace(1) %b, i64 %i
  %pc = getelementptr {t}, ptr addrspace(1) %c, i64 %i
  %x = load {t}, ptr addrspace(1) %pa
  %y = load {t}, ptr addrspace(1) %pb
  %z = load {t}, ptr addrspace(1) %pc
  %r = call {t} @llvm.fma.{s}({t} %x, {t} %y, {t} %z)
  %po = getelementptr {t}, ptr addrspace(1) %out, i64 %i
  store {t} %r, ptr addrspace(1) %po
  ret void
}}
declare i64 @_Z13get_global_idj(i32)
declare {t} @llvm.fma.{s}({t}, {t}, {t})
"""

C_TYPES = {np.float32: ("float", "f32"), np.float64: ("double", "f64"), np.float16: ("half", "f16")}


def operands(dtype, n=512):
    a, b, c = samples(dtype, n, seed=2)
    if dtype in WITNESSES:
        for arr, x in zip((a, b, c), WITNESSES[dtype]):
            arr[0] = x
    return a, b, c


@pytest.mark.parametrize("engine", ["interp", "native"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
def test_the_fma_builtin_rounds_once(dtype, engine):
    a, b, c = operands(dtype)
    prog = clcoop.Program(FMA_KERNEL.format(t=C_TYPES[dtype][0])).build(engine=engine)
    if engine == "native":
        assert prog.k.engine == "native", prog.k.fallback_reason
    out = np.zeros_like(a)
    prog.k(a.size, 64, a, b, c, out)
    assert same_bits(out, oracle(a, b, c))


@pytest.mark.parametrize("engine", ["interp", "native"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=str)
def test_llvm_fma_rounds_once(dtype, engine):
    a, b, c = operands(dtype)
    t, s = C_TYPES[dtype]
    prog = clcoop.Program.from_ir(FMA_IR.format(t=t, s=s), engine=engine)
    out = np.zeros_like(a)
    prog.k(a.size, 64, a, b, c, out)
    assert same_bits(out, oracle(a, b, c))


def test_the_half_fma_builtin_rounds_once():
    a, b, c = operands(np.float16)
    source = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" + FMA_KERNEL.format(t="half")
    prog = clcoop.Program(source).build()
    out = np.zeros_like(a)
    prog.k(a.size, 64, a, b, c, out)
    assert same_bits(out, oracle(a, b, c))
