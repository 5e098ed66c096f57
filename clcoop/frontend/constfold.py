"""Constant folding (C99 6.6): the one place that evaluates constant expressions. The typed AST
carries the results (tast.py), lower only reads them."""
import math
import struct

from clcoop import float8
from clcoop.frontend import tast
from clcoop.frontend import types as T
from clcoop.frontend.check_support import Abandon
from clcoop.frontend.types import as_arith, is_integer_like, unqualified_elem, wrap_int


def _struct_code(t):
    t = as_arith(t)
    if t.is_float:
        return {16: "e", 32: "f", 64: "d"}[t.bits]
    code = {8: "b", 16: "h", 32: "i", 64: "q"}[t.bits]
    return code if t.signed else code.upper()


def fold_as_type(value, source_type, target_type):
    """A folded as_<type> (OpenCL C 3.0 6.4.4.2): the same bytes read as the target type.
    Lets `constant float x = INFINITY;` (as_float(0x7f800000) in the default header) fold."""
    if value is None:
        return None
    src_elem, dst_elem = unqualified_elem(source_type), unqualified_elem(target_type)
    values = value if isinstance(value, tuple) else (value,)
    src_count = source_type.count if isinstance(source_type, T.VectorType) else 1
    dst_count = target_type.count if isinstance(target_type, T.VectorType) else 1
    if len(values) != src_count or 3 in (src_count, dst_count):
        return None          # 3-component vectors have a padding element: not folded
    try:
        data = struct.pack("<" + _struct_code(src_elem) * src_count,
                           *(wrap_int(int(v), as_arith(src_elem)) if as_arith(src_elem).is_integer else v
                             for v in values))
        out = struct.unpack("<" + _struct_code(dst_elem) * dst_count, data)
    except (struct.error, OverflowError, KeyError):
        return None
    return out if isinstance(target_type, T.VectorType) else out[0]



def fold(e):
    """Value of a constant expression (int, float, or tuple for vectors), else None."""
    if isinstance(e, tast.IntConst):
        return e.value
    if isinstance(e, tast.FloatConst):
        return e.value
    if isinstance(e, (tast.ImplicitCast, tast.Cast)):
        v = fold(e.operand)
        if v is None:
            return None
        return fold_cast(v, e.kind, e.operand.type, e.type)
    if isinstance(e, tast.Unary):
        v = fold(e.operand)
        if v is None or isinstance(v, tuple):
            return None
        if e.op == "-":
            return fold_wrap(-v, e.type)
        if e.op == "~":
            return fold_wrap(~v, e.type)
        if e.op == "!":
            return int(not v)
        return None
    if isinstance(e, tast.Binary):
        lv, rv = fold(e.left), fold(e.right)
        if lv is None or rv is None or isinstance(lv, tuple) or isinstance(rv, tuple):
            return None
        return fold_binary(e.op, lv, rv, e.left.type, e.type)
    if isinstance(e, tast.Logical):
        lv = fold(e.left)
        if lv is None or isinstance(lv, tuple):
            return None
        if e.op == "&&" and not lv:
            return 0
        if e.op == "||" and lv:
            return 1
        rv = fold(e.right)
        return None if rv is None or isinstance(rv, tuple) else int(bool(rv))
    if isinstance(e, tast.Conditional):
        c = fold(e.cond)
        if c is None or isinstance(c, tuple):
            return None
        return fold(e.then if c else e.otherwise)
    if isinstance(e, tast.AsType):
        return fold_as_type(fold(e.operand), e.operand.type, e.type)
    if isinstance(e, tast.VectorLiteral):
        parts = []
        for el in e.elements:
            v = fold(el)
            if v is None:
                return None
            parts.extend(v if isinstance(v, tuple) else [v])
        if len(parts) == 1:
            parts = parts * e.type.count
        return tuple(parts)
    return None


def fold_wrap(v, t):
    t = as_arith(t)
    if isinstance(t, T.ScalarType) and t.is_integer:
        return wrap_int(int(v), t)
    if isinstance(t, T.ScalarType) and t.is_float:
        return float(v)
    return None


def fold_cast(v, kind, src, dst):
    if kind == "splat":
        return (v,) * dst.count if not isinstance(v, tuple) else v
    if isinstance(v, tuple):
        return None
    if kind in ("int-to-bool", "float-to-bool"):
        return int(bool(v))
    if kind == "null-to-pointer":
        return 0
    if kind in ("pointer-bitcast", "addrspace-to-generic", "pointer-to-int", "int-to-pointer", "to-void"):
        return None
    if kind in ("fp8", "fp8-sat"):
        return _fold_fp8(v, src, dst, kind == "fp8-sat")
    d = as_arith(dst)
    if not isinstance(d, T.ScalarType):
        return None
    if d.is_float:
        return float(v)
    try:
        return wrap_int(int(v), d)
    except (OverflowError, ValueError):
        return None


def _fold_fp8(v, src, dst, saturate):
    """A conversion to or from fp8 (frontend/fp8.py) as the engines run it: an fp8 constant
    is its pattern, as the (signed) i8 lower emits; into an integer, toward zero, saturating,
    NaN -> 0 (the engines' one float -> int rule, docs/native.md)."""
    src, dst = _element(src), as_arith(dst)
    if src.kind == "fp8":
        v = float8.decode_bits(v, float8.FORMATS[src.name])
    if dst.kind == "fp8":
        bits = float8.encode_value(v, float8.FORMATS[dst.name], saturate)
        return bits - 256 if bits >= 128 else bits
    if dst.is_float:
        return float(v)
    lo, hi = (-(1 << (dst.bits - 1)), (1 << (dst.bits - 1)) - 1) if dst.signed else (0, (1 << dst.bits) - 1)
    if math.isnan(v):
        return 0
    return lo if v <= lo else hi if v >= hi else int(v)


def fold_binary(op, a, b, operand_type, result_type):
    t = as_arith(operand_type)
    is_float = isinstance(t, T.ScalarType) and t.is_float
    try:
        if op == "+":
            r = a + b
        elif op == "-":
            r = a - b
        elif op == "*":
            r = a * b
        elif op == "/":
            if b == 0 and is_float:
                # IEEE 754 division by zero: +-inf, or NaN for 0/0 (clang folds it too).
                r = math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)
                return fold_wrap(r, result_type)
            if b == 0:
                return None
            r = a / b if is_float else int(a / b) if (a < 0) != (b < 0) else a // b
            if not is_float and (a < 0) != (b < 0):
                r = -(abs(a) // abs(b))
        elif op == "%":
            if b == 0:
                return None
            r = abs(a) % abs(b) * (1 if a >= 0 else -1)
        elif op == "<<":
            r = a << (b & (t.bits - 1))
        elif op == ">>":
            r = a >> (b & (t.bits - 1))
        elif op == "&":
            r = a & b
        elif op == "|":
            r = a | b
        elif op == "^":
            r = a ^ b
        elif op in ("<", ">", "<=", ">=", "==", "!="):
            return int({"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b,
                        "!=": a != b}[op])
        else:
            return None
    except (TypeError, ValueError, OverflowError):
        return None
    return fold_wrap(r, result_type)


# Cast kinds of a scalar constant that lower emits as a constant, as clang folds them before
# codegen (lower reads cast_constant; it folds nothing itself).
_FOLDED_CAST_KINDS = ("int-to-int", "int-to-float", "float-to-float")


def cast_constant(e):
    """The value lower emits for Cast/ImplicitCast `e` as a constant, or None: a conversion
    int->int, int->float or float->wider float of a scalar constant (an IntConst or FloatConst,
    through no-op casts, folded casts and the right operand of a comma)."""
    if e.kind not in _FOLDED_CAST_KINDS or not isinstance(e.type, T.ScalarType):
        return None
    value = _lowered_constant(e.operand)
    if value is None:
        return None
    src, dst = _element(e.operand.type), e.type
    if e.kind == "int-to-int":
        return wrap_int(_source_value(value, src), dst) if dst.kind == "int" else None
    if e.kind == "int-to-float":
        return float(_source_value(value, src))
    if dst.bits >= src.bits and dst != T.BF16:
        return float(value)
    if dst == T.BF16 and src in (T.DOUBLE, T.FLOAT):
        # clang folds (__bf16)constant too; lower's bfloat constant rounds the source value once.
        return float(value) if src == T.DOUBLE else struct.unpack("<f", struct.pack("<f", value))[0]
    return None


def _element(t):
    t = unqualified_elem(t)
    return T.INT if isinstance(t, T.EnumType) else t


def _source_value(value, t):
    """An integer constant's value as its (possibly narrower) source type holds it."""
    return wrap_int(value, t) if t.kind == "int" else value


def _lowered_constant(e):
    """The scalar constant lower makes of `e` (an int or float), else None."""
    if isinstance(e, (tast.IntConst, tast.FloatConst)):
        return None if isinstance(e.value, bool) else e.value
    if isinstance(e, (tast.ImplicitCast, tast.Cast)):
        if e.kind in ("noop", "pointer-bitcast"):
            return _lowered_constant(e.operand)
        return cast_constant(e)
    if isinstance(e, tast.Comma):
        return _lowered_constant(e.right)
    return None


class ConstantFolding:
    """Evaluates integer constant expressions for the checker, reporting non-constants.
    ctx: the checker's CheckContext; expressions: what types an expression
    (.expr(node), .rvalue(e): check_expr.ExpressionChecks)."""

    def __init__(self, ctx, expressions):
        self.ctx = ctx
        self.expressions = expressions

    def integer_constant(self, node, what):
        """Evaluate an integer constant expression (C99 6.6) or report `<what> requires an integer constant`."""
        try:
            e = self.expressions.rvalue(self.expressions.expr(node))
        except Abandon:
            raise
        value = fold(e)
        if not is_integer_like(e.type) or not isinstance(value, int):
            self.ctx.fail(f"{what} requires an integer constant", node)
        return value
