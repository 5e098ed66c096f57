"""Conversions that round exactly once, shared by the engines and by argument preparation:
to bfloat16 (SPV_KHR_bfloat16) and to and from fp8 (SPV_EXT_float8).

The rounding is computed from the exact value (not by ml_dtypes, which the tests use as the
oracle, and which narrows a double through float32, rounding twice). fp8 values are carried
as the ml_dtypes dtypes (float8_e4m3fn, float8_e5m2) so that host arrays pass in as they
are; only their bits are used. docs/coopmat2-semantics.md "fp8".
"""
import numpy as np

from clcoop import float8
from clcoop.ir.scalars import BFLOAT16, FLOAT8_DTYPES as DTYPES

FORMAT_OF_DTYPE = {dtype: float8.FORMATS[name] for name, dtype in DTYPES.items()}


def is_float8(dtype):
    return np.dtype(dtype) in FORMAT_OF_DTYPE


def _decode_table(fmt):
    """The exact value of each of the 256 patterns, as float64 (NaN keeps its sign)."""
    bits = np.arange(256)
    sign = np.where(bits & 0x80, -1.0, 1.0)
    exponent = (bits >> fmt.mantissa_bits) & ((1 << fmt.exponent_bits) - 1)
    mantissa = bits & ((1 << fmt.mantissa_bits) - 1)
    scale = 2.0 ** -fmt.mantissa_bits
    normal = (1 + mantissa * scale) * 2.0 ** (exponent - fmt.bias)
    subnormal = mantissa * scale * 2.0 ** fmt.min_exponent
    value = sign * np.where(exponent == 0, subnormal, normal)
    top = exponent == (1 << fmt.exponent_bits) - 1
    if fmt.has_infinity:            # E5M2: IEEE 754 special values
        value = np.where(top & (mantissa == 0), sign * np.inf, value)
        value = np.where(top & (mantissa != 0), np.copysign(np.nan, sign), value)
    else:                           # E4M3: S.1111.111 is NaN, the rest of the top binade finite
        value = np.where(top & (mantissa == 7), np.copysign(np.nan, sign), value)
    return value


_TABLES = {f.name: _decode_table(f) for f in float8.FORMATS.values()}


def decode(bits, fmt):
    """fp8 patterns (any 8-bit array, or an fp8 dtype array) -> exact float64 values."""
    return _TABLES[fmt.name][np.asarray(bits).view(np.uint8).astype(np.intp)]


def encode(x, fmt, saturate=False):
    """Numbers -> fp8 patterns (uint8), one nearest-even rounding of the exact value
    (SPV_EXT_float8, Conversion Instructions). A value whose rounding leaves the finite
    range, and infinity, become NaN for E4M3 and infinity for E5M2; with `saturate`
    (SaturatedToLargestFloat8NormalConversionEXT) the largest finite value of its sign.
    NaN stays NaN, with its sign. Integers and floats are first made float64: exact for
    every source but 64-bit integers above 2**53, which are out of range either way."""
    x = np.asarray(x)
    if x.dtype in FORMAT_OF_DTYPE:
        x = decode(x, FORMAT_OF_DTYPE[x.dtype])
    with np.errstate(all="ignore"):
        value = x.astype(np.float64)
        sign = np.signbit(value).astype(np.uint8) << 7
        magnitude = np.abs(value)
        nan = np.isnan(magnitude)
        finite_magnitude = np.where(np.isfinite(magnitude), magnitude, 0.0)
        exponent = np.maximum(np.frexp(finite_magnitude)[1] - 1, fmt.min_exponent)
        quantum = np.ldexp(1.0, exponent - fmt.mantissa_bits)
        rounded = np.rint(finite_magnitude / quantum) * quantum      # rint: ties to even
        overflow = np.isinf(magnitude) | (rounded > fmt.max_finite)
        rounded = np.where(overflow, 0.0, rounded)
        bits = _pattern(rounded, fmt)
    if saturate:
        special = fmt.max_bits
    else:
        special = fmt.nan_bits if not fmt.has_infinity else 0x7C
    bits = np.where(overflow, special, bits)
    bits = np.where(nan, fmt.nan_bits, bits)
    return (bits.astype(np.uint8) | sign).astype(np.uint8)


def _pattern(rounded, fmt):
    """Bits of non-negative values already on the fp8 grid and in range."""
    normal = rounded >= 2.0 ** fmt.min_exponent
    exponent = np.where(normal, np.frexp(np.where(normal, rounded, 1.0))[1] - 1, fmt.min_exponent)
    mantissa = rounded / np.ldexp(1.0, exponent - fmt.mantissa_bits)
    field = np.where(normal, exponent + fmt.bias, 0)
    mantissa = np.where(normal, mantissa - (1 << fmt.mantissa_bits), mantissa)
    return (field.astype(np.int64) << fmt.mantissa_bits) | mantissa.astype(np.int64)


def to_float8(x, dtype, saturate=False):
    """Any numeric array -> an array of the fp8 dtype (encode, viewed)."""
    dtype = np.dtype(dtype)
    return encode(x, FORMAT_OF_DTYPE[dtype], saturate).view(dtype)


def to_bfloat16(x):
    """Any float array -> bfloat16, rounded to nearest-even exactly once (SPV_KHR_bfloat16;
    clang-22's double -> __bf16). ml_dtypes converts float32 (and half, exactly widened)
    correctly, but narrows a double through float32, rounding twice (1 + 2**-8 + 2**-30
    becomes 1, not 1 + 2**-7). A double is therefore first narrowed to float32 with
    round-to-odd, which keeps 16 more bits than bf16 and makes the final nearest-even
    rounding by ml_dtypes exact (Boldo and Melquiond, "When double rounding is odd")."""
    x = np.asarray(x)
    if x.dtype == BFLOAT16:
        return x.copy()
    if x.dtype == np.float64:
        x = _float64_to_float32_round_to_odd(x)
    with np.errstate(all="ignore"):     # overflow to inf is the IEEE result
        return x.astype(BFLOAT16)


def _float64_to_float32_round_to_odd(x):
    with np.errstate(all="ignore"):
        nearest = x.astype(np.float32)
        inexact = (nearest.astype(np.float64) != x) & ~np.isnan(x)
        # Truncate toward zero: step back when rounding to nearest went away from zero.
        away = inexact & (np.abs(nearest.astype(np.float64)) > np.abs(x))
        truncated = np.where(away, np.nextafter(nearest, np.float32(0)), nearest)
    bits = truncated.view(np.uint32) | inexact.astype(np.uint32)    # sticky last bit
    return bits.view(np.float32)
