"""fp8 semantics (SPV_EXT_float8) on NumPy arrays: encoding with one round-to-nearest-even,
with and without saturation, exact decoding, conversions and the mul-add.

The rounding is computed here from the exact value (not by ml_dtypes, which the tests use
as the oracle, and which narrows a double through float32, rounding twice). Values are
carried as the ml_dtypes dtypes (float8_e4m3fn, float8_e5m2) so that host arrays pass in
as they are; only their bits are used. docs/coopmat2-semantics.md "fp8".
"""
import ml_dtypes
import numpy as np

from clcoop import float8
from clcoop.errors import IRError
from clcoop.interp import coopmat
from clcoop.interp.scalars import FLOAT8_DTYPES as DTYPES, scalar_dtype
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


def from_float8(x, dtype):
    """fp8 array -> `dtype`: floats get the exact value rounded once (exact for half, bf16,
    float and double, which hold every fp8 value); integers the C conversion of the exact
    value (coopmat.convert's FToS / FToU on it)."""
    x = np.asarray(x)
    exact = decode(x, FORMAT_OF_DTYPE[x.dtype])
    dtype = np.dtype(dtype)
    if dtype in FORMAT_OF_DTYPE:
        return to_float8(exact, dtype)
    if dtype.kind in "iu":
        op = "ConvertFToS" if dtype.kind == "i" else "ConvertFToU"
        return coopmat.convert(op, exact.astype(np.float32), dtype)
    with np.errstate(all="ignore"):
        return exact.astype(dtype)


def convert(x, dtype, saturate=False):
    """A conversion with fp8 on either side (matrix Op*Convert, scalar casts)."""
    x = np.asarray(x)
    dtype = np.dtype(dtype)
    if x.dtype in FORMAT_OF_DTYPE:
        if dtype in FORMAT_OF_DTYPE:
            return to_float8(decode(x, FORMAT_OF_DTYPE[x.dtype]), dtype, saturate)
        return from_float8(x, dtype)
    return to_float8(x, dtype, saturate)


def mul_add(a, b, c, result_dtype):
    """fp8 A x fp8 B + C, C and the result half or float (G, M, K) x (G, K, N) + (G, M, N).

    Each product of two fp8 values (at most 4 x 4 significand bits, magnitudes within
    2**-32 .. 2**32) is exact in float32; the products and C are summed as coopmat's float
    mul-add sums half and float (float32 work type, BLAS order), and the sum is rounded
    once to the result type."""
    a_exact = decode(a, FORMAT_OF_DTYPE[np.asarray(a).dtype]).astype(np.float32)
    b_exact = decode(b, FORMAT_OF_DTYPE[np.asarray(b).dtype]).astype(np.float32)
    return coopmat._float_mul_add(a_exact, b_exact, np.asarray(c), np.dtype(result_dtype))


# ---------------------------------------------------------------- scalar conversion calls

def _token_dtype(token):
    """The NumPy dtype a conversion token computes in (fp8: its ml_dtypes dtype)."""
    if token in float8.BY_TOKEN:
        return DTYPES[float8.BY_TOKEN[token].name]
    if token.startswith("FP") or token == "BF16":
        return np.dtype({"FP16": np.float16, "BF16": ml_dtypes.bfloat16, "FP32": np.float32,
                         "FP64": np.float64}[token])
    return np.dtype(("int" if token[0] == "I" else "uint") + token[1:])


def conversion_handler(conversion, arg_type, ret_type):
    """The interpreter handler of a `__builtin_spirv_*Convert*` call (clcoop/float8.py).
    Registers hold fp8 bits as int8 (an LLVM i8); unsigned sources are reinterpreted."""
    source, target = _token_dtype(conversion.source), _token_dtype(conversion.target)
    for ty in (arg_type, ret_type):
        if ty.kind not in ("int", "float", "vec"):
            raise IRError(f"fp8 conversion {conversion.base} of a {ty}: clcoop runs the scalar and vector "
                          f"forms; a matrix converts with the SPIR-V FConvert & co. on fp8 component types")
    for token, ty in ((conversion.source, arg_type), (conversion.target, ret_type)):
        if np.dtype(_register_dtype(ty)).itemsize != _token_dtype(token).itemsize:
            raise IRError(f"fp8 conversion {conversion.base} with an operand of type {ty}")

    def handler(ex, args, bmask, full, ins):
        x = np.asarray(args[0])
        x = x.view(source) if source.kind in "uV" or source in FORMAT_OF_DTYPE else x.astype(source)
        result = convert(x, target, conversion.saturate)
        return result.view(_register_dtype(ret_type)) if result.dtype.kind in "uV" \
            or result.dtype in FORMAT_OF_DTYPE else result
    return handler


def _register_dtype(ty):
    return scalar_dtype(ty)
