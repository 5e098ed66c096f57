"""The checker's expressions (C99 6.5; OpenCL C 3.0 6.3-6.4: vectors, swizzles, address
spaces): every expression node typed into the typed AST (clcoop.frontend.tast), with each
implicit conversion an explicit tast.ImplicitCast, and calls of user functions.

`ExpressionChecks(ctx)` builds the rule parts an expression needs, each given this object as
its `expressions` (the one cycle of the checker: an expression contains initializers and
calls, which contain expressions): Literals, ConstantFolding, Conversions, CoopTensorChecks,
CoopChecks, DeclTypes, Initializers, BuiltinCalls. check.Checker (declarations) and
check_stmt.StatementChecks (statements) use the same parts.

Location convention (clang's): a diagnostic about an operator points at the operator token
(found in the source line just before the right operand); a conversion diagnostic at the
start of the converted expression; a built-in argument diagnostic at that argument.
"""
from pycparser import c_ast

from clcoop.diagnostics import SourceLocation
from clcoop.frontend import builtins as _builtins
from clcoop.frontend import tast
from clcoop.frontend import types as T
from clcoop.frontend.builtin_calls import ADDRESS_SPACE_QUERIES, CLANG_BUILTINS, BuiltinCalls
from clcoop.frontend.check_support import Abandon, location, operator_location
from clcoop.frontend.constfold import ConstantFolding, fold
from clcoop.frontend.conversions import (Conversions, arith_or_vector, comparison_result, described, is_arith_like,
                                         promote, spell, strip_pointer_quals)
from clcoop.frontend.coop_check import COOP_BUILTINS, CoopChecks
from clcoop.frontend.coop_tensor_check import CoopTensorChecks, coop_what
from clcoop.frontend.decl_types import DeclTypes
from clcoop.frontend.initializers import Initializers
from clcoop.frontend.literals import Literals
from clcoop.frontend.types import as_arith, is_integer_like, unqualified_elem


def member_path(t, name):
    """[(index, field), ...] from struct/union t down to member `name`, through anonymous
    struct/union members; None when there is no such member."""
    for i, f in enumerate(t.fields):
        if f.name == name:
            return [(i, f)]
        if f.name is None and isinstance(f.type, T.StructType):
            inner = member_path(f.type, name)
            if inner is not None:
                return [(i, f)] + inner
    return None


# (checker class, node class) -> (its expr_<node class> function or None, whether it takes
# `expected`): found once per pair, not by a name made and looked up at every node (pocl's
# test_bitselect.cl checks ~26,000 expressions).
_EXPR_METHODS = {}


def _expr_method(checks_class, node_class):
    function = getattr(checks_class, "expr_" + node_class.__name__, None)
    entry = _EXPR_METHODS[checks_class, node_class] = \
        (function, function is not None and function.__code__.co_argcount > 2)
    return entry


class ExpressionChecks:
    """Types expressions; the `expressions` every rule part receives: .expr(node,
    expected=None), .rvalue(e), .condition(node), .to_bool(e, node), .sizeof(t, node),
    .check_assignable(e, node). ctx: the checker's CheckContext."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.literals = Literals(ctx)
        self.folding = ConstantFolding(ctx, self)
        self.conversions = Conversions(ctx)
        self.tensors = CoopTensorChecks(ctx, self, self.folding, self.conversions)
        self.coop = CoopChecks(ctx, self, self.folding, self.conversions, self.tensors)
        self.decl_types = DeclTypes(ctx, self.folding, self.coop, self.tensors)
        self.initializers = Initializers(ctx, self, self.conversions, self.folding, self.decl_types,
                                         self.literals)
        self.builtin_calls = BuiltinCalls(ctx, self, self.conversions, self.literals)

    def condition(self, node):
        e = self.rvalue(self.expr(node))
        return self.to_bool(e, node)

    def to_bool(self, e, node):
        t = e.type
        if t == T.BOOL:
            return e
        if is_integer_like(t):
            return tast.ImplicitCast(T.BOOL, e.loc, "int-to-bool", e)
        if t.is_float:
            return tast.ImplicitCast(T.BOOL, e.loc, "float-to-bool", e)
        if t.is_pointer:
            return tast.ImplicitCast(T.BOOL, e.loc, "pointer-to-bool", e)
        self.ctx.fail(f"statement requires expression of scalar type ('{spell(t)}' invalid)", node)

    # ------------------------------------------------------------------ expressions
    def rvalue(self, e):
        """Value of e: arrays decay to pointers (C99 6.3.2.1p3)."""
        if isinstance(e, tast.VarRef) and self.ctx.fn is not None:
            self.ctx.fn.uninitialized.read(e)
        if isinstance(e.type, T.AtomicType):
            self.ctx.fail(f"an object of type '{spell(e.type)}' is read only through the atomic "
                          f"functions (e.g. atomic_load; OpenCL C 3.0 6.15.12.6)", e.loc)
        if isinstance(e, (tast.Deref, tast.Index)) and e.type == T.HALF:
            space = T.ADDRSPACE_NAMES[self.object_space(e)]
            where = e.loc
            if isinstance(e, tast.Deref) and e.operand.loc is not None:
                where = operator_location(self.ctx.diag.sources, "*", e.operand.loc, e.loc)
            self.ctx.require_fp16(f"loading directly from pointer to type '{space} half' requires "
                                  f"cl_khr_fp16. Use vector data load builtin functions instead", where)
        if isinstance(e.type, T.ArrayType):
            aspace = self.object_space(e)
            return tast.ImplicitCast(T.PointerType(e.type.elem, aspace, self.object_const(e)),
                                     e.loc, "array-to-pointer", e)
        return e

    def object_space(self, e):
        """Address space of the object an lvalue designates."""
        if isinstance(e, tast.VarRef):
            return e.var.addrspace
        if isinstance(e, tast.Deref):
            return e.operand.type.addrspace
        if isinstance(e, tast.Index):
            return e.base.type.addrspace
        if isinstance(e, tast.Member):
            return self.object_space(e.base) if e.base.is_lvalue else T.PRIVATE
        if isinstance(e, (tast.Swizzle, tast.VectorElement)):
            return self.object_space(e.base)
        return T.PRIVATE

    def object_const(self, e):
        """Whether an lvalue's type is const-qualified (assignments also check Var.is_const)."""
        if isinstance(e, tast.VarRef):
            return e.var.is_const and id(e.var) not in self.ctx.implicitly_const
        if isinstance(e, tast.Deref):
            return e.operand.type.const
        if isinstance(e, tast.Index):
            return e.base.type.const
        if isinstance(e, (tast.Member, tast.Swizzle, tast.VectorElement)):
            return self.object_const(e.base)
        return False

    def expr(self, node, expected=None):
        """Type an expression. `expected` is the destination type where C gives one
        (initializer, assignment, return, argument): coop_mat_load/init take it."""
        entry = _EXPR_METHODS.get((type(self), type(node)))
        if entry is None:
            entry = _expr_method(type(self), type(node))
        function, takes_expected = entry
        if function is None:
            self.ctx.fail(f"unsupported expression '{type(node).__name__}'", node)
        if takes_expected:
            return function(self, node, expected)
        return function(self, node)

    def expr_Constant(self, node):
        return self.literals.expr_Constant(node)

    def expr_CompoundLiteral(self, node):
        return self.initializers.expr_CompoundLiteral(node)

    def expr_InitList(self, node):
        return self.initializers.expr_InitList(node)

    def expr_ID(self, node):
        entry = self.ctx.scope.lookup(node.name)
        loc = location(node)
        if node.name == "__func__" and entry is None and self.ctx.fn is not None:
            # C99 6.4.2.2: `static const char __func__[] = "name";`, in __constant memory as clang.
            return tast.StringLiteral(T.PointerType(T.CHAR, T.CONSTANT, True), loc,
                                      self.ctx.fn.function.name.encode() + b"\0")
        if isinstance(entry, tast.Var):
            if id(entry) in self.ctx.extern_vars:
                self.ctx.extern_uses.setdefault(node.name, loc)
            ref = tast.VarRef(entry.type, loc, entry)
            if self.ctx.fn is not None:
                self.ctx.fn.uninitialized.referenced(ref)
            return ref
        if isinstance(entry, tuple) and entry[0] == "enum":
            return tast.IntConst(T.INT, loc, entry[1], entry[2])
        if isinstance(entry, tast.Function):
            # Calls name their callee directly (expr_FuncCall); anything else would be a function pointer.
            self.ctx.fail(f"function '{node.name}' must be called: OpenCL C has no function pointers", node)
        if isinstance(entry, tuple) and entry[0] == "typedef":
            self.ctx.fail(f"unexpected type name '{node.name}': expected expression", node)
        if node.name in COOP_BUILTINS or _builtins.is_builtin(node.name):
            self.ctx.fail(f"built-in function '{node.name}' must be called", node)
        if node.name in self.ctx.poisoned:
            raise Abandon()       # its declaration already had an error
        self.ctx.fail(f"use of undeclared identifier '{node.name}'", node)

    # ---- unary
    def expr_UnaryOp(self, node):
        op = node.op
        if op == "sizeof":
            return self.sizeof_expr(node)
        if op in ("_Alignof", "__alignof__", "alignof"):
            t = self.type_of_operand(node.expr)
            return tast.IntConst(self.ctx.target.size_t, location(node), self.alignof(t, node))
        if op in ("p++", "p--", "++", "--"):
            return self.incdec(node)
        if op == "&":
            return self.address_of(node)
        if op == "*":
            operand = self.rvalue(self.expr(node.expr))
            if not operand.type.is_pointer:
                self.ctx.fail(f"indirection requires pointer operand ('{spell(operand.type)}' invalid)", node)
            if operand.type.pointee.is_void:
                self.ctx.fail("indirection of a 'void *' pointer is not allowed here", node)
            return tast.Deref(operand.type.pointee, location(node), operand)
        operand = self.rvalue(self.expr(node.expr))
        t = operand.type
        loc = location(node)
        if t.is_coop_matrix:
            if op == "-":
                return tast.CoopNeg(t, loc, operand)
            if op == "+":
                return operand
            self.ctx.fail("unsupported cooperative matrix unary operator", node)
        if op == "!":
            if isinstance(t, T.VectorType):
                if t.elem.is_float:
                    self.ctx.fail(f"invalid argument type '{spell(t)}' to unary expression", node)
                return tast.Unary(comparison_result(t), loc, "!", operand)
            return tast.Unary(T.INT, loc, "!", self.to_bool(operand, node.expr))
        if op in ("-", "+"):
            if not (is_arith_like(t) or isinstance(t, T.VectorType)):
                self.ctx.fail(f"invalid argument type '{spell(t)}' to unary expression", node)
            operand = self.conversions.promote_expr(operand)
            if op == "+":
                return operand
            return tast.Unary(operand.type, loc, "-", operand)
        if op == "~":
            if not (is_integer_like(t) or (isinstance(t, T.VectorType) and t.elem.is_integer)):
                self.ctx.fail(f"invalid argument type '{spell(t)}' to unary expression", node)
            operand = self.conversions.promote_expr(operand)
            return tast.Unary(operand.type, loc, "~", operand)
        self.ctx.fail(f"unsupported unary operator '{op}'", node)

    def address_of(self, node):
        operand = self.expr(node.expr)
        loc = location(node)
        if operand.type.is_coop_matrix:
            self.ctx.fail("cannot take the address of a cooperative matrix", node)
        if isinstance(operand, tast.CoopElement):
            self.ctx.fail("cannot take the address of a cooperative matrix element", node)
        if isinstance(operand, tast.FunctionRef):
            self.ctx.fail("taking the address of a function is not allowed in OpenCL", node)
        if isinstance(operand, tast.VectorElement):
            self.ctx.fail("address of vector element requested", node)     # clang-22's wording
        if not operand.is_lvalue or isinstance(operand, tast.Swizzle):
            self.ctx.fail(f"cannot take the address of an rvalue of type '{spell(operand.type)}'", node)
        space = self.object_space(operand)
        return tast.AddrOf(T.PointerType(operand.type, space, self.object_const(operand)), loc, operand)

    def type_of_operand(self, node):
        if isinstance(node, c_ast.Typename):
            t, _, _ = self.decl_types.full_decl_type(node)
            return t
        if isinstance(node, c_ast.Constant) and node.type == "string":
            # C99 6.4.5p5: a string literal is an array of char, NUL included (it decays elsewhere).
            return T.ArrayType(T.CHAR, len(self.literals.string_bytes(node)) + 1)
        return self.expr(node).type

    def sizeof_expr(self, node):
        t = self.type_of_operand(node.expr)
        if t.is_void:
            # C99 6.5.3.4p1 (GNU C's sizeof(void) == 1 is not OpenCL C); clang-22's wording.
            self.ctx.fail("invalid application of 'sizeof' to a void type", node)
        return tast.IntConst(self.ctx.target.size_t, location(node), self.sizeof(t, node))

    def sizeof(self, t, node):
        if isinstance(t, T.EnumType):
            return 4
        if isinstance(t, T.ScalarType):
            if t.is_void:
                return 1
            return t.size
        if isinstance(t, T.VectorType):
            return t.size
        if isinstance(t, T.PointerType):
            return self.ctx.target.pointer_bits // 8
        if isinstance(t, T.ArrayType):
            if t.length is None:
                self.ctx.fail(f"invalid application of 'sizeof' to an incomplete type '{spell(t)}'", node)
            return t.length * self.sizeof(t.elem, node)
        if isinstance(t, T.StructType):
            if not t.complete:
                self.ctx.fail(f"invalid application of 'sizeof' to an incomplete type '{spell(t)}'", node)
            size, align = 0, 1
            for f in t.fields:
                fs, fa = self.sizeof(f.type, node), self.alignof(f.type, node)
                align = max(align, fa)
                if t.is_union:
                    size = max(size, fs)
                else:
                    size = (size + fa - 1) // fa * fa + fs
            return (size + align - 1) // align * align
        if t.is_coop_opaque:
            self.ctx.fail(f"invalid application of 'sizeof' to a {coop_what(t)} type", node)
        self.ctx.fail(f"invalid application of 'sizeof' to type '{spell(t)}'", node)

    def alignof(self, t, node):
        if isinstance(t, T.ArrayType):
            return self.alignof(t.elem, node)
        if isinstance(t, T.StructType):
            return max([self.alignof(f.type, node) for f in t.fields] or [1])
        return self.sizeof(t, node)

    def incdec(self, node):
        op = "++" if "++" in node.op else "--"
        prefix = not node.op.startswith("p")
        target = self.expr(node.expr)
        loc = location(node)
        self.check_assignable(target, node.expr)
        t = target.type
        if t.is_coop_matrix:
            self.ctx.fail("unsupported cooperative matrix unary operator", node)
        old = tast.OldValue(t, loc)
        if t.is_pointer:
            one = tast.IntConst(self.ctx.target.ptrdiff_t, loc, 1)
            compute = tast.PointerArith(t, loc, "+" if op == "++" else "-", old, one)
        elif is_arith_like(t) or isinstance(t, T.VectorType):
            one = tast.IntConst(T.INT, loc, 1)
            compute = self.arith_binary("+" if op == "++" else "-", old, one, node)
            compute = self.conversions.convert(compute, t, node, "assigning")
        else:
            self.ctx.fail(f"cannot increment value of type '{spell(t)}'", node)
        return tast.IncDec(t, loc, op, prefix, target, compute)

    # ---- binary
    def expr_BinaryOp(self, node, expected=None):
        op = node.op
        if op in ("&&", "||"):
            return self.logical(node)
        if op not in ("+", "-", "*", "/"):
            left = self.rvalue(self.expr(node.left))
            return self.binary(op, left, self.rvalue(self.expr(node.right)), node)
        # A matrix + - * / has its operands' type (RFC 4.6: both operands of one type, or a
        # matrix times a scalar): an operand whose type only the context gives
        # (`coop_mat_init(x) + m`) takes the other matrix operand's, else the destination's.
        matrix_context = expected if expected is not None and expected.is_coop_matrix else None
        if self.coop.takes_context_type(node.left) and not self.coop.takes_context_type(node.right):
            right = self.rvalue(self.expr(node.right, matrix_context))
            left = self.rvalue(self.expr(node.left, right.type if right.type.is_coop_matrix else matrix_context))
            return self.binary(op, left, right, node)
        left = self.rvalue(self.expr(node.left, matrix_context))
        right = self.rvalue(self.expr(node.right, left.type if left.type.is_coop_matrix else matrix_context))
        return self.binary(op, left, right, node)

    def binary(self, op, left, right, node):
        lt, rt = left.type, right.type
        if lt.is_coop_matrix or rt.is_coop_matrix:
            return self.coop.coop_binary(op, left, right, node)
        if op in ("+", "-") and (lt.is_pointer or rt.is_pointer):
            return self.pointer_arith(op, left, right, node)
        if op in ("<", ">", "<=", ">=", "==", "!=") and (lt.is_pointer or rt.is_pointer):
            return self.pointer_compare(op, left, right, node)
        if lt.is_void or rt.is_void or not (arith_or_vector(lt) and arith_or_vector(rt)):
            self.ctx.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
        return self.arith_binary(op, left, right, node)

    def arith_binary(self, op, left, right, node):
        lt, rt = left.type, right.type
        loc = left.loc or location(node)
        integer_only = op in ("%", "&", "|", "^", "<<", ">>")
        if op in ("<<", ">>"):
            # C99 6.5.7: each operand promoted separately; result has the left's type.
            if isinstance(lt, T.VectorType):
                result_t = lt
            elif isinstance(rt, T.VectorType):
                # OpenCL: a scalar shifted by a vector is not allowed.
                self.ctx.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
            else:
                result_t = promote(lt)
        else:
            result_t = self.conversions.common_type(lt, rt, node)
        elem = unqualified_elem(result_t)
        if integer_only and not as_arith(elem).is_integer:
            self.ctx.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
        left = self.conversions.arith_convert(left, result_t)
        right = self.conversions.arith_convert(right, result_t)
        if op in ("/", "%") and as_arith(elem).is_integer and fold(right) == 0:
            # clang -Wdivision-by-zero (C99 6.5.5p5: the behaviour is undefined)
            self.ctx.warn(f"{'division' if op == '/' else 'remainder'} by zero is undefined", node)
        contract = self.ctx.fp_contract if as_arith(elem).is_float else "off"
        if op in ("<", ">", "<=", ">=", "==", "!="):
            return tast.Binary(comparison_result(result_t), loc, op, left, right, contract)
        return tast.Binary(result_t, loc, op, left, right, contract)

    def logical(self, node):
        left = self.rvalue(self.expr(node.left))
        right = self.rvalue(self.expr(node.right))
        loc = left.loc or location(node)
        if left.type.is_coop_matrix or right.type.is_coop_matrix:
            self.ctx.fail("unsupported cooperative matrix binary operator", node)
        if isinstance(left.type, T.VectorType) or isinstance(right.type, T.VectorType):
            if not (arith_or_vector(left.type) and arith_or_vector(right.type)):
                self.ctx.fail(f"invalid operands to binary expression ('{spell(left.type)}' and "
                              f"'{spell(right.type)}')", node)
            t = self.conversions.common_type(left.type, right.type, node)
            if t.elem.is_float:
                self.ctx.fail(f"invalid operands to binary expression ('{spell(left.type)}' and "
                              f"'{spell(right.type)}')", node)
            return tast.Logical(comparison_result(t), loc, node.op,
                                self.conversions.arith_convert(left, t), self.conversions.arith_convert(right, t))
        return tast.Logical(T.INT, loc, node.op, self.to_bool(left, node.left), self.to_bool(right, node.right))

    def pointer_arith(self, op, left, right, node):
        lt, rt = left.type, right.type
        loc = left.loc or location(node)
        if lt.is_pointer and rt.is_pointer:
            if op != "-":
                self.ctx.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
            if strip_pointer_quals(lt) != strip_pointer_quals(rt) and lt.pointee != rt.pointee:
                self.ctx.fail(f"'{spell(lt)}' and '{spell(rt)}' are not pointers to compatible types", node)
            return tast.PointerDiff(self.ctx.target.ptrdiff_t, loc, left, right)
        if rt.is_pointer:
            if op == "-":
                self.ctx.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
            left, right = right, left
            lt, rt = rt, lt
        if not is_integer_like(rt):
            self.ctx.fail(f"invalid operands to binary expression ('{spell(lt)}' and '{spell(rt)}')", node)
        if isinstance(lt.pointee, T.StructType) and not lt.pointee.complete:
            self.ctx.fail(f"arithmetic on a pointer to an incomplete type '{spell(lt.pointee)}'", node)
        offset = self.conversions.arith_convert(right, self.ctx.target.ptrdiff_t)
        return tast.PointerArith(lt, loc, op, left, offset)

    def pointer_compare(self, op, left, right, node):
        lt, rt = left.type, right.type
        loc = left.loc or location(node)
        if lt.is_pointer and rt.is_pointer and self.conversions.is_null_constant(right):     # p == NULL
            return tast.Binary(T.INT, loc, op, left, tast.ImplicitCast(lt, right.loc, "null-to-pointer", right))
        if lt.is_pointer and rt.is_pointer and self.conversions.is_null_constant(left):
            return tast.Binary(T.INT, loc, op, tast.ImplicitCast(rt, left.loc, "null-to-pointer", left), right)
        if lt.is_pointer and rt.is_pointer:
            if lt.addrspace != rt.addrspace:
                if lt.addrspace == T.GENERIC and rt.addrspace != T.CONSTANT:
                    right = self.conversions.pointer_space_cast(right, lt)
                elif rt.addrspace == T.GENERIC and lt.addrspace != T.CONSTANT:
                    left = self.conversions.pointer_space_cast(left, rt)
                else:
                    self.ctx.fail(f"comparison between ('{spell(lt)}' and '{spell(rt)}') which are pointers "
                                  f"to non-overlapping address spaces", node)
            elif lt.pointee != rt.pointee and not (lt.pointee.is_void or rt.pointee.is_void):
                self.ctx.warn(f"comparison of distinct pointer types ('{spell(lt)}' and '{spell(rt)}')", node)
            if left.type != right.type:
                right = tast.ImplicitCast(left.type, right.loc, "pointer-bitcast", right)
            return tast.Binary(T.INT, loc, op, left, right)
        ptr, other = (left, right) if lt.is_pointer else (right, left)
        if self.conversions.is_null_constant(other):
            null = tast.ImplicitCast(ptr.type, other.loc, "null-to-pointer", other)
            pair = (ptr, null) if lt.is_pointer else (null, ptr)
            return tast.Binary(T.INT, loc, op, *pair)
        self.ctx.fail(f"comparison between pointer and integer ('{spell(lt)}' and '{spell(rt)}')", node)

    # ---- assignment
    def expr_Assignment(self, node):
        target = self.expr(node.lvalue)
        self.check_assignable(target, node)       # clang points at the assignment operator
        loc = location(node)
        t = target.type
        if isinstance(t, T.AtomicType):
            self.ctx.fail("atomic variable can be assigned to a variable only in global address space",
                          self.ctx.node_location(node))
        if t == T.HALF and isinstance(target, (tast.Deref, tast.Index)):
            self.ctx.require_fp16("assigning directly to pointer to type 'half' requires cl_khr_fp16. "
                                  "Use vector data store builtin functions instead", self.ctx.node_location(node))
        if node.op == "=":
            value = self.expr(node.rvalue, expected=t)
            if isinstance(value.type, T.AtomicType):
                # clang-22's wording (and place) for an atomic object read by an assignment
                self.ctx.fail("atomic variable can be assigned to a variable only in global address space",
                              operator_location(self.ctx.diag.sources, "=", self.ctx.node_location(node.rvalue),
                                                self.ctx.node_location(node)))
            value = self.rvalue(value)
            # clang points a conversion error in an assignment at the '=' token
            # (matrix mismatches stay at the right-hand side, as this checker always reported them).
            at = node.rvalue if t.is_coop_matrix or value.type.is_coop_matrix else self.ctx.node_location(node)
            value = self.conversions.convert(value, t, at, "assigning")
            return tast.Assign(t, loc, target, value)
        op = node.op[:-1]
        # `m += coop_mat_init(x)`: the operand has the matrix's type (RFC 4.6).
        value = self.rvalue(self.expr(node.rvalue, t if t.is_coop_matrix else None))
        old = tast.OldValue(t, target.loc)
        compute = self.binary(op, old, value, node)
        if t.is_pointer:
            if not compute.type.is_pointer:
                self.ctx.fail(f"invalid operands to binary expression", node)
        compute = self.conversions.convert(compute, t, node, "assigning")
        return tast.CompoundAssign(t, loc, node.op, target, compute)

    def check_assignable(self, target, node):
        if isinstance(target, tast.Swizzle) and not target.lvalue:
            self.ctx.fail("expression is not assignable", node)
        if not target.is_lvalue:
            self.ctx.fail("expression is not assignable", node)
        if isinstance(target.type, T.ArrayType):
            self.ctx.fail(f"array type '{spell(target.type)}' is not assignable", node)
        if self.object_const(target) or (isinstance(target, tast.VarRef) and target.var.is_const):
            if isinstance(target, tast.VarRef) and id(target.var) not in self.ctx.implicitly_const:
                self.ctx.fail(f"cannot assign to variable '{target.var.name}' with const-qualified type "
                              f"'const {spell(target.type)}'", node)
            self.ctx.fail("read-only variable is not assignable", node)
        if self.object_space(target) == T.CONSTANT:
            # OpenCL C 3.0 6.7.3: __constant objects are read-only.
            self.ctx.fail("read-only variable is not assignable", node)

    # ---- other expressions
    def expr_TernaryOp(self, node, expected=None):
        cond = self.rvalue(self.expr(node.cond))
        if unqualified_elem(cond.type).is_float:
            # OpenCL C 3.0 6.5.7: the selection operand may be a scalar or vector "except float".
            self.ctx.fail(f"used type {described(cond.type)} where floating point type is not allowed",
                          operator_location(self.ctx.diag.sources, "?", node.iftrue, location(node)))
        then = self.rvalue(self.expr(node.iftrue, expected))
        other = self.rvalue(self.expr(node.iffalse, expected))
        loc = location(node)
        if isinstance(cond.type, T.VectorType):
            # OpenCL 6.3.i: component-wise select.
            if not (arith_or_vector(then.type) and arith_or_vector(other.type)):
                self.ctx.fail(f"incompatible operand types ('{spell(then.type)}' and '{spell(other.type)}')", node)
            t = self.conversions.common_type(then.type, other.type, node)
            if not isinstance(t, T.VectorType) or t.count != cond.type.count:
                self.ctx.fail("vector condition type and result type do not match", node)
            return tast.Conditional(t, loc, cond, self.conversions.arith_convert(then, t),
                                    self.conversions.arith_convert(other, t))
        cond = self.to_bool(cond, node.cond)
        tt, ot = then.type, other.type
        if tt == ot:
            return tast.Conditional(tt, loc, cond, then, other)
        if arith_or_vector(tt) and arith_or_vector(ot):
            t = self.conversions.common_type(tt, ot, node)
            return tast.Conditional(t, loc, cond, self.conversions.arith_convert(then, t),
                                    self.conversions.arith_convert(other, t))
        if tt.is_pointer or ot.is_pointer:
            if tt.is_pointer and self.conversions.is_null_constant(other):
                return tast.Conditional(tt, loc, cond, then, tast.ImplicitCast(tt, other.loc, "null-to-pointer", other))
            if ot.is_pointer and self.conversions.is_null_constant(then):
                return tast.Conditional(ot, loc, cond, tast.ImplicitCast(ot, then.loc, "null-to-pointer", then), other)
            if tt.is_pointer and ot.is_pointer:
                t = tt
                if tt.addrspace != ot.addrspace:
                    t = T.PointerType(tt.pointee, T.GENERIC, tt.const or ot.const)
                    if T.CONSTANT in (tt.addrspace, ot.addrspace):
                        self.ctx.fail("conditional operator with the second and third operands of type "
                                      f"('{spell(tt)}' and '{spell(ot)}') which are pointers to "
                                      "non-overlapping address spaces", node)
                return tast.Conditional(t, loc, cond, self.conversions.convert(then, t, node, "converting"),
                                        self.conversions.convert(other, t, node, "converting"))
        if tt.is_void and ot.is_void:
            return tast.Conditional(T.VOID, loc, cond, then, other)
        if tt.is_coop_matrix or ot.is_coop_matrix:
            self.ctx.fail("incompatible cooperative matrix types", node)
        self.ctx.fail(f"incompatible operand types ('{spell(tt)}' and '{spell(ot)}')", node)

    def expr_ExprList(self, node, expected=None):
        """The comma operator (pycparser gives an ExprList for `a, b`)."""
        items = [self.expr(e) for e in node.exprs[:-1]]
        last = self.expr(node.exprs[-1], expected)
        result = last
        for item in reversed(items):
            result = tast.Comma(self.rvalue(last).type, item.loc, item, self.rvalue(result))
        return result

    def expr_ArrayRef(self, node):
        base = self.expr(node.name)
        index = self.rvalue(self.expr(node.subscript))
        loc = location(node)
        if base.type.is_coop_matrix:
            return self.coop.coop_element(base, index, node)
        if isinstance(base.type, T.VectorType):
            return self.vector_subscript(base, index, node)
        base = self.rvalue(base)
        if is_integer_like(base.type) and index.type.is_pointer:
            base, index = index, base
        if not base.type.is_pointer:
            self.ctx.fail("subscripted value is not an array, pointer, or vector", node)
        if not is_integer_like(index.type):
            self.ctx.fail("array subscript is not an integer", node.subscript)
        if base.type.pointee.is_void:
            self.ctx.fail("subscript of pointer to incomplete type 'void'", node)
        index = self.conversions.arith_convert(index, self.ctx.target.ptrdiff_t)
        return tast.Index(base.type.pointee, loc, base, index)

    def vector_subscript(self, base, index, node):
        """`v[i]` (a clang extension OpenCL code uses) with a constant i is the swizzle `.s<i>`;
        with a variable index a VectorElement (extractelement/insertelement, as clang)."""
        if not is_integer_like(index.type):
            self.ctx.fail("array subscript is not an integer", node.subscript)
        value = fold(index)
        if not isinstance(value, int):
            index = self.conversions.arith_convert(index, promote(as_arith(index.type)))
            return tast.VectorElement(base.type.elem, location(node), base, index, base.is_lvalue)
        if not 0 <= value < base.type.count:
            self.ctx.fail(f"vector subscript {value} is out of range for '{spell(base.type)}'", node.subscript)
        return tast.Swizzle(base.type.elem, location(node), base, (value,), base.is_lvalue)

    def expr_StructRef(self, node):
        base = self.expr(node.name)
        loc = location(node)
        name = node.field.name
        if node.type == "->":
            base = self.rvalue(base)
            if not base.type.is_pointer:
                self.ctx.fail(f"member reference type '{spell(base.type)}' is not a pointer", node)
            base = tast.Deref(base.type.pointee, base.loc, base)
        t = base.type
        if isinstance(t, T.VectorType) and node.type == ".":
            return self.swizzle(base, name, node)
        if not isinstance(t, T.StructType):
            self.ctx.fail(f"member reference base type '{spell(t)}' is not a structure or union", node)
        if not t.complete:
            self.ctx.fail(f"incomplete definition of type '{spell(t)}'", node)
        path = member_path(t, name)
        if path is None:
            self.ctx.fail(f"no member named '{name}' in '{spell(t)}'", node.field)
        for i, f in path:          # through anonymous struct/union members (C11 6.7.2.1p13)
            base = tast.Member(f.type, loc, base, i, f.name or "")
        return base

    SWIZZLE_XYZW = "xyzw"
    SWIZZLE_RGBA = "rgba"

    def swizzle(self, base, name, node):
        t = base.type
        n = t.count
        loc = location(node)
        indices = self.swizzle_indices(name, t, node)
        if isinstance(base, tast.Swizzle):      # fold v.xy.x into one swizzle of v
            indices = tuple(base.indices[i] for i in indices)
            base = base.base
        count = len(indices)
        if count not in (1, 2, 3, 4, 8, 16):
            self.ctx.fail(f"vector component access has invalid length {count}", node.field)
        rt = t.elem if count == 1 else T.VectorType(t.elem, count)
        lvalue = base.is_lvalue and len(set(indices)) == count
        return tast.Swizzle(rt, loc, base, tuple(indices), lvalue)

    def swizzle_indices(self, name, vtype, node):
        """Component indexes of an OpenCL C 3.0 6.3.7 vector component name."""
        n = vtype.count

        def dot():
            # Where the '.' is, found in the source line only for an error (468 swizzles in
            # pocl's test_add_sat.cl, each of which read and scanned its line before).
            if not isinstance(node, c_ast.StructRef):
                return None
            return operator_location(self.ctx.diag.sources, ".", node.field, None)

        def bad(offset):
            # clang (CheckExtVectorComponent): names the first illegal character, at '.' + 1 + offset
            at = dot()
            where = SourceLocation(at.file, at.line, at.column + 1 + offset) if at else node.field
            self.ctx.fail(f"illegal vector component name '{name[offset]}'", where)

        def exceeds():
            self.ctx.fail(f"vector component access exceeds type '{spell(vtype)}'", dot() or node.field)
        if name in ("lo", "hi", "even", "odd"):
            size = 4 if n == 3 else n
            if name == "lo":
                return tuple(range(size // 2))
            if name == "hi":
                return tuple(range(size // 2, size))
            if name == "even":
                return tuple(range(0, size, 2))
            return tuple(range(1, size, 2))
        if name[0] in "sS" and len(name) > 1:
            idx = []
            for offset, c in enumerate(name[1:], 1):
                if c not in "0123456789abcdefABCDEF":
                    bad(offset)
            idx = [int(c, 16) for c in name[1:]]
            if any(v >= n for v in idx):
                exceeds()
            return tuple(idx)
        alphabet = next((a for a in (self.SWIZZLE_XYZW, self.SWIZZLE_RGBA) if name[0] in a), None)
        if alphabet is None:
            bad(0)
        for offset, c in enumerate(name):
            if c not in alphabet:
                bad(offset)
        idx = tuple(alphabet.index(c) for c in name)
        if any(i >= n for i in idx):
            exceeds()
        return idx

    def expr_Cast(self, node, expected=None):
        t, _, _ = self.decl_types.full_decl_type(node.to_type)
        loc = location(node)
        if isinstance(node.expr, c_ast.ExprList) or isinstance(t, T.VectorType) and \
                isinstance(node.expr, c_ast.ExprList):
            return self.initializers.vector_literal(t, node.expr, node)
        # `(V)coop_tensor_view_create()`, `(M)coop_mat_init(x)`: the cast names the type.
        context = t if t.is_coop_matrix or t.is_coop_tensor else None
        operand = self.rvalue(self.expr(node.expr, expected=context))
        return self.conversions.explicit_cast(operand, t, node)

    # ------------------------------------------------------------------ calls
    def expr_FuncCall(self, node, expected=None):
        if not isinstance(node.name, c_ast.ID):
            self.ctx.fail("called object is not a function (OpenCL has no function pointers)", node)
        name = node.name.name
        args_nodes = node.args.exprs if node.args is not None else []
        entry = self.ctx.scope.lookup(name)
        if isinstance(entry, tast.Function) and entry.mangled is not None and name in self.ctx.overloads:
            return self.overloaded_call(name, args_nodes, node)
        if isinstance(entry, tast.Function):
            return self.user_call(entry, args_nodes, node)
        if isinstance(entry, tast.Var):
            self.ctx.fail(f"called object type '{spell(entry.type)}' is not a function or function pointer", node)
        if name in COOP_BUILTINS:
            return self.coop.coop_call(name, args_nodes, node, expected)
        if name == "printf":
            return self.builtin_calls.printf_call(args_nodes, node)
        if name in CLANG_BUILTINS:
            return self.builtin_calls.clang_builtin_call(name, args_nodes, node)
        if name in ADDRESS_SPACE_QUERIES and not self.ctx.pre_cl20:
            return self.builtin_calls.address_space_query(name, args_nodes, node)
        if name.startswith("convert_") and self.builtin_calls.convert_target(name) is not None:
            return self.builtin_calls.convert_call(name, args_nodes, node)
        if name.startswith("as_") and name[3:] in T.builtin_typedefs(self.ctx.target):
            return self.builtin_calls.as_type_call(name, args_nodes, node)
        if _builtins.is_builtin(name) and name not in self.ctx.hidden_builtins:
            return self.builtin_calls.builtin_call(name, args_nodes, node)
        # OpenCL C has no implicit function declarations; clang-22 reports the name as undeclared.
        self.ctx.fail(f"use of undeclared identifier '{name}'", node)

    def arity_message(self, fn, have):
        """clang's wording; a named single parameter is named (Sema::ConvertArgumentsForCall)."""
        want = len(fn.type.params)
        names = [p.name for p in fn.params] if fn.params else self.ctx.declared_param_names.get(id(fn), [])
        single = names[0] if want == 1 and len(names) == 1 and names[0] else None
        if have < want:
            if single:
                return f"too few arguments to function call, single argument '{single}' was not specified"
            return f"too few arguments to function call, expected {want}, have {have}"
        if single:
            return (f"too many arguments to function call, expected single argument '{single}', "
                    f"have {have} arguments")
        return f"too many arguments to function call, expected {want}, have {have}"

    def user_call(self, fn, args_nodes, node, values=None):
        params = fn.type.params
        loc = location(node)
        if len(args_nodes) != len(params):
            where = self.ctx.call_rparen_location(node) if len(args_nodes) < len(params) else args_nodes[len(params)]
            self.ctx.fail(self.arity_message(fn, len(args_nodes)), where,
                          [self.ctx.note(f"'{fn.name}' declared here", fn.loc)])
        args = []
        for i, (a, pt) in enumerate(zip(args_nodes, params)):
            # An overloaded call's arguments were checked once to choose the overload: checking
            # them again here made nested overloaded calls cost 2^depth (issue 26, throughput).
            v = values[i] if values is not None else self.rvalue(self.expr(a, expected=pt))
            args.append(self.conversions.convert(v, pt, a, "passing"))
        if self.ctx.fn is not None:
            self.ctx.call_edges.append((self.ctx.fn.function, fn, location(node)))
        fn._used = True
        return tast.Call(fn.type.ret, loc, fn, args)

    def overloaded_call(self, name, args_nodes, node):
        """A call to a user's overloadable function: clang's overload resolution picks one."""
        values = [self.rvalue(self.expr(a)) for a in args_nodes]
        arg_types = tuple(v.type for v in values)
        candidates, chosen_for, exact = self.overload_set(name)
        fn = chosen_for.get(arg_types)
        if fn is not None:
            return self.user_call(fn, args_nodes, node, values)
        try:
            chosen = _builtins.select_overload(name, list(candidates), list(arg_types), exact)
        except _builtins.BuiltinMismatch as exc:
            by_signature = {o.signature(): f for o, f in candidates.items()}
            notes = []
            for text in exc.notes:        # "candidate function: <signature>": at its declaration, as clang
                head, _, signature = text.partition(": ")
                fn = by_signature.get(signature)
                notes.append(self.ctx.note(head, fn.loc) if fn is not None else self.ctx.note(text, location(node)))
            self.ctx.fail(exc.message, node, notes)
        fn = chosen_for[arg_types] = candidates[chosen]
        return self.user_call(fn, args_nodes, node, values)

    def overload_set(self, name):
        """({BuiltinOverload: Function}, {argument types: the Function they chose}, the
        candidates' builtins.exact_overloads) of the user's overloadable `name`, made once
        per set of declarations: rebuilding the records at every call was ~12% of checking
        pocl's tests, which call one 48-overload family thousands of times, mostly with the
        same argument types (issue 26, throughput). The choice depends only on the candidates
        and the argument types (select_overload), so it is kept for the types that chose; a
        family grows only by appending (check.py's overloadable_declaration), so its length
        tells whether it changed."""
        family = self.ctx.overloads[name]
        kept = self.ctx.overload_sets.get(name)
        if kept is None or kept[0] != len(family):
            candidates = {_builtins.BuiltinOverload(name, f.type.ret, f.type.params, f.mangled): f
                          for f in family}
            kept = self.ctx.overload_sets[name] = (len(family), candidates, {},
                                                   _builtins.exact_overloads(candidates))
        return kept[1:]
