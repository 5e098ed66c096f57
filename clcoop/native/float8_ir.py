"""Native definitions of the scalar fp8 conversions (clcoop/float8.py's
`__builtin_spirv_[Clamp]Convert<S>To<D>EXT/INTEL` calls), bit for bit as the interpreter's
clcoop/interp/float8.py (docs/coopmat2-semantics.md "fp8").

Every value passes through a double, which holds each source exactly (integers beyond 2**53
are out of every fp8 range either way) and each fp8 value:

- decode: the significand (with its implicit bit) times a power of two, both exact; the E5M2
  infinities and NaNs, the E4M3 NaN, the sign (NaNs keep theirs).
- encode: the quantum q = 2**(max(exponent, emin) - mantissa bits), n = roundeven(|x| / q)
  (both steps exact but the one rounding, ties to even), the pattern (e - emin) * 2**m + n
  (a carry of n into the next binade gives the next exponent's pattern by itself); past the
  largest finite value or infinite: NaN (E4M3), infinity (E5M2), or with saturation the
  largest finite; NaN stays NaN; the sign last.
- to integers: llvm.fpto[su]i.sat, the engines' one float -> int rule.
"""
import llvmlite.ir as ir
import numpy as np

from clcoop import float8
from clcoop.native import bfloat_ir, irbuild
from clcoop.native.support import Unsupported

_FLOAT_TYPES = {"FP16": "half", "FP32": "float", "FP64": "double"}
I1, I8, I32, I64, DOUBLE = irbuild.I1, irbuild.I8, irbuild.I32, irbuild.I64, irbuild.DOUBLE


def _to_double(b, token, x):
    """The exact double of x (a value of the type of `token`)."""
    if token in float8.BY_TOKEN:
        return _decode(b, float8.BY_TOKEN[token], x)
    if token == "BF16":             # exact (bfloat_ir.widen_value)
        return bfloat_ir.widen_value(b, x, "double")
    if token == "FP64":
        return b.fadd(x, ir.Constant(DOUBLE, -0.0), name="d")
    if token in _FLOAT_TYPES:
        return b.fpext(x, DOUBLE, name="d")
    return (b.sitofp if token[0] == "I" else b.uitofp)(x, DOUBLE, name="d")


def _decode(b, fmt, x):
    """The fp8 pattern x (i8) as a double: the significand (with its implicit bit) times a
    power of two, both exact; the E5M2 infinities and NaNs, the E4M3 NaN, the sign (NaNs
    keep theirs)."""
    m, bias = fmt.mantissa_bits, fmt.bias
    top = (1 << fmt.exponent_bits) - 1

    def i32(v):
        return ir.Constant(I32, v)
    u = b.zext(x, I32, name="u")
    exponent = b.and_(b.lshr(u, i32(m), name="e"), i32(top), name="e.f")
    fraction = b.and_(u, i32((1 << m) - 1), name="f")
    normal = irbuild.icmp(b, "ne", exponent, i32(0), "normal")
    significand = b.or_(fraction, b.select(normal, i32(1 << m), i32(0), name="lead"), name="sig")
    power = b.add(b.select(normal, exponent, i32(1), name="ee"), i32(1023 - bias - m), name="pe")
    scale = b.bitcast(b.shl(b.zext(power, I64, name="pe.w"), ir.Constant(I64, 52), name="pe.s"), DOUBLE,
                      name="scale")
    magnitude = b.fmul(b.uitofp(significand, DOUBLE, name="sigd"), scale, name="mag")
    all_ones = irbuild.icmp(b, "eq", exponent, i32(top), "top")
    zero_fraction = irbuild.icmp(b, "eq", fraction, i32(0), "f.zero")
    if fmt.has_infinity:            # E5M2: IEEE 754 specials
        infinite = b.and_(all_ones, zero_fraction, name="isinf")
        nan = b.and_(all_ones, b.xor(zero_fraction, ir.Constant(I1, 1), name="f.nz"), name="isnan")
        magnitude = b.select(infinite, ir.Constant(DOUBLE, float("inf")), magnitude, name="m1")
    else:                           # E4M3: only S.1111.111 is NaN
        nan = b.and_(all_ones, irbuild.icmp(b, "eq", fraction, i32((1 << m) - 1), "f.all"), name="isnan")
    magnitude = b.select(nan, ir.Constant(DOUBLE, float("nan")), magnitude, name="m2")
    negative = irbuild.icmp(b, "uge", u, i32(128), "neg")
    return b.select(negative, b.fneg(magnitude, name="negm"), magnitude, name="d")


def _encode(b, fmt, d, saturate):
    """The double d as the fp8 pattern (i8): the quantum q = 2**(max(exponent, emin) -
    mantissa bits), n = roundeven(|d| / q) (both steps exact but the one rounding), the
    pattern (e - emin) * 2**m + n (a carry of n into the next binade gives the next
    exponent's pattern by itself); past the largest finite value: NaN (E4M3), infinity
    (E5M2), or with saturation the largest finite; NaN stays NaN; the sign last."""
    m, emin = fmt.mantissa_bits, fmt.min_exponent
    overflow = fmt.max_bits if saturate else (fmt.nan_bits if not fmt.has_infinity else 0x7C)

    def i64(v):
        return ir.Constant(I64, v)
    sign = b.select(irbuild.icmp(b, "slt", b.bitcast(d, I64, name="x.b"), i64(0), "x.neg"),
                    ir.Constant(I8, -128), ir.Constant(I8, 0), name="sign")
    a = irbuild.intrinsic(b, "fabs", [d], "a")
    nan = irbuild.fcmp(b, "uno", d, ir.Constant(DOUBLE, 0.0), "isnan.x")
    e0 = b.sub(b.lshr(b.bitcast(a, I64, name="a.b"), i64(52), name="biased"), i64(1023), name="e0")
    ex = b.select(irbuild.icmp(b, "slt", e0, i64(emin), "small"), i64(emin), e0, name="ex")
    q = b.bitcast(b.shl(b.add(ex, i64(1023 - m), name="qe"), i64(52), name="q.b"), DOUBLE, name="q")
    n = irbuild.intrinsic(b, "roundeven", [b.fdiv(a, q, name="scaled")], "n")
    r = b.fmul(n, q, name="r")
    over = b.or_(irbuild.fcmp(b, "oeq", a, ir.Constant(DOUBLE, float("inf")), "isinf.x"),
                 irbuild.fcmp(b, "ogt", r, ir.Constant(DOUBLE, float(fmt.max_finite)), "big"), name="over")
    ni = irbuild.intrinsic(b, "fptoui.sat", [n], "ni", types=[I64, DOUBLE], ret=I64)
    encoded = b.add(b.shl(b.sub(ex, i64(emin), name="eoff"), i64(m), name="eoff.s"), ni, name="enc")
    pattern = b.select(over, ir.Constant(I8, overflow), b.trunc(encoded, I8, name="enc8"), name="o")
    pattern = b.select(nan, ir.Constant(I8, fmt.nan_bits), pattern, name="o2")
    return b.or_(pattern, sign, name="r8")


def _from_double(b, token, d, ret):
    """d as the type `ret` of `token` (the exact value rounded once: exact for every float
    type, which holds each fp8 value; integers saturate, NaN -> 0)."""
    if token == "FP64":
        return b.fadd(d, ir.Constant(DOUBLE, -0.0), name="res")
    if token == "BF16":             # exact: bf16 holds every fp8 value
        return bfloat_ir.round_double_value(b, d)
    if token in _FLOAT_TYPES:
        return b.fptrunc(d, ret, name="res")
    sign = "s" if token[0] == "I" else "u"
    return irbuild.intrinsic(b, f"fpto{sign}i.sat", [d], "res", types=[ret, DOUBLE], ret=ret)


def convert(b, source, target, x, ret, saturate=False):
    """x converted from the type of token `source` to that of `target` (float8.BY_TOKEN's or
    FP16/FP32/FP64/BF16/I../U..) as a scalar conversion, through its exact double; an fp8
    result is its i8 bits, `ret` the result's type."""
    d = _to_double(b, source, x)
    if target in float8.BY_TOKEN:
        return _encode(b, float8.BY_TOKEN[target], d, saturate)
    return _from_double(b, target, d, ret)


_MATRIX_PEERS = {"half": "FP16", "float": "FP32", "double": "FP64", "bfloat": "BF16"}


def _matrix_token(mt, dtype):
    """The conversion token of a matrix's component: its fp8 format's, an integer's from its
    dtype (the signedness the callee's mangling gives, coop_operands.component_dtype), or a
    float type's; None for anything else."""
    if mt.fp8 is not None:
        return mt.fp8.token
    if dtype.kind in "iu":
        return float8.INTEGER_TOKENS.get((dtype.itemsize * 8, dtype.kind == "i"))
    return _MATRIX_PEERS.get(mt.elem)


def matrix_cast(m, r, source_dtype, target_dtype, name):
    """The element cast of a conversion of matrices m -> r (coop_routines.MatrixType), one
    side or both fp8 (not the same format: coop_routines copies that), as a builder function (builder, value) -> value: each element as the
    scalar conversion `(T)x` without saturation (docs/coopmat2-semantics.md "fp8": a matrix
    cast does not saturate). As the interpreter (interp/float8.convert), the component
    types decide, not the Op*Convert opcode: an integer side is signed or unsigned as its
    dtype (from the callee's mangling) says; integers become the exact double first, fp8 ->
    integer goes toward zero, saturating, NaN -> 0. Anything else is left to the
    interpreter, with the reason."""
    tokens = [_matrix_token(t, np.dtype(d)) for t, d in ((m, source_dtype), (r, target_dtype))]
    if None in tokens:
        raise Unsupported(f"the fp8 cooperative-matrix conversion {name} from {m.elem} to {r.elem}")
    ret = irbuild.parse_type(r.elem)
    return lambda b, x: convert(b, tokens[0], tokens[1], x, ret)


def definition(name, conversion, ret, params):
    """The `define internal` of one conversion callee: a scalar, or a vector converted
    element by element (the SPIRV-LLVM-Translator's <N x T> forms, as the interpreter)."""
    if len(params) != 1:
        raise Unsupported(f"the fp8 conversion '{name}' of {len(params)} operands")
    vector = params[0].startswith("<")
    if vector != ret.startswith("<"):
        raise Unsupported(f"the fp8 conversion '{name}' from {params[0]} to {ret}")
    fn, b = irbuild.builtin(name, ret, params)
    t, x = fn.return_value.type, fn.args[1]
    if irbuild.lanes(x.type) is None:
        b.ret(convert(b, conversion.source, conversion.target, x, t, conversion.saturate))
        return irbuild.function_text(fn)
    if irbuild.lanes(x.type) != irbuild.lanes(t):
        raise Unsupported(f"the fp8 conversion '{name}' from {params[0]} to {ret}")
    value = ir.Constant(t, ir.Undefined)
    for k in range(t.count):
        lane = b.extract_element(x, ir.Constant(I64, k), name=f"e{k}.x")
        converted = convert(b, conversion.source, conversion.target, lane, t.element, conversion.saturate)
        value = b.insert_element(value, converted, ir.Constant(I64, k), name=f"v{k}")
    b.ret(value)
    return irbuild.function_text(fn)
