"""Calls of built-in functions: OpenCL C built-ins (builtins.py), convert_<type> and as_<type>,
clang's __builtin_* functions, address-space queries and printf's format checks."""
import math
import re
from functools import lru_cache

from pycparser import c_ast

from clcoop import printf_format
from clcoop.diagnostics import SourceLocation
from clcoop.frontend import builtins as _builtins
from clcoop.frontend import fp8, tast
from clcoop.frontend import types as T
from clcoop.frontend.check_support import location
from clcoop.frontend.coop_tensor_check import coop_what
from clcoop.frontend.conversions import is_arith_like, spell
from clcoop.frontend.types import is_integer_like, unqualified_elem


# ------------------------------------------------------------------ small type helpers
# clang built-ins OpenCL code uses (clang's Builtins.td), name -> (kind, argument/result info, arity).
# __builtin_astype(x, T) is as_T(x), a macro of the default header (its second argument is a type).
CLANG_BUILTINS = {
    "__builtin_expect": ("expect", "long", 2),
    "__builtin_assume": ("assume", None, 1),
    "__builtin_unreachable": ("unreachable", None, 0),
    "__builtin_memcpy": ("memcpy", None, 3),
    "__builtin_memset": ("memset", None, 3),
    "__builtin_clz": ("ctlz", "uint", 1), "__builtin_clzl": ("ctlz", "ulong", 1),
    "__builtin_clzll": ("ctlz", "ulong", 1),
    "__builtin_ctz": ("cttz", "uint", 1), "__builtin_ctzl": ("cttz", "ulong", 1),
    "__builtin_ctzll": ("cttz", "ulong", 1),
    "__builtin_popcount": ("ctpop", "uint", 1), "__builtin_popcountl": ("ctpop", "ulong", 1),
    "__builtin_popcountll": ("ctpop", "ulong", 1),
    "__builtin_isnan": ("is.fpclass", "nan", 1), "__builtin_isinf": ("is.fpclass", "inf", 1),
    "__builtin_isfinite": ("is.fpclass", "finite", 1),
    "__builtin_inff": ("float-const", ("float", "inf"), 0), "__builtin_inf": ("float-const", ("double", "inf"), 0),
    "__builtin_huge_valf": ("float-const", ("float", "inf"), 0),
    "__builtin_huge_val": ("float-const", ("double", "inf"), 0),
    "__builtin_fabsf": ("fabs", "float", 1), "__builtin_fabs": ("fabs", "double", 1),
    "__builtin_nanf": ("float-const", ("float", "nan"), 1), "__builtin_nan": ("float-const", ("double", "nan"), 1),
}
# OpenCL C 2.0 address-space queries (6.15.10): name -> the space of the result.
ADDRESS_SPACE_QUERIES = {"to_global": T.GLOBAL, "to_local": T.LOCAL, "to_private": T.PRIVATE}
# llvm.is.fpclass test masks clang uses (LangRef: bit 0 sNaN, 1 qNaN, 2-4 negative inf/normal/
# subnormal, 5-6 -0/+0, 7-9 positive subnormal/normal/inf).
FPCLASS_MASKS = {"nan": 3, "inf": 516, "finite": 504}
# convert_<type><n>[_sat][_rounding] (OpenCL C 3.0 6.4.3).
CONVERT_RE = re.compile(r"convert_([a-z]+?)(\d*)(_sat)?(_rte|_rtz|_rtp|_rtn)?$")


@lru_cache(maxsize=256)
def _conversions(spelling):
    """printf_format.scan of a format literal's spelling, once per spelling: macro-made code
    repeats a few formats at every expansion (288 printf calls, a handful of formats, in
    pocl's test_bitselect.cl). Its Conversions are frozen records."""
    return tuple(printf_format.scan(spelling))


class BuiltinCalls:
    """The checker's calls of built-in functions: the overloaded library (builtins.py),
    convert_/as_ conversions, printf, clang's __builtin_ functions and the address-space
    queries. ctx: the checker's CheckContext; expressions: what types the arguments
    (.expr(node), .rvalue(e), .sizeof(t, node), .to_bool(e, node): check_expr.ExpressionChecks);
    conversions, literals: those parts (argument conversions, printf's format string)."""

    def __init__(self, ctx, expressions, conversions, literals):
        self.ctx = ctx
        self.expressions = expressions
        self.conversions = conversions
        self.literals = literals

    def address_space_query(self, name, args_nodes, node):
        """to_global/to_local/to_private (OpenCL C 3.0 6.15.10): the generic pointer argument
        as a pointer into that address space, or null; clang calls `__to_global(ptr)`."""
        if len(args_nodes) != 1:
            self.ctx.fail(f"invalid number of arguments to function: '{name}'", node)
        arg = self.expressions.rvalue(self.expressions.expr(args_nodes[0]))
        t = arg.type
        if not t.is_pointer or t.addrspace == T.CONSTANT:
            self.ctx.fail(f"invalid argument {spell(t)} to function: '{name}', expecting a generic pointer "
                          "argument", args_nodes[0])
        generic = T.PointerType(t.pointee, T.GENERIC, t.const, t.volatile)
        if t.addrspace != T.GENERIC:
            arg = self.conversions.pointer_space_cast(arg, generic)
        result = T.PointerType(t.pointee, ADDRESS_SPACE_QUERIES[name], t.const, t.volatile)
        return tast.Intrinsic(result, location(node), name, [arg])

    def clang_builtin_call(self, name, args_nodes, node):
        """The clang built-ins OpenCL code uses (CLANG_BUILTINS), with clang-22's IR at -O0."""
        kind, ret_name, arity = CLANG_BUILTINS[name]
        loc = location(node)
        if len(args_nodes) != arity:
            self.ctx.fail(f"too {'few' if len(args_nodes) < arity else 'many'} arguments to function call, "
                          f"expected {arity}, have {len(args_nodes)}",
                          self.ctx.call_rparen_location(node) if len(args_nodes) < arity else args_nodes[arity])
        if kind == "float-const":
            value = {"inf": math.inf, "nan": math.nan}[ret_name[1]]
            return tast.FloatConst(T.SCALARS[ret_name[0]], loc, value)
        if kind == "unreachable":
            return tast.Intrinsic(T.VOID, loc, "unreachable", [])
        args = [self.expressions.rvalue(self.expressions.expr(a)) for a in args_nodes]
        if kind == "expect":          # long __builtin_expect(long, long): the value (no IR at -O0)
            for a, n in zip(args, args_nodes):
                self.conversions.convert(a, T.LONG, n, "passing")
            return self.conversions.convert(args[0], T.LONG, args_nodes[0], "passing")
        if kind == "assume":
            self.expressions.to_bool(args[0], args_nodes[0])       # a scalar condition
            return tast.Intrinsic(T.VOID, loc, "assume", [args[0]])
        if kind in ("memcpy", "memset"):
            for a, n in zip(args[:2] if kind == "memcpy" else args[:1], args_nodes):
                if not a.type.is_pointer:
                    self.ctx.fail(f"passing '{spell(a.type)}' to parameter of incompatible type "
                                  f"'{'const ' if a is args[1] else ''}void *'", n)
            last = self.conversions.convert(args[2], self.ctx.target.size_t, args_nodes[2], "passing")
            middle = args[1] if kind == "memcpy" else tast.ImplicitCast(
                T.CHAR, args[1].loc, "int-to-int", self.conversions.convert(args[1], T.INT, args_nodes[1], "passing"))
            return tast.Intrinsic(args[0].type, loc, kind, [args[0], middle, last], (False,))
        if kind in ("ctlz", "cttz", "ctpop"):
            value = self.conversions.convert(args[0], T.SCALARS[ret_name], args_nodes[0], "passing")
            return tast.Intrinsic(T.INT, loc, kind, [value], () if kind == "ctpop" else (True,))
        if kind == "fabs":
            value = self.conversions.convert(args[0], T.SCALARS[ret_name], args_nodes[0], "passing")
            return tast.Intrinsic(value.type, loc, kind, [value])
        if kind == "is.fpclass":      # int __builtin_isnan(x) & co.: llvm.is.fpclass with clang's masks
            value = args[0]
            if not (value.type.is_float or value.type.is_integer):
                self.ctx.fail(f"floating point classification requires argument of floating point type "
                              f"(passed in '{spell(value.type)}')", args_nodes[0])
            if not value.type.is_float:
                value = self.conversions.arith_convert(value, T.DOUBLE)
            return tast.Intrinsic(T.INT, loc, "is.fpclass", [value], (FPCLASS_MASKS[ret_name],))
        raise AssertionError(kind)

    def printf_call(self, args_nodes, node):
        """OpenCL C 3.0 6.15.14: `int printf(constant char *restrict format, ...)`."""
        if not args_nodes:
            # 'st' is the parameter's name in clang's opencl-c-base.h
            self.ctx.fail("too few arguments to function call, at least argument 'st' must be "
                          "specified", self.ctx.call_rparen_location(node))
        format_type = T.PointerType(T.CHAR, T.CONSTANT, True)
        first = args_nodes[0]
        is_literal = isinstance(first, c_ast.Constant) and first.type == "string"
        fmt = self.printf_argument(first) if is_literal else self.expressions.rvalue(self.expressions.expr(first))
        fmt = self.conversions.convert(fmt, format_type, first, "passing")
        args = [self.printf_argument(a) for a in args_nodes[1:]]
        if is_literal:
            self.check_printf_argument_count(first, args_nodes[1:])
        return tast.Printf(T.INT, location(node), fmt, args)

    def check_printf_argument_count(self, literal, data_nodes):
        """clang's -Wformat-insufficient-args / -Wformat-extra-args, at the conversion and at
        the first unused argument. `*` widths and precisions take an argument each. A
        conversion OpenCL C's grammar rejects (printf_format) is a warning with the words the
        interpreter faults with when it runs the call."""
        used = 0
        # The literal as spelled, without its quotes (offsets are the spelling's, minus one).
        # A conversion's location is found only for a warning: finding it reads the source
        # line, for each of ~1,600 conversions of pocl's macro-made printf calls.
        for conversion in _conversions(literal.value[1:-1]):
            if conversion.error is not None:
                self.ctx.warn(f"invalid printf format: {conversion.error}",
                              self.literal_offset_location(literal, conversion.end))
            used += conversion.arguments
            if used > len(data_nodes):
                self.ctx.warn("more '%' conversions than data arguments",
                              self.literal_offset_location(literal, conversion.end))
                return
        if used < len(data_nodes):
            self.ctx.warn("data argument not used by format string", data_nodes[used])

    def literal_offset_location(self, literal, offset):
        """The source location of character `offset` of a string literal's spelling (quote
        included), when the literal is written on one line as spelled; else the literal's."""
        loc = location(literal)
        text = self.ctx.diag.sources.line(loc.file, loc.line) if self.ctx.diag.sources is not None and loc else None
        if text is None or text.expandtabs(1)[loc.column - 1:loc.column - 1 + len(literal.value)] != literal.value:
            return loc
        return SourceLocation(loc.file, loc.line, loc.column + offset)

    def printf_argument(self, node):
        """A string literal is a `constant char *`; everything else gets the default argument
        promotions of a variadic call (C99 6.5.2.2p7)."""
        if isinstance(node, c_ast.Constant) and node.type == "string":
            data = self.literals.string_bytes(node) + b"\0"
            return tast.StringLiteral(T.PointerType(T.CHAR, T.CONSTANT, True), location(node), data)
        value = self.expressions.rvalue(self.expressions.expr(node))
        t = value.type
        if t.is_coop_opaque:
            self.ctx.fail(f"cannot pass a {coop_what(t)} of type '{spell(t)}' to printf"
                          + ("; pass its elements" if t.is_coop_matrix else ""), node)
        if isinstance(t, T.StructType):
            self.ctx.fail(f"cannot pass a struct of type '{spell(t)}' to printf", node)
        if t.is_float and t not in (T.DOUBLE, T.BF16):     # clang-22 passes __bf16 as it is
            return self.conversions.arith_convert(value, T.DOUBLE)
        if is_integer_like(t) and (isinstance(t, T.EnumType) or t.bits < 32):
            return self.conversions.arith_convert(value, T.INT)
        return value

    def builtin_call(self, name, args_nodes, node):
        args = [self.expressions.rvalue(self.expressions.expr(a)) for a in args_nodes]
        for a, n in zip(args, args_nodes):
            if a.type.is_coop_matrix:
                self.ctx.fail(f"cooperative matrix argument is not allowed in a call to '{name}'", n)
        arg_types = [a.type for a in args]
        try:
            overload = _builtins.resolve(name, arg_types, self.ctx.target)
        except _builtins.BuiltinMismatch as exc:
            # The candidates are declared nowhere in the user's files: notes without a location.
            where = self.ctx.call_rparen_location(node) if exc.message.startswith("too few arguments") else node
            self.ctx.fail(exc.message, where, [self.ctx.note(text, None) for text in getattr(exc, "notes", [])])
        converted = []
        for a, pt, n in zip(args, overload.params, args_nodes):
            # builtins.conversion_warnings words the pointer warnings for built-ins (clang's).
            converted.append(self.conversions.convert(a, pt, n, "passing", pointer_warnings=False))
        for text in _builtins.conversion_warnings(overload, arg_types):
            self.ctx.warn(text, node)
        return tast.BuiltinCall(overload.ret, location(node), overload, converted)

    def convert_target(self, name):
        if (fp8_target := fp8.convert_target(name)) is not None:
            return fp8_target
        m = CONVERT_RE.match(name)
        if m is None:
            return None
        elem = T.SCALARS.get(m.group(1))
        if elem is None or elem.name not in T.VECTOR_ELEMENT_NAMES:
            return None
        n = int(m.group(2)) if m.group(2) else 1
        if n != 1 and n not in T.VECTOR_SIZES:
            return None
        return T.vector_of(elem, n), bool(m.group(3)), (m.group(4) or "")[1:] or None

    def convert_call(self, name, args_nodes, node):
        """convert_<type>[_sat][_<rounding>] (OpenCL C 3.0 6.4.3)."""
        t, sat, rounding = self.convert_target(name)
        if len(args_nodes) != 1:
            self.ctx.fail(f"too {'few' if not args_nodes else 'many'} arguments to function call, expected 1, "
                          f"have {len(args_nodes)}", node)
        v = self.expressions.rvalue(self.expressions.expr(args_nodes[0]))
        st = v.type
        if fp8.involves_fp8(st, t):
            return fp8.convert_call(self.conversions, name, v, t, sat, rounding, node)
        count = st.count if isinstance(st, T.VectorType) else 1
        tcount = t.count if isinstance(t, T.VectorType) else 1
        if not (is_arith_like(st) or isinstance(st, T.VectorType)) or count != tcount or st == T.BOOL:
            self.ctx.fail(f"no matching function for call to '{name}' with argument of type '{spell(st)}'", node)
        if isinstance(st, T.EnumType):
            v = self.conversions.arith_convert(v, T.INT)
        if sat and unqualified_elem(t).is_float:
            self.ctx.fail(f"'_sat' is not allowed in a conversion to a floating-point type ('{name}')", node)
        return tast.ConvertCall(t, location(node), v, sat, rounding)

    def as_type_call(self, name, args_nodes, node):
        """as_<type> (OpenCL C 3.0 6.4.4.2): a bitcast between types of the same size."""
        t = T.builtin_typedefs(self.ctx.target)[name[3:]]
        if len(args_nodes) != 1:
            self.ctx.fail(f"too {'few' if not args_nodes else 'many'} arguments to function call, expected 1, "
                          f"have {len(args_nodes)}", node)
        v = self.expressions.rvalue(self.expressions.expr(args_nodes[0]))
        if isinstance(v.type, T.EnumType):
            v = self.conversions.arith_convert(v, T.INT)
        if not (v.type.is_arithmetic or isinstance(v.type, T.VectorType)) or v.type == T.BOOL:
            self.ctx.fail(f"invalid operand of type '{spell(v.type)}' to '{name}'", node)
        if self.expressions.sizeof(v.type, node) != self.expressions.sizeof(t, node) or t == T.BOOL or t.is_void:
            self.ctx.fail(f"invalid reinterpretation: sizes of '{spell(t)}' and '{spell(v.type)}' must match", node)
        return tast.AsType(t, location(node), v)
