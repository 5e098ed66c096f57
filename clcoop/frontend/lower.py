"""Lower the typed AST (clcoop.frontend.tast) to SPIR LLVM IR text.

IR is built with llvmlite.ir using opaque pointers, then parsed and verified by
llvmlite.binding (LLVM 22); the text returned is LLVM's own printing of the verified
module. Conventions: docs/ir-conventions.md (clang-22 `-triple spir64-unknown-unknown
-cl-std=CL3.0 -O0` style; cooperative matrices as calls to `_Z<len><base>I...Ev...`).

Entry point: `lower(unit, target, opt_level=0) -> str`.
"""
import re
from dataclasses import replace

from llvmlite import ir

from clcoop import coop_names
from clcoop.frontend import tast as A
from clcoop.frontend import types as T

OCL_VERSION = (3, 0)


# ---------------------------------------------------------------- LLVM types
class CoopMatIRType(ir.Type):
    """`target("spirv.CooperativeMatrixKHR", T, scope, rows, cols, use)` (ir-conventions.md)."""

    def __init__(self, ctype):
        self.ctype = ctype

    def _to_string(self):
        return self.ctype.llvm_name()

    def __eq__(self, other):
        return isinstance(other, CoopMatIRType) and other.ctype == self.ctype

    def __hash__(self):
        return hash(("coopmat", self.ctype))


class PoisonConstant(ir.Constant):
    """`<type> poison` (llvmlite has only undef), as clang writes it in !vec_type_hint."""

    def __init__(self, ty):
        super().__init__(ty, None)

    def _to_string(self):
        return "poison"

    def get_reference(self):
        return "poison"

    def __eq__(self, other):
        return isinstance(other, PoisonConstant) and other.type == self.type

    def __hash__(self):
        return hash(("poison", str(self.type)))


class LoopIdMetadata(ir.values.MDValue):
    """A loop ID: `distinct !{!self, !hint}` (LLVM LangRef, 'llvm.loop'), as clang emits it."""

    def __init__(self, module, hint):
        super().__init__(module, [], name=str(len(module.metadata)))
        self.operands = (self, hint)

    def descr(self, buf):
        buf += (f"distinct !{{{self.get_reference()}, {self.operands[1].get_reference()}}}", "\n")

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)


class VolatileLoad(ir.instructions.LoadInstr):
    """`load volatile` (llvmlite's LoadInstr has no volatile flag): an access through a
    pointer to volatile (C99 6.7.3p6), which LLVM must neither remove nor merge."""

    def descr(self, buf):
        super().descr(buf)
        buf[-1] = buf[-1].replace("load ", "load volatile ", 1)


class VolatileStore(ir.instructions.StoreInstr):
    """`store volatile` (see VolatileLoad)."""

    def descr(self, buf):
        super().descr(buf)
        buf[-1] = buf[-1].replace("store ", "store volatile ", 1)


def is_volatile_access(e):
    """Whether the lvalue `e` is reached through a pointer to volatile (p[i], *p, p->f).
    Volatile variables themselves are not tracked by the checker (tast.Var has no flag)."""
    while isinstance(e, (A.Member, A.Swizzle, A.VectorElement)):
        e = e.base
    if isinstance(e, (A.Index, A.Deref)):
        pointer = e.base if isinstance(e, A.Index) else e.operand
        return isinstance(pointer.type, T.PointerType) and pointer.type.volatile
    return False


class EventIRType(ir.Type):
    """`target("spirv.Event")`: event_t, as clang-22 lowers it for SPIR."""

    def _to_string(self):
        return 'target("spirv.Event")'

    def __eq__(self, other):
        return isinstance(other, EventIRType)

    def __hash__(self):
        return hash("spirv.Event")


EVENT_IR = EventIRType()
I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
FLOAT_TYPES = {16: ir.HalfType(), 32: ir.FloatType(), 64: ir.DoubleType()}


def _intrinsic_suffix(ty):
    """LLVM's overload suffix of an intrinsic: i32, f32, v4f32, ..."""
    elem = ty.element if isinstance(ty, ir.VectorType) else ty
    text = {"half": "f16", "float": "f32", "double": "f64"}.get(str(elem), str(elem))
    return f"v{ty.count}{text}" if isinstance(ty, ir.VectorType) else text


def _ptr(addrspace):
    return ir.PointerType(addrspace=addrspace)


def scalar_ir(t):
    if t.kind == "void":
        return ir.VoidType()
    if t.kind == "bool":
        return I1
    if t.kind == "float":
        return FLOAT_TYPES[t.bits]
    return ir.IntType(t.bits)


def element_type(t):
    """Scalar element of a scalar or vector C type (EnumType counts as int)."""
    if isinstance(t, T.VectorType):
        return t.elem
    if isinstance(t, T.EnumType):
        return T.INT
    return t


def is_signed_int(t):
    e = element_type(t)
    return isinstance(e, T.ScalarType) and e.kind == "int" and e.signed


def is_float_type(t):
    e = element_type(t)
    return isinstance(e, T.ScalarType) and e.kind == "float"


def coop_mangled_pointer(ptype):
    """Pointer parameter code with cv-qualifiers dropped (ir-conventions.md "Callee names")."""
    pointee = ptype.pointee
    if isinstance(pointee, (T.ScalarType, T.VectorType, T.EnumType, T.PointerType)):
        return T.mangle_type(replace(ptype, const=False, volatile=False, restrict=False))
    return "P" + (f"U3AS{ptype.addrspace}" if ptype.addrspace != T.PRIVATE else "") + "v"


# ---------------------------------------------------------------- kernel metadata spelling
_QUAL_WORDS = {"const", "volatile", "restrict", "__global", "global", "__local", "local",
               "__constant", "constant", "__private", "private", "__generic", "generic",
               "__read_only", "read_only", "__write_only", "write_only", "__read_write",
               "read_write"}


def metadata_type_name(spelling):
    """clang's kernel_arg_type spelling: no address space or qualifiers, `T*` for pointers."""
    words = [w for w in spelling.replace("*", " * ").split() if w not in _QUAL_WORDS]
    text = " ".join(words)
    return re.sub(r"\s*\*", "*", text).strip()


# clang prints an atomic's value type with C's spelling in kernel_arg_base_type.
_C_SPELLING = {"uchar": "unsigned char", "ushort": "unsigned short", "uint": "unsigned int",
               "ulong": "unsigned long"}


def _in_space(space, name):
    """'int**' -> '__global int **' (clang's spelling of a pointer to a pointer in `space`)."""
    return f"{space} {name.rstrip('*')} {'*' * name.count('*')}"


def base_type_name(t):
    if isinstance(t, T.PointerType):
        return base_type_name(t.pointee) + "*"
    if isinstance(t, T.AtomicType):
        return f"_Atomic({_C_SPELLING.get(t.value.name, t.value.name)})"
    if isinstance(t, T.VectorType):
        return f"{t.elem.name} __attribute__((ext_vector_type({t.count})))"     # clang's spelling
    return metadata_type_name(t.spelling())


def type_qual(t):
    if not isinstance(t, T.PointerType):
        return ""
    # clang's order: "restrict const volatile"; __constant pointees count as const.
    quals = [q for q, on in (("restrict", t.restrict), ("const", t.const or t.addrspace == T.CONSTANT),
                             ("volatile", t.volatile)) if on]
    return " ".join(quals)


# ---------------------------------------------------------------- the lowerer
class Lowerer:
    def __init__(self, target):
        self.target = target
        self.module = ir.Module(name="clcoop", context=ir.Context())
        self.module.triple = target.triple
        self.module.data_layout = target.datalayout
        self.size_t = ir.IntType(target.pointer_bits)
        self.size_code = T.mangle_type(target.size_t)
        self.functions = {}        # tast.Function -> ir.Function
        self.globals = {}          # tast.Var -> ir.GlobalVariable
        self.declared = {}         # callee name -> ir.Function
        self.structs = {}          # StructType -> ir.IdentifiedStructType
        self.pending_impls = []    # (kernel, spir_func copy) still to define
        self.fn = None
        self.builder = None
        self.precomputed = {}
        self.debug = None          # DebugInfo with -g
        self.subprogram = None     # the DISubprogram of the function being defined

    # ------------------------------------------------------------ types
    def mem_type(self, t):
        """LLVM type of a C object in memory (bool is i8)."""
        if isinstance(t, T.ScalarType) and t.kind == "bool":
            return I8
        return self.value_type(t)

    def value_type(self, t):
        if isinstance(t, T.ScalarType):
            return scalar_ir(t)
        if isinstance(t, T.EnumType):
            return I32
        if isinstance(t, T.AtomicType):
            return scalar_ir(t.value)
        if isinstance(t, T.VectorType):
            return ir.VectorType(scalar_ir(t.elem), t.count)
        if isinstance(t, T.PointerType):
            return _ptr(t.addrspace)
        if isinstance(t, T.ArrayType):
            return ir.ArrayType(self.mem_type(t.elem), t.length or 0)
        if isinstance(t, T.CoopMatType):
            return CoopMatIRType(t)
        if isinstance(t, T.EventType):
            return EVENT_IR
        if isinstance(t, T.StructType):
            return self.struct_type(t)
        raise RuntimeError(f"lower: no LLVM type for {t!r}")

    def struct_type(self, t):
        if t in self.structs:
            return self.structs[t]
        kind = "union" if t.is_union else "struct"
        name = base = f"{kind}.{t.tag or t.typedef_name or 'anon'}"
        suffix = 0
        while name in self.module.context.identified_types:
            # another type with this name (two anonymous structs; a tag reused in an inner
            # scope): clang's numbering, %struct.anon.0, %struct.anon.1, ...
            name = f"{base}.{suffix}"
            suffix += 1
        st = self.module.context.get_identified_type(name)
        self.structs[t] = st
        if t.is_union:
            # Like clang: the union is its most aligned (then largest) member, padded to size.
            if t.fields:
                widest = max(t.fields, key=lambda f: (self.align_of(f.type), self.size_of(f.type)))
                body = [self.mem_type(widest.type)]
                pad = self.size_of(t) - self.size_of(widest.type)
                if pad > 0:
                    body.append(ir.ArrayType(I8, pad))
                st.set_body(*body)
            else:
                st.set_body()
        else:
            st.set_body(*[self.mem_type(f.type) for f in t.fields])
        return st

    def size_of(self, t):
        if isinstance(t, (T.ScalarType, T.VectorType, T.EventType)):
            return t.size
        if isinstance(t, T.EnumType):
            return 4
        if isinstance(t, T.PointerType):
            return self.target.pointer_bits // 8
        if isinstance(t, T.ArrayType):
            return self.size_of(t.elem) * (t.length or 0)
        if isinstance(t, T.StructType):
            if t.is_union:
                size = max((self.size_of(f.type) for f in t.fields), default=0)
            else:
                size = 0
                for f in t.fields:
                    a = self.align_of(f.type)
                    size = (size + a - 1) // a * a + self.size_of(f.type)
            a = self.align_of(t)
            return (size + a - 1) // a * a
        return 0

    def align_of(self, t):
        if isinstance(t, (T.ScalarType, T.VectorType, T.EventType)):
            return max(t.size, 1)
        if isinstance(t, T.EnumType):
            return 4
        if isinstance(t, T.PointerType):
            return self.target.pointer_bits // 8
        if isinstance(t, T.ArrayType):
            return self.align_of(t.elem)
        if isinstance(t, T.StructType):
            return max((self.align_of(f.type) for f in t.fields), default=1)
        return None    # cooperative matrices: let LLVM decide

    # ------------------------------------------------------------ module level
    def lower_unit(self, unit):
        for var in unit.globals:
            self.define_global(var)
        for fn in unit.functions:
            self.declare_function(fn)
        for fn in unit.functions:
            for var in fn.local_vars + fn.static_vars:
                self.define_global(var, default_name=f"{fn.name}.{var.name}")
        for fn in unit.functions:
            if fn.body is not None:
                self.define_function(fn)
        while self.pending_impls:
            fn, irf = self.pending_impls.pop(0)
            self.define_function(fn, irf)
        version = self.module.add_metadata([ir.Constant(I32, OCL_VERSION[0]), ir.Constant(I32, OCL_VERSION[1])])
        self.module.add_named_metadata("opencl.ocl.version", version)
        self.module.add_named_metadata("opencl.spir.version", version)

    def define_global(self, var, default_name=None):
        if var in self.globals:
            return
        name = var.global_name or default_name or var.name
        ty = self.mem_type(var.type)
        gv = ir.GlobalVariable(self.module, ty, name, addrspace=var.addrspace)
        gv.type = _ptr(var.addrspace)      # opaque pointers (LLVM 22)
        if var.storage == "kernel-local":
            gv.linkage = "internal"
            gv.initializer = ir.Constant(ty, ir.Undefined)
        else:
            if var.storage == "static":
                gv.linkage = "internal"
            gv.initializer = self.const_init(var.type, var.initializer)
            if var.addrspace == T.CONSTANT or var.is_const:
                gv.global_constant = True
        a = self.align_of(var.type)
        if a:
            gv.align = a
        self.globals[var] = gv

    def const_init(self, t, init):
        ty = self.mem_type(t)
        if init is None:
            return ir.Constant(ty, None)
        if isinstance(init, A.InitList):
            if isinstance(t, T.ArrayType):
                return ir.Constant(ty, [self.const_init(t.elem, e) for e in init.elements])
            if isinstance(t, T.StructType):
                if t.is_union:
                    raise RuntimeError("lower: initialized unions at program scope are not supported")
                return ir.Constant(ty, [self.const_init(f.type, e) for f, e in zip(t.fields, init.elements)])
            if isinstance(t, T.VectorType):
                return ir.Constant(ty, [self.const_init(t.elem, e) for e in init.elements])
        return self.const_expr(t, init)

    def const_expr(self, t, e):
        while isinstance(e, (A.ImplicitCast, A.Cast)) and e.kind == "noop":
            e = e.operand
        ty = self.mem_type(t)
        if isinstance(e, A.IntConst):
            return ir.Constant(ty, e.value)
        if isinstance(e, A.FloatConst):
            return ir.Constant(ty, e.value)
        if isinstance(e, A.VectorLiteral):
            scalars = []
            for el in e.elements:
                c = self.const_expr(element_type(el.type), el)
                scalars.extend(c.constant if isinstance(el.type, T.VectorType) else [c])
            if len(scalars) == 1:
                scalars = scalars * t.count
            return ir.Constant(ty, scalars)
        if isinstance(e, (A.ImplicitCast, A.Cast)) and e.kind == "null-to-pointer":
            return ir.Constant(ty, None)
        if isinstance(t, T.PointerType):
            return self.const_address_value(e, ty)
        if isinstance(e, (A.ImplicitCast, A.Cast)) and e.kind == "pointer-to-int":
            pointer_type = _ptr(e.operand.type.addrspace)
            return self.const_address_value(e.operand, pointer_type).ptrtoint(ty)
        raise RuntimeError(f"lower: initializer of a program-scope object is not a constant ({type(e).__name__})")

    def const_address_value(self, e, ty):
        """Address constants in program-scope pointer initializers: &g, array decay, &a[i], and
        conversions of those to the generic address space."""
        if isinstance(e, (A.ImplicitCast, A.Cast)) and e.kind in ("addrspace-to-generic", "addrspace-cast"):
            inner = self.const_address_value(e.operand, _ptr(e.operand.type.addrspace))
            return ir.FormattedConstant(ty, f"addrspacecast ({inner.type} {inner.get_reference()} to {ty})")
        if isinstance(e, (A.ImplicitCast, A.Cast)) and e.kind in ("noop", "pointer-bitcast"):
            return self.const_address_value(e.operand, ty)
        if isinstance(e, A.AddrOf):
            return self.const_lvalue_address(e.operand)
        if isinstance(e, A.ImplicitCast) and e.kind == "array-to-pointer":
            base = self.const_lvalue_address(e.operand)
            return self.const_gep(base, self.mem_type(e.operand.type), [0, 0])
        if isinstance(e, (A.ImplicitCast, A.Cast)) and e.kind == "null-to-pointer":
            return ir.Constant(ty, None)
        if isinstance(e, A.PointerArith) and isinstance(e.offset, A.IntConst):
            base = self.const_address_value(e.pointer, ty)
            offset = e.offset.value if e.op == "+" else -e.offset.value
            # not inbounds: `g - 1 + 3` passes outside g on the way (clang folds to one i8 GEP).
            return self.const_gep(base, self.mem_type(e.type.pointee), [offset], inbounds=False)
        raise RuntimeError(f"lower: initializer of a program-scope pointer is not an address constant "
                           f"({type(e).__name__})")

    def const_lvalue_address(self, e):
        if isinstance(e, A.VarRef) and e.var.storage in ("global", "static", "kernel-local"):
            self.define_global(e.var)
            return self.globals[e.var]
        if isinstance(e, A.Index) and isinstance(e.index, (A.IntConst, A.ImplicitCast)):
            index = e.index.operand if isinstance(e.index, A.ImplicitCast) else e.index
            base = self.const_address_value(e.base, _ptr(e.base.type.addrspace))
            return self.const_gep(base, self.mem_type(e.type), [index.value])
        if isinstance(e, A.Member):
            base = self.const_lvalue_address(e.base)
            if e.base.type.is_union:
                return base
            return self.const_gep(base, self.mem_type(e.base.type), [0], field_index=e.field_index)
        if isinstance(e, A.Deref):
            return self.const_address_value(e.operand, _ptr(e.operand.type.addrspace))
        raise RuntimeError(f"lower: {type(e).__name__} is not an address constant")

    def const_gep(self, base, source_type, indices, field_index=None, inbounds=True):
        """Constant GEP with i64 indices; a struct field index is appended as i32 (LLVM requires it)."""
        index_text = ", ".join([f"i64 {i}" for i in indices] +
                               ([f"i32 {field_index}"] if field_index is not None else []))
        keyword = "getelementptr inbounds" if inbounds else "getelementptr"
        return ir.FormattedConstant(base.type, f"{keyword} ({source_type}, {base.type} "
                                               f"{base.get_reference()}, {index_text})")

    def function_type(self, fn):
        ft = fn.type
        ret = self.value_type(ft.ret)
        params = [self.value_type(p) for p in ft.params]
        return ir.FunctionType(ret, params)

    def declare_function(self, fn):
        if fn in self.functions:
            return
        symbol = fn.mangled or fn.name
        irf = self.declared.get(symbol)
        if irf is None:
            irf = ir.Function(self.module, self.function_type(fn), symbol)
            irf.calling_convention = "spir_kernel" if fn.is_kernel else "spir_func"
            if fn.is_static:
                irf.linkage = "internal"
            irf.attributes.add("convergent")
            irf.attributes.add("nounwind")
            for arg, p in zip(irf.args, fn.params):
                if p.name:
                    arg.name = p.name
            self.declared[symbol] = irf
        self.functions[fn] = irf

    def call_target(self, fn):
        if fn not in self.functions:
            # Another tast.Function object for the same name (declaration vs definition).
            self.declare_function(fn)
        return self.functions[fn]

    def builtin_function(self, name, ret, params, convergent=False):
        irf = self.declared.get(name)
        if irf is None:
            irf = ir.Function(self.module, ir.FunctionType(ret, params), name)
            irf.calling_convention = "spir_func"
            if convergent:
                irf.attributes.add("convergent")
            irf.attributes.add("nounwind")
            self.declared[name] = irf
        return irf

    # ------------------------------------------------------------ functions
    def kernel_impl(self, fn):
        """A kernel called from another function: LLVM forbids calls to spir_kernel, so the
        callee is a spir_func copy named like clang's `__clang_ocl_kern_imp_<name>`."""
        name = "__clang_ocl_kern_imp_" + fn.name
        irf = self.declared.get(name)
        if irf is None:
            irf = ir.Function(self.module, self.function_type(fn), name)
            irf.calling_convention = "spir_func"
            irf.attributes.add("convergent")
            irf.attributes.add("nounwind")
            for arg, p in zip(irf.args, fn.params):
                if p.name:
                    arg.name = p.name
            self.declared[name] = irf
            self.pending_impls.append((fn, irf))
        return irf

    def define_function(self, fn, irf=None):
        as_kernel = irf is None and fn.is_kernel
        irf = irf or self.functions[fn]
        if irf.blocks:
            return
        self.fn = irf
        self.cur_fn = fn
        self.opt_attrs(irf)
        entry = irf.append_basic_block("entry")
        self.builder = ir.IRBuilder(entry)
        self.subprogram = None
        if self.debug is not None and fn.loc is not None:
            self.subprogram = self.debug.subprogram(
                fn.name, fn.loc, fn.is_kernel, linkage_name=irf.name if irf.name != fn.name else None)
            irf.set_metadata("dbg", self.subprogram.node)
        self.last_alloca = None
        self.locals = {}
        self.break_targets = []
        self.continue_targets = []
        self.old_values = []
        self.precomputed = {}      # id(expr) -> value evaluated ahead (compound assignment operands)
        self.labels = {}
        self.switch_stack = []
        for p, arg in zip(fn.params, irf.args):
            if p.name and arg.name != p.name:
                arg.name = p.name          # the definition's names win over a prototype's
            slot = self.alloca(p.type, (p.name or "") + ".addr")
            self.locals[p] = slot
        for p, arg in zip(fn.params, irf.args):
            self.store_value(arg, self.locals[p], p.type)
        self.stmt(fn.body)
        if not self.builder.block.is_terminated:
            if isinstance(irf.function_type.return_type, ir.VoidType):
                self.builder.ret_void()
            else:
                self.builder.ret(ir.Constant(irf.function_type.return_type, ir.Undefined))
        if as_kernel:
            self.kernel_metadata(fn, irf)

    def opt_attrs(self, irf):
        if self.opt_level == 0:
            irf.attributes.add("noinline")
            irf.attributes.add("optnone")

    def kernel_metadata(self, fn, irf):
        m = self.module
        ptypes = list(fn.type.params)
        names = list(fn.param_type_names) if fn.param_type_names else []
        quals = list(fn.param_access_quals) if fn.param_access_quals else []

        def strings(values):
            return m.add_metadata([ir.MetaDataString(m, v) for v in values])

        spaces = [p.addrspace if isinstance(p, T.PointerType) else 0 for p in ptypes]
        arg_types = [metadata_type_name(names[i]) if i < len(names) and names[i] else base_type_name(p)
                     for i, p in enumerate(ptypes)]
        base_types = [base_type_name(p) for p in ptypes]
        for i, p in enumerate(ptypes):
            if isinstance(p, T.PointerType) and isinstance(p.pointee, T.PointerType):
                # clang keeps the inner pointer's address space: "__global int **".
                space = T.ADDRSPACE_NAMES[p.pointee.addrspace]
                arg_types[i] = _in_space(space, arg_types[i])
                base_types[i] = _in_space(space, base_types[i])
        irf.set_metadata("kernel_arg_addr_space", m.add_metadata([ir.Constant(I32, s) for s in spaces]))
        irf.set_metadata("kernel_arg_access_qual",
                         strings([quals[i] if i < len(quals) and quals[i] else "none" for i in range(len(ptypes))]))
        irf.set_metadata("kernel_arg_type", strings(arg_types))
        irf.set_metadata("kernel_arg_base_type", strings(base_types))
        irf.set_metadata("kernel_arg_type_qual", strings([type_qual(p) for p in ptypes]))
        if fn.reqd_work_group_size:
            irf.set_metadata("reqd_work_group_size",
                             m.add_metadata([ir.Constant(I32, v) for v in fn.reqd_work_group_size]))
        if fn.work_group_size_hint:
            irf.set_metadata("work_group_size_hint",
                             m.add_metadata([ir.Constant(I32, v) for v in fn.work_group_size_hint]))
        if fn.vec_type_hint is not None:
            # clang: !{<type> poison, i32 <1 if a signed integer type>}
            hint = fn.vec_type_hint
            elem = hint.elem if isinstance(hint, T.VectorType) else hint
            signed = int(elem.is_integer and elem.signed)
            irf.set_metadata("vec_type_hint", m.add_metadata([PoisonConstant(self.value_type(hint)),
                                                               ir.Constant(I32, signed)]))
        if fn.intel_reqd_sub_group_size:
            irf.set_metadata("intel_reqd_sub_group_size",
                             m.add_metadata([ir.Constant(I32, fn.intel_reqd_sub_group_size)]))

    def alloca(self, ctype, name):
        """A private slot in the entry block, after the previous allocas (clang's order)."""
        b = ir.IRBuilder(self.fn.entry_basic_block)
        if self.last_alloca is None:
            b.position_at_start(self.fn.entry_basic_block)
        else:
            b.position_after(self.last_alloca)
        slot = b.alloca(self.mem_type(ctype), name=name)
        slot.type = _ptr(0)
        a = self.align_of(ctype)
        if a:
            slot.align = a
        self.last_alloca = slot
        if self.builder.block is self.fn.entry_basic_block:
            # The main builder always appends at the end; re-anchor it after the insertion.
            self.builder.position_at_end(self.builder.block)
        return slot

    # ------------------------------------------------------------ memory helpers
    def load_value(self, ptr, ctype, name="", volatile=False):
        b = self.builder
        if isinstance(ctype, T.ScalarType) and ctype.kind == "bool":
            raw = self.mark_volatile(b.load(ptr, typ=I8, align=1), volatile)
            return b.trunc(raw, I1, name="loadedv")
        return self.mark_volatile(b.load(ptr, name=name, typ=self.mem_type(ctype),
                                         align=self.align_of(ctype)), volatile)

    def store_value(self, value, ptr, ctype, volatile=False):
        b = self.builder
        if isinstance(ctype, T.ScalarType) and ctype.kind == "bool":
            value = b.zext(value, I8, name="frombool")
            self.mark_volatile(b.store(value, ptr, align=1), volatile)
            return
        self.mark_volatile(b.store(value, ptr, align=self.align_of(ctype)), volatile)

    @staticmethod
    def mark_volatile(instr, volatile):
        if volatile:
            instr.__class__ = VolatileLoad if isinstance(instr, ir.instructions.LoadInstr) else VolatileStore
        return instr

    def new_block(self, name):
        """A block not yet in the function: blocks are placed in emission order, as clang does."""
        return ir.Block(parent=self.fn, name=name)

    def start_block(self, block):
        if block not in self.fn.blocks:
            self.fn.blocks.append(block)
        self.builder.position_at_end(block)

    def ensure_open_block(self):
        """Code after return/break/goto goes to a fresh (unreachable) block."""
        if self.builder.block.is_terminated:
            self.start_block(self.new_block("unreachable"))

    def branch(self, target):
        if not self.builder.block.is_terminated:
            self.builder.branch(target)

    # ------------------------------------------------------------ statements
    def stmt(self, s):
        if s is None:
            return
        if not isinstance(s, (A.Case, A.Default, A.Label, A.Compound, A.Null)):
            self.ensure_open_block()
        if self.subprogram is not None:
            self.set_location(s.loc)
        getattr(self, "st_" + type(s).__name__)(s)

    def set_location(self, loc):
        """-g: instructions built from now on carry the DILocation of `loc` (when known);
        returns the previous one, for the caller to restore."""
        previous = self.builder.debug_metadata
        location = self.debug.location(loc, self.subprogram)
        if location is not None:
            self.builder.debug_metadata = location
        return previous

    def st_Compound(self, s):
        for item in s.items:
            self.stmt(item)

    def st_Null(self, s):
        pass

    def st_ExprStmt(self, s):
        self.rvalue(s.expr)

    def st_DeclStmt(self, s):
        for var in s.vars:
            if var.storage not in ("local-var", "param"):
                continue            # static / kernel-local: module globals
            slot = self.alloca(var.type, var.name)
            self.locals[var] = slot
            if var.initializer is not None:
                self.initialize(slot, var.type, var.initializer)

    def compound_literal(self, var):
        """C99 6.5.2.5p16: the object is (re)initialized each time the literal is evaluated;
        check makes one Var per literal, referenced once. clang names the slot `.compoundliteral`."""
        slot = self.locals.get(var)
        if slot is None:
            slot = self.alloca(var.type, ".compoundliteral")
            self.locals[var] = slot
        self.initialize(slot, var.type, var.initializer)
        return slot

    def initialize(self, ptr, ctype, init):
        if isinstance(init, A.InitList):
            self.builder.store(ir.Constant(self.mem_type(ctype), None), ptr, align=self.align_of(ctype))
            self.init_elements(ptr, ctype, init)
        else:
            self.store_value(self.rvalue(init), ptr, ctype)

    def init_elements(self, ptr, ctype, init):
        ty = self.mem_type(ctype)
        if isinstance(ctype, T.ArrayType):
            items = [(i, ctype.elem) for i in range(len(init.elements))]
        elif isinstance(ctype, T.StructType):
            items = [(i, f.type) for i, f in enumerate(ctype.fields)]
        elif isinstance(ctype, T.VectorType):
            vec = ir.Constant(ty, None)
            for i, el in enumerate(init.elements):
                if el is not None:
                    vec = self.builder.insert_element(vec, self.rvalue(el), ir.Constant(I32, i))
            self.builder.store(vec, ptr, align=self.align_of(ctype))
            return
        else:
            raise RuntimeError(f"lower: initializer list for {ctype!r}")
        for (i, etype), el in zip(items, init.elements):
            if el is None:
                continue
            if isinstance(ctype, T.StructType) and ctype.is_union:
                eptr = ptr
            else:
                eptr = self.builder.gep(ptr, [ir.Constant(I32, 0), ir.Constant(I32, i)], inbounds=True,
                                        name="arrayinit.element" if isinstance(ctype, T.ArrayType) else "init",
                                        source_etype=ty)
            if isinstance(el, A.InitList):
                self.init_elements(eptr, etype, el)
            else:
                self.store_value(self.rvalue(el), eptr, etype)

    def st_If(self, s):
        cond = self.rvalue(s.cond)
        then_bb = self.new_block("if.then")
        else_bb = self.new_block("if.else") if s.otherwise is not None else None
        end_bb = self.new_block("if.end")
        self.builder.cbranch(cond, then_bb, else_bb or end_bb)
        self.start_block(then_bb)
        self.stmt(s.then)
        self.branch(end_bb)
        if else_bb is not None:
            self.start_block(else_bb)
            self.stmt(s.otherwise)
            self.branch(end_bb)
        self.start_block(end_bb)

    def loop_metadata(self, branch, unroll):
        """clang's !llvm.loop on a loop's back edge for opencl_unroll_hint (OpenCL C 3.0 6.11.5):
        no count = unroll.enable, 1 = unroll.disable, n = unroll.count n."""
        if unroll is None or branch is None:
            return
        if unroll == 0:
            hint = self.module.add_metadata(["llvm.loop.unroll.enable"])
        elif unroll == 1:
            hint = self.module.add_metadata(["llvm.loop.unroll.disable"])
        else:
            hint = self.module.add_metadata(["llvm.loop.unroll.count", ir.Constant(I32, unroll)])
        branch.set_metadata("llvm.loop", LoopIdMetadata(self.module, hint))

    def back_edge(self, target, unroll):
        if not self.builder.block.is_terminated:
            self.loop_metadata(self.builder.branch(target), unroll)

    def loop(self, prefix, cond, body, step=None, cond_first=True, unroll=None):
        cond_bb = self.new_block(f"{prefix}.cond")
        body_bb = self.new_block(f"{prefix}.body")
        inc_bb = self.new_block(f"{prefix}.inc") if step is not None else None
        end_bb = self.new_block(f"{prefix}.end")
        self.builder.branch(cond_bb if cond_first else body_bb)
        self.start_block(cond_bb)
        if cond is not None:
            self.builder.cbranch(self.rvalue(cond), body_bb, end_bb)
        else:
            self.builder.branch(body_bb)
        self.start_block(body_bb)
        self.stmt_with_targets(body, end_bb, inc_bb or cond_bb)
        if inc_bb is not None:
            self.branch(inc_bb)
            self.start_block(inc_bb)
            self.rvalue(step)
        self.back_edge(cond_bb, unroll)
        self.start_block(end_bb)

    def st_While(self, s):
        self.loop("while", s.cond, s.body, unroll=s.unroll)

    def st_DoWhile(self, s):
        # do.body first, then do.cond (C99 6.8.5.2).
        body_bb = self.new_block("do.body")
        cond_bb = self.new_block("do.cond")
        end_bb = self.new_block("do.end")
        self.builder.branch(body_bb)
        self.start_block(body_bb)
        self.stmt_with_targets(s.body, end_bb, cond_bb)
        self.branch(cond_bb)
        self.start_block(cond_bb)
        self.loop_metadata(self.builder.cbranch(self.rvalue(s.cond), body_bb, end_bb), s.unroll)
        self.start_block(end_bb)

    def stmt_with_targets(self, body, break_bb, continue_bb=None):
        """Lowers body with `break` (and, for loops, `continue`) jumping to these blocks."""
        self.break_targets.append(break_bb)
        if continue_bb is not None:
            self.continue_targets.append(continue_bb)
        self.stmt(body)
        self.break_targets.pop()
        if continue_bb is not None:
            self.continue_targets.pop()

    def st_For(self, s):
        if s.init is not None:
            self.stmt(s.init)
        self.loop("for", s.cond, s.body, step=s.step, unroll=s.unroll)

    def st_Break(self, s):
        self.builder.branch(self.break_targets[-1])

    def st_Continue(self, s):
        self.builder.branch(self.continue_targets[-1])

    def st_Return(self, s):
        if s.value is None or s.value.type.is_void:
            if s.value is not None:
                self.rvalue(s.value)       # `return f();` in a void function
            self.builder.ret_void()
        else:
            self.builder.ret(self.rvalue(s.value))

    def st_Switch(self, s):
        cond = self.rvalue(s.cond)
        end_bb = self.new_block("sw.epilog")
        blocks = {}
        for case in s.cases:
            blocks[id(case)] = self.new_block("sw.bb")
        default_bb = self.new_block("sw.default") if s.default is not None else end_bb
        if s.default is not None:
            blocks[id(s.default)] = default_bb
        sw = self.builder.switch(cond, default_bb)
        for case in s.cases:
            sw.add_case(ir.Constant(cond.type, case.value), blocks[id(case)])
        self.switch_stack.append(blocks)
        self.stmt_with_targets(s.body, end_bb)
        self.switch_stack.pop()
        self.branch(end_bb)
        self.start_block(end_bb)

    def _case_label(self, s):
        bb = self.switch_stack[-1][id(s)]
        self.branch(bb)           # fall through from the previous case
        self.start_block(bb)
        self.stmt(s.body)

    st_Case = _case_label
    st_Default = _case_label

    def label_block(self, name):
        if name not in self.labels:
            self.labels[name] = self.new_block(name)
        return self.labels[name]

    def st_Label(self, s):
        bb = self.label_block(s.name)
        self.branch(bb)
        self.start_block(bb)
        self.stmt(s.body)

    def st_Goto(self, s):
        self.builder.branch(self.label_block(s.label))

    # ------------------------------------------------------------ lvalues
    def address(self, e):
        """Pointer to the storage an lvalue denotes."""
        if self.subprogram is None:
            return self._address(e)
        previous = self.set_location(e.loc)
        pointer = self._address(e)
        self.builder.debug_metadata = previous
        return pointer

    def _address(self, e):
        if isinstance(e, A.VarRef):
            var = e.var
            if var.storage == "compound-literal":
                return self.compound_literal(var)
            if var in self.locals:
                return self.locals[var]
            if var not in self.globals:
                self.define_global(var)
            return self.globals[var]
        if isinstance(e, A.Deref):
            return self.rvalue(e.operand)
        if isinstance(e, A.Index):
            if isinstance(e.base, A.ImplicitCast) and e.base.kind == "array-to-pointer" \
                    and id(e.base) not in self.precomputed:
                # a[i] on an array: one GEP through the array type, as clang emits it
                array = self.address(e.base.operand)
                index = self.index_value(e.index)
                return self.builder.gep(array, [ir.Constant(index.type, 0), index], inbounds=True,
                                        name="arrayidx", source_etype=self.mem_type(e.base.operand.type))
            base = self.rvalue(e.base)
            index = self.index_value(e.index)
            return self.builder.gep(base, [index], inbounds=True, name="arrayidx",
                                    source_etype=self.mem_type(e.type))
        if isinstance(e, A.Member):
            base_t = e.base.type
            base = self.address(e.base)
            if base_t.is_union:
                return base
            return self.builder.gep(base, [ir.Constant(I32, 0), ir.Constant(I32, e.field_index)],
                                    inbounds=True, name=e.name, source_etype=self.mem_type(base_t))
        if isinstance(e, A.CoopElement):
            return self.coop_element_address(e)
        if isinstance(e, (A.ImplicitCast, A.Cast)) and e.kind == "noop":
            return self.address(e.operand)
        if isinstance(e, A.Swizzle) and len(e.indices) == 1:
            base = self.address(e.base)
            return self.builder.gep(base, [ir.Constant(I32, 0), ir.Constant(I32, e.indices[0])],
                                    inbounds=True, name="vecext.addr", source_etype=self.mem_type(e.base.type))
        raise RuntimeError(f"lower: {type(e).__name__} is not an addressable lvalue")

    def index_value(self, index):
        if isinstance(index, A.ImplicitCast) and index.kind == "int-to-int":
            v = self.rvalue(index.operand)
            folded = self.fold_cast("int-to-int", v, index.operand.type, index.type, self.value_type(index.type))
            if folded is not None:
                return folded
            return self.int_cast(v, index.operand.type, index.type, "idxprom")
        return self.rvalue(index)

    def vector_element_place(self, e):
        """(address of the vector, index value) of an assignable VectorElement, each evaluated once."""
        return self.address(e.base), self.rvalue(e.index)

    def store_vector_element(self, base_ptr, index, value, vector_type, volatile=False):
        vec = self.load_value(base_ptr, vector_type, volatile=volatile)   # clang reloads the vector here
        vec = self.builder.insert_element(vec, value, index, name="vecins")
        self.store_value(vec, base_ptr, vector_type, volatile)

    def ex_VectorElement(self, e):
        vec = self.rvalue(e.base)          # clang: the vector, then the index
        return self.builder.extract_element(vec, self.rvalue(e.index), name="vecext")

    def store_lvalue(self, target, value):
        if isinstance(target, A.VectorElement):
            base_ptr, index = self.vector_element_place(target)
            self.store_vector_element(base_ptr, index, value, target.base.type, is_volatile_access(target))
            return
        if isinstance(target, A.Swizzle):
            # Load the whole vector, insert the components, store it back (as clang does).
            base_ptr = self.address(target.base)
            volatile = is_volatile_access(target)
            vec = self.load_value(base_ptr, target.base.type, volatile=volatile)
            if len(target.indices) == 1:
                vec = self.builder.insert_element(vec, value, ir.Constant(I32, target.indices[0]), name="vecins")
            for i, idx in enumerate(target.indices if len(target.indices) > 1 else ()):
                comp = self.builder.extract_element(value, ir.Constant(I32, i))
                vec = self.builder.insert_element(vec, comp, ir.Constant(I32, idx))
            self.store_value(vec, base_ptr, target.base.type, volatile)
            return
        self.store_value(value, self.address(target), target.type, is_volatile_access(target))

    def load_lvalue(self, target):
        if isinstance(target, (A.Swizzle, A.VectorElement)):
            return self.rvalue(target)
        return self.load_value(self.address(target), target.type, volatile=is_volatile_access(target))

    # ------------------------------------------------------------ expressions
    def rvalue(self, e):
        if self.precomputed and id(e) in self.precomputed:
            return self.precomputed.pop(id(e))
        if self.subprogram is None:
            return getattr(self, "ex_" + type(e).__name__)(e)
        previous = self.set_location(e.loc)
        value = getattr(self, "ex_" + type(e).__name__)(e)
        self.builder.debug_metadata = previous    # the parent's own instructions follow
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
                    self.precomputed[id(child)] = self.rvalue(child)
            return True
        return False

    def _load_lvalue_expr(self, e):
        return self.load_value(self.address(e), e.type, volatile=is_volatile_access(e))

    ex_VarRef = _load_lvalue_expr
    ex_Deref = _load_lvalue_expr
    ex_Index = _load_lvalue_expr
    ex_CoopElement = _load_lvalue_expr

    def ex_Member(self, e):
        if e.base.is_lvalue:
            return self.load_value(self.address(e), e.type, volatile=is_volatile_access(e))
        agg = self.rvalue(e.base)
        if e.base.type.is_union:
            # A union value's members share its bytes: spill it and reload as the member's type.
            tmp = self.alloca(e.base.type, "tmp")
            self.builder.store(agg, tmp, align=self.align_of(e.base.type))
            return self.load_value(tmp, e.type)
        return self.builder.extract_value(agg, e.field_index, name=e.name)

    def ex_IntConst(self, e):
        return ir.Constant(self.value_type(e.type), e.value)

    def ex_FloatConst(self, e):
        return ir.Constant(self.value_type(e.type), e.value)

    def ex_StringLiteral(self, e):
        raise RuntimeError("lower: string literals are not supported")

    def ex_FunctionRef(self, e):
        raise RuntimeError("lower: function designator used as a value")

    def ex_OldValue(self, e):
        return self.old_values[-1]

    def ex_Comma(self, e):
        self.rvalue(e.left)
        return self.rvalue(e.right)

    def ex_Assign(self, e):
        value = self.rvalue(e.value)
        self.store_lvalue(e.target, value)
        return value

    def ex_CompoundAssign(self, e):
        return self.read_modify_write(e.target, e.compute, result_new=True)

    def ex_IncDec(self, e):
        return self.read_modify_write(e.target, e.compute, result_new=e.prefix,
                                      name="inc" if e.op == "++" else "dec")

    def read_modify_write(self, target, compute, result_new, name=None):
        if isinstance(target, A.VectorElement):
            base_ptr, index = self.vector_element_place(target)
            vec = self.load_value(base_ptr, target.base.type, volatile=is_volatile_access(target))
            old = self.builder.extract_element(vec, index, name="vecext")
            self.old_values.append(old)
            new = self.rvalue(compute)
            self.old_values.pop()
            if name and isinstance(new, ir.Instruction) and new.opname in ("add", "sub", "fadd", "fsub"):
                new.name = name
            self.store_vector_element(base_ptr, index, new, target.base.type, is_volatile_access(target))
            return new if result_new else old
        if isinstance(target, A.Swizzle):
            old = self.rvalue(target)
            self.old_values.append(old)
            new = self.rvalue(compute)
            self.old_values.pop()
            self.store_lvalue(target, new)
            return new if result_new else old
        self.pre_evaluate(compute)
        ptr = self.address(target)          # evaluated once
        volatile = is_volatile_access(target)
        old = self.load_value(ptr, target.type, volatile=volatile)
        self.old_values.append(old)
        new = self.rvalue(compute)
        self.old_values.pop()
        if name and isinstance(new, ir.Instruction) and new.opname in ("add", "sub", "fadd", "fsub",
                                                                       "getelementptr"):
            new.name = name if new.opname != "getelementptr" else "incdec.ptr"   # clang's names
        self.store_value(new, ptr, target.type, volatile)
        return new if result_new else old

    # ---- unary / binary
    def ex_Unary(self, e):
        b = self.builder
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
                return b.sext(cmp, self.value_type(e.type), name="sext")
            v = self.rvalue(e.operand)
            lnot = b.xor(v, ir.Constant(I1, 1), name="lnot")
            return b.zext(lnot, self.value_type(e.type), name="lnot.ext")
        raise RuntimeError(f"lower: unary operator {e.op}")

    ARITH_NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem", "&": "and", "|": "or",
                   "^": "xor", "<<": "shl", ">>": "shr"}

    def ex_Binary(self, e):
        if e.is_comparison:
            cmp = self.compare(e)
            if isinstance(e.type, T.VectorType):
                return self.builder.sext(cmp, self.value_type(e.type), name="sext")
            return self.builder.zext(cmp, self.value_type(e.type), name="conv")
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
                a = self.builder.fneg(a, name="neg")
            if neg_add:
                addend = self.builder.fneg(addend, name="neg")
            return self.builder.call(self.fmuladd_intrinsic(a.type), [a, b, addend])
        return None

    @staticmethod
    def _erase(instruction):
        instruction.parent.instructions.remove(instruction)

    def fmuladd_intrinsic(self, ty):
        return self.intrinsic(f"llvm.fmuladd.{_intrinsic_suffix(ty)}", ty, [ty, ty, ty])

    def arith(self, op, left, right, ctype, fast_contract=False):
        b = self.builder
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
        b = self.builder
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
        return self.builder.icmp_unsigned("!=", v, ir.Constant(v.type, None), name="tobool")

    def ex_Logical(self, e):
        if isinstance(e.type, T.VectorType):
            b = self.builder
            left = self.rvalue(e.left)
            right = self.rvalue(e.right)
            lz = b.icmp_unsigned("!=", left, ir.Constant(left.type, None), name="tobool")
            rz = b.icmp_unsigned("!=", right, ir.Constant(right.type, None), name="tobool")
            both = (b.and_ if e.op == "&&" else b.or_)(lz, rz)
            return b.sext(both, self.value_type(e.type), name="sext")
        prefix = "land" if e.op == "&&" else "lor"
        v = self.logical_i1(e)
        return self.builder.zext(v, self.value_type(e.type), name=f"{prefix}.ext")

    def logical_i1(self, e):
        """Short-circuit && / || (C99 6.5.13-14) with a phi, as clang does."""
        b = self.builder
        is_and = e.op == "&&"
        prefix = "land" if is_and else "lor"
        left = self.rvalue(e.left)
        rhs_bb = self.new_block(f"{prefix}.rhs")
        end_bb = self.new_block(f"{prefix}.end")
        from_bb = b.block
        if is_and:
            b.cbranch(left, rhs_bb, end_bb)
        else:
            b.cbranch(left, end_bb, rhs_bb)
        self.start_block(rhs_bb)
        right = self.rvalue(e.right)
        rhs_end = b.block
        b.branch(end_bb)
        self.start_block(end_bb)
        phi = b.phi(I1, name="")
        phi.add_incoming(ir.Constant(I1, 0 if is_and else 1), from_bb)
        phi.add_incoming(right, rhs_end)
        return phi

    def ex_Conditional(self, e):
        b = self.builder
        if isinstance(e.cond.type, T.VectorType):
            # OpenCL 6.3.i: select by the most significant bit of each component.
            cond = self.rvalue(e.cond)
            then = self.rvalue(e.then)
            other = self.rvalue(e.otherwise)
            msb = b.icmp_signed("<", cond, ir.Constant(cond.type, None), name="cmp")
            return b.select(msb, then, other, name="cond")
        cond = self.rvalue(e.cond)
        then_bb = self.new_block("cond.true")
        else_bb = self.new_block("cond.false")
        end_bb = self.new_block("cond.end")
        b.cbranch(cond, then_bb, else_bb)
        self.start_block(then_bb)
        then = self.rvalue(e.then)
        then_end = b.block
        b.branch(end_bb)
        self.start_block(else_bb)
        other = self.rvalue(e.otherwise)
        else_end = b.block
        b.branch(end_bb)
        self.start_block(end_bb)
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
        return self.mem_type(pointee)

    def ex_PointerArith(self, e):
        b = self.builder
        ptr = self.rvalue(e.pointer)
        off = self.rvalue(e.offset)
        if e.op == "-":
            off = b.sub(ir.Constant(off.type, 0), off, name="idx.neg")
        return b.gep(ptr, [off], inbounds=True, name="add.ptr", source_etype=self.pointee_ir(e.pointer.type))

    def ex_PointerDiff(self, e):
        b = self.builder
        ity = self.value_type(e.type)
        left = b.ptrtoint(self.rvalue(e.left), ity, name="sub.ptr.lhs.cast")
        right = b.ptrtoint(self.rvalue(e.right), ity, name="sub.ptr.rhs.cast")
        diff = b.sub(left, right, name="sub.ptr.sub")
        pointee = e.left.type.pointee
        size = 1 if pointee.is_void else self.size_of(pointee)
        if size == 1:
            return diff
        return b.sdiv(diff, ir.Constant(ity, size), name="sub.ptr.div", flags=("exact",))

    def ex_AddrOf(self, e):
        return self.address(e.operand)

    # ---- calls
    def ex_Call(self, e):
        irf = self.kernel_impl(e.callee) if e.callee.is_kernel else self.call_target(e.callee)
        args = [self.rvalue(a) for a in e.args]
        name = "" if e.type.is_void else "call"
        # The call's convention must match the callee's (a mismatch is UB that -O2 turns into
        # `unreachable`); a kernel called from another kernel keeps spir_kernel.
        return self.builder.call(irf, args, name=name, cconv=irf.calling_convention)

    def ex_BuiltinCall(self, e):
        ov = e.overload
        ret = self.value_type(ov.ret)
        params = [self.value_type(p) for p in ov.params]
        irf = self.builtin_function(ov.mangled, ret, params, convergent=ov.convergent)
        args = [self.rvalue(a) for a in e.args]
        name = "" if ov.ret.is_void else "call"
        return self.builder.call(irf, args, name=name, cconv="spir_func")

    def ex_Printf(self, e):
        irf = self.declared.get("printf")
        if irf is None:
            fmt_type = ir.PointerType(addrspace=T.CONSTANT)
            irf = ir.Function(self.module, ir.FunctionType(I32, [fmt_type], var_arg=True), "printf")
            irf.calling_convention = "spir_func"
            self.declared["printf"] = irf
        args = [self.rvalue(e.format)] + [self.rvalue(a) for a in e.args]
        return self.builder.call(irf, args, name="call", cconv="spir_func")

    def ex_StringLiteral(self, e):
        """A private unnamed_addr constant in __constant memory, as clang's `@.str`."""
        data = bytearray(e.value)
        array = ir.ArrayType(ir.IntType(8), len(data))
        name = self.module.get_unique_name(".str")
        g = ir.GlobalVariable(self.module, array, name, addrspace=T.CONSTANT)
        g.linkage = "private"
        g.unnamed_addr = True
        g.global_constant = True
        g.align = 1
        g.initializer = ir.Constant(array, data)
        return g

    # ---- conversions
    def ex_Cast(self, e):
        return self.convert(e)

    def ex_ImplicitCast(self, e):
        return self.convert(e)

    def convert(self, e):
        kind = e.kind
        b = self.builder
        src_t, dst_t = e.operand.type, e.type
        if kind == "array-to-pointer":
            ptr = self.address(e.operand)
            return b.gep(ptr, [ir.Constant(self.size_t, 0), ir.Constant(self.size_t, 0)], inbounds=True,
                         name="arraydecay", source_etype=self.mem_type(src_t))
        if kind == "int-to-bool":
            return self.bool_value(e.operand)
        if kind in ("null-to-pointer", "zero-to-event"):
            if not isinstance(e.operand, (A.IntConst, A.ImplicitCast, A.Cast)):
                self.rvalue(e.operand)
            return ir.Constant(self.value_type(dst_t), None)
        v = self.rvalue(e.operand)
        if kind == "to-void":
            return None
        if kind in ("noop", "pointer-bitcast"):
            return v
        dty = self.value_type(dst_t)
        folded = self.fold_cast(kind, v, src_t, dst_t, dty)
        if folded is not None:
            return folded
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

    def fold_cast(self, kind, v, src_t, dst_t, dty):
        """Casts of scalar constants become constants (clang folds them before codegen)."""
        if not isinstance(v, ir.Constant) or not isinstance(v.constant, (int, float)) \
                or isinstance(v.constant, bool) or not isinstance(dst_t, T.ScalarType):
            return None
        value = v.constant
        if kind == "int-to-int":
            value = wrap_int(value, element_type(src_t))     # the source's value, by its signedness
            bits = dst_t.bits
            value &= (1 << bits) - 1
            if dst_t.signed and value >= 1 << (bits - 1):
                value -= 1 << bits
            return ir.Constant(dty, value)
        if kind == "int-to-float":
            return ir.Constant(dty, float(wrap_int(value, element_type(src_t))))
        if kind == "float-to-float" and dst_t.bits >= element_type(src_t).bits:
            return ir.Constant(dty, float(value))
        return None

    def int_cast(self, v, src_t, dst_t, name):
        b = self.builder
        sbits = element_type(src_t).bits if element_type(src_t).kind != "bool" else 1
        dbits = element_type(dst_t).bits
        dty = self.value_type(dst_t)
        if sbits == dbits:
            return v
        if sbits > dbits:
            return b.trunc(v, dty, name=name)
        return (b.sext if is_signed_int(src_t) else b.zext)(v, dty, name=name)

    def float_cast(self, v, src_t, dst_t):
        sbits, dbits = element_type(src_t).bits, element_type(dst_t).bits
        dty = self.value_type(dst_t)
        if sbits == dbits:
            return v
        return (self.builder.fpext if dbits > sbits else self.builder.fptrunc)(v, dty, name="conv")

    def splat(self, v, vty):
        if isinstance(v, ir.Constant) and not isinstance(v, ir.FormattedConstant):
            return ir.Constant(vty, [v] * vty.count)
        b = self.builder
        ins = b.insert_element(ir.Constant(vty, ir.Undefined), v, ir.Constant(I64, 0), name="splat.splatinsert")
        mask = ir.Constant(ir.VectorType(I32, vty.count), [0] * vty.count)
        return b.shuffle_vector(ins, ir.Constant(vty, ir.Undefined), mask, name="splat.splat")

    def ex_ConvertCall(self, e):
        """convert_<type>[_sat] (OpenCL 6.4.3) inlined as instructions."""
        b = self.builder
        src_t, dst_t = e.operand.type, e.type
        v = self.rvalue(e.operand)
        sf, df = is_float_type(src_t), is_float_type(dst_t)
        if e.rounding and e.rounding != "rtz" and (sf or df):
            return self.convert_builtin_call(e, v)
        dty = self.value_type(dst_t)
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
        irf = self.builtin_function(mangled, self.value_type(e.type), [v.type])
        return self.builder.call(irf, [v], name="call", cconv="spir_func")

    def int_limits(self, t):
        e = element_type(t)
        if e.signed:
            return -(1 << (e.bits - 1)), (1 << (e.bits - 1)) - 1
        return 0, (1 << e.bits) - 1

    def int_to_int_sat(self, v, src_t, dst_t):
        """Clamp in the source type to the destination's range, then truncate or extend
        (OpenCL 6.4.3.3). No odd-width integers: the interpreter and SPIR-V want 8..64 bits."""
        b = self.builder
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
        dty = self.value_type(dst_t)
        if se.bits > de.bits:
            return b.trunc(v, dty, name="conv")
        if se.bits < de.bits:
            # After the clamp the value is non-negative unless both types are signed.
            return (b.sext if se.signed and de.signed else b.zext)(v, dty, name="conv")
        return v

    def float_to_int_sat(self, v, src_t, dst_t):
        """NaN -> 0, out of range -> the nearest limit (OpenCL 6.4.3.3)."""
        b = self.builder
        lo, hi = self.int_limits(dst_t)
        dty = self.value_type(dst_t)
        conv = (b.fptosi if is_signed_int(dst_t) else b.fptoui)(v, dty, name="conv")
        too_low = b.fcmp_ordered("<=", v, self.splat_const(v.type, float(lo)))
        too_high = b.fcmp_ordered(">=", v, self.splat_const(v.type, float(hi)))
        is_nan = b.fcmp_unordered("uno", v, v)
        r = b.select(too_low, self.splat_const(dty, lo), conv)
        r = b.select(too_high, self.splat_const(dty, hi), r)
        return b.select(is_nan, ir.Constant(dty, None), r)

    def ex_Intrinsic(self, e):
        """clang built-ins as clang-22 lowers them at -O0 (tast.Intrinsic)."""
        b = self.builder
        if e.name == "unreachable":
            b.unreachable()
            return None
        if e.name in ("to_global", "to_local", "to_private"):
            fn = self.builtin_function(f"__{e.name}", self.value_type(e.type), [_ptr(T.GENERIC)])
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
            fn = self.intrinsic(f"llvm.{e.name}.{suffix}.i{self.target.pointer_bits}",
                                ir.VoidType(), [a.type for a in args] + [I1])
            b.call(fn, args + [ir.Constant(I1, 0)])
            return dst
        value = args[0]
        suffix = _intrinsic_suffix(value.type)
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
        irf = self.declared.get(name)
        if irf is None:
            irf = ir.Function(self.module, ir.FunctionType(ret, params), name)
            self.declared[name] = irf
        return irf

    def ex_AsType(self, e):
        """as_<type>: a bitcast; 3-component vectors are 4 in size (OpenCL 6.4.4.2), so they are
        widened or narrowed with a shuffle around the bitcast."""
        b = self.builder
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
        return b.bitcast(v, self.value_type(dst_t), name="astype")

    # ---- vectors
    def ex_VectorLiteral(self, e):
        b = self.builder
        vty = self.value_type(e.type)
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
        b = self.builder
        vec = self.rvalue(e.base)
        if len(e.indices) == 1:
            return b.extract_element(vec, ir.Constant(I32, e.indices[0]), name="vecext")
        mask = ir.Constant(ir.VectorType(I32, len(e.indices)), list(e.indices))
        return b.shuffle_vector(vec, ir.Constant(vec.type, ir.Undefined), mask, name="vecshuf")

    # ------------------------------------------------------------ cooperative matrices
    def coop_call(self, base, matrices, other_codes, ret, args, name):
        """Call `_Z<len><base>I<matrix args>Ev<other params>` (docs/ir-conventions.md)."""
        callee = coop_names.callee_name(base, matrices, other_codes)
        irf = self.builtin_function(callee, ret, [a.type for a in args], convergent=True)
        return self.builder.call(irf, args, name=name, cconv="spir_func")

    def ex_CoopLoad(self, e):
        ptr = self.rvalue(e.pointer)
        stride = self.rvalue(e.stride)
        return self.coop_call("__spirv_CooperativeMatrixLoadKHR", [e.type],
                              [coop_mangled_pointer(e.pointer.type), "i", self.size_code],
                              self.value_type(e.type), [ptr, ir.Constant(I32, e.layout), stride], "call")

    def ex_CoopStore(self, e):
        ptr = self.rvalue(e.pointer)
        m = self.rvalue(e.matrix)
        stride = self.rvalue(e.stride)
        self.coop_call("__spirv_CooperativeMatrixStoreKHR", [e.matrix.type],
                       [coop_mangled_pointer(e.pointer.type), "i", self.size_code],
                       ir.VoidType(), [ptr, m, ir.Constant(I32, e.layout), stride], "")
        return None

    def ex_CoopMulAdd(self, e):
        a, bm, c = self.rvalue(e.a), self.rvalue(e.b), self.rvalue(e.c)
        return self.coop_call("__spirv_CooperativeMatrixMulAddKHR", [e.type, e.a.type, e.b.type, e.c.type],
                              ["i"], self.value_type(e.type), [a, bm, c, ir.Constant(I32, e.operands)], "call")

    def ex_CoopLength(self, e):
        m = self.rvalue(e.matrix)
        return self.coop_call("__spirv_CooperativeMatrixLengthKHR", [e.matrix.type], [], I32, [m], "call")

    def ex_CoopInit(self, e):
        s = self.rvalue(e.scalar)
        return self.coop_call("__spirv_CompositeConstruct", [e.type], [e.type.elem.itanium()],
                              self.value_type(e.type), [s], "call")

    COOP_BINARY = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}

    def ex_CoopBinary(self, e):
        a, bm = self.rvalue(e.a), self.rvalue(e.b)
        base = "__spirv_CooperativeMatrixBinary" + self.COOP_BINARY[e.op]
        return self.coop_call(base, [e.type, e.a.type, e.b.type], [], self.value_type(e.type), [a, bm],
                              self.ARITH_NAMES[e.op])

    def ex_CoopNeg(self, e):
        a = self.rvalue(e.a)
        return self.coop_call("__spirv_CooperativeMatrixScalarNeg", [e.type, e.a.type], [],
                              self.value_type(e.type), [a], "fneg" if is_float_type(e.type.elem) else "sub")

    def ex_CoopScalarMul(self, e):
        m = self.rvalue(e.matrix)
        s = self.rvalue(e.scalar)
        return self.coop_call("__spirv_CooperativeMatrixScalarMul", [e.type, e.matrix.type],
                              [e.type.elem.itanium()], self.value_type(e.type), [m, s], "mul")

    def ex_CoopConvert(self, e):
        m = self.rvalue(e.matrix)
        src, dst = e.matrix.type.elem, e.type.elem
        if src.llvm_name == dst.llvm_name:
            return m        # same SPIR-V type: no conversion (ir-conventions.md)
        base = coop_conversion_name(src, dst)
        return self.coop_call(base, [e.type, e.matrix.type], [], self.value_type(e.type), [m], "conv")

    def coop_element_address(self, e):
        ptr = self.address(e.matrix)
        index = self.rvalue(e.index)
        mt = e.matrix.type
        return self.coop_call("__spirv_AccessChain", [mt], ["P" + "v", self.size_code], _ptr(0),
                              [ptr, index], "arrayidx")


def wrap_int(value, t):
    """`value` as the C integer type `t` holds it (two's complement wrap, then signedness)."""
    if t.kind != "int":
        return value
    value &= (1 << t.bits) - 1
    if t.signed and value >= 1 << (t.bits - 1):
        value -= 1 << t.bits
    return value


def coop_conversion_name(src, dst):
    """SPV_KHR_cooperative_matrix conversions; choice rules in docs/ir-conventions.md."""
    if src.kind == "float" and dst.kind == "float":
        return "__spirv_FConvert"
    if src.kind == "float":
        return "__spirv_ConvertFToS" if dst.signed else "__spirv_ConvertFToU"
    if dst.kind == "float":
        return "__spirv_ConvertSToF" if src.signed else "__spirv_ConvertUToF"
    return "__spirv_SConvert" if src.signed else "__spirv_UConvert"


# ---------------------------------------------------------------- verification and printing
_LLVM_READY = False


def _binding():
    import llvmlite.binding as llvm
    return llvm


def _target_machine(llvm, pointer_bits):
    """A target machine for the pass builder (only -O1 and above need one): LLVM's SPIR-V target,
    so cost models are a GPU's, not the host's; the host's if SPIR-V is not built in."""
    global _LLVM_READY
    if not _LLVM_READY:
        llvm.initialize_all_targets()
        llvm.initialize_native_target()
        _LLVM_READY = True
    try:
        return llvm.Target.from_triple(f"spirv{pointer_bits}-unknown-unknown").create_target_machine()
    except RuntimeError:
        return llvm.Target.from_default_triple().create_target_machine()


_DEDUP_SUFFIX = re.compile(r"\.\d+$")


def _clang_like_names(mod):
    """llvmlite names every value; give LLVM back unnamed temporaries (%0, %1, ...) and let it
    number duplicate names (add, add1, ...) as clang's output shows."""
    for fn in mod.functions:
        for block in fn.blocks:
            name = block.name
            if _DEDUP_SUFFIX.search(name):
                block.name = _DEDUP_SUFFIX.sub("", name)
            for inst in block.instructions:
                name = inst.name
                if not name:
                    continue
                if name.startswith(".") and name[1:].isdigit():
                    inst.name = ""
                elif _DEDUP_SUFFIX.search(name):
                    inst.name = _DEDUP_SUFFIX.sub("", name)


def _optimize(llvm, mod, opt_level):
    pointer_bits = 32 if mod.triple.startswith(("spir-", "spirv32")) else 64
    tm = _target_machine(llvm, pointer_bits)
    pto = llvm.create_pipeline_tuning_options(speed_level=opt_level) \
        if hasattr(llvm, "create_pipeline_tuning_options") else llvm.PipelineTuningOptions(speed_level=opt_level)
    pb = llvm.create_pass_builder(tm, pto)
    mpm = pb.getModulePassManager()
    mpm.run(mod, pb)


def finish(module_text, opt_level, source_name=None):
    llvm = _binding()
    if source_name:
        # clang names the module after the source file (`; ModuleID = 'k.cl'`, source_filename).
        escaped = "".join(c if c.isprintable() and c not in '"\\' else f"\\{ord(c):02X}" for c in source_name)
        module_text = f'source_filename = "{escaped}"\n' + module_text
    try:
        # A fresh LLVM context per module: in the global one, a struct name left by an earlier
        # compile in the same process renames this module's types (%struct.S -> %struct.S.0).
        mod = llvm.parse_assembly(module_text, context=llvm.create_context())
    except RuntimeError as exc:
        raise RuntimeError(f"lower produced IR that LLVM cannot parse: {exc}") from None
    if source_name:
        mod.name = source_name
    _clang_like_names(mod)
    try:
        mod.verify()
    except RuntimeError as exc:
        raise RuntimeError(f"lower produced invalid IR: {exc}") from None
    if opt_level > 0:
        _optimize(llvm, mod, opt_level)
        try:
            mod.verify()
        except RuntimeError as exc:
            raise RuntimeError(f"optimized IR does not verify: {exc}") from None
    return str(mod)


def lower(unit, target, opt_level=0, debug_info=False, main_file=None):
    """Typed AST -> verified SPIR LLVM IR text (LLVM's printing); `debug_info` (-g) adds
    line information (clcoop.frontend.debug_info), the compile unit's file `main_file`."""
    lw = Lowerer(target)
    lw.opt_level = opt_level
    source_name = _source_name(unit)
    if debug_info and (main_file or source_name):
        from clcoop import __version__
        from clcoop.frontend.debug_info import DebugInfo
        lw.debug = DebugInfo(lw.module, main_file or source_name, opt_level > 0,
                             f"clcoop version {__version__}")
    lw.lower_unit(unit)
    text = lw.debug.module_text() if lw.debug is not None else str(lw.module)
    return finish(_fix_function_metadata(text), opt_level, source_name)


def _source_name(unit):
    """The main source file's name, from the first located function or global."""
    for item in list(unit.functions) + list(unit.globals):
        loc = getattr(item, "loc", None)
        if loc is not None and getattr(loc, "file", None):
            return loc.file
    return None


_FN_MD_COMMA = re.compile(r"(![A-Za-z_.]+ ![0-9]+),(?= !)")


def _fix_function_metadata(text):
    """llvmlite separates function metadata attachments by commas; LLVM wants spaces."""
    return "\n".join(_FN_MD_COMMA.sub(r"\1", line) if line.startswith("define ") else line
                     for line in text.split("\n"))
