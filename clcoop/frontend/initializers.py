"""Initializers (C99 6.7.8): braced lists with brace elision and designators, constant
initializers of program-scope and static variables, vector literals and compound literals."""
import re

from pycparser import c_ast

from clcoop.diagnostics import SourceLocation
from clcoop.frontend import tast
from clcoop.frontend import types as T
from clcoop.frontend.check_support import location, name_location
from clcoop.frontend.constfold import fold
from clcoop.frontend.conversions import is_arith_like, spell
from clcoop.frontend.types import as_arith, wrap_int


class InitCursor:
    """Position in a braced initializer list, shared by the sub-aggregates that brace elision fills."""

    def __init__(self, exprs):
        self.exprs = list(exprs)
        self.index = 0

    def done(self):
        return self.index >= len(self.exprs)

    def peek(self):
        return self.exprs[self.index]

    def take(self):
        self.index += 1
        return self.exprs[self.index - 1]


def merge_initializers(old, new):
    """`new` over `old`, element by element: later designated initializers override earlier ones
    only where they say something (C99 6.7.8p19)."""
    if isinstance(old, tast.InitList) and isinstance(new, tast.InitList):
        elements = [o if n is None else merge_initializers(o, n) for o, n in zip(old.elements, new.elements)]
        return tast.InitList(new.type, elements, new.loc)
    return new


# Elements an initialized array may have (its initializer is a list of all of them).
MAX_INITIALIZED_ELEMENTS = 1 << 20


class Initializers:
    """The checker's initializers, into tast.InitList / constants (C99 6.7.8), compound
    literals and vector literals. ctx: the checker's CheckContext; expressions: what types
    the elements (.expr(node, expected=None), .rvalue(e): check_expr.ExpressionChecks); conversions,
    folding, decl_types, literals: those parts (assignment conversions, array designators,
    compound literal types, string initializers)."""

    def __init__(self, ctx, expressions, conversions, folding, decl_types, literals):
        self.ctx = ctx
        self.expressions = expressions
        self.conversions = conversions
        self.folding = folding
        self.decl_types = decl_types
        self.literals = literals

    def complete_array_type(self, t, init):
        """`T a[] = {...}`: the initializer gives the length (C99 6.7.8p22)."""
        if isinstance(t, T.ArrayType) and t.length is None and isinstance(init, tast.InitList):
            return T.ArrayType(t.elem, len(init.elements))
        return t

    # ------------------------------------------------------------------ initializers
    def initializer(self, node, var, constant, decl=None):
        # clang points a conversion error in `T x = e;` at the name x (in a list, at the element).
        at = name_location(decl) if decl is not None and not isinstance(node, c_ast.InitList) else None
        init = self.init_for_type(node, var.type, "initializing", at)
        if constant:
            init = self.constant_initializer(init, node)
        return init

    def init_for_type(self, node, t, context, at=None):
        if isinstance(node, c_ast.InitList):
            if isinstance(t, T.ArrayType):
                return self.array_init_list(node, t)
            if isinstance(t, T.StructType):
                return self.struct_init_list(node, t)
            if isinstance(t, T.VectorType):
                elements = [self.conversions.convert(self.expressions.rvalue(self.expressions.expr(e)),
                                                     t.elem, e, context) for e in node.exprs]
                if len(elements) > t.count:
                    self.ctx.fail("excess elements in vector initializer", node.exprs[t.count])
                return tast.InitList(t, elements + [None] * (t.count - len(elements)), location(node))
            if not node.exprs:
                self.ctx.fail("scalar initializer cannot be empty", node)
            if len(node.exprs) > 1:
                self.ctx.warn("excess elements in scalar initializer", node.exprs[1])
            return self.init_for_type(node.exprs[0], t, context)
        if isinstance(t, T.ArrayType):
            if isinstance(node, c_ast.Constant) and node.type == "string" and t.elem.is_integer:
                self.limit_initialized_array(t, node)
                data = self.literals.string_bytes(node) + b"\0"
                n = t.length if t.length is not None else len(data)
                elements = [tast.IntConst(t.elem, location(node), wrap_int(b, t.elem)) for b in data[:n]]
                return tast.InitList(T.ArrayType(t.elem, n), elements + [None] * (n - len(elements)),
                                     location(node))
            self.ctx.fail(f"array initializer must be an initializer list", node)
        value = self.expressions.expr(node, expected=t)
        return self.conversions.convert(self.expressions.rvalue(value), t, at or node, context)

    def array_init_list(self, node, t):
        return self.fill_array(InitCursor(node.exprs), t, location(node), braced=True)

    def struct_init_list(self, node, t):
        return self.fill_struct(InitCursor(node.exprs), t, location(node), braced=True)

    # C99 6.7.8p20 (brace elision): an aggregate element initialized without its own braces takes
    # as many initializers from the enclosing list as it has members; a designator ends it.
    def limit_initialized_array(self, t, loc):
        """Initializers are lists of every element (lower emits them whole), so a huge array
        with an initializer would exhaust memory; clang emits a zero tail instead."""
        if t.length is not None and t.length > MAX_INITIALIZED_ELEMENTS:
            self.ctx.fail(f"an initializer for an array of {t.length} elements is not supported by "
                          f"clcoop (at most {MAX_INITIALIZED_ELEMENTS})", loc)

    def fill_array(self, cursor, t, loc, braced):
        self.limit_initialized_array(t, loc)
        elements = []
        pos = 0
        while not cursor.done():
            e = cursor.peek()
            if isinstance(e, c_ast.NamedInitializer):
                if not braced:
                    break
                cursor.take()
                if isinstance(e.name[0], c_ast.ID):
                    self.ctx.fail(f"field designator '{e.name[0].name}' used in an array initializer", e)
                pos = self.folding.integer_constant(e.name[0], "array designator")
                if pos < 0:
                    self.ctx.fail(f"array designator value '{pos}' is negative", e.name[0])
                if t.length is not None and pos >= t.length:
                    self.ctx.fail(f"array designator index ({pos}) exceeds array bounds ({t.length})", e.name[0])
                if pos >= MAX_INITIALIZED_ELEMENTS:
                    self.ctx.fail(f"an initializer for an array of more than {MAX_INITIALIZED_ELEMENTS} "
                                  f"elements is not supported by clcoop", e.name[0])
                while len(elements) <= pos:
                    elements.append(None)
                elements[pos] = self.designated_element(e.expr, e.name[1:], t.elem, elements[pos])
                pos += 1
                continue
            if t.length is not None and pos >= t.length:
                if braced:
                    self.ctx.warn("excess elements in array initializer", e)
                break
            while len(elements) <= pos:
                elements.append(None)
            elements[pos] = self.element_initializer(cursor, t.elem)
            pos += 1
        n = t.length if t.length is not None else len(elements)
        elements += [None] * (n - len(elements))
        return tast.InitList(T.ArrayType(t.elem, n), elements, loc)

    def fill_struct(self, cursor, t, loc, braced):
        if not t.complete:
            self.ctx.fail(f"variable has incomplete type '{spell(t)}'", loc)
        elements = [None] * len(t.fields)
        pos = 0
        while not cursor.done():
            e = cursor.peek()
            if isinstance(e, c_ast.NamedInitializer):
                if not braced:
                    break
                cursor.take()
                if not isinstance(e.name[0], c_ast.ID):
                    self.ctx.fail(f"array designator cannot initialize non-array type '{spell(t)}'", e)
                name = e.name[0].name
                names = [f.name for f in t.fields]
                if name not in names:
                    # clang points at the designator's '.'
                    where = self.designator_location(e.name[0], name)
                    self.ctx.fail(f"field designator '{name}' does not refer to any field in type '{spell(t)}'", where)
                pos = names.index(name)
                elements[pos] = self.designated_element(e.expr, e.name[1:], t.fields[pos].type, elements[pos])
            else:
                if pos >= len(t.fields) or (t.is_union and pos > 0):
                    if braced:
                        self.ctx.warn(f"excess elements in {'union' if t.is_union else 'struct'} initializer", e)
                    break
                elements[pos] = self.element_initializer(cursor, t.fields[pos].type)
            pos += 1
            if t.is_union and not braced:
                break
        return tast.InitList(t, elements, loc)

    def designator_location(self, node, name):
        """The '.' of a field designator `.name`: pycparser places the node at the list's brace."""
        loc = location(node)
        text = self.ctx.diag.sources.line(loc.file, loc.line) if self.ctx.diag.sources is not None and loc else None
        if text is not None:
            found = re.compile(r"\.\s*" + re.escape(name) + r"\b").search(text.expandtabs(1), loc.column - 1)
            if found:
                return SourceLocation(loc.file, loc.line, found.start() + 1)
        return loc

    def element_initializer(self, cursor, t):
        """Initializer of one element of type t, from its own braces or by brace elision."""
        e = cursor.peek()
        if isinstance(e, c_ast.InitList) or not self.elides_braces(e, t):
            cursor.take()
            return self.init_for_type(e, t, "initializing")
        if isinstance(t, T.ArrayType):
            return self.fill_array(cursor, t, location(e), braced=False)
        return self.fill_struct(cursor, t, location(e), braced=False)

    def elides_braces(self, e, t):
        if isinstance(t, T.ArrayType):
            return not (isinstance(e, c_ast.Constant) and e.type == "string" and t.elem.is_integer)
        if isinstance(t, T.StructType):
            # a struct-typed expression initializes the whole element (C99 6.7.8p13)
            return self.expressions.rvalue(self.expressions.expr(e)).type != t
        return False

    def designated_element(self, expr, rest, t, existing):
        """Initializer of one element; `rest` are the designators after the first (C99 6.7.8p17:
        `[1].a = 3` initializes member a of element 1, keeping what earlier initializers set)."""
        if not rest:
            return self.init_for_type(expr, t, "initializing")
        if not isinstance(t, (T.ArrayType, T.StructType)):
            self.ctx.fail(f"designator into non-aggregate type '{spell(t)}'", rest[0])
        nested = c_ast.InitList([c_ast.NamedInitializer(list(rest), expr, coord=expr.coord)], coord=expr.coord)
        return merge_initializers(existing, self.init_for_type(nested, t, "initializing"))

    def constant_initializer(self, init, node):
        """Fold a program-scope/static initializer to constants (tast docstring)."""
        if init is None:
            return None
        if isinstance(init, tast.InitList):
            return tast.InitList(init.type, [self.constant_initializer(e, node) for e in init.elements], init.loc)
        if isinstance(init, tast.VectorLiteral) or (isinstance(init, tast.ImplicitCast) and init.kind == "splat"):
            value = fold(init)
            if value is None:
                self.ctx.fail("initializer element is not a compile-time constant", init.loc)
            return self.const_node(init.type, value, init.loc)
        value = fold(init)
        if value is None:
            if init.type.is_pointer and isinstance(init, tast.ImplicitCast) and init.kind == "null-to-pointer":
                return None
            if init.type.is_pointer:
                address = self.address_constant(init)
                if address is not None:
                    return address
            if isinstance(init, (tast.ImplicitCast, tast.Cast)) and init.kind == "pointer-to-int" \
                    and init.type.size == self.ctx.target.pointer_bits // 8:
                # An address constant cast to a pointer-sized integer (clang: a ptrtoint constant).
                address = self.address_constant(init.operand)
                if address is not None:
                    return tast.Cast(init.type, init.loc, "pointer-to-int", address)
            # clang points at the expression's operator (`&g[i]`, `g + i`), in a list at the element.
            where = init.loc if isinstance(node, c_ast.InitList) else self.ctx.node_location(node)
            self.ctx.fail("initializer element is not a compile-time constant", where)
        return self.const_node(init.type, value, init.loc)

    # C99 6.6p9: an address constant is a null pointer, a pointer to an object of static storage
    # duration, or a decayed array of static storage duration, made with & [] . -> * and casts,
    # plus or minus an integer constant. The node returned has every index folded to an IntConst,
    # the form lower's const_address_value accepts.
    ADDRESS_CASTS = ("noop", "pointer-bitcast", "addrspace-to-generic", "addrspace-cast")

    def address_constant(self, e):
        """Normalised address-constant expression of pointer type, or None."""
        if isinstance(e, (tast.ImplicitCast, tast.Cast)):
            if e.kind in self.ADDRESS_CASTS:
                inner = self.address_constant(e.operand)
                return None if inner is None else tast.ImplicitCast(e.type, e.loc, e.kind, inner)
            if e.kind == "array-to-pointer":
                inner = self.static_lvalue(e.operand)
                return None if inner is None else tast.ImplicitCast(e.type, e.loc, e.kind, inner)
            if e.kind == "null-to-pointer":
                return e
            return None
        if isinstance(e, tast.AddrOf):
            inner = self.static_lvalue(e.operand)
            return None if inner is None else tast.AddrOf(e.type, e.loc, inner)
        if isinstance(e, tast.PointerArith):
            pointer = self.address_constant(e.pointer)
            offset = fold(e.offset)
            if pointer is None or not isinstance(offset, int):
                return None
            return tast.PointerArith(e.type, e.loc, e.op, pointer, tast.IntConst(e.offset.type, e.offset.loc, offset))
        return None

    def static_lvalue(self, e):
        """An lvalue designating (part of) an object of static storage duration, with constant
        indices folded; None otherwise."""
        if isinstance(e, tast.VarRef):
            return e if e.var.storage in ("global", "static") else None
        if isinstance(e, tast.Index):
            base = self.address_constant(e.base)
            index = fold(e.index)
            if base is None or not isinstance(index, int):
                return None
            return tast.Index(e.type, e.loc, base, tast.IntConst(e.index.type, e.index.loc, index))
        if isinstance(e, tast.Member) and e.base.is_lvalue:
            base = self.static_lvalue(e.base)
            return None if base is None else tast.Member(e.type, e.loc, base, e.field_index, e.name)
        if isinstance(e, tast.Deref):
            pointer = self.address_constant(e.operand)
            return None if pointer is None else tast.Deref(e.type, e.loc, pointer)
        return None

    def const_node(self, t, value, loc):
        if isinstance(t, T.VectorType):
            return tast.VectorLiteral(t, loc, [self.const_node(t.elem, v, loc) for v in value])
        t2 = as_arith(t)
        if t2.is_float:
            return tast.FloatConst(t, loc, float(value))
        if t.is_pointer:
            return None
        return tast.IntConst(t, loc, wrap_int(int(value), t2))

    def vector_literal(self, t, exprlist, node):
        loc = location(node)
        if not isinstance(t, T.VectorType):
            # `(int)(a, b)`: a parenthesized comma expression cast to a scalar.
            operand = self.expressions.rvalue(self.expressions.expr(exprlist))
            return self.conversions.explicit_cast(operand, t, node)
        elements = []
        total = 0
        for e in exprlist.exprs:
            v = self.expressions.rvalue(self.expressions.expr(e))
            if isinstance(v.type, T.VectorType):
                if v.type.elem != t.elem:
                    self.ctx.fail(f"cannot convert '{spell(v.type)}' to '{spell(t.elem)}' in vector literal; "
                                  f"use convert_{spell(T.VectorType(t.elem, v.type.count))}()", e)
                total += v.type.count
                elements.append(v)
            elif is_arith_like(v.type):
                elements.append(self.conversions.arith_convert(v, t.elem))
                total += 1
            else:
                self.ctx.fail(f"invalid vector literal element of type '{spell(v.type)}'", e)
        if len(elements) == 1 and total == 1:
            return tast.VectorLiteral(t, loc, elements)     # splat (OpenCL 6.1.6)
        if total > t.count:
            # clang: at the element that goes past the last component
            running = 0
            for e, v in zip(exprlist.exprs, elements):
                running += v.type.count if isinstance(v.type, T.VectorType) else 1
                if running > t.count:
                    self.ctx.fail("excess elements in vector initializer", e)
        if total < t.count:
            self.ctx.fail(f"too few elements in vector initialization (expected {t.count} elements, have {total})",
                          self.ctx.open_paren_before(exprlist.exprs[0], loc))
        return tast.VectorLiteral(t, loc, elements)

    def expr_CompoundLiteral(self, node):
        """C99 6.5.2.5: an unnamed automatic object, initialized each time it is evaluated. It
        becomes a Var with storage 'compound-literal' referenced once; lower allocates it and
        runs the initializer where the reference is evaluated."""
        t, _, const = self.decl_types.full_decl_type(node.type)
        if self.ctx.fn is None:
            self.ctx.fail("compound literals at program scope are not supported by clcoop", node)
        if t.is_coop_matrix:
            self.ctx.fail("cooperative matrix type cannot be used in a compound literal", node)
        if t.is_void or isinstance(t, T.FunctionType):
            self.ctx.fail(f"compound literal has invalid type '{spell(t)}'", node)
        var = tast.Var("", t, "compound-literal", T.PRIVATE, None, location(node), bool(const))
        var.initializer = self.init_for_type(node.init, t, "initializing")
        var.type = self.complete_array_type(var.type, var.initializer)
        return tast.VarRef(var.type, location(node), var)

    def expr_InitList(self, node):
        self.ctx.fail("initializer list is only allowed in a declaration", node)
