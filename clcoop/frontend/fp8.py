"""`__fp8_e4m3` / `__fp8_e5m2` (SPV_EXT_float8) in OpenCL C: the conversions the checker
accepts and how they are lowered (docs/coopmat2-semantics.md "fp8").

- `(T)x` between an fp8 type and any integer or floating type (bool excepted), or the other
  fp8 type, is the extension's conversion: one round-to-nearest-even; out of range and
  infinity give NaN (E4M3) or infinity (E5M2).
- `convert_<T>(x)` is the same conversion; `convert___fp8_e4m3_sat(x)` (the OpenCL C 6.4.3
  name `convert_<destType>_sat` of the type) saturates: out of range and infinity give the
  largest finite value of the sign (SaturatedToLargestFloat8NormalConversionEXT). `_rte` is
  the only rounding suffix (the extension's only rounding).
- Implicit conversions and operators do not take fp8 values (the extension allows no
  arithmetic on them); the checker's usual diagnostics report them.
"""
import re

from clcoop import float8
from clcoop.frontend import tast
from clcoop.frontend import types as T
from clcoop.frontend.check_support import location

CAST = "fp8"              # tast.Cast kinds
CAST_SATURATING = "fp8-sat"
_CONVERT_RE = re.compile(r"convert_(__fp8_e4m3|__fp8_e5m2)(_sat)?(_rte|_rtz|_rtp|_rtn)?$")


def is_fp8(t):
    return isinstance(t, T.ScalarType) and t.kind == "fp8"


def involves_fp8(source, target):
    return is_fp8(source) or is_fp8(target)


def convert_target(name):
    """(type, saturate, rounding) of `convert___fp8_e4m3[_sat][_rte]`, None otherwise."""
    m = _CONVERT_RE.match(name)
    if m is None:
        return None
    return T.SCALARS[m.group(1)], bool(m.group(2)), (m.group(3) or "")[1:] or None


def cast(conversions, operand, target, node, saturate=False, name=None):
    """The tast.Cast of a conversion to or from fp8; a located error for other types.
    conversions: the checker's Conversions (its .ctx reports)."""
    source = operand.type
    what = f"'{name}'" if name else "cast"
    if isinstance(source, T.EnumType):
        operand = conversions.arith_convert(operand, T.INT)
        source = T.INT
    for t in (source, target):
        if not (is_fp8(t) or (t.is_arithmetic and t != T.BOOL)):
            conversions.ctx.fail(f"invalid {what} from '{source.spelling()}' to '{target.spelling()}': "
                                 f"an fp8 value converts to and from integer and floating-point scalars",
                                 location(node))
    if saturate and not is_fp8(target):
        conversions.ctx.fail(f"'_sat' is not allowed in a conversion from an fp8 type ({what}): only a "
                             f"conversion into fp8 saturates (SPV_EXT_float8)", location(node))
    return tast.Cast(target, location(node), CAST_SATURATING if saturate else CAST, operand)


def convert_call(conversions, name, operand, target, saturate, rounding, node):
    """convert_<T>[_sat][_rte] with fp8 on either side (conversions: as for cast)."""
    if rounding not in (None, "rte"):
        conversions.ctx.fail(f"'{name}': an fp8 conversion rounds to nearest even only (SPV_EXT_float8); "
                             f"use no rounding suffix or '_rte'", location(node))
    return cast(conversions, operand, target, node, saturate, name)


def _token(t):
    if is_fp8(t):
        return float8.FORMATS[t.name].token
    if t.is_float:
        return {"half": "FP16", "__bf16": "BF16", "float": "FP32", "double": "FP64"}[t.name]
    return float8.INTEGER_TOKENS[(t.bits, t.signed)]


def conversion_callee(source, target, saturate):
    """The IR callee name of a conversion (clcoop/float8.py)."""
    conversion = float8.Conversion(_token(source), _token(target), saturate)
    return conversion.mangled("c" if is_fp8(source) else source.itanium())


def lower(lowerer, e, value):
    """The call of a conversion Cast (kind CAST or CAST_SATURATING)."""
    source, target = T.INT if isinstance(e.operand.type, T.EnumType) else e.operand.type, e.type
    name = conversion_callee(source, target, e.kind == CAST_SATURATING)
    irf = lowerer.builtin_function(name, lowerer.value_type(target), [value.type])
    irf.attributes.add("nounwind")
    return lowerer.builder.call(irf, [value], name="fp8conv", cconv="spir_func")
