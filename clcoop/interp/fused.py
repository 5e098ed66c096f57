"""The fused multiply-add, rounded once: OpenCL C 3.0 6.15.2 fma ("computes a * b + c with
infinite precision and rounds once") and LLVM's llvm.fma (LangRef: "without any
intermediate rounding"), for arrays of half, bfloat16, float and double.

NumPy has no fma, and a * b + c in the type rounds twice. Rounding the exact value to
double first and then to the type rounds twice as well (a tie of the type can be
created by the first rounding). Rounding to odd first is safe: a value rounded to odd
with at least two more bits than the type, then to nearest-even in the type, is the
value rounded once to the type (Boldo and Melquiond, "Emulation of FMA and correctly
rounded sums: proved algorithms using rounding to odd", IEEE TC 57(4), 2008, Theorem 1).

- half, bfloat16, float: a * b is exact in double (2 x 24 bits <= 53); the sum with c is
  rounded to odd in double (TwoSum gives the error of the rounded sum exactly), then to
  the type.
- double: the product is split exactly into two doubles (Dekker's product with
  Veltkamp's split), c is added to the high part exactly (TwoSum), the two low parts are
  summed rounded to odd, and that is added to the high sum (the paper's Algorithm 5.4,
  "Emul FMA"). Its proof assumes no overflow or underflow on the way: elements whose
  exponents leave a wide margin of the double range take it; the others (huge, tiny,
  infinite or NaN operands) are computed exactly as rationals, one by one.
"""
from fractions import Fraction

import numpy as np

from clcoop.ir.rounding import to_bfloat16
from clcoop.ir.scalars import BFLOAT16

_SPLIT = float(2 ** 27 + 1)        # Veltkamp's split of a 53-bit significand


def fma(a, b, c):
    """a * b + c rounded once, elementwise; a, b, c of one float dtype (or broadcastable
    to a's dtype)."""
    a = np.asarray(a)
    dtype = a.dtype
    b = np.asarray(b, dtype)
    c = np.asarray(c, dtype)
    if dtype == np.float64:
        return _fma_double(a, b, c)
    wide = _sum_to_odd(a.astype(np.float64) * b.astype(np.float64), c.astype(np.float64))
    return to_bfloat16(wide) if dtype == BFLOAT16 else wide.astype(dtype)


def _two_sum(x, y):
    """(s, e): s = x + y rounded, e = x + y - s exactly (Knuth's TwoSum; no overflow)."""
    s = x + y
    bb = s - x
    return s, (x - (s - bb)) + (y - bb)


def _sum_to_odd(x, y):
    """x + y rounded to odd in double: the rounded sum when exact, else whichever of the
    two doubles around the exact sum has an odd last significand bit."""
    with np.errstate(invalid="ignore", over="ignore"):
        s, e = _two_sum(x, y)
        inexact = (e != 0) & np.isfinite(s)
        even = (np.asarray(s).view(np.int64) & 1) == 0
        toward = np.nextafter(s, np.where(e > 0, np.inf, -np.inf))
    return np.where(inexact & even, toward, s)


def two_product(a, b):
    """(p, e): p = a * b rounded, e = a * b - p exactly (Dekker; the exponents in range; no
    fma, which NumPy lacks); also exact_roots' residual of a cube."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _split(x):
    t = _SPLIT * x
    high = t - (t - x)
    return high, x - high


def _fma_double(a, b, c):
    a, b, c = np.broadcast_arrays(a, b, c)
    with np.errstate(all="ignore"):
        uh, ul = two_product(a, b)
        th, tl = _two_sum(c, uh)
        z = th + _sum_to_odd(tl, ul)
        finite_ab = np.isfinite(a) & np.isfinite(b)
        finite = finite_ab & np.isfinite(c)
        # An exact product: a zero one (the sum is exact, signed zeros included), or an
        # infinite or NaN one (IEEE 754's fusedMultiplyAdd is then a * b + c); a finite
        # product plus an infinite or NaN c is c.
        plain = ~finite_ab | (finite & ((a == 0) | (b == 0)))
        z = np.where(plain, a * b + c, np.where(finite_ab & ~finite, c, z))
        exact = finite & ~plain & ~_in_range(a, b, c, z)
    if not exact.any():
        return z
    z = np.array(z, np.float64)
    flat, a, b, c = z.reshape(-1), a.reshape(-1), b.reshape(-1), c.reshape(-1)   # (0-d too)
    for i in np.flatnonzero(exact):
        flat[i] = _exact_fma(float(a[i]), float(b[i]), float(c[i]))
    return z


def _in_range(a, b, c, z):
    """Where the algorithm's proof holds for finite, nonzero operands: the product and
    the sum far from overflow and underflow, the operands below the split's overflow
    (2^995), the result far from the subnormals (or zero)."""
    _, ea = np.frexp(a)
    _, eb = np.frexp(b)
    _, ec = np.frexp(c)
    _, ez = np.frexp(z)
    product = (ea + eb >= -900) & (ea + eb <= 1000) & (ea <= 995) & (eb <= 995)
    return product & (ec <= 1000) & np.isfinite(z) & ((z == 0) | (ez >= -900))


def _exact_fma(a, b, c):
    """One element with finite, nonzero a and b and a finite c, exactly as rationals,
    rounded once by float(Fraction) (correctly rounded)."""
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return 0.0        # IEEE 754 6.3: an exact zero sum of nonzero terms is +0 (to nearest)
    try:
        return float(exact)
    except OverflowError:
        return float("inf") if exact > 0 else float("-inf")
