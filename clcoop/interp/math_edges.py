"""OpenCL C math built-ins whose special values NumPy's nearest function does not give
(OpenCL C 3.0 7.5 "Edge Case Behavior", C99 Annex F where 7.5 defers to it): pown, powr,
rootn, ilogb, logb, frexp, modf, fract, remainder, remquo, nextafter, fdim,
sinpi/cospi/tanpi, tgamma, lgamma_r's sign and nan(nancode); cbrt and hypot in double.

Each takes and returns NumPy arrays (scalars or (lanes, n) vectors, broadcast together) of
the argument's float dtype; ocl_builtins rounds the result to the call's return type. Half
and float are computed in double, where the int operand of pown/rootn is exact (a float
from 2^24 up loses its parity, and with it the sign of the result) and one rounding to the
narrow type follows.
"""
import math

import numpy as np

from clcoop.interp import exact_roots

INT_MIN = np.iinfo(np.int32).min
INT_MAX = np.iinfo(np.int32).max
# The macros of OpenCL C 3.0 6.15.2 as clang's opencl-c-base.h defines them.
FP_ILOGB0 = INT_MIN
FP_ILOGBNAN = INT_MAX


def _wide(x):
    """x in double (half and float exactly), double as it is."""
    x = np.asarray(x)
    return x if x.dtype == np.float64 else x.astype(np.float64)


def in_double(fn):
    """fn computed in double for half and float operands (the caller rounds once to the
    return type): NumPy's own float32 loops for exp, log, sin, ... are off by up to 2.5 and
    3.8 ulp (its SIMD code), log beyond OpenCL C 3.0 7.4's 3 ulp; in double the reference is
    within 0.5 ulp + 2^-29 of the exact value."""
    def wide(*args):
        return fn(*[a.astype(np.float64) if a.dtype.kind == "f" and a.dtype.itemsize < 8 else a
                    for a in map(np.asarray, args)])
    return wide


def pown(x, n):
    """x^n for an int n: C99 pow with the exact integer exponent gives 7.5.1's pown cases
    (pown(x, 0) = 1 even for a NaN x; pown(+-0, n) = +-inf / +inf / +0 / +-0 as n is odd
    negative / even negative / even positive / odd positive) and the sign of x for an odd n."""
    return np.power(_wide(x), np.asarray(n).astype(np.float64))


def powr(x, y):
    """pow for x >= 0 (OpenCL C 3.0 7.5.1): NaN for x < 0, a NaN operand, powr(+-0, +-0),
    powr(+inf, +-0) and powr(+1, +-inf); otherwise |x|^y, so powr(-0, y) is powr(+0, y)."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    value = np.power(np.abs(x), y)
    invalid = (x < 0) | np.isnan(x) | np.isnan(y) | ((x == 1) & np.isinf(y)) | \
        (((x == 0) | np.isinf(x)) & (y == 0))
    return np.where(invalid, np.nan, value).astype(value.dtype)


def rootn(x, n):
    """x^(1/n) for an int n (OpenCL C 3.0 7.5.1): NaN for n = 0, for x < 0 with an even n and
    for a NaN x; x's sign for an odd n (rootn(-8, 3) = -2, rootn(-0, -3) = -inf); +0 or +inf
    for +-0 with an even n. Double goes through long double where the host has one: 1/n
    rounded to double would cost up to log(|x|) 2^-53 relative, hundreds of double ulp."""
    x, n = np.broadcast_arrays(np.asarray(x), np.asarray(n).astype(np.int64))
    wide = np.longdouble if x.dtype == np.float64 else np.float64
    safe_n = np.where(n == 0, 1, n).astype(wide)
    magnitude = np.power(np.abs(x).astype(wide), 1 / safe_n)
    odd = (n % 2) != 0
    value = np.where(odd & np.signbit(x), -magnitude, magnitude)
    invalid = (n == 0) | np.isnan(x) | (~odd & (x < 0))
    return np.where(invalid, np.nan, value).astype(np.float64)


def cbrt(x):
    """The real cube root, in double for half and float: one rounding of a result far more
    precise than theirs (float cbrtf is off by up to 2 ulp, within 7.4 but not the nearest).
    The double is the correctly rounded one (exact_roots), not np.cbrt's, whose last bits
    change with the host (SVML on AVX-512, the C library's elsewhere, up to 3 ulp off)."""
    return exact_roots.cbrt(x)


def hypot(x, y):
    """sqrt(x^2 + y^2) without overflow (C hypot: hypot(+-inf, NaN) = +inf, C99 F.9.4.3), in
    double for half and float, as cbrt. np.hypot is the C library's hypot on every CPU (NumPy
    has no SIMD or SVML loop for it): glibc 2.36 on an AVX2 host and 2.39 on an AVX-512 one
    gave the same bits for 200,000 arguments, within 0.54 ulp (the nearest but for 0.3%)."""
    return np.hypot(_wide(x), _wide(y))


def nextafter(x, y):
    """The float after x toward y; y itself when x == y (C99 7.12.11.3: nextafter(+0, -0) is
    -0, where NumPy gives x); from +-0 the smallest subnormal of y's side (7.5.1)."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    return np.where(x == y, y, np.nextafter(x, y))


def fdim(x, y):
    """x - y if x > y, else +0 (C99 7.12.12.1: +0 even for a negative x); NaN if either
    operand is (OpenCL C 3.0 7.5.1)."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    value = np.where(x > y, x - y, np.zeros_like(x))
    return np.where(np.isnan(x) | np.isnan(y), np.nan, value).astype(value.dtype)


def _sinpi_reduced(r):
    """sin(pi r) for r in [0, 2] (exact subtractions: sin(pi r) = sin(pi (1 - r)) and
    sin(pi (r - 2))), so that pi times an argument of at most 1/2 is the only rounding."""
    t = np.where(r <= 0.5, r, np.where(r <= 1.5, 1 - r, r - 2))
    return np.sin(np.pi * t)


def sinpi(x):
    """sin(pi x): the argument reduced exactly (fmod by 2) in double before pi multiplies it;
    OpenCL C 3.0 7.5.1: sinpi(+-0) = +-0, sinpi(n) = +0 for a positive integer n and -0 for
    a negative one, NaN for +-inf."""
    x = _wide(x)
    r = np.fmod(np.abs(x), 2)
    value = np.where(r == np.floor(r), np.zeros_like(x), _sinpi_reduced(r))
    return np.where(np.signbit(x), -value, value)


def cospi(x):
    """cos(pi x), reduced as sinpi: cos(pi r) = cos(pi (2 - r)) = sin(pi (1/2 - r)) (exact for
    r in [1/4, 1]); OpenCL C 3.0 7.5.1: cospi(n + 1/2) = +0, cospi(+-0) = 1, NaN for +-inf."""
    x = _wide(x)
    r = np.fmod(np.abs(x), 2)
    r = np.where(r > 1, 2 - r, r)
    return np.where(r <= 0.25, np.cos(np.pi * r), np.sin(np.pi * (0.5 - r)))


def tanpi(x):
    """tan(pi x) with t = x - rint(x) (exact, |t| <= 1/2); OpenCL C 3.0 7.5.1: tanpi(n) =
    copysign(0, n) for an even n and copysign(0, -n) for an odd one, tanpi(n + 1/2) = +inf for
    an even n and -inf for an odd one, NaN for +-inf."""
    x = _wide(x)
    t = x - np.rint(x)
    # Above 1/4, tan(pi t) = 1 / tan(pi (+-1/2 - t)) (exact subtraction): tan's slope would
    # otherwise multiply the rounding of pi t by up to 5 (double's tanpi).
    folded = np.abs(t) > 0.25
    s = np.where(folded, np.copysign(0.5, t) - t, t)
    near = np.tan(np.pi * s)
    floor_even = np.fmod(np.floor(x), 2) == 0
    zero_sign = np.where(np.fmod(x, 2) == 0, x, -x)           # only read where x is an integer
    value = np.where(np.abs(t) == 0.5, np.where(floor_even, np.inf, -np.inf),
                     np.where(folded, 1 / near, near))
    return np.where(t == 0, np.copysign(np.zeros_like(x), zero_sign), value)


def _gamma(v):
    try:
        return math.gamma(v)
    except ValueError:          # a pole: +-0 (C99 F.9.5.4: +-inf), a negative integer or -inf (NaN)
        return math.copysign(math.inf, v) if v == 0 else math.nan
    except OverflowError:       # a large x, or a tiny one of either sign
        return math.copysign(math.inf, v)


def tgamma(x):
    """Gamma(x) in double (Python's math.gamma), with C99 F.9.5.4's special values:
    tgamma(+-0) = +-inf, NaN for a negative integer and for -inf, +inf for +inf."""
    x = _wide(x)
    return np.array([_gamma(v) for v in x.ravel().tolist()], np.float64).reshape(x.shape)


def gamma_sign(x):
    """lgamma_r's *signp: the sign of Gamma(x), -1 for a negative x with an odd floor; 0 at
    the poles (+-0 and the negative integers, -inf with them: OpenCL C 3.0 7.5.1) and for a
    NaN."""
    x = np.asarray(x)
    pole = (x == np.floor(x)) & (x <= 0)
    negative = (x < 0) & (np.fmod(np.floor(x), 2) != 0)
    return np.where(pole | np.isnan(x), 0, np.where(negative, -1, 1)).astype(np.int32)


# nan(nancode) (OpenCL C 3.0 6.15.2): the quiet NaN's bits and the significand bits left
# below its quiet bit, which take the code, by the width of the result.
_QUIET_NAN = {2: (np.uint16, 0x7E00, 0x1FF), 4: (np.uint32, 0x7FC00000, 0x3FFFFF),
              8: (np.uint64, 0x7FF8000000000000, 0x7FFFFFFFFFFFF)}


def nan_with_code(code, dtype):
    """A quiet NaN of `dtype` whose free significand bits hold the low bits of `code`."""
    bits, quiet, free = _QUIET_NAN[np.dtype(dtype).itemsize]
    code = np.asarray(code).astype(np.uint64) & np.uint64(free)
    return np.ascontiguousarray((code | np.uint64(quiet)).astype(bits)).view(dtype)


def ilogb(x):
    """The unbiased exponent of x as an int (C99 7.12.6.5; subnormals as if normalized):
    FP_ILOGB0 for +-0, FP_ILOGBNAN for a NaN, INT_MAX for +-inf (C99 F.9.3.5)."""
    x = np.asarray(x)
    exponent = np.frexp(x)[1].astype(np.int64) - 1
    result = np.where(x == 0, FP_ILOGB0, exponent)
    result = np.where(np.isinf(x), INT_MAX, result)
    return np.where(np.isnan(x), FP_ILOGBNAN, result).astype(np.int32)


def logb(x):
    """The unbiased exponent of x as a float (C99 7.12.6.11, F.9.3.11): -inf for +-0,
    +inf for +-inf, NaN for a NaN; exact for subnormals (frexp, not a rounded log2)."""
    x = np.asarray(x)
    exponent = (np.frexp(x)[1].astype(np.int64) - 1).astype(x.dtype)
    result = np.where(x == 0, -np.inf, exponent)
    return np.where(np.isinf(x), np.inf, np.where(np.isnan(x), x, result)).astype(x.dtype)


def frexp(x):
    """(mantissa in [1/2, 1) with x's sign, exponent); OpenCL C 3.0 7.5.1: frexp(+-inf)
    returns +-inf and 0, frexp(NaN) returns the NaN and 0; +-0 gives +-0 and 0."""
    mantissa, exponent = np.frexp(np.asarray(x))
    return mantissa, np.where(np.isfinite(x), exponent, 0).astype(np.int32)


def modf(x):
    """(fractional part, integral part) as OpenCL C 3.0 7.5.2 defines modf: *iptr = trunc(x),
    result copysign(isinf(x) ? 0 : x - *iptr, x) (modf(-3) = -0, modf(+-inf) = +-0)."""
    x = np.asarray(x)
    whole = np.trunc(x)
    part = np.where(np.isinf(x), np.zeros_like(x), x - whole)
    return np.copysign(part, x).astype(x.dtype), whole


def fract(x):
    """(fmin(x - floor(x), the float below 1), floor(x)) (OpenCL C 3.0 6.15.2), with 7.5.1's
    cases: fract(+-0) = +-0, fract(+-inf) = +-0 (floor +-inf), fract(NaN) = NaN (floor NaN)."""
    x = np.asarray(x)
    whole = np.floor(x)
    below_one = np.nextafter(np.ones_like(x), np.zeros_like(x))
    part = np.minimum(x - whole, below_one)       # np.minimum keeps a NaN
    part = np.where((x == 0) | np.isinf(x), np.copysign(np.zeros_like(x), x), part)
    return part.astype(x.dtype), whole


def remquo(x, y):
    """(r, quo): r = x - k y with k the integer nearest x / y (the even one on a tie), exact
    (IEEE 754 remainder, C99 7.12.10.2; a zero r takes x's sign); quo = k's low 7 bits with
    the sign of x / y (OpenCL C 3.0 6.15.2). NaN and quo 0 when x is +-inf, y is 0 or an
    operand is NaN (7.5.1). remainder(x, +-inf) = x with quo 0.

    fmod is exact: m = |x| mod |y| in [0, |y|), and |x| mod 128|y| = q |y| + m gives the
    quotient's low bits q; m > |y| - m (or a tie with q odd) rounds k up: r = m - |y|
    (exact, Sterbenz). Half and float in double, where 128 |y| cannot overflow."""
    x, y = np.broadcast_arrays(_wide(x), _wide(y))
    dtype = np.asarray(x).dtype
    ax, ay = np.abs(x), np.abs(y)
    m = np.fmod(ax, ay)
    block = ay * 128                                    # exact, or inf for huge y
    reduced = np.where(np.isfinite(block), np.fmod(ax, np.where(np.isfinite(block), block, 1)), ax)
    q = np.rint((reduced - m) / ay)                     # an integer in [0, 127], nearly exact
    q = np.where(np.isfinite(q), q, 0).astype(np.int64)
    rest = ay - m                                       # exact when it matters (m >= |y| / 2)
    up = (m > rest) | ((m == rest) & (q % 2 == 1))
    r = np.where(up, m - ay, m)
    q = (q + up) % 128
    r = np.where(np.signbit(x), -r, r)
    q = np.where(np.signbit(x) != np.signbit(y), -q, q)
    invalid = np.isinf(x) | (y == 0) | np.isnan(x) | np.isnan(y)
    return np.where(invalid, np.nan, r).astype(dtype), np.where(invalid, 0, q).astype(np.int32)


def remainder(x, y):
    """IEEE 754 remainder (C99 7.12.10.2), remquo's r."""
    return remquo(x, y)[0]
