"""fp8 semantics (SPV_EXT_float8) on NumPy arrays: encoding with one round-to-nearest-even,
with and without saturation, exact decoding, conversions and the mul-add.

The rounding is computed here from the exact value (not by ml_dtypes, which the tests use
as the oracle, and which narrows a double through float32, rounding twice). Values are
carried as the ml_dtypes dtypes (float8_e4m3fn, float8_e5m2) so that host arrays pass in
as they are; only their bits are used. docs/coopmat2-semantics.md "fp8".
"""
import ml_dtypes
import numpy as np

from clcoop import float8 as float8_names
from clcoop.errors import IRError
from clcoop.interp import coopmat
from clcoop.ir.rounding import FORMAT_OF_DTYPE, decode, to_float8
from clcoop.ir.scalars import FLOAT8_DTYPES, scalar_dtype
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
    if token in float8_names.BY_TOKEN:
        return FLOAT8_DTYPES[float8_names.BY_TOKEN[token].name]
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
