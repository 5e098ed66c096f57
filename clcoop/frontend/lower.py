"""Lower the typed AST (clcoop.frontend.tast) to SPIR LLVM IR text.

IR is built with llvmlite.ir using opaque pointers, then parsed and verified by
llvmlite.binding (LLVM 22); the text returned is LLVM's own printing of the verified
module. Conventions: docs/ir-conventions.md (clang-22 `-triple spir64-unknown-unknown
-cl-std=CL3.0 -O0` style; cooperative matrices as calls to `_Z<len><base>I...Ev...`).

Entry point: `lower(unit, target, opt_level=0) -> str`.
"""
import math
import re

from llvmlite import ir
from llvmlite.ir._utils import DuplicatedNameError, NameScope

from clcoop import kernel_metadata
from clcoop.frontend import tast as A
from clcoop.frontend import types as T
from clcoop.frontend.llvm_types import (EVENT_IR, I1, I8, I32, CoopMatIRType, LoopIdMetadata, PoisonConstant,
                                        element_type, mark_volatile, ptr_type, scalar_ir)
from clcoop.frontend.lower_asm import lower_asm
from clcoop.frontend.lower_expr import ExpressionLowering, copies_aggregate, is_volatile_access
from clcoop.frontend.lower_builder import Builder, new_block
# llvmlite keeps a value's reference (`%"name"`) and an instruction's text in these attributes.
from clcoop.frontend.lower_print import REFERENCE_CACHE, TEXT_CACHE, module_text

OCL_VERSION = (3, 0)


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
def constant_leaves(ctype, init):
    """The scalar values of an initializer list made only of integer and floating-point
    constants (missing elements are 0), else None."""
    leaves = []

    def walk(t, e):
        if e is None:
            leaves.append(0)
            return True
        if isinstance(e, A.InitList):
            if isinstance(t, T.ArrayType):
                return len(e.elements) == t.length and all(walk(t.elem, x) for x in e.elements)
            if isinstance(t, T.StructType) and not t.is_union:
                return len(e.elements) == len(t.fields) and all(walk(f.type, x) for f, x in zip(t.fields, e.elements))
            return False
        while isinstance(e, (A.ImplicitCast, A.Cast)) and e.kind == "noop":
            e = e.operand
        if isinstance(e, (A.IntConst, A.FloatConst)) and isinstance(t, T.ScalarType) and e.type == t:
            leaves.append(e.value)
            return True
        return False
    return leaves if walk(ctype, init) else None


class ValueNames(NameScope):
    """llvmlite's NameScope, the same names (`name`, then `name.1`, `name.2`, ... counted per
    base name), registered in one call instead of three: every value of a function registers
    its name (27,000 in the generated 5,000-line source). test_lower_names compares the two."""

    def __init__(self, scope):
        self._useset, self._basenamemap = scope._useset, scope._basenamemap     # shared

    def register(self, name, deduplicate=False):
        used = self._useset
        if name in used:
            if not deduplicate:
                raise DuplicatedNameError(name)
            # NameScope.deduplicate's count, read and written once (most of a function's
            # names are duplicates: `arrayidx`, `call`, unnamed temporaries).
            counts = self._basenamemap
            number = counts[name] + 1
            unique = f"{name}.{number}"
            while unique in used:
                number += 1
                unique = f"{name}.{number}"
            counts[name] = number
            name = unique
        used.add(name)
        return name


class Lowerer:
    """Types, module-level objects, functions and statements. Expressions go to its part
    lower_expr.ExpressionLowering (which builds those of cooperative matrices and tensors,
    lower_coop.py and lower_tensor.py), built with it as the Lowerer they emit through: each
    part uses only the names of this class its module lists in LOWERER_USES (the module,
    the builder, the function's state, types, memory helpers)."""

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
        self.vector_types = {}     # (element's name, kind, bits; count) -> ir.VectorType
        self.mem_types = {}        # id(C type) -> (C type, mem_type)
        self.value_types = {}      # id(C type) -> (C type, value_type)
        self.alignments = {}       # id(C type) -> (C type, align_of)
        self.struct_suffixes = {}  # type name base -> the number its next duplicate tries first
        self.pending_impls = []    # (kernel, spir_func copy) still to define
        self.fn = None
        self.builder = None
        self.precomputed = {}
        self.kernel_arg_nodes = {}  # (strings or spaces, their values) -> metadata node
        self.debug = None          # DebugInfo with -g
        self.opt_level = 0         # set by lower()
        self.subprogram = None     # the DISubprogram of the function being defined
        self.expressions = ExpressionLowering(self)

    # ------------------------------------------------------------ types
    # mem_type, value_type and align_of are asked ~60,000 times while lowering pocl's
    # test_hadd.cl, about 150 distinct type objects (1,300 for value_type): each answer is
    # kept per object, by id, with the object (so its id is not reused). A C type never
    # changes, and the answer's LLVM type is this module's, so the table is the Lowerer's.
    def mem_type(self, t):
        """LLVM type of a C object in memory (bool is i8)."""
        kept = self.mem_types.get(id(t))
        if kept is None:
            kept = self.mem_types[id(t)] = (t, self.memory_type(t))
        return kept[1]

    def memory_type(self, t):
        """mem_type made anew."""
        if isinstance(t, T.ScalarType) and t.kind == "bool":
            return I8
        return self.value_type(t)

    def value_type(self, t):
        kept = self.value_types.get(id(t))
        if kept is None:
            kept = self.value_types[id(t)] = (t, self.llvm_type(t))
        return kept[1]

    def llvm_type(self, t):
        """value_type made anew."""
        if isinstance(t, T.ScalarType):
            return scalar_ir(t)
        if isinstance(t, T.EnumType):
            return I32
        if isinstance(t, T.AtomicType):
            return scalar_ir(t.value)
        if isinstance(t, T.VectorType):
            return self.vector_type(t)
        if isinstance(t, T.PointerType):
            return ptr_type(t.addrspace)
        if isinstance(t, T.ArrayType):
            return ir.ArrayType(self.mem_type(t.elem), t.length or 0)
        if isinstance(t, (T.CoopMatType, T.CoopTensorType)):
            return CoopMatIRType(t)
        if isinstance(t, T.EventType):
            return EVENT_IR
        if isinstance(t, T.StructType):
            return self.struct_type(t)
        raise RuntimeError(f"lower: no LLVM type for {t!r}")

    def vector_type(self, t):
        """One ir.VectorType per element and count: a type's text is made at its first
        printing and kept on it, and a new object per value (28,000 asked for in pocl's
        test_bitselect.cl) made that text again for most instructions."""
        elem = t.elem
        key = (elem.name, elem.kind, elem.bits, t.count)       # what scalar_ir reads, and the count
        vector = self.vector_types.get(key)
        if vector is None:
            vector = self.vector_types[key] = ir.VectorType(scalar_ir(elem), t.count)
        return vector

    def struct_type(self, t):
        if t in self.structs:
            return self.structs[t]
        kind = "union" if t.is_union else "struct"
        name = base = f"{kind}.{t.tag or t.typedef_name or 'anon'}"
        # The numbering goes on from the last number this base took: every smaller one is
        # taken (a context's types are never removed), so counting from 0 each time (which
        # made a thousand anonymous unions, pocl's test_as_type.cl, cost half a million
        # lookups) finds the same name.
        suffix = self.struct_suffixes.get(base, 0)
        while name in self.module.context.identified_types:
            # another type with this name (two anonymous structs; a tag reused in an inner
            # scope): clang's numbering, %struct.anon.0, %struct.anon.1, ...
            name = f"{base}.{suffix}"
            suffix += 1
        self.struct_suffixes[base] = suffix
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
        kept = self.alignments.get(id(t))
        if kept is None:
            kept = self.alignments[id(t)] = (t, self.alignment(t))
        return kept[1]

    def alignment(self, t):
        """align_of found anew."""
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
        gv.type = ptr_type(var.addrspace)      # opaque pointers (LLVM 22)
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
            pointer_type = ptr_type(e.operand.type.addrspace)
            return self.const_address_value(e.operand, pointer_type).ptrtoint(ty)
        raise RuntimeError(f"lower: initializer of a program-scope object is not a constant ({type(e).__name__})")

    def const_address_value(self, e, ty):
        """Address constants in program-scope pointer initializers: &g, array decay, &a[i], and
        conversions of those to the generic address space."""
        if isinstance(e, (A.ImplicitCast, A.Cast)) and e.kind in ("addrspace-to-generic", "addrspace-cast"):
            inner = self.const_address_value(e.operand, ptr_type(e.operand.type.addrspace))
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
            base = self.const_address_value(e.base, ptr_type(e.base.type.addrspace))
            return self.const_gep(base, self.mem_type(e.type), [index.value])
        if isinstance(e, A.Member):
            base = self.const_lvalue_address(e.base)
            if e.base.type.is_union:
                return base
            return self.const_gep(base, self.mem_type(e.base.type), [0], field_index=e.field_index)
        if isinstance(e, A.Deref):
            return self.const_address_value(e.operand, ptr_type(e.operand.type.addrspace))
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
        irf.scope = ValueNames(irf.scope)        # before any block: a block keeps its scope
        self.opt_attrs(irf)
        entry = irf.append_basic_block("entry")
        self.builder = Builder(entry)
        self.subprogram = None
        if self.debug is not None and fn.loc is not None:
            self.subprogram = self.debug.subprogram(
                fn.name, fn.loc, fn.is_kernel, linkage_name=irf.name if irf.name != fn.name else None)
            irf.set_metadata("dbg", self.subprogram.node)
        self.allocas = 0           # the entry block's first instructions are its allocas
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

        def node(kind, values):
            # One node per list, as llvmlite's add_metadata would find it again, without
            # making its strings or constants anew for each kernel (the generated 5,000-line
            # source's 250 kernels spent ~8% of their lowering here; throughput, issue 26).
            key = (kind, tuple(values))
            found = self.kernel_arg_nodes.get(key)
            if found is None:
                items = [ir.Constant(I32, v) if kind == "spaces" else ir.MetaDataString(m, v) for v in values]
                found = self.kernel_arg_nodes[key] = m.add_metadata(items)
            return found

        def strings(values):
            return node("strings", values)

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
        irf.set_metadata("kernel_arg_addr_space", node("spaces", spaces))
        irf.set_metadata("kernel_arg_access_qual",
                         strings([quals[i] if i < len(quals) and quals[i] else "none" for i in range(len(ptypes))]))
        irf.set_metadata("kernel_arg_type", strings(arg_types))
        irf.set_metadata("kernel_arg_base_type", strings(base_types))
        irf.set_metadata("kernel_arg_type_qual", strings([type_qual(p) for p in ptypes]))
        record_sizes = [self.size_of(p.pointee) if isinstance(p, T.PointerType) and isinstance(p.pointee, T.StructType)
                        and p.pointee.complete else 0 for p in ptypes]
        if any(record_sizes):
            # Opaque pointers no longer carry a struct pointee's size: a launch checks a
            # struct buffer's records against it (prepare.py).
            irf.set_metadata(kernel_metadata.ARG_RECORD_SIZE, m.add_metadata([ir.Constant(I32, n) for n in record_sizes]))
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
        entry = self.fn.entry_basic_block
        slot = self.builder.entry_alloca(entry, self.allocas, self.mem_type(ctype), ptr_type(0), name)
        a = self.align_of(ctype)
        if a:
            slot.align = a
        self.allocas += 1
        if self.builder.block is entry:
            # The main builder always appends at the end; re-anchor it after the insertion.
            self.builder.position_at_end(entry)
        return slot

    # ------------------------------------------------------------ memory helpers
    def load_value(self, ptr, ctype, name="", volatile=False):
        b = self.builder
        if isinstance(ctype, T.ScalarType) and ctype.kind == "bool":
            raw = mark_volatile(b.load(ptr, typ=I8, align=1), volatile)
            return b.trunc(raw, I1, name="loadedv")
        return mark_volatile(b.load(ptr, name=name, typ=self.mem_type(ctype), align=self.align_of(ctype)),
                             volatile)

    def store_value(self, value, ptr, ctype, volatile=False):
        b = self.builder
        if isinstance(ctype, T.ScalarType) and ctype.kind == "bool":
            value = b.zext(value, I8, name="frombool")
            mark_volatile(b.store(value, ptr, align=1), volatile)
            return
        mark_volatile(b.store(value, ptr, align=self.align_of(ctype)), volatile)

    def store_expr(self, e, ptr, ctype, volatile=False):
        """Store the value of `e` at ptr. A struct read from memory is copied with
        llvm.memcpy, as clang does: a first-class load/store of a large struct makes LLVM
        (and the engines) expand it field by field (a 64-float struct: 11,700 lines)."""
        if copies_aggregate(ctype, e):
            self.copy_aggregate(ptr, self.expressions.aggregate_address(e), ctype, volatile or is_volatile_access(e))
        else:
            self.store_value(self.expressions.rvalue(e), ptr, ctype, volatile)

    def copy_aggregate(self, dst, src, ctype, volatile):
        bits = self.target.pointer_bits
        name = f"llvm.memcpy.p{dst.type.addrspace}.p{src.type.addrspace}.i{bits}"
        fn = self.expressions.intrinsic(name, ir.VoidType(), [dst.type, src.type, ir.IntType(bits), I1])
        call = self.builder.call(fn, [dst, src, ir.Constant(ir.IntType(bits), self.size_of(ctype)),
                                      ir.Constant(I1, int(volatile))], arg_attrs={0: (), 1: ()})
        for pointer in (0, 1):
            call.arg_attributes[pointer].align = self.align_of(ctype)

    def new_block(self, name):
        """A block not yet in the function: blocks are placed in emission order, as clang does."""
        return new_block(self.fn, name)

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
        self.expressions.effect(s.expr)

    def st_Asm(self, s):
        lower_asm(self, s)

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
            leaves = constant_leaves(ctype, init)
            if leaves is not None and isinstance(ctype, (T.ArrayType, T.StructType)):
                self.initialize_constant(ptr, ctype, init, leaves)
                return
            self.builder.store(ir.Constant(self.mem_type(ctype), None), ptr, align=self.align_of(ctype))
            self.init_elements(ptr, ctype, init)
        else:
            self.store_expr(init, ptr, ctype)

    def initialize_constant(self, ptr, ctype, init, leaves):
        """An aggregate whose initializer is all constants, as clang -O0 does: zeros by
        llvm.memset, anything else copied from a private __constant global
        `__const.<function>.<variable>` (element by element, a 1,000-number table was 2,000
        instructions, and 48 of them 15 s of compilation)."""
        bits = self.target.pointer_bits
        size = ir.Constant(ir.IntType(bits), self.size_of(ctype))
        if all(value == 0 and not math.copysign(1.0, value) < 0 for value in leaves):
            fn = self.expressions.intrinsic(f"llvm.memset.p{ptr.type.addrspace}.i{bits}", ir.VoidType(),
                                            [ptr.type, I8, ir.IntType(bits), I1])
            call = self.builder.call(fn, [ptr, ir.Constant(I8, 0), size, ir.Constant(I1, 0)], arg_attrs={0: ()})
            call.arg_attributes[0].align = self.align_of(ctype)
            return
        name = self.module.get_unique_name(f"__const.{self.fn.name}.{ptr.name}")
        table = ir.GlobalVariable(self.module, self.mem_type(ctype), name, addrspace=T.CONSTANT)
        table.type = ptr_type(T.CONSTANT)      # opaque pointers (LLVM 22)
        table.linkage = "private"
        table.unnamed_addr = True
        table.global_constant = True
        table.align = self.align_of(ctype)
        table.initializer = self.const_init(ctype, init)
        self.copy_aggregate(ptr, table, ctype, False)

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
                    vec = self.builder.insert_element(vec, self.expressions.rvalue(el), ir.Constant(I32, i))
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
                self.store_expr(el, eptr, etype)

    def st_If(self, s):
        cond = self.expressions.rvalue(s.cond)
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
            self.builder.cbranch(self.expressions.rvalue(cond), body_bb, end_bb)
        else:
            self.builder.branch(body_bb)
        self.start_block(body_bb)
        self.stmt_with_targets(body, end_bb, inc_bb or cond_bb)
        if inc_bb is not None:
            self.branch(inc_bb)
            self.start_block(inc_bb)
            self.expressions.rvalue(step)
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
        self.loop_metadata(self.builder.cbranch(self.expressions.rvalue(s.cond), body_bb, end_bb), s.unroll)
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
                self.expressions.rvalue(s.value)       # `return f();` in a void function
            self.builder.ret_void()
        else:
            self.builder.ret(self.expressions.rvalue(s.value))

    def st_Switch(self, s):
        cond = self.expressions.rvalue(s.cond)
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
# A local name in llvmlite's text: %"quoted" or %bare (LLVM LangRef, "Identifiers").
_NAME = r'(?:"((?:[^"\\]|\\.)*)"|([-a-zA-Z$._][-a-zA-Z$._0-9]*))'
_LOCAL_NAME = re.compile("%" + _NAME)


def _clang_like_names(module):
    """llvmlite names every value; give LLVM back unnamed temporaries (%0, %1, ...) and let
    duplicate names be numbered as LLVM numbers them (add, add1, ...), as clang's output shows.

    Done on llvmlite's objects before the module is printed, as LLVM's Value::setName would
    do it after parsing (the names LLVM's parser keeps, then blocks and their instructions in
    order: llvmlite's `.N` temporaries lose their name, a `name.N` is renamed `name`, made
    unique with the function's one counter, ValueSymbolTable::makeUniqueName). Renaming
    through llvmlite.binding (_clang_like_names_in_llvm, the oracle of test_lower_names)
    takes two foreign calls per instruction, and renaming the printed text two regular-
    expression passes over it: a sixth and a twentieth of a large file's -O0 compile."""
    for fn in module.functions:
        if fn.blocks:
            _rename_function(fn)


def _clang_like_names_in_llvm(mod):
    """_clang_like_names through llvmlite.binding, on a parsed module (LLVM's setName)."""
    for fn in mod.functions:
        for block in fn.blocks:
            if _DEDUP_SUFFIX.search(block.name):
                block.name = _DEDUP_SUFFIX.sub("", block.name)
            for inst in block.instructions:
                name = inst.name
                if not name:
                    continue
                if name.startswith(".") and name[1:].isdigit():
                    inst.name = ""
                elif _DEDUP_SUFFIX.search(name):
                    inst.name = _DEDUP_SUFFIX.sub("", name)


def _rename_function(fn):
    """One function's values and blocks renamed in place (see _clang_like_names)."""
    prototype = []
    fn.descr_prototype(prototype)
    # The names the parser sees before the body: the arguments' (and any %name the
    # prototype spells, such as a byval struct type's).
    names = {m[m.lastindex] for m in _LOCAL_NAME.finditer(prototype[0])}
    definitions = []            # blocks and the instructions that define a value, in order
    void = ir.VoidType
    for block in fn.blocks:
        definitions.append(block)
        instructions = block.instructions
        for inst in instructions:
            # A text that spelled an old name goes (none are made before printing).
            inst.__dict__.pop(TEXT_CACHE, None)
        definitions += [inst for inst in instructions if not isinstance(inst.type, void)]
    names.update([value._name for value in definitions])
    counter = number = 0
    named = _NAMED_REFERENCE
    for value in definitions:
        name = value._name
        if "." in name:
            # _DEDUP_SUFFIX (`\.\d+$`) without the regular expression: `\d` is what
            # isdecimal takes, and no value name ends in a newline (which `$` would allow).
            new, _, suffix = name.rpartition(".")
            if suffix.isdecimal():
                names.discard(name)
                if not new:     # a `.N` temporary: unnamed, numbered in definition order
                    _number_value(value, number)
                    number += 1
                    continue
                name = new
                while name in names:
                    counter += 1
                    name = f"{new}{counter}"
                names.add(name)
                value._name = name
        if type(value)._get_reference is named and "\\" not in name and '"' not in name:
            value.__dict__[REFERENCE_CACHE] = f'%"{name}"'      # _name_reference's commonest case
        else:
            _name_reference(value, name)


def _name_reference(value, name):
    """Keep `value`'s reference text (what llvmlite's NamedValue._get_reference makes of its
    final name) now: the module's printer then finds it made (its first use cost ~1 us a
    value there, about a fifth of printing a large module). A class with a reference of
    its own makes it itself when printed."""
    kept = value.__dict__
    if type(value)._get_reference is not _NAMED_REFERENCE:
        kept.pop(REFERENCE_CACHE, None)
    elif "\\" in name or '"' in name:
        kept[REFERENCE_CACHE] = '%"{0}"'.format(name.replace("\\", "\\5c").replace('"', "\\22"))
    else:
        kept[REFERENCE_CACHE] = f'%"{name}"'


_NAMED_REFERENCE = ir.NamedValue._get_reference


def _number_value(value, number):
    """An unnamed value: printed `%N` where used and defined, a block's label `N:`."""
    value._name = ""
    value.__dict__[REFERENCE_CACHE] = f"%{number}"
    if isinstance(value, ir.Block):
        value._format_name = str(number).__str__


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
    if opt_level > 0:
        # The optimizer names new values with the counter that renaming leaves in each
        # function's symbol table (s.025 or s.012): renamed by LLVM itself, as before.
        _clang_like_names_in_llvm(mod)
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
    text = lowered_text(unit, target, opt_level, debug_info, main_file)
    return finish(text, opt_level, _source_name(unit))


def lowered_text(unit, target, opt_level=0, debug_info=False, main_file=None):
    """The module built with llvmlite and printed, for `finish` (at -O0 with clang's value
    names already)."""
    lw = Lowerer(target)
    lw.opt_level = opt_level
    source_name = _source_name(unit)
    if debug_info and (main_file or source_name):
        from clcoop.version import __version__
        from clcoop.frontend.debug_info import DebugInfo
        lw.debug = DebugInfo(lw.module, main_file or source_name, opt_level > 0,
                             f"clcoop version {__version__}")
    lw.lower_unit(unit)
    if opt_level == 0:
        _clang_like_names(lw.module)
    text = lw.debug.module_text() if lw.debug is not None else module_text(lw.module)
    return _fix_function_metadata(text)


def _source_name(unit):
    """The main source file's name, from the first located function or global."""
    for item in list(unit.functions) + list(unit.globals):
        loc = getattr(item, "loc", None)
        if loc is not None and getattr(loc, "file", None):
            return loc.file
    return None


_FN_MD_COMMA = re.compile(r"(![A-Za-z_.]+ ![0-9]+),(?= !)")


def _fix_function_metadata(text):
    """llvmlite separates function metadata attachments by commas; LLVM wants spaces. Only a
    `define` line has them (a function's prototype): those lines alone are searched, found by
    their start (the whole module's text through a regular expression took as long as a
    tenth of its printing; _fix_function_metadata_by_lines in test_lower_names is that one)."""
    parts = text.split("\ndefine ")
    start = 0 if text.startswith("define ") else 1
    for k in range(start, len(parts)):
        line, newline, rest = parts[k].partition("\n")
        fixed = _FN_MD_COMMA.sub(r"\1", line)
        if fixed != line:
            parts[k] = fixed + newline + rest
    return "\ndefine ".join(parts)
