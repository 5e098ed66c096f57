"""Lowering of expressions and lvalues (tast.Expr -> llvmlite values), as clang-22 emits them at -O0."""
import math

from llvmlite import ir

from clcoop.frontend import constfold, fp8
from clcoop.frontend import tast as A
from clcoop.frontend import types as T
from clcoop.frontend.llvm_types import (FLOAT_TYPES, I1, I8, I32, I64, element_type, intrinsic_suffix,
                                        is_float_type,
                                        is_signed_int, ptr_type, scalar_ir)
from clcoop.frontend.lower_coop import CoopLowering
from clcoop.frontend.lower_tensor import TensorLowering

# Largest finite value of a float type, by width.
_LARGEST_FINITE = {16: 65504.0, 32: 3.4028234663852886e38, 64: 1.7976931348623157e308}


def is_volatile_access(e):
    """Whether the lvalue `e` is reached through a pointer to volatile (p[i], *p, p->f).
    Volatile variables themselves are not tracked by the checker (tast.Var has no flag)."""
    while isinstance(e, (A.Member, A.Swizzle, A.VectorElement)):
        e = e.base
    if isinstance(e, (A.Index, A.Deref)):
        pointer = e.base if isinstance(e, A.Index) else e.operand
        return isinstance(pointer.type, T.PointerType) and pointer.type.volatile
    return False


def copies_aggregate(ctype, source):
    """Whether storing `source` (a tast expression) as a `ctype` is a struct copy from
    memory (llvm.memcpy, as clang), not a store of a computed value: the source is a
    struct lvalue, or a struct assignment (`u = v = t`: v's place, once t is copied there)."""
    if not isinstance(ctype, T.StructType) or source.type != ctype:
        return False
    return source.is_lvalue or (isinstance(source, A.Assign) and copies_aggregate(ctype, source.value))


# What ExpressionLowering uses of the Lowerer (lower.Lowerer), and nothing else
# (test_lower_parts checks it): the module and the builder, the function being lowered
# (its locals, blocks, the values pre-evaluated for compound assignments, its debug
# location), types and sizes, memory helpers, declarations of callees and globals.
LOWERER_USES = ("align_of", "alloca", "builder", "builtin_function", "call_target", "compound_literal",
                "copy_aggregate", "declared", "define_global", "ensure_open_block", "globals", "kernel_impl",
                "load_value", "locals", "mem_type", "module", "new_block", "old_values", "precomputed",
                "set_location", "size_of", "size_t", "start_block", "store_value", "subprogram", "target",
                "value_type")


def _handlers(*parts):
    """{tast node class name: the ex_<name> method of the part that lowers it}."""
    table = {}
    for part in parts:
        for name in dir(type(part)):
            if name.startswith("ex_"):
                table[name[3:]] = getattr(part, name)
    return table


class ExpressionLowering:
    """The Lowerer's part for lvalues and expressions: lw is the Lowerer it emits through
    (LOWERER_USES). It builds the parts for cooperative matrices (coop) and tensors, and
    dispatches an expression to the ex_ method of whichever part has it."""

    def __init__(self, lw):
        self.lw = lw
        self.coop = CoopLowering(lw, self)
        self.tensor = TensorLowering(lw, self, self.coop)
        self.handlers = _handlers(self, self.coop, self.tensor)
        self.splat_operands = {}     # vector type's text -> (undef vector, index, zero mask): splat
        self.int_constants = {}      # (id(type), value's class, value) -> (type, ir.Constant): int_constant
        self.string_constants = {}   # a string literal's bytes -> its initializer: ex_StringLiteral

    # ------------------------------------------------------------ lvalues
    def address(self, e):
        """Pointer to the storage an lvalue denotes."""
        if self.lw.subprogram is None:
            return self._address(e)
        previous = self.lw.set_location(e.loc)
        pointer = self._address(e)
        self.lw.builder.debug_metadata = previous
        return pointer

    def _address(self, e):
        if isinstance(e, A.VarRef):
            var = e.var
            if var.storage == "compound-literal":
                return self.lw.compound_literal(var)
            if var in self.lw.locals:
                return self.lw.locals[var]
            if var not in self.lw.globals:
                self.lw.define_global(var)
            return self.lw.globals[var]
        if isinstance(e, A.Deref):
            return self.rvalue(e.operand)
        if isinstance(e, A.Index):
            if isinstance(e.base, A.ImplicitCast) and e.base.kind == "array-to-pointer" \
                    and id(e.base) not in self.lw.precomputed:
                # a[i] on an array: one GEP through the array type, as clang emits it
                array = self.address(e.base.operand)
                index = self.index_value(e.index)
                return self.lw.builder.gep(array, [self.int_constant(index.type, 0), index], inbounds=True,
                                           name="arrayidx", source_etype=self.lw.mem_type(e.base.operand.type))
            base = self.rvalue(e.base)
            index = self.index_value(e.index)
            return self.lw.builder.gep(base, [index], inbounds=True, name="arrayidx",
                                       source_etype=self.lw.mem_type(e.type))
        if isinstance(e, A.Member):
            base_t = e.base.type
            base = self.address(e.base)
            if base_t.is_union:
                return base
            return self.lw.builder.gep(base, [self.int_constant(I32, 0), self.int_constant(I32, e.field_index)],
                                       inbounds=True, name=e.name, source_etype=self.lw.mem_type(base_t))
        if isinstance(e, A.CoopElement):
            return self.coop.coop_element_address(e)
        if isinstance(e, (A.ImplicitCast, A.Cast)) and e.kind == "noop":
            return self.address(e.operand)
        if isinstance(e, A.Swizzle) and len(e.indices) == 1:
            base = self.address(e.base)
            return self.lw.builder.gep(base, [self.int_constant(I32, 0), self.int_constant(I32, e.indices[0])],
                                       inbounds=True, name="vecext.addr", source_etype=self.lw.mem_type(e.base.type))
        raise RuntimeError(f"lower: {type(e).__name__} is not an addressable lvalue")

    def index_value(self, index):
        if isinstance(index, A.ImplicitCast) and index.kind == "int-to-int":
            v = self.rvalue(index.operand)
            value = constfold.cast_constant(index)
            if value is not None:
                return self.int_constant(self.lw.value_type(index.type), value)
            return self.int_cast(v, index.operand.type, index.type, "idxprom")
        return self.rvalue(index)

    def vector_element_place(self, e):
        """(address of the vector, index value) of an assignable VectorElement, each evaluated once."""
        return self.address(e.base), self.rvalue(e.index)

    def store_vector_element(self, base_ptr, index, value, vector_type, volatile=False):
        vec = self.lw.load_value(base_ptr, vector_type, volatile=volatile)   # clang reloads the vector here
        vec = self.lw.builder.insert_element(vec, value, index, name="vecins")
        self.lw.store_value(vec, base_ptr, vector_type, volatile)

    def ex_VectorElement(self, e):
        vec = self.rvalue(e.base)          # clang: the vector, then the index
        return self.lw.builder.extract_element(vec, self.rvalue(e.index), name="vecext")

    def store_lvalue(self, target, value):
        if isinstance(target, A.VectorElement):
            base_ptr, index = self.vector_element_place(target)
            self.store_vector_element(base_ptr, index, value, target.base.type, is_volatile_access(target))
            return
        if isinstance(target, A.Swizzle):
            # Load the whole vector, insert the components, store it back (as clang does).
            base_ptr = self.address(target.base)
            volatile = is_volatile_access(target)
            vec = self.lw.load_value(base_ptr, target.base.type, volatile=volatile)
            if len(target.indices) == 1:
                vec = self.lw.builder.insert_element(vec, value, ir.Constant(I32, target.indices[0]), name="vecins")
            for i, idx in enumerate(target.indices if len(target.indices) > 1 else ()):
                comp = self.lw.builder.extract_element(value, ir.Constant(I32, i))
                vec = self.lw.builder.insert_element(vec, comp, ir.Constant(I32, idx))
            self.lw.store_value(vec, base_ptr, target.base.type, volatile)
            return
        self.lw.store_value(value, self.address(target), target.type, is_volatile_access(target))

    def load_lvalue(self, target):
        if isinstance(target, (A.Swizzle, A.VectorElement)):
            return self.rvalue(target)
        return self.lw.load_value(self.address(target), target.type, volatile=is_volatile_access(target))

    # ------------------------------------------------------------ expressions
    def rvalue(self, e):
        if self.lw.precomputed and id(e) in self.lw.precomputed:
            return self.lw.precomputed.pop(id(e))
        if self.lw.subprogram is None:
            return self.handlers[type(e).__name__](e)
        previous = self.lw.set_location(e.loc)
        value = self.handlers[type(e).__name__](e)
        self.lw.builder.debug_metadata = previous    # the parent's own instructions follow
        return value

    # Nodes through which operands of a compound assignment are evaluated before the target is
    # read (clang's order for `x op= y`: y, then x); anything else (?:, &&, calls) keeps its order.
    _EAGER_PARENTS = (A.Binary, A.ImplicitCast, A.Cast, A.PointerArith, A.Unary, A.ConvertCall)

    def pre_evaluate(self, e):
        """Evaluate the OldValue-free operands of `e` now; True if `e` contains an OldValue."""
        if isinstance(e, A.OldValue):
            return True
        if not isinstance(e, self._EAGER_PARENTS):
            return False
        children = [getattr(e, f) for f in ("left", "right", "operand", "pointer", "offset") if hasattr(e, f)]
        flags = [self.pre_evaluate(c) for c in children]
        if any(flags):
            for child, has_old in zip(children, flags):
                if not has_old and not isinstance(child, (A.IntConst, A.FloatConst)):
                    self.lw.precomputed[id(child)] = self.rvalue(child)
            return True
        return False

    def _load_lvalue_expr(self, e):
        return self.lw.load_value(self.address(e), e.type, volatile=is_volatile_access(e))

    ex_VarRef = _load_lvalue_expr
    ex_Deref = _load_lvalue_expr
    ex_Index = _load_lvalue_expr
    ex_CoopElement = _load_lvalue_expr

    def ex_Member(self, e):
        if e.base.is_lvalue:
            return self.lw.load_value(self.address(e), e.type, volatile=is_volatile_access(e))
        agg = self.rvalue(e.base)
        if e.base.type.is_union:
            # A union value's members share its bytes: spill it and reload as the member's type.
            tmp = self.lw.alloca(e.base.type, "tmp")
            self.lw.builder.store(agg, tmp, align=self.lw.align_of(e.base.type))
            return self.lw.load_value(tmp, e.type)
        return self.lw.builder.extract_value(agg, e.field_index, name=e.name)

    def ex_IntConst(self, e):
        return self.int_constant(self.lw.value_type(e.type), e.value)

    def int_constant(self, ty, value):
        """The integer constant `value` of LLVM type `ty`, one llvmlite object per type object
        and value (of its class: True and 1 print differently). A constant's text is made at
        its first printing and kept on it, so a new object per literal and per GEP index
        (~6,000 `i64 0` in pocl's test_as_type.cl) made and formatted it again each time;
        llvmlite never changes a constant (as splat's). The entry keeps `ty`, so its id is
        not reused while the table holds it."""
        key = (id(ty), value.__class__, value)
        entry = self.int_constants.get(key)
        if entry is None:
            entry = self.int_constants[key] = (ty, ir.Constant(ty, value))
        return entry[1]

    def ex_FloatConst(self, e):
        return ir.Constant(self.lw.value_type(e.type), e.value)

    def ex_FunctionRef(self, e):
        raise RuntimeError("lower: function designator used as a value")

    def ex_OldValue(self, e):
        return self.lw.old_values[-1]

    def ex_Comma(self, e):
        self.effect(e.left)
        # `__builtin_unreachable(), f()`: the right operand goes to a fresh block, as code
        # after a return does (no instruction may follow a terminator).
        self.lw.ensure_open_block()
        return self.rvalue(e.right)

    def ex_Assign(self, e):
        if copies_aggregate(e.target.type, e.value):
            target = self.copy_assign(e)
            return self.lw.load_value(target, e.type)      # the value is used: `a = (b = c)`
        value = self.rvalue(e.value)
        self.store_lvalue(e.target, value)
        return value

    def copy_assign(self, e):
        """`s = t` of structs: llvm.memcpy from t to s (s's address first, as clang)."""
        target = self.address(e.target)
        source = self.aggregate_address(e.value)
        self.lw.copy_aggregate(target, source, e.target.type,
                               is_volatile_access(e.target) or is_volatile_access(e.value))
        return target

    def aggregate_address(self, e):
        """Where the struct `e` (copies_aggregate's source) is, after evaluating it."""
        return self.copy_assign(e) if isinstance(e, A.Assign) else self.address(e)

    def effect(self, e):
        """Evaluate `e` for its side effects only (an expression statement, the left of a
        comma): a struct assignment then needs no reload of the value it copied."""
        if isinstance(e, A.Assign) and copies_aggregate(e.target.type, e.value):
            previous = self.lw.set_location(e.loc) if self.lw.subprogram is not None else None
            self.copy_assign(e)
            if self.lw.subprogram is not None:
                self.lw.builder.debug_metadata = previous
            return None
        return self.rvalue(e)

    def ex_CompoundAssign(self, e):
        return self.read_modify_write(e.target, e.compute, result_new=True)

    def ex_IncDec(self, e):
        return self.read_modify_write(e.target, e.compute, result_new=e.prefix,
                                      name="inc" if e.op == "++" else "dec")

    def read_modify_write(self, target, compute, result_new, name=None):
        if isinstance(target, A.VectorElement):
            base_ptr, index = self.vector_element_place(target)
            vec = self.lw.load_value(base_ptr, target.base.type, volatile=is_volatile_access(target))
            old = self.lw.builder.extract_element(vec, index, name="vecext")
            self.lw.old_values.append(old)
            new = self.rvalue(compute)
            self.lw.old_values.pop()
            if name and isinstance(new, ir.Instruction) and new.opname in ("add", "sub", "fadd", "fsub"):
                new.name = name
            self.store_vector_element(base_ptr, index, new, target.base.type, is_volatile_access(target))
            return new if result_new else old
        if isinstance(target, A.Swizzle):
            old = self.rvalue(target)
            self.lw.old_values.append(old)
            new = self.rvalue(compute)
            self.lw.old_values.pop()
            self.store_lvalue(target, new)
            return new if result_new else old
        self.pre_evaluate(compute)
        ptr = self.address(target)          # evaluated once
        volatile = is_volatile_access(target)
        old = self.lw.load_value(ptr, target.type, volatile=volatile)
        self.lw.old_values.append(old)
        new = self.rvalue(compute)
        self.lw.old_values.pop()
        if name and isinstance(new, ir.Instruction) and new.opname in ("add", "sub", "fadd", "fsub",
                                                                       "getelementptr"):
            new.name = name if new.opname != "getelementptr" else "incdec.ptr"   # clang's names
        self.lw.store_value(new, ptr, target.type, volatile)
        return new if result_new else old

    # ---- unary / binary
    def ex_Unary(self, e):
        b = self.lw.builder
        if e.op == "+":
            return self.rvalue(e.operand)
        if e.op == "-":
            v = self.rvalue(e.operand)
            if is_float_type(e.type):
                return b.fneg(v, name="fneg")
            zero = ir.Constant(v.type, None)
            return b.sub(zero, v, name="sub", flags=("nsw",) if is_signed_int(e.type) else ())
        if e.op == "~":
            v = self.rvalue(e.operand)
            return b.not_(v, name="not")
        if e.op == "!":
            if isinstance(e.operand.type, T.VectorType):
                v = self.rvalue(e.operand)
                cmp = b.icmp_unsigned("==", v, ir.Constant(v.type, None), name="lnot")
                return b.sext(cmp, self.lw.value_type(e.type), name="sext")
            v = self.rvalue(e.operand)
            lnot = b.xor(v, ir.Constant(I1, 1), name="lnot")
            return b.zext(lnot, self.lw.value_type(e.type), name="lnot.ext")
        raise RuntimeError(f"lower: unary operator {e.op}")

    ARITH_NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem", "&": "and", "|": "or",
                   "^": "xor", "<<": "shl", ">>": "shr"}

    def ex_Binary(self, e):
        if e.is_comparison:
            cmp = self.compare(e)
            if isinstance(e.type, T.VectorType):
                return self.lw.builder.sext(cmp, self.lw.value_type(e.type), name="sext")
            return self.lw.builder.zext(cmp, self.lw.value_type(e.type), name="conv")
        left = self.rvalue(e.left)
        right = self.rvalue(e.right)
        if e.fp_contract == "on" and e.op in ("+", "-"):
            fused = self.fmuladd(e, left, right)
            if fused is not None:
                return fused
        return self.arith(e.op, left, right, e.type, fast_contract=e.fp_contract == "fast")

    @staticmethod
    def _fresh_product(expr, value):
        """(fmul instruction, negated) when `value` is the product `expr` computed just now
        and used nowhere else: a `*` node, or unary minus of one (clang's tryEmitFMulAdd
        looks through an fneg). A product stored or reused first is not contracted."""
        negated = False
        if isinstance(expr, A.Unary) and expr.op == "-" and isinstance(value, ir.Instruction) \
                and value.opname == "fneg":
            expr, value, negated = expr.operand, value.operands[0], True
        if isinstance(expr, A.Binary) and expr.op == "*" and isinstance(value, ir.Instruction) \
                and value.opname == "fmul":
            return value, negated
        return None, False

    def fmuladd(self, e, left, right):
        """`a * b + c` and its forms as one llvm.fmuladd, exactly where clang-22 fuses them
        (CGExprScalar.cpp tryEmitFMulAdd/buildFMulAdd): the left product first; `x - y`
        negates the addend (left product) or the first factor (right product)."""
        is_sub = e.op == "-"
        for side, (expr, value, addend) in enumerate(((e.left, left, right), (e.right, right, left))):
            product, negated = self._fresh_product(expr, value)
            if product is None:
                continue
            if negated:
                self._erase(value if side == 0 else right)
            neg_mul = negated if side == 0 else is_sub != negated
            neg_add = is_sub if side == 0 else False
            a, b = product.operands
            self._erase(product)
            if neg_mul:
                a = self.lw.builder.fneg(a, name="neg")
            if neg_add:
                addend = self.lw.builder.fneg(addend, name="neg")
            return self.lw.builder.call(self.fmuladd_intrinsic(a.type), [a, b, addend])
        return None

    @staticmethod
    def _erase(instruction):
        instruction.parent.instructions.remove(instruction)

    def fmuladd_intrinsic(self, ty):
        return self.intrinsic(f"llvm.fmuladd.{intrinsic_suffix(ty)}", ty, [ty, ty, ty])

    def arith(self, op, left, right, ctype, fast_contract=False):
        b = self.lw.builder
        name = self.ARITH_NAMES[op]
        if is_float_type(ctype):
            fop = {"+": b.fadd, "-": b.fsub, "*": b.fmul, "/": b.fdiv, "%": b.frem}[op]
            return fop(left, right, name=name, flags=("contract",) if fast_contract else ())
        signed = is_signed_int(ctype)
        nsw = ("nsw",) if signed else ()
        if op == "+":
            return b.add(left, right, name=name, flags=nsw)
        if op == "-":
            return b.sub(left, right, name=name, flags=nsw)
        if op == "*":
            return b.mul(left, right, name=name, flags=nsw)
        if op == "/":
            return (b.sdiv if signed else b.udiv)(left, right, name=name)
        if op == "%":
            return (b.srem if signed else b.urem)(left, right, name=name)
        if op in ("&", "|", "^"):
            return {"&": b.and_, "|": b.or_, "^": b.xor}[op](left, right, name=name)
        # Shifts: count modulo the bit width (OpenCL C 3.0 6.15.3).
        bits = element_type(ctype).bits
        folded = self.fold_shift_count(right, bits)
        if folded is not None:
            right = folded
        else:
            right = b.and_(right, self.splat_const(right.type, bits - 1), name=f"{name}.mask")
        if op == "<<":
            return b.shl(left, right, name=name)
        return (b.ashr if signed else b.lshr)(left, right, name=name)

    def fold_shift_count(self, right, bits):
        """A constant shift count, already reduced modulo the width (clang folds it too)."""
        if not isinstance(right, ir.Constant) or isinstance(right, ir.FormattedConstant):
            return None
        value = right.constant
        if isinstance(value, int) and not isinstance(value, bool):
            return ir.Constant(right.type, value & (bits - 1))
        if isinstance(value, list) and all(isinstance(c, ir.Constant) and isinstance(c.constant, int)
                                           for c in value):
            return ir.Constant(right.type, [ir.Constant(c.type, c.constant & (bits - 1)) for c in value])
        return None

    def splat_const(self, ty, value):
        if isinstance(ty, ir.VectorType):
            return ir.Constant(ty, [ir.Constant(ty.element, value)] * ty.count)
        return ir.Constant(ty, value)

    def compare(self, e):
        b = self.lw.builder
        left = self.rvalue(e.left)
        right = self.rvalue(e.right)
        ot = e.operand_type
        if is_float_type(ot):
            op = e.op
            flags = ("contract",) if e.fp_contract == "fast" else ()
            if op == "!=":
                return b.fcmp_unordered("!=", left, right, name="cmp", flags=flags)
            return b.fcmp_ordered(op, left, right, name="cmp", flags=flags)
        if is_signed_int(ot):
            return b.icmp_signed(e.op, left, right, name="cmp")
        return b.icmp_unsigned(e.op, left, right, name="cmp")

    def bool_value(self, e):
        """i1 of a scalar expression used as a condition; comparisons give their i1 directly (like clang)."""
        if isinstance(e, A.Binary) and e.is_comparison and not isinstance(e.type, T.VectorType):
            return self.compare(e)
        if isinstance(e, A.Logical) and not isinstance(e.type, T.VectorType):
            return self.logical_i1(e)
        v = self.rvalue(e)
        return self.lw.builder.icmp_unsigned("!=", v, ir.Constant(v.type, None), name="tobool")

    def ex_Logical(self, e):
        if isinstance(e.type, T.VectorType):
            b = self.lw.builder
            left = self.rvalue(e.left)
            right = self.rvalue(e.right)
            lz = b.icmp_unsigned("!=", left, ir.Constant(left.type, None), name="tobool")
            rz = b.icmp_unsigned("!=", right, ir.Constant(right.type, None), name="tobool")
            both = (b.and_ if e.op == "&&" else b.or_)(lz, rz)
            return b.sext(both, self.lw.value_type(e.type), name="sext")
        prefix = "land" if e.op == "&&" else "lor"
        v = self.logical_i1(e)
        return self.lw.builder.zext(v, self.lw.value_type(e.type), name=f"{prefix}.ext")

    def logical_i1(self, e):
        """Short-circuit && / || (C99 6.5.13-14) with a phi, as clang does."""
        b = self.lw.builder
        is_and = e.op == "&&"
        prefix = "land" if is_and else "lor"
        left = self.rvalue(e.left)
        rhs_bb = self.lw.new_block(f"{prefix}.rhs")
        end_bb = self.lw.new_block(f"{prefix}.end")
        from_bb = b.block
        if is_and:
            b.cbranch(left, rhs_bb, end_bb)
        else:
            b.cbranch(left, end_bb, rhs_bb)
        self.lw.start_block(rhs_bb)
        right = self.rvalue(e.right)
        rhs_end = b.block
        b.branch(end_bb)
        self.lw.start_block(end_bb)
        phi = b.phi(I1, name="")
        phi.add_incoming(ir.Constant(I1, 0 if is_and else 1), from_bb)
        phi.add_incoming(right, rhs_end)
        return phi

    def ex_Conditional(self, e):
        b = self.lw.builder
        if isinstance(e.cond.type, T.VectorType):
            # OpenCL 6.3.i: select by the most significant bit of each component.
            cond = self.rvalue(e.cond)
            then = self.rvalue(e.then)
            other = self.rvalue(e.otherwise)
            msb = b.icmp_signed("<", cond, ir.Constant(cond.type, None), name="cmp")
            return b.select(msb, then, other, name="cond")
        cond = self.rvalue(e.cond)
        then_bb = self.lw.new_block("cond.true")
        else_bb = self.lw.new_block("cond.false")
        end_bb = self.lw.new_block("cond.end")
        b.cbranch(cond, then_bb, else_bb)
        self.lw.start_block(then_bb)
        then = self.rvalue(e.then)
        then_end = b.block
        b.branch(end_bb)
        self.lw.start_block(else_bb)
        other = self.rvalue(e.otherwise)
        else_end = b.block
        b.branch(end_bb)
        self.lw.start_block(end_bb)
        if e.type.is_void:
            return None
        phi = b.phi(then.type, name="cond")
        phi.add_incoming(then, then_end)
        phi.add_incoming(other, else_end)
        return phi

    # ---- pointers
    def pointee_ir(self, ptype):
        pointee = ptype.pointee
        if pointee.is_void:
            return I8
        return self.lw.mem_type(pointee)

    def ex_PointerArith(self, e):
        b = self.lw.builder
        ptr = self.rvalue(e.pointer)
        off = self.rvalue(e.offset)
        if e.op == "-":
            off = b.sub(ir.Constant(off.type, 0), off, name="idx.neg")
        return b.gep(ptr, [off], inbounds=True, name="add.ptr", source_etype=self.pointee_ir(e.pointer.type))

    def ex_PointerDiff(self, e):
        b = self.lw.builder
        ity = self.lw.value_type(e.type)
        left = b.ptrtoint(self.rvalue(e.left), ity, name="sub.ptr.lhs.cast")
        right = b.ptrtoint(self.rvalue(e.right), ity, name="sub.ptr.rhs.cast")
        diff = b.sub(left, right, name="sub.ptr.sub")
        pointee = e.left.type.pointee
        size = 1 if pointee.is_void else self.lw.size_of(pointee)
        if size == 1:
            return diff
        return b.sdiv(diff, ir.Constant(ity, size), name="sub.ptr.div", flags=("exact",))

    def ex_AddrOf(self, e):
        return self.address(e.operand)

    # ---- calls
    def ex_Call(self, e):
        irf = self.lw.kernel_impl(e.callee) if e.callee.is_kernel else self.lw.call_target(e.callee)
        args = [self.rvalue(a) for a in e.args]
        name = "" if e.type.is_void else "call"
        # The call's convention must match the callee's (a mismatch is UB that -O2 turns into
        # `unreachable`); a kernel called from another kernel keeps spir_kernel.
        return self.lw.builder.call(irf, args, name=name, cconv=irf.calling_convention)

    def ex_BuiltinCall(self, e):
        ov = e.overload
        ret = self.lw.value_type(ov.ret)
        params = [self.lw.value_type(p) for p in ov.params]
        irf = self.lw.builtin_function(ov.mangled, ret, params, convergent=ov.convergent)
        args = [self.rvalue(a) for a in e.args]
        name = "" if ov.ret.is_void else "call"
        return self.lw.builder.call(irf, args, name=name, cconv="spir_func")

    def ex_Printf(self, e):
        irf = self.lw.declared.get("printf")
        if irf is None:
            fmt_type = ir.PointerType(addrspace=T.CONSTANT)
            irf = ir.Function(self.lw.module, ir.FunctionType(I32, [fmt_type], var_arg=True), "printf")
            irf.calling_convention = "spir_func"
            self.lw.declared["printf"] = irf
        args = [self.rvalue(e.format)] + [self.rvalue(a) for a in e.args]
        return self.lw.builder.call(irf, args, name="call", cconv="spir_func")

    def ex_StringLiteral(self, e):
        """A private unnamed_addr constant in __constant memory, as clang's `@.str`. Its
        initializer (and the array type) is one llvmlite constant per content: a constant's
        text is made at its first printing and kept on it, and llvmlite escaped each byte
        of each of pocl's test_bitselect.cl's 336 macro-made printf formats, a few dozen
        contents; llvmlite never changes a constant."""
        initializer = self.string_constants.get(e.value)
        if initializer is None:
            data = bytearray(e.value)
            initializer = self.string_constants[e.value] = ir.Constant(ir.ArrayType(ir.IntType(8), len(data)), data)
        array = initializer.type
        name = self.lw.module.get_unique_name(".str")
        g = ir.GlobalVariable(self.lw.module, array, name, addrspace=T.CONSTANT)
        g.linkage = "private"
        g.unnamed_addr = True
        g.global_constant = True
        g.align = 1
        g.initializer = initializer
        return g

    # ---- conversions
    def ex_Cast(self, e):
        return self.convert(e)

    def ex_ImplicitCast(self, e):
        return self.convert(e)

    def convert(self, e):
        kind = e.kind
        b = self.lw.builder
        src_t, dst_t = e.operand.type, e.type
        if kind == "array-to-pointer":
            ptr = self.address(e.operand)
            zero = self.int_constant(self.lw.size_t, 0)
            return b.gep(ptr, [zero, zero], inbounds=True,
                         name="arraydecay", source_etype=self.lw.mem_type(src_t))
        if kind in (fp8.CAST, fp8.CAST_SATURATING):
            return fp8.lower(self.lw, e, self.rvalue(e.operand))
        if kind == "int-to-bool":
            return self.bool_value(e.operand)
        if kind in ("null-to-pointer", "zero-to-event"):
            if not isinstance(e.operand, (A.IntConst, A.ImplicitCast, A.Cast)):
                self.rvalue(e.operand)
            return ir.Constant(self.lw.value_type(dst_t), None)
        v = self.rvalue(e.operand)
        if kind == "to-void":
            return None
        if kind in ("noop", "pointer-bitcast"):
            return v
        dty = self.lw.value_type(dst_t)
        value = constfold.cast_constant(e)       # clang folds these before codegen
        if value is not None:
            if isinstance(dty, ir.IntType) and isinstance(value, int):
                return self.int_constant(dty, value)
            return ir.Constant(dty, value)
        if kind == "int-to-int":
            return self.int_cast(v, src_t, dst_t, "conv")
        if kind == "int-to-float":
            return (b.sitofp if is_signed_int(src_t) else b.uitofp)(v, dty, name="conv")
        if kind == "float-to-int":
            return (b.fptosi if is_signed_int(dst_t) else b.fptoui)(v, dty, name="conv")
        if kind == "float-to-float":
            return self.float_cast(v, src_t, dst_t)
        if kind == "float-to-bool":
            return b.fcmp_unordered("!=", v, ir.Constant(v.type, 0.0), name="tobool")
        if kind == "pointer-to-bool":
            return b.icmp_unsigned("!=", v, ir.Constant(v.type, None), name="tobool")
        if kind == "bool-to-int":
            return b.zext(v, dty, name="conv")
        if kind == "bool-to-float":
            return b.uitofp(v, dty, name="conv")
        if kind in ("addrspace-to-generic", "addrspace-cast"):
            if v.type == dty:
                return v
            return b.addrspacecast(v, dty, name="")
        if kind == "pointer-to-int":
            return b.ptrtoint(v, dty, name="")
        if kind == "int-to-pointer":
            return b.inttoptr(v, dty, name="")
        if kind == "splat":
            return self.splat(v, dty)
        raise RuntimeError(f"lower: unknown cast kind {kind!r}")

    def int_cast(self, v, src_t, dst_t, name):
        b = self.lw.builder
        sbits = element_type(src_t).bits if element_type(src_t).kind != "bool" else 1
        dbits = element_type(dst_t).bits
        dty = self.lw.value_type(dst_t)
        if sbits == dbits:
            return v
        if sbits > dbits:
            return b.trunc(v, dty, name=name)
        return (b.sext if is_signed_int(src_t) else b.zext)(v, dty, name=name)

    def float_cast(self, v, src_t, dst_t):
        sbits, dbits = element_type(src_t).bits, element_type(dst_t).bits
        dty = self.lw.value_type(dst_t)
        if v.type == dty:
            return v
        if sbits == dbits:      # __bf16 <-> half: through float, as clang-22 does
            wide = self.lw.builder.fpext(v, FLOAT_TYPES[32], name="fpext")
            return self.lw.builder.fptrunc(wide, dty, name="fptrunc")
        return (self.lw.builder.fpext if dbits > sbits else self.lw.builder.fptrunc)(v, dty, name="conv")

    def splat(self, v, vty):
        if isinstance(v, ir.Constant) and not isinstance(v, ir.FormattedConstant):
            return ir.Constant(vty, [v] * vty.count)
        # The undef vector, the index and the mask are one llvmlite constant each per vector
        # type, shared by every splat: a constant's text is made once per object, and making
        # and printing new ones (`<16 x i32> <i32 undef, ...>`) at each splat was ~7-10% of
        # lowering pocl's test_convert_type_N.cl (throughput, issue 26). llvmlite never
        # changes a constant.
        key = str(vty)
        operands = self.splat_operands.get(key)
        if operands is None:
            operands = self.splat_operands[key] = (
                ir.Constant(vty, ir.Undefined), ir.Constant(I64, 0),
                ir.Constant(ir.VectorType(I32, vty.count), [0] * vty.count))
        undef, index, mask = operands
        return self.lw.builder.splat(v, undef, index, mask)

    def ex_ConvertCall(self, e):
        """convert_<type>[_sat] (OpenCL 6.4.3) inlined as instructions."""
        b = self.lw.builder
        src_t, dst_t = e.operand.type, e.type
        v = self.rvalue(e.operand)
        sf, df = is_float_type(src_t), is_float_type(dst_t)
        if e.rounding and e.rounding != "rtz" and (sf or df):
            return self.convert_builtin_call(e, v)
        dty = self.lw.value_type(dst_t)
        if sf and df:
            return self.float_cast(v, src_t, dst_t)
        if not sf and df:
            return (b.sitofp if is_signed_int(src_t) else b.uitofp)(v, dty, name="conv")
        if sf and not df:
            if e.saturate:
                return self.float_to_int_sat(v, src_t, dst_t)
            return (b.fptosi if is_signed_int(dst_t) else b.fptoui)(v, dty, name="conv")
        if e.saturate:
            return self.int_to_int_sat(v, src_t, dst_t)
        return self.int_cast(v, src_t, dst_t, "conv")

    def convert_builtin_call(self, e, v):
        """A conversion with an explicit rounding mode the instructions cannot express is a call
        to the OpenCL built-in, mangled as clang names it (`_Z15convert_int_rtef`)."""
        name = f"convert_{e.type.spelling()}" + ("_sat" if e.saturate else "") + f"_{e.rounding}"
        mangled = f"_Z{len(name)}{name}{T.mangle_type(e.operand.type)}"
        irf = self.lw.builtin_function(mangled, self.lw.value_type(e.type), [v.type])
        return self.lw.builder.call(irf, [v], name="call", cconv="spir_func")

    def int_limits(self, t):
        e = element_type(t)
        if e.signed:
            return -(1 << (e.bits - 1)), (1 << (e.bits - 1)) - 1
        return 0, (1 << e.bits) - 1

    def int_to_int_sat(self, v, src_t, dst_t):
        """Clamp in the source type to the destination's range, then truncate or extend
        (OpenCL 6.4.3.3). No odd-width integers: the interpreter and SPIR-V want 8..64 bits."""
        b = self.lw.builder
        se, de = element_type(src_t), element_type(dst_t)
        lo, hi = self.int_limits(dst_t)
        slo, shi = self.int_limits(src_t)
        cmp_gt = b.icmp_signed if se.signed else b.icmp_unsigned
        if lo > slo:                      # only for a signed source: clamp below
            c = self.splat_const(v.type, lo)
            v = b.select(b.icmp_signed("<", v, c), c, v)
        if hi < shi:                      # then hi fits in the source type
            c = self.splat_const(v.type, hi)
            v = b.select(cmp_gt(">", v, c), c, v)
        dty = self.lw.value_type(dst_t)
        if se.bits > de.bits:
            return b.trunc(v, dty, name="conv")
        if se.bits < de.bits:
            # After the clamp the value is non-negative unless both types are signed.
            return (b.sext if se.signed and de.signed else b.zext)(v, dty, name="conv")
        return v

    def float_to_int_sat(self, v, src_t, dst_t):
        """NaN -> 0, out of range -> the nearest limit (OpenCL 6.4.3.3)."""
        b = self.lw.builder
        lo, hi = self.int_limits(dst_t)
        dty = self.lw.value_type(dst_t)
        conv = (b.fptosi if is_signed_int(dst_t) else b.fptoui)(v, dty, name="conv")
        # A limit beyond the source type's largest finite value (65535 for a half) is
        # reached only by an infinity.
        largest = _LARGEST_FINITE[element_type(src_t).bits]
        low, high = (x if abs(x) <= largest else math.copysign(math.inf, x) for x in (float(lo), float(hi)))
        too_low = b.fcmp_ordered("<=", v, self.splat_const(v.type, low))
        too_high = b.fcmp_ordered(">=", v, self.splat_const(v.type, high))
        is_nan = b.fcmp_unordered("uno", v, v)
        r = b.select(too_low, self.splat_const(dty, lo), conv)
        r = b.select(too_high, self.splat_const(dty, hi), r)
        return b.select(is_nan, ir.Constant(dty, None), r)

    def ex_Intrinsic(self, e):
        """clang built-ins as clang-22 lowers them at -O0 (tast.Intrinsic)."""
        b = self.lw.builder
        if e.name == "unreachable":
            b.unreachable()
            return None
        if e.name in ("to_global", "to_local", "to_private"):
            fn = self.lw.builtin_function(f"__{e.name}", self.lw.value_type(e.type), [ptr_type(T.GENERIC)])
            return b.call(fn, [self.rvalue(e.args[0])], cconv="spir_func")
        if e.name == "assume":
            b.call(self.intrinsic("llvm.assume", ir.VoidType(), [I1]), [self.bool_value(e.args[0])])
            return None
        args = [self.rvalue(a) for a in e.args]
        if e.name in ("memcpy", "memset"):
            dst = args[0]
            suffix = ".".join(f"p{a.type.addrspace}" for a in args[:2 if e.name == "memcpy" else 1])
            if e.name == "memset":
                args[1] = b.trunc(args[1], I8) if args[1].type != I8 else args[1]
            fn = self.intrinsic(f"llvm.{e.name}.{suffix}.i{self.lw.target.pointer_bits}",
                                ir.VoidType(), [a.type for a in args] + [I1])
            b.call(fn, args + [ir.Constant(I1, 0)])
            return dst
        value = args[0]
        suffix = intrinsic_suffix(value.type)
        if e.name == "is.fpclass":
            fn = self.intrinsic(f"llvm.is.fpclass.{suffix}", I1, [value.type, I32])
            flag = b.call(fn, [value, ir.Constant(I32, e.extra[0])])
            return b.zext(flag, I32)
        extra = [ir.Constant(I1, int(x)) for x in e.extra]
        fn = self.intrinsic(f"llvm.{e.name}.{suffix}", value.type, [value.type] + [I1] * len(extra))
        result = b.call(fn, [value] + extra)
        if isinstance(value.type, ir.IntType) and value.type.width > 32:
            return b.trunc(result, I32, name="cast")
        return result

    def intrinsic(self, name, ret, params):
        irf = self.lw.declared.get(name)
        if irf is None:
            irf = ir.Function(self.lw.module, ir.FunctionType(ret, params), name)
            self.lw.declared[name] = irf
        return irf

    def ex_AsType(self, e):
        """as_<type>: a bitcast; 3-component vectors are 4 in size (OpenCL 6.4.4.2), so they are
        widened or narrowed with a shuffle around the bitcast."""
        b = self.lw.builder
        v = self.rvalue(e.operand)
        src_t, dst_t = e.operand.type, e.type
        if isinstance(src_t, T.VectorType) and src_t.count == 3:
            v = b.shuffle_vector(v, ir.Constant(v.type, ir.Undefined),
                                 ir.Constant(ir.VectorType(I32, 4), [0, 1, 2, 3]), name="extractVec")
            # index 3 reads the undef operand: the padding component
        if isinstance(dst_t, T.VectorType) and dst_t.count == 3:
            wide = ir.VectorType(scalar_ir(dst_t.elem), 4)
            w = b.bitcast(v, wide, name="astype")
            return b.shuffle_vector(w, ir.Constant(wide, ir.Undefined),
                                    ir.Constant(ir.VectorType(I32, 3), [0, 1, 2]), name="extractVec")
        return b.bitcast(v, self.lw.value_type(dst_t), name="astype")

    # ---- vectors
    def ex_VectorLiteral(self, e):
        b = self.lw.builder
        vty = self.lw.value_type(e.type)
        if len(e.elements) == 1 and not isinstance(e.elements[0].type, T.VectorType):
            v = self.rvalue(e.elements[0])
            if isinstance(v, ir.Constant):
                return ir.Constant(vty, [v] * e.type.count)
            return self.splat(v, vty)
        scalars = []
        for el in e.elements:
            v = self.rvalue(el)
            if isinstance(el.type, T.VectorType):
                scalars.extend(b.extract_element(v, ir.Constant(I32, i), name="vecext")
                               for i in range(el.type.count))
            else:
                scalars.append(v)
        if all(isinstance(s, ir.Constant) for s in scalars):
            return ir.Constant(vty, scalars)
        vec = ir.Constant(vty, ir.Undefined)
        for i, s in enumerate(scalars):
            vec = b.insert_element(vec, s, ir.Constant(I32, i), name="vecinit")
        return vec

    def ex_Swizzle(self, e):
        b = self.lw.builder
        vec = self.rvalue(e.base)
        if len(e.indices) == 1:
            return b.extract_element(vec, ir.Constant(I32, e.indices[0]), name="vecext")
        mask = ir.Constant(ir.VectorType(I32, len(e.indices)), list(e.indices))
        return b.shuffle_vector(vec, ir.Constant(vec.type, ir.Undefined), mask, name="vecshuf")
