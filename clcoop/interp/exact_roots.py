"""The correctly rounded cube root in double, the same bits on every host.

NumPy's double cbrt is the host's: SVML's on an AVX-512 CPU (1 ulp off on about 0.6% of
doubles), the C library's elsewhere (glibc 2.36's: off on about half, by up to 3 ulp; it
gives cbrt(-27) = -3.0000000000000004), so the last bits of np.cbrt change with the machine.
The interpreter is the reference and must not: it takes np.cbrt only as an estimate and
then proves which double is the nearest to the exact cube root, so the estimate's error never
reaches the result.

The exact test. |x| = f 2^(3e) with f in [1, 8) (an exact split of the exponent), so
cbrt(x) = sign(x) cbrt(f) 2^e with cbrt(f) in [1, 2), where the doubles are Y 2^-52 for
integers Y in [2^52, 2^53]. Y 2^-52 is the nearest double to cbrt(f) exactly when cbrt(f)
lies strictly between the midpoints (2Y - 1) 2^-53 and (2Y + 1) 2^-53; multiplied by 2^53
and cubed:
    (2Y - 1)^3 < F 2^107 < (2Y + 1)^3,        F = f 2^52, an integer below 2^55,
integer comparisons of up to 165 bits, made exactly in 19-bit limbs in int64 lanes
(_cube_below). Neither side can equal the other (an odd number cubed is odd, F 2^107 even):
there are no ties. cbrt(f) in [1, 2) keeps Y in [2^52, 2^53] (the upper test holds at 2^53,
the lower one at 2^52), and Y 2^-52 2^e is a normal double (|e| <= 359), so the final
scaling is exact.

The filter. The same two inequalities are first decided in floating point with a proven
error bound (_filter, _settled: the residual f - y^3 from Dekker's error-free products),
which also says how many ulps a wrong estimate is off; only the lanes it cannot decide, those
within 2^-90 of a midpoint's cube (about 2^-38 of random arguments) or whose estimate stays
off, take the integer walk (_walk): Y moves up while the upper test fails, down while the
lower one does.
"""
import numpy as np

from clcoop.interp import fused

_LIMB_BITS = 19
_LIMB_MASK = (1 << _LIMB_BITS) - 1
# F 2^107 in limbs: 107 = 5 * 19 + 12, so F 2^12 starts at limb 5.
_F_LIMB, _F_SHIFT = divmod(107, _LIMB_BITS)


def _limbs(values, count):
    """The `count` 19-bit limbs, lowest first, of non-negative int64 values."""
    return [(values >> (_LIMB_BITS * k)) & _LIMB_MASK for k in range(count)]


def _convolve(a, b):
    """The coefficients of the product of two limb polynomials (no carries)."""
    out = [0] * (len(a) + len(b) - 1)
    for i, ai in enumerate(a):
        for j, bj in enumerate(b):
            out[i + j] = out[i + j] + ai * bj
    return out


def _cube_below(m, f_int):
    """m^3 < f_int 2^107, exactly, for int64 lanes with 0 < m < 2^57 and 0 <= f_int < 2^55.

    m has 3 limbs; m^2's 5 coefficients are below 3 * 2^38 and m^3's 7 below 2^61, so int64
    holds them. The difference's coefficients, carried from the lowest (an arithmetic shift is
    floor division, the mask the non-negative remainder), leave a final carry that is negative
    exactly when the difference is."""
    a = _limbs(m, 3)
    cube = _convolve(_convolve(a, a), a)
    low_bits = _LIMB_BITS - _F_SHIFT
    scaled = [(f_int & ((1 << low_bits) - 1)) << _F_SHIFT] + _limbs(f_int >> low_bits, 3)
    carry = 0
    for k in range(_F_LIMB + len(scaled)):
        digit = cube[k] if k < len(cube) else 0
        if k >= _F_LIMB:
            digit = digit - scaled[k - _F_LIMB]
        total = digit + carry
        carry = total >> _LIMB_BITS
    return carry < 0


def _walk(y_int, f_int, lanes, step, must_move):
    """Moves y_int[lanes] by `step` while must_move(y, f) holds for them; returns the lanes
    that moved at least once."""
    moved = np.zeros(y_int.shape, bool)
    lanes = lanes[must_move(y_int[lanes], f_int[lanes])]
    while lanes.size:
        moved[lanes] = True
        y_int[lanes] += step
        lanes = lanes[must_move(y_int[lanes], f_int[lanes])]
    return moved


# ------------------------------------------------------------------ the floating-point filter

_FILTER_RESIDUAL = 2.0 ** -40         # the largest f - y^3 the error bound below holds for
_FILTER_MARGIN = 2.0 ** -90           # above the filter's error bound 2^-91 + 2^-101 + 2^-103


def _filter(y, f):
    """(residual, half_step) for doubles y in [1, 2] and f in [1, 8): residual within 2^-91 of
    f - y^3 and half_step within 2^-101 of 3 y^2 2^-53, whenever |residual| <= 2^-40.

    y^2 = p + pe and p y = q + qe exactly (Dekker's TwoProduct; y and p in [1, 4], far from
    overflow and underflow), so y^3 = q + qe + pe y, and RN(pe y) is within 2^-104 of pe y
    (|pe| <= 2^-52). |residual| <= 2^-40 implies f/2 <= q <= 2 f (else |f - q| >= 1/2 would
    remain), so f - q is exact (Sterbenz); the two subtractions after it round values below
    2^-39, by at most 2^-92 and 2^-93. half_step = RN(3 p) 2^-53 is off by at most 2^-103 (the
    rounding of 3 p < 12) + 3 |pe| 2^-53."""
    p, pe = fused.two_product(y, y)
    q, qe = fused.two_product(p, y)
    residual = ((f - q) - qe) - pe * y
    return residual, (3 * p) * 2.0 ** -53


def _settled(y, f):
    """(nearest, steps) for doubles y = Y 2^-52 in [1, 2] and f in [1, 8): nearest where the
    filter proves y the double nearest to cbrt(f), and otherwise the ulps to move y by
    (cbrt(f) - y = (f - y^3) / (3 y^2) to first order), 0 where the filter cannot tell.

    With m = y + s 2^-53 (s = +-1), f - m^3 = (f - y^3) - s 3 y^2 2^-53 - 3 y 2^-106 - s 2^-159,
    so f - m^3 is residual - s half_step within 2^-91 + 2^-101 + 2^-103 + 2^-159 < 2^-90: y is
    the nearest when f lies strictly between the midpoints' cubes by more than that."""
    residual, half_step = _filter(y, f)
    usable = np.abs(residual) <= _FILTER_RESIDUAL
    nearest = usable & (residual - half_step < -_FILTER_MARGIN) & (residual + half_step > _FILTER_MARGIN)
    steps = np.where(usable & ~nearest, np.rint(residual / (2 * half_step)), 0).astype(np.int64)
    return nearest, steps


_FILTER_ROUNDS = 3


def _nearest_root(f):
    """The nearest double to cbrt(f) for doubles f in [1, 8) (module docstring), as Y 2^-52:
    np.cbrt's estimate moved by the filter's steps until the filter proves it nearest; the
    lanes it cannot prove (near a midpoint, about 2^-38 of them, or an estimate too far off)
    are walked with the exact integer test."""
    f_int = (f * 2.0 ** 52).astype(np.int64)
    y_int = np.clip(np.rint(np.cbrt(f) * 2.0 ** 52), 2.0 ** 52, 2.0 ** 53).astype(np.int64)
    lanes = np.arange(f.size)
    for _ in range(_FILTER_ROUNDS):
        nearest, steps = _settled(y_int[lanes].astype(np.float64) * 2.0 ** -52, f[lanes])
        y_int[lanes] = np.clip(y_int[lanes] + steps, 1 << 52, 1 << 53)
        lanes = lanes[~nearest]
        if not lanes.size:
            break
    went_up = _walk(y_int, f_int, lanes, 1, lambda y, v: _cube_below(2 * y + 1, v))
    _walk(y_int, f_int, lanes[~went_up[lanes]], -1, lambda y, v: ~_cube_below(2 * y - 1, v))
    return y_int.astype(np.float64) * 2.0 ** -52


def cbrt(x):
    """The double nearest to the real cube root of double x: +-0, +-inf and NaN as they are
    (C99 F.9.4.1); half and float arguments are widened exactly (the caller rounds once)."""
    x = np.asarray(x)
    x = x if x.dtype == np.float64 else x.astype(np.float64)
    flat = x.reshape(-1)
    regular = np.isfinite(flat) & (flat != 0)
    mantissa, exponent = np.frexp(np.where(regular, flat, 1.0))       # |mantissa| in [1/2, 1)
    top = exponent.astype(np.int64) - 1                               # |x| = 2|mantissa| 2^top
    e = top // 3
    f = np.ldexp(2 * np.abs(mantissa), (top - 3 * e).astype(np.int32))
    root = np.ldexp(_nearest_root(f), e.astype(np.int32))
    value = np.where(regular, np.copysign(root, flat), flat)
    return value.reshape(x.shape)
