"""The C conversion rules (C99 6.3, 6.5.4, 6.5.16.1; OpenCL C 3.0 6.3 for vectors): integer
promotions, usual arithmetic conversions, implicit conversion by assignment and casts, and
the type spellings their diagnostics use. As chibicc keeps them in type.c."""
from pycparser import c_ast

from clcoop.frontend import fp8, tast
from clcoop.frontend import types as T
from clcoop.frontend.check_support import location
from clcoop.frontend.constfold import fold
from clcoop.frontend.coop_conversions import coop_matrix_cast
from clcoop.frontend.types import as_arith, is_integer_like


def described(t):
    """A type quoted as clang's diagnostics do, vectors with their shape spelled out."""
    if isinstance(t, T.VectorType):
        return f"'{spell(t)}' (vector of {t.count} '{spell(t.elem)}' values)"
    return f"'{spell(t)}'"


def is_arith_like(t):
    return t.is_arithmetic or isinstance(t, T.EnumType)


def is_scalar_like(t):
    return is_arith_like(t) or t.is_pointer


def signed_int_of_bits(bits):
    return {8: T.CHAR, 16: T.SHORT, 32: T.INT, 64: T.LONG}[bits]


def unsigned_of(t):
    return {"char": T.UCHAR, "short": T.USHORT, "int": T.UINT, "long": T.ULONG}.get(t.name, t)


def promote(t):
    """C99 6.3.1.1 integer promotions (OpenCL: same rule)."""
    t = as_arith(t)
    if t.is_integer and T.INTEGER_RANK[t.name] < T.INTEGER_RANK["int"]:
        return T.INT
    return t


def usual_arithmetic(a, b):
    """C99 6.3.1.8 on scalar types (half ranks below float: OpenCL cl_khr_fp16)."""
    a, b = as_arith(a), as_arith(b)
    if a.is_float or b.is_float:
        floats = [t for t in (a, b) if t.is_float]
        return max(floats, key=lambda t: (t.bits, t != T.BF16))    # __bf16 < half (clang-22)
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a.signed == b.signed:
        return a if T.INTEGER_RANK[a.name] >= T.INTEGER_RANK[b.name] else b
    u, s = (a, b) if not a.signed else (b, a)
    if T.INTEGER_RANK[u.name] >= T.INTEGER_RANK[s.name]:
        return u
    if s.bits > u.bits:
        return s
    return unsigned_of(s)


def comparison_result(t):
    """OpenCL 6.3.d: vector comparisons give signed integer vectors of the operand element width."""
    if isinstance(t, T.VectorType):
        return T.VectorType(signed_int_of_bits(t.elem.bits), t.count)
    return T.INT


def strip_pointer_quals(p):
    return T.PointerType(p.pointee, p.addrspace)


def spell(t):
    """Type spelling in diagnostics, like clang's type printer for pointers: the pointee's
    qualifiers come first (`const __global int *`) and a pointer pointee carries its own
    qualifiers after its star (`__global int *const __generic *`)."""
    if isinstance(t, T.PointerType) and not isinstance(t.pointee, T.ArrayType):
        return spell_qualified(t, [])
    return t.spelling()


def pointee_qualifiers(p):
    # clang prints cv-qualifiers, then the address space; __private stays implicit here.
    quals = [q for q, on in (("const", p.const), ("volatile", p.volatile)) if on]
    if p.addrspace != T.PRIVATE:
        quals.append(T.ADDRSPACE_NAMES[p.addrspace])
    return quals


def spell_qualified(t, quals):
    if isinstance(t, T.PointerType) and not isinstance(t.pointee, T.ArrayType):
        inner = spell_qualified(t.pointee, pointee_qualifiers(t))
        # `int **` as clang prints it: no space between the stars of unqualified levels.
        return inner + ("*" if inner.endswith("*") else " *") + " ".join(quals)
    return " ".join(quals + [t.spelling()])


def arith_or_vector(t):
    """An operand of the arithmetic operators: an arithmetic type or a vector."""
    return is_arith_like(t) or isinstance(t, T.VectorType)


class Conversions:
    """The checker's conversions of expressions: promotions, usual arithmetic conversions,
    assignment conversions (C99 6.5.16.1) and casts (C99 6.5.4, OpenCL C 3.0 6.2).
    ctx: the checker's CheckContext (diagnostics, target)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def promote_expr(self, e):
        if isinstance(e.type, T.VectorType):
            return e
        target = promote(e.type)
        return self.arith_convert(e, target)

    def common_type(self, lt, rt, node):
        """The operation type of a binary arithmetic operator (C99 6.3.1.8, OpenCL 6.3)."""
        if isinstance(lt, T.VectorType) and isinstance(rt, T.VectorType):
            if lt != rt:
                self.ctx.fail(f"cannot convert between vector values of different size or type "
                              f"('{spell(lt)}' and '{spell(rt)}')", node)
            return lt
        if isinstance(lt, T.VectorType):
            return lt
        if isinstance(rt, T.VectorType):
            return rt
        return usual_arithmetic(lt, rt)

    def arith_convert(self, e, t):
        """Implicit conversion between arithmetic/vector types (operands of an operator)."""
        if e.type == t:
            return e
        if not arith_or_vector(e.type):
            # Callers check operand kinds; this keeps a missed case a diagnostic, not a crash.
            self.ctx.fail(f"invalid operand of type '{spell(e.type)}' where an arithmetic value of type "
                          f"'{spell(t)}' is required", e.loc)
        if isinstance(t, T.VectorType):
            if isinstance(e.type, T.VectorType):
                return e     # equal vector types already checked
            scalar = self.arith_convert(e, t.elem)
            return tast.ImplicitCast(t, e.loc, "splat", scalar)
        kind = self.scalar_cast_kind(e.type, t)
        if kind == "noop" and e.type == t:
            return e
        return tast.ImplicitCast(t, e.loc, kind, e)

    @staticmethod
    def scalar_cast_kind(src, dst):
        src, dst = as_arith(src) if not isinstance(src, T.EnumType) else T.INT, dst
        d = as_arith(dst)
        if d == T.BOOL:
            if src.is_float:
                return "float-to-bool"
            if src.is_pointer:
                return "pointer-to-bool"
            return "int-to-bool" if src != T.BOOL else "noop"
        if src == T.BOOL:
            return "bool-to-float" if d.is_float else "bool-to-int"
        if src.is_float and d.is_float:
            return "float-to-float" if src.bits != d.bits or src != d else "noop"
        if src.is_float:
            return "float-to-int"
        if d.is_float:
            return "int-to-float"
        if src.bits == d.bits:
            return "noop"       # same width: only the signedness changes (tast: 'noop')
        return "int-to-int"

    def is_null_constant(self, e):
        if is_integer_like(e.type) and fold(e) == 0:
            return True
        # C99 6.3.2.3p3: 0 cast to `void *`; a named address space other than generic makes it
        # an ordinary pointer (clang-22: `(global void*)0` does not convert to `constant int *`).
        if isinstance(e, (tast.Cast, tast.ImplicitCast)) and e.type.is_pointer and e.type.pointee.is_void \
                and e.type.addrspace in (T.PRIVATE, T.GENERIC):
            return self.is_null_constant(e.operand) if is_integer_like(e.operand.type) else False
        return False

    def pointer_space_cast(self, e, to):
        return tast.ImplicitCast(T.PointerType(e.type.pointee, to.addrspace, e.type.const, e.type.volatile),
                                 e.loc, "addrspace-to-generic", e)

    # ---- implicit conversion by assignment (C99 6.5.16.1)
    def convert(self, e, t, node, context, pointer_warnings=True):
        """Convert value e to type t as assignment does; context names the diagnostic."""
        if isinstance(node, c_ast.Node):
            node = location(node)     # clang points conversion errors at the expression's start
        st = e.type
        self.warn_enum_conversion(e, t, node)
        if st == t:
            return e
        if t.is_coop_matrix or st.is_coop_matrix:
            if t.is_coop_matrix and st.is_coop_matrix:
                self.ctx.fail("incompatible cooperative matrix types", node,
                              [self.ctx.note(f"'{spell(st)}' converted to '{spell(t)}'", node)])
            self.ctx.fail(self.incompatible_message(st, t, context), node)
        if is_arith_like(t) and is_arith_like(st):
            return self.arith_convert(e, t)
        if t == T.BOOL and st.is_pointer:
            return tast.ImplicitCast(T.BOOL, e.loc, "pointer-to-bool", e)
        if isinstance(t, T.VectorType):
            if isinstance(st, T.VectorType):
                self.ctx.fail(self.incompatible_message(st, t, context), node)
            if is_arith_like(st):
                return self.arith_convert(e, t)
        if t.is_pointer:
            if self.is_null_constant(e):
                return tast.ImplicitCast(t, e.loc, "null-to-pointer", e)
            if st.is_pointer:
                return self.pointer_convert(e, t, node, context, pointer_warnings)
            if is_integer_like(st):
                self.ctx.fail(f"incompatible integer to pointer conversion {self.context_phrase(st, t, context)}", node)
        if isinstance(t, T.EventType) and is_integer_like(st) and fold(e) == 0:
            # clang's CK_ZeroToOCLOpaqueType: `event_t e = 0;`, an event argument 0.
            return tast.ImplicitCast(t, e.loc, "zero-to-event", e)
        if isinstance(t, T.StructType) and st is t:
            return e
        if is_integer_like(t) and st.is_pointer:
            self.ctx.fail(f"incompatible pointer to integer conversion {self.context_phrase(st, t, context)}", node)
        self.ctx.fail(self.incompatible_message(st, t, context), node)

    def warn_enum_conversion(self, e, t, node, target_spelling=None):
        """clang's -Wimplicit-enum-enum-cast (on by default in the driver): a value of one
        enum type, or an enumerator of it, converted implicitly to another enum type."""
        source = e.enum if isinstance(e, tast.IntConst) else e.type
        if not (isinstance(t, T.EnumType) and isinstance(source, T.EnumType)) or source == t:
            return
        target = target_spelling or f"'{spell(t)}'"
        self.ctx.warn(f"implicit conversion from enumeration type '{spell(source)}' to different "
                      f"enumeration type {target}", e.loc or node, flag="implicit-enum-enum-cast")

    @staticmethod
    def context_phrase(st, t, context):
        return {"initializing": f"initializing '{spell(t)}' with an expression of type '{spell(st)}'",
                "assigning": f"assigning to '{spell(t)}' from '{spell(st)}'",
                "passing": f"passing '{spell(st)}' to parameter of type '{spell(t)}'",
                "returning": f"returning '{spell(st)}' from a function with result type '{spell(t)}'",
                }.get(context, f"converting '{spell(st)}' to '{spell(t)}'")

    @classmethod
    def space_phrase(cls, st, t, context):
        """clang's err_typecheck_incompatible_address_space order: "assigning 'S' to 'T'"."""
        if context == "assigning":
            return f"assigning '{spell(st)}' to '{spell(t)}'"
        return cls.context_phrase(st, t, context)

    @staticmethod
    def incompatible_message(st, t, context):
        return {"initializing": f"initializing '{spell(t)}' with an expression of incompatible type '{spell(st)}'",
                "assigning": f"assigning to '{spell(t)}' from incompatible type '{spell(st)}'",
                "passing": f"passing '{spell(st)}' to parameter of incompatible type '{spell(t)}'",
                "returning": f"returning '{spell(st)}' from a function with incompatible result type '{spell(t)}'",
                }.get(context, f"cannot convert '{spell(st)}' to '{spell(t)}'")

    def pointer_convert(self, e, t, node, context, warnings=True):
        st = e.type
        if st.addrspace != t.addrspace:
            if t.addrspace == T.GENERIC and st.addrspace != T.CONSTANT:
                e = self.pointer_space_cast(e, t)
                st = e.type
            else:
                self.ctx.fail(f"{self.space_phrase(st, t, context)} changes address space of pointer", node)
        inner_from, inner_to = st.pointee, t.pointee
        while isinstance(inner_from, T.PointerType) and isinstance(inner_to, T.PointerType):
            if inner_from.addrspace != inner_to.addrspace:
                # OpenCL C 3.0 6.7.9: no implicit address-space change below the first level.
                self.ctx.fail(f"{self.space_phrase(st, t, context)} changes address space of nested "
                              f"pointer", node)
            inner_from, inner_to = inner_from.pointee, inner_to.pointee
        if warnings and st.pointee != t.pointee and not (st.pointee.is_void or t.pointee.is_void):
            self.ctx.warn(f"incompatible pointer types {self.context_phrase(e.type, t, context)}", node)
        elif warnings and st.const and not t.const:
            self.ctx.warn(f"{self.context_phrase(st, t, context)} discards qualifiers", node)
        if e.type != t:
            return tast.ImplicitCast(t, e.loc, "pointer-bitcast", e)
        return e

    def explicit_cast(self, operand, t, node):
        if t == T.HALF:
            self.ctx.require_fp16("casting to type 'half' is not allowed",
                                  location(getattr(node, "expr", None)) or location(node))
        st = operand.type
        loc = location(node)
        if st == t:
            return operand if not t.is_coop_matrix else operand
        if t.is_void:
            return tast.Cast(T.VOID, loc, "to-void", operand)
        if t.is_coop_matrix or st.is_coop_matrix:
            if t.is_coop_matrix and st.is_coop_matrix:
                return coop_matrix_cast(self.ctx, operand, t, node)
            self.ctx.fail(f"invalid cast from '{spell(st)}' to '{spell(t)}'", node)
        if isinstance(t, T.VectorType):
            if isinstance(st, T.VectorType):
                self.ctx.fail(f"invalid conversion between vector type '{spell(st)}' and '{spell(t)}'; "
                              f"use convert_{spell(t)}() or as_{spell(t)}()", node)
            if is_arith_like(st):
                scalar = self.arith_convert(operand, t.elem)
                return tast.Cast(t, loc, "splat", scalar)
            self.ctx.fail(f"invalid conversion between vector type '{spell(t)}' and scalar type '{spell(st)}'", node)
        if isinstance(st, T.VectorType):
            self.ctx.fail(f"invalid conversion between vector type '{spell(st)}' and scalar type '{spell(t)}'", node)
        if fp8.involves_fp8(st, t):
            return fp8.cast(self, operand, t, node)
        if is_arith_like(t) and is_arith_like(st):
            return tast.Cast(t, loc, self.scalar_cast_kind(st, t), operand)
        if t.is_pointer and st.is_pointer:
            if st.addrspace == t.addrspace:
                return tast.Cast(t, loc, "pointer-bitcast", operand)
            if t.addrspace == T.GENERIC and st.addrspace != T.CONSTANT:
                return tast.Cast(t, loc, "addrspace-to-generic", operand)
            if st.addrspace == T.GENERIC and t.addrspace != T.CONSTANT:
                return tast.Cast(t, loc, "addrspace-cast", operand)
            self.ctx.fail(f"casting '{spell(st)}' to type '{spell(t)}' changes address space of pointer", node)
        if t.is_pointer and is_integer_like(st):
            if self.is_null_constant(operand):
                return tast.Cast(t, loc, "null-to-pointer", operand)
            return tast.Cast(t, loc, "int-to-pointer", operand)
        if is_integer_like(t) and st.is_pointer:
            if t == T.BOOL:
                return tast.Cast(t, loc, "pointer-to-bool", operand)
            if as_arith(t).size < self.ctx.target.pointer_bits // 8:
                self.ctx.warn(f"cast to smaller integer type '{spell(t)}' from '{spell(st)}'", node)
            return tast.Cast(t, loc, "pointer-to-int", operand)
        if isinstance(t, T.StructType) and st is t:
            return operand
        self.ctx.fail(f"invalid cast from '{spell(st)}' to '{spell(t)}'", node)
