"""Cooperative-matrix calls in native kernels (docs/native.md, "Cooperative matrices").

A matrix value of a work-item is the <V x T> vector of its components (the interpreter's
layout: clcoop/ir/layout.py, MatrixLayout.index maps (work-item, component) to the
logical element), so a module is compiled for one subgroup size. Splat (init) and length
are per-work-item code. Load, store and mul-add are rendezvous points of the subgroup: the
work-item (a coroutine, as at barriers) leaves its operands in its context (slots coop0..3)
and suspends; the driver, once every work-item of a subgroup waits at the same operation,
calls the operation's generated function over the subgroup's contexts, which checks
uniformity and the subgroup's completeness as the interpreter does, and loads (stores,
multiplies) through the layout tables with every element bounds-checked.
"""
import re

import llvmlite.ir as ir
import numpy as np

from clcoop import coop_names, coopmat_spec, float8
from clcoop.coop_names import BINARY, CONVERSIONS, CONVERT_USE, GET_COORDINATE, LENGTH, LOAD, MUL_ADD, NEGATE, \
    PER_ELEMENT, REDUCE, SCALAR_MUL, SPLAT, STORE, TRANSPOSE
from clcoop.errors import IRError
from clcoop.ir.coop_operands import memory_dtype, pointee_size
from clcoop.ir.layout import LayoutError, get_layout
from clcoop.ir.wg_layout import get_workgroup_layout
from clcoop.ir.loader import value_kind, parse_type_text
from clcoop.ir.scalars import COMPONENT_DTYPES, scalar_dtype
from clcoop.native import bfloat_ir, coop_ir, float8_ir
from clcoop.native import context, fixed_ir
from clcoop.native.context import CTX, FAULT_COOP, FAULT_READ, FAULT_WRITE
from clcoop.native.text_rewrite import quote, ref, typed
from clcoop.native.support import Unsupported
from clcoop.native import irbuild, private_matrices
# FAULT_COOP's sub-codes (runtime.py words them) live with the skeleton that records them.
from clcoop.native.rendezvous_ir import (COORD_INDEX, I1, I32, I64, NEGATIVE_LOAD_STRIDE, NON_UNIFORM,  # noqa: F401
                                         NON_UNIFORM_LAYOUT, NON_UNIFORM_OPERAND, NON_UNIFORM_POINTER,
                                         NON_UNIFORM_STRIDE, PTR,
                                         PARTIAL_SUBGROUP, STORE_STRIDE, Routine, element, i64, item_loop,
                                         table_index)

RENDEZVOUS = (LOAD, STORE, MUL_ADD, REDUCE, CONVERT_USE, TRANSPOSE, *CONVERSIONS)
# What fp8 matrices do natively: their bytes move as i8 components (tensor loads and stores,
# use conversions and transposes too; the layout and get_coord are char's), the mul-add
# decodes them, element access addresses the byte, reductions and per-element functions
# pass the i8 bits to the user's function (which converts them), negation flips each sign
# bit, conversions to and from float and integer types and the other fp8 format round each
# element as the scalar conversions do (float8_ir).
FLOAT8_OPERATIONS = (LOAD, STORE, MUL_ADD, SPLAT, LENGTH, NEGATE, coop_names.ACCESS_CHAIN, REDUCE, PER_ELEMENT,
                     GET_COORDINATE, CONVERT_USE, TRANSPOSE, *CONVERSIONS)
ELEMENT_BYTES = {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "half": 2, "bfloat": 2, "float": 4, "double": 8}


def callee_of(name):
    """The parsed cooperative-matrix callee of a function name, or None."""
    if not coop_names.names_spirv_operation(name):
        return None
    callee = coop_names.parse_callee(name)
    return callee if callee is not None and callee.well_formed else None


def is_rendezvous(name):
    callee = callee_of(name)
    return callee is not None and (callee.base in RENDEZVOUS or callee.base in (coop_names.LOAD_TENSOR,
                                                                                 coop_names.STORE_TENSOR))


class GroupSizes(int):
    """A kernel's sub-group size (the int) that also knows its work-group size
    (reqd_work_group_size, X*Y*Z), which the layout of a workgroup-scope matrix needs
    (clcoop/ir/wg_layout.py); sizes_of(fg) gives it."""

    def __new__(cls, subgroup_size, work_group_size):
        sizes = int.__new__(cls, subgroup_size)
        sizes.work_group_size = work_group_size
        return sizes


def sizes_of(fg):
    """The sizes matrix types of the function `fg` (codegen._FunctionGen) are laid out
    with: the module's sub-group size, with the kernel's work-group size when it declares
    one (a workgroup-scope matrix needs it, as the interpreter's)."""
    S = fg.mg.subgroup_size
    if S is None:
        return S
    if fg.is_kernel:
        W = _work_group_size(fg.mg.module.kernels.get(fg.f.name))
    else:       # a called function: the work-group size of the kernels reaching it, if one
        try:
            sizes = {_work_group_size(info) for name, info in fg.mg.module.kernels.items()
                     if fg.f.name in fg.mg._call_tree(name)}
        except Unsupported:
            sizes = set()
        W = sizes.pop() if len(sizes) == 1 else None
    return S if W is None else GroupSizes(S, W)


def _work_group_size(info):
    """X*Y*Z of a kernel's reqd_work_group_size, or None."""
    wg = getattr(info, "reqd_work_group_size", None)
    if not wg:
        return None
    W = 1
    for n in wg:
        W *= int(n)
    return W


# The most components of one matrix a work-item holds natively (a 512 x 512 subgroup-scope
# matrix over 16 work-items: 16,384, compiled in about 2 s).
MAX_COMPONENTS = 16384


class MatrixType:
    def __init__(self, elem, rows, cols, use, S, fp8=None, W=None):
        self.elem, self.rows, self.cols, self.use = elem, int(rows), int(cols), int(use)
        self.fp8 = fp8              # an fp8 component's float8.Format (elem is then i8)
        self.workgroup = W          # a workgroup-scope matrix's work-group size, else None
        try:
            self.layout = get_layout(self.rows, self.cols, self.use, elem, S) if W is None else \
                get_workgroup_layout(self.rows, self.cols, self.use, elem, int(S), W)
        except (LayoutError, KeyError) as exc:
            raise Unsupported(f"a cooperative matrix the layout cannot hold at sub-group size {S} ({exc})")
        # The work-items one matrix is spread over: the layout table's rows.
        self.group_size = int(S) if W is None else W
        self.length = self.layout.length
        if self.length > MAX_COMPONENTS:
            # A work-item's share is one <length x T> vector: LLVM's instruction selection
            # aborts the process on a vector of 65,536 elements (SelectionDAG: "too many
            # operands to fit into SDNode"; a 4096 x 4096 workgroup-scope matrix over 256
            # work-items), so such a kernel stays in the interpreter.
            raise Unsupported(f"a {self.rows} x {self.cols} cooperative matrix: {self.length} components per "
                              f"work-item, more than the {MAX_COMPONENTS} the native engine compiles")
        self.vector = f"<{self.length} x {elem}>"
        self.table = f"@__clcoop_lt.{elem}.{rows}.{cols}.{use}" + ("" if W is None else f".wg{W}")


def matrix_type(text, S):
    fields = coopmat_spec.first_matrix_type_fields(text)
    if fields is None:
        raise Unsupported(f"cannot read the cooperative matrix type in {text}")
    elem, scope, rows, cols, use = fields
    fp8 = float8.format_of_ir_type(elem)
    if fp8 is not None:
        elem = "i8"                 # the bits; one byte per component, as char's layout
    if scope == coopmat_spec.Scope.WORKGROUP:
        W = getattr(S, "work_group_size", None)
        if W is None:
            raise Unsupported(WORKGROUP_UNTAKEN)
        return MatrixType(elem, rows, cols, use, S, fp8, W)
    if scope != coopmat_spec.Scope.SUBGROUP:
        raise Unsupported(f"a cooperative matrix of scope {scope} (only subgroup and workgroup "
                          f"scope)")
    return MatrixType(elem, rows, cols, use, S, fp8)


def replace_matrix_types(text, S):
    return coopmat_spec.replace_matrix_types(text, lambda t: matrix_type(t, S).vector)


class CoopModule:
    """The rendezvous functions and layout tables of a module compiled for subgroup size S."""

    def __init__(self, S):
        self.S = S
        self.tables = {}            # symbol -> definition
        self.functions = []
        self.sites = {}             # kernel name -> [(site, function name)]
        self.routines = {}          # (m, n, k, types, operands) -> mul-add routine name
        self.uses_coop_fault = False  # COOP_FAULT_IF_IR is needed (coop_mat_get_coord)
        self.tensor = {}            # tensor_routines' helpers, generated once per module

    def table(self, mt):
        if mt.table not in self.tables:
            values = ", ".join(f"i32 {int(x)}" for x in mt.layout.index.reshape(-1))
            self.tables[mt.table] = (f"{mt.table} = internal constant [{mt.layout.index.size} x i32] "
                                     f"[{values}]")
        return mt.table

    def mul_add_routine(self, m, n, k, types, operands, strided=False, columns=(False, False)):
        """Name of the mul-add routine (coop_ir.mul_add_ir) of these shapes, types, operand
        flags and interface, generated once per module."""
        key = (m, n, k, types, operands, strided, columns)
        if key not in self.routines:
            # Generated before it is recorded: a routine refused (Unsupported) leaves no name
            # behind for a later call site to use without its definition.
            name = f"__clcoop_mad.{len(self.routines)}"
            self.functions.append(coop_ir.mul_add_ir(name, m, n, k, types, operands, strided, columns))
            self.routines[key] = name
        return self.routines[key]

    def text(self):
        if not self.functions and not self.tables:
            return ""
        parts = list(self.tables.values()) + [SPAN_OK_IR] + self.functions
        if self.uses_coop_fault:
            parts.append(COOP_FAULT_IF_IR)
        return "\n".join(parts)


def emit_call(fg, ins, ops, name):
    """Code of one cooperative-matrix call in the work-item function `fg` (codegen._FunctionGen);
    returns the label the block continues in (a rendezvous suspends), or None."""
    callee = callee_of(name)
    S = sizes_of(fg)
    if callee is None or S is None:
        raise Unsupported(f"cooperative-matrix operations ({name})")
    base = callee.base
    if any(m.code in float8.BY_ITANIUM for m in callee.matrices) and base not in FLOAT8_OPERATIONS:
        raise Unsupported(f"the fp8 (SPV_EXT_float8) cooperative-matrix operation "
                          f"{coop_names.operation_name(base)} (the interpreter runs it, "
                          f"docs/coopmat2-semantics.md \"fp8\")")
    lhs = f"{quote(ins.name)} = " if str(ins.type) != "void" else ""
    if base == coop_names.ACCESS_CHAIN:       # &m[i] of a matrix variable
        return private_matrices.access_chain(fg, ins, ops, callee, lhs)
    if base == SPLAT:
        mt = matrix_type(str(ins.type), S)
        scalar = typed(ops[0])
        tmp = fg.fresh("splat")
        fg.lines += [f"  {tmp} = insertelement {mt.vector} poison, {scalar}, i64 0",
                     f"  {lhs}shufflevector {mt.vector} {tmp}, {mt.vector} poison, "
                     f"<{mt.length} x i32> zeroinitializer"]
        return None
    if base == LENGTH:
        mt = _matrix_of_callee(callee, S)
        fg.lines.append(f"  {lhs}add {ins.type} 0, {mt.length}")
        return None
    if base in ELEMENTWISE or base == NEGATE:
        return _elementwise(fg, ins, ops, base, lhs, S)
    if base == SCALAR_MUL:
        return _scalar_mul(fg, ins, ops, lhs, S)
    if base == PER_ELEMENT:
        return _per_element(fg, ins, ops, lhs, S)
    if base == GET_COORDINATE:
        return _get_coordinate(fg, ins, ops, lhs, S)
    if base not in RENDEZVOUS:
        raise Unsupported(f"the cooperative-matrix operation {coop_names.operation_name(base)} "
                          f"is not compiled natively yet")
    return _rendezvous(fg, ins, ops, callee, lhs)



# Element-wise operations are per work-item vector code: each component is computed as the
# interpreter computes it on the logical matrix (coopmat.binary / negate: IEEE operations
# in the component type, integers wrapping); padding components are never observed (stores
# and mul-adds skip them).
ELEMENTWISE = {BINARY["add"]: ("fadd", "add"),
               BINARY["sub"]: ("fsub", "sub"),
               BINARY["mul"]: ("fmul", "mul"),
               BINARY["div"]: ("fdiv", None)}


def _elementwise(fg, ins, ops, base, lhs, S):
    mt = matrix_type(str(ins.type), S)
    floating = mt.elem in coop_ir.FLOAT_TYPES
    if any(matrix_type(str(o.type), S).vector != mt.vector for o in ops[:-1]):
        raise Unsupported(f"a cooperative-matrix {coop_names.operation_name(base)} of different matrix types")
    if mt.elem == "bfloat":        # computed in float32, rounded once (bfloat_ir)
        op = "fneg" if base == NEGATE else ELEMENTWISE[base][0]
        fg.lines += bfloat_ir.arithmetic(fg.fresh, op, mt.vector, ref(ops[0]),
                                         None if base == NEGATE else ref(ops[1]), quote(ins.name))
        return None
    if base == NEGATE and mt.fp8 is not None:
        # The interpreter negates the ml_dtypes values: the sign bit flips, NaNs and zeros too.
        signs = ", ".join(["i8 -128"] * mt.length)
        fg.lines.append(f"  {lhs}xor {mt.vector} {ref(ops[0])}, <{signs}>")
        return None
    if base == NEGATE:
        op = f"fneg {mt.vector} {ref(ops[0])}" if floating else f"sub {mt.vector} zeroinitializer, {ref(ops[0])}"
        fg.lines.append(f"  {lhs}{op}")
        return None
    op = ELEMENTWISE[base][0 if floating else 1]
    if op is None:
        # Integer division faults on a zero divisor in the interpreter (padding included
        # would differ): not compiled natively yet.
        raise Unsupported("an integer cooperative-matrix division")
    fg.lines.append(f"  {lhs}{op} {mt.vector} {ref(ops[0])}, {ref(ops[1])}")
    return None


# Instructions whose result is the same in every work-item when their operands are (no
# memory, no work-item state): casts, arithmetic, comparisons, select.
_PURE_OPCODES = frozenset({"fptrunc", "fpext", "sitofp", "uitofp", "fptosi", "fptoui", "trunc", "zext",
                           "sext", "bitcast", "fneg", "fadd", "fsub", "fmul", "fdiv", "add", "sub", "mul",
                           "and", "or", "xor", "shl", "lshr", "ashr", "icmp", "fcmp", "select"})


def _uniform_scalar(fg, v, depth=0):
    """Whether `v` is the same in every work-item: a constant, a kernel argument, a pure
    instruction (_PURE_OPCODES) of such values (`(half)scale`), or (-O0 IR) a load of a
    private variable whose one store, in the entry block before any load of it, is of a
    constant or a kernel argument, and whose address is used by nothing else."""
    if v.is_constant or value_kind(v) == "argument":
        return True
    load = fg.definition(v)
    if load is not None and load.opcode in _PURE_OPCODES and depth < 8:
        return all(_uniform_scalar(fg, o, depth + 1) for o in load.operands)
    slot = fg.definition(list(load.operands)[0]) if load is not None and load.opcode == "load" else None
    if slot is None or slot.opcode != "alloca":
        return False
    stores, loaded_before = [], False
    for bi, block in enumerate(fg.blocks):
        for user in block.instructions:
            for k, o in enumerate(user.operands):
                if o.is_constant or value_kind(o) != "instruction" or o.name != slot.name:
                    continue
                if user.opcode == "store" and k == 1 and bi == 0:
                    stores.append(user)
                elif user.opcode == "load" and k == 0:
                    loaded_before |= not stores
                elif not (user.opcode == "call" and str(list(user.operands)[-1].name).startswith("llvm.lifetime")):
                    return False
    if len(stores) != 1 or loaded_before:
        return False
    value = list(stores[0].operands)[0]
    return value.is_constant or value_kind(value) == "argument"


def _scalar_mul(fg, ins, ops, lhs, S):
    """m * s with s of the component type; the interpreter requires s uniform across the
    sub-group: taken natively when s is a constant or a kernel argument (uniform)."""
    mt = matrix_type(str(ins.type), S)
    scalar = ops[1]
    if str(scalar.type) != mt.elem:
        raise Unsupported(f"a cooperative-matrix scalar multiply by a {scalar.type} scalar")
    if not _uniform_scalar(fg, scalar):
        raise Unsupported("a cooperative-matrix scalar multiply by a value that may differ "
                          "between work-items (the interpreter checks it is uniform)")
    tmp = fg.fresh("smul")
    tmp2 = fg.fresh("smuls")
    op = "fmul" if mt.elem in coop_ir.FLOAT_TYPES else "mul"
    fg.lines += [f"  {tmp} = insertelement {mt.vector} poison, {typed(scalar)}, i64 0",
                 f"  {tmp2} = shufflevector {mt.vector} {tmp}, {mt.vector} poison, "
                 f"<{mt.length} x i32> zeroinitializer"]
    if mt.elem == "bfloat":
        fg.lines += bfloat_ir.arithmetic(fg.fresh, "fmul", mt.vector, ref(ops[0]), tmp2, quote(ins.name))
    else:
        fg.lines.append(f"  {lhs}{op} {mt.vector} {ref(ops[0])}, {tmp2}")
    return None


# NV2 per-element functions and EXT coordinates are per work-item code (docs/native.md,
# "Cooperative matrices"): each work-item handles the elements its components hold, as the
# interpreter's lanes act for the work-item holding each element
# (clcoop/interp/coop_function_calls.py); padding components are never visited.

def _component_index(fg, mt, component):
    """IR computing the logical flat index (or -1, padding) of this work-item's component
    `component` (an i64 value text) in mt's layout table; returns its name (i32)."""
    coop = fg.mg.coop
    llid, lane, slot, ptr, index = (fg.fresh(n) for n in ("llid", "lane", "slot", "slotp", "index"))
    fg.lines += [f"  {llid}.p = getelementptr i64, ptr %__ctx, i64 {CTX['llid']}",
                 f"  {llid} = load i64, ptr {llid}.p",
                 f"  {lane} = urem i64 {llid}, {mt.group_size}",
                 f"  {slot}.r = mul i64 {lane}, {mt.length}",
                 f"  {slot} = add i64 {slot}.r, {component}",
                 f"  {ptr} = getelementptr [{mt.layout.index.size} x i32], ptr {coop.table(mt)}, i64 0, i64 {slot}",
                 f"  {index} = load i32, ptr {ptr}"]
    return index


def _get_coordinate(fg, ins, ops, lhs, S):
    """uint2 (row, col) of this work-item's component i (coopmat2.get_coordinate):
    padding gives (rows, cols); an index outside [0, length) is a fault, worded as the
    interpreter's (runtime._coop_fault_message), and reads component 0 meanwhile."""
    mt = matrix_type(str(ops[0].type), S)
    if str(ins.type) != "<2 x i32>" or str(ops[1].type) != "i32":
        raise Unsupported(f"a coop_mat_get_coord of type {ins.type} with a {ops[1].type} index")
    site = fg.site(ins, "cooperative-matrix operation", 0)
    fg.mg.out.sites[site].operation = coop_names.operation_name(GET_COORDINATE)
    fg.mg.out.sites[site].matrix_length = mt.length
    fg.mg.out.sites[site].subgroup_size = S
    fg.mg.coop.uses_coop_fault = True
    i, bad, wide, safe = (fg.fresh(n) for n in ("ci", "cbad", "cwide", "csafe"))
    fg.lines += [f"  {i} = zext i32 {ref(ops[1])} to i64",
                 f"  {bad} = icmp uge i64 {i}, {mt.length}",
                 f"  {wide} = sext i32 {ref(ops[1])} to i64",
                 f"  call void @__clcoop_coop_fault_if(ptr %__ctx, i1 {bad}, i32 {site}, i64 {COORD_INDEX}, i64 {wide})",
                 f"  {safe} = select i1 {bad}, i64 0, i64 {i}"]
    index = _component_index(fg, mt, safe)
    pad, row, col, r, c, v = (fg.fresh(n) for n in ("cpad", "crow", "ccol", "cr", "cc", "cv"))
    fg.lines += [f"  {pad} = icmp slt i32 {index}, 0",
                 f"  {row} = udiv i32 {index}, {mt.cols}",
                 f"  {col} = urem i32 {index}, {mt.cols}",
                 f"  {r} = select i1 {pad}, i32 {mt.rows}, i32 {row}",
                 f"  {c} = select i1 {pad}, i32 {mt.cols}, i32 {col}",
                 f"  {v} = insertelement <2 x i32> poison, i32 {r}, i64 0",
                 f"  {lhs}insertelement <2 x i32> {v}, i32 {c}, i64 1"]
    return None


def _coop_fault_if():
    """A FAULT_COOP with its sub-code and word (runtime._coop_fault_message) when `bad`."""
    fn, b = irbuild.define("__clcoop_coop_fault_if", ir.VoidType(),
                           [(PTR, "c"), (I1, "bad"), (I32, "site"), (I64, "code"), (I64, "word")])
    c, bad, site, code, word = fn.args
    with b.if_then(bad):
        irbuild.call(b, "__clcoop_fault", ir.VoidType(), [c, site, ir.Constant(I32, FAULT_COOP), code, word])
    b.ret_void()
    return irbuild.function_text(fn)


COOP_FAULT_IF_IR = _coop_fault_if()


def _per_element(fg, ins, ops, lhs, S):
    """m' = fn(row, col, m[e], extras...) for each element e this work-item holds, in
    component order (a helper function per site loops over the components; the user's
    function is compiled like any called function, with this work-item's context)."""
    mt = matrix_type(str(ins.type), S)
    m, fn, extras = ops[0], ops[1], ops[2:-1]
    if matrix_type(str(m.type), S).vector != mt.vector:
        raise Unsupported("a coop_mat_per_element whose operand and result types differ")
    target = fg.mg.functions.get(fn.name) if value_kind(fn) == "function" else None
    if target is None or target.is_declaration or fn.name in fg.mg.module.kernels:
        raise Unsupported(f"a coop_mat_per_element whose function operand is not a function "
                          f"defined in the module ({typed(fn)})")
    matrix_extras = [coopmat_spec.mentions_matrix_type(str(e.type)) for e in extras]
    for e, is_matrix in zip(extras, matrix_extras):
        if is_matrix and matrix_type(str(e.type), S).vector != mt.vector:
            raise Unsupported("a coop_mat_per_element with a matrix operand of another type")
    params = ["i32", "i32", mt.elem] + [mt.elem if is_m else str(e.type) for e, is_m in zip(extras, matrix_extras)]
    want = f"{mt.elem} ({', '.join(params)})"
    if str(target.global_value_type) != want:
        # Untrusted IR: the call below must match the function it calls.
        raise Unsupported(f"a coop_mat_per_element function @{fn.name} of type "
                          f"{target.global_value_type} (the operation calls it as {want})")
    coop = fg.mg.coop
    name = f"__clcoop_pe.{len(coop.functions)}"
    extra_types = [irbuild.value_type(mt.vector if is_m else str(e.type)) for e, is_m in zip(extras, matrix_extras)]
    coop.functions.append(_per_element_ir(name, mt, fn.name, extra_types, matrix_extras, coop.table(mt),
                                          mt.group_size))
    args = ", ".join(["ptr %__ctx", f"{mt.vector} {ref(m)}"] + [typed(e) for e in extras])
    fg.lines.append(f"  {lhs}call {mt.vector} @{name}({args})")
    return None


def _per_element_ir(name, mt, fn, extra_types, matrix_extras, table, S):
    """`<V x T> @name(ptr %c, <V x T> %m, extras...)`: each component this work-item holds
    (its lane in the layout table) replaced by fn(c, row, col, m[v], extras), matrix
    extras given their component v; padding components 0."""
    V, T, vector = mt.length, irbuild.parse_type(mt.elem), irbuild.parse_type(mt.vector)
    func, b = irbuild.define(name, vector, [(PTR, "c"), (vector, "m")] +
                             [(t, f"e{k}") for k, t in enumerate(extra_types)], inline=False)
    c, m, extras = func.args[0], func.args[1], func.args[2:]
    lane = b.urem(irbuild.load_slot(b, c, "llid"), i64(S), name="lane")
    first = b.mul(lane, i64(V), name="first")
    entry = b.block
    loop, call, step, done = (b.append_basic_block(n) for n in ("loop", "call", "next", "done"))
    b.branch(loop)
    b.position_at_end(loop)
    v = b.phi(I64, name="v")
    acc = b.phi(vector, name="acc")
    slot = b.add(first, v, name="slot")
    pointer = b.gep(irbuild.global_ref(b, table.lstrip("@"), ir.ArrayType(I32, mt.layout.index.size)),
                    [i64(0), slot], source_etype=ir.ArrayType(I32, mt.layout.index.size), name="ip")
    index = b.load(pointer, name="index", typ=I32)
    b.cbranch(irbuild.icmp(b, "slt", index, ir.Constant(I32, 0), name="pad"), step, call)
    b.position_at_end(call)
    row = b.udiv(index, ir.Constant(I32, mt.cols), name="row")
    col = b.urem(index, ir.Constant(I32, mt.cols), name="col")
    x = b.extract_element(m, v, name="x")
    args = [b.extract_element(e, v, name=f"x{k}") if is_m else e
            for k, (e, is_m) in enumerate(zip(extras, matrix_extras))]
    y = irbuild.call(b, fn, T, [c, row, col, x] + args, "y")
    updated = b.insert_element(acc, y, v, name="acc.set")
    b.branch(step)
    b.position_at_end(step)
    acc_next = b.phi(vector, name="acc.next")
    acc_next.add_incoming(acc, loop)
    acc_next.add_incoming(updated, call)
    v_next = b.add(v, i64(1), name="v.next")
    b.cbranch(irbuild.icmp(b, "ult", v_next, i64(V), name="more"), loop, done)
    v.add_incoming(i64(0), entry)
    v.add_incoming(v_next, step)
    acc.add_incoming(ir.Constant(vector, None), entry)
    acc.add_incoming(acc_next, step)
    b.position_at_end(done)
    b.ret(acc_next)
    return irbuild.function_text(func)


def _matrix_of_callee(callee, S):
    m = callee.matrices[0]
    W = None
    if m.scope == coopmat_spec.Scope.WORKGROUP:      # (coop_mat_length takes the type, scope included)
        W = getattr(S, "work_group_size", None)
        if W is None:
            raise Unsupported(WORKGROUP_UNTAKEN)
    return MatrixType(coopmat_spec.COMPONENTS[m.elem].llvm, m.rows, m.cols, m.use, S, None, W)


def _constant_int(value, what):
    text = typed(value)
    parts = text.split()
    if len(parts) != 2 or not re.fullmatch(r"-?\d+", parts[1]):
        raise Unsupported(f"a cooperative-matrix {what} that is not a constant ({text})")
    return int(parts[1])


def element_site(site, mt):
    """A matrix load or store's fault site (codegen.Site) accesses elements of `mt`."""
    site.dtype = scalar_dtype(parse_type_text(mt.elem, {}))
    site.size = ELEMENT_BYTES[mt.elem]


def _rendezvous(fg, ins, ops, callee, lhs):
    """Operands to the context, suspend, result from the spill slot after the resume."""
    S = sizes_of(fg)
    coop = fg.mg.coop
    site = fg.site(ins, "cooperative-matrix operation", 0)
    # Its SPIR-V name, as the interpreter's faults give it (runtime.py).
    fg.mg.out.sites[site].operation = coop_names.operation_name(callee.base)
    W = _workgroup_operation(ins, ops, S)
    # A workgroup-scope operation is one rendezvous of the whole work-group (drivers.py
    # tells its functions by this name).
    fname = f"{WORKGROUP_PREFIX if W else '__clcoop_coop.'}{site}"
    fg.mg.out.sites[site].workgroup_size = W
    slots = []                      # (slot index, i64 value text)
    result = None
    if callee.base in (LOAD, STORE):
        # A fault names the element type, as the interpreter's (memory.describe_offset):
        # the IR matrix type's, which the access has (a callee name without template
        # arguments, as other producers spell it, named none: "misaligned ... of 0 bytes").
        element_site(fg.mg.out.sites[site], matrix_type(str(ins.type if callee.base == LOAD else ops[1].type), S))
        try:   # the component's signedness, as the callee's template arguments give it
            fg.mg.out.sites[site].dtype = memory_dtype(callee, fg.ty(str(ins.type)) if callee.base == LOAD else None)
        except IRError:
            pass
    if callee.base == LOAD:
        mt = matrix_type(str(ins.type), S)
        layout, stride = _memory_operands(ops, 1, callee, mt)
        spill = fg.coop_spill(mt.vector)
        slots = [(0, _ptr_bits(fg, ops[0])), (2, _i64(fg, ops[2])), (3, _ptr_bits(fg, spill))]
        result = (mt, spill)
        coop.functions.append(_memory_function(fname, site, mt, layout, coop.table(mt), load=True,
                                               slot=_region_slot(fg, ops[0])))
    elif callee.base == STORE:
        mt = matrix_type(str(ops[1].type), S)
        layout, stride = _memory_operands(ops, 2, callee, mt)
        spill = fg.coop_spill(mt.vector)
        fg.lines.append(f"  store {mt.vector} {ref(ops[1])}, ptr {spill}")
        slots = [(0, _ptr_bits(fg, ops[0])), (2, _i64(fg, ops[3])), (3, _ptr_bits(fg, spill))]
        coop.functions.append(_memory_function(fname, site, mt, layout, coop.table(mt), load=False,
                                               slot=_region_slot(fg, ops[0])))
    elif callee.base == REDUCE:
        m, r = matrix_type(str(ops[0].type), S), matrix_type(str(ins.type), S)
        mode = _constant_int(ops[1], "reduce mode")
        _check_reduce(fg, callee, ops, m, r, mode)
        spill = fg.coop_spill(m.vector)
        fg.lines.append(f"  store {m.vector} {ref(ops[0])}, ptr {spill}")
        out = fg.coop_spill(r.vector)
        slots = [(0, _ptr_bits(fg, spill)), (3, _ptr_bits(fg, out))]
        result = (r, out)
        coop.table(m)
        coop.table(r)
        coop.functions.append(_reduce_function(fname, site, m, r, mode, ops[2].name, coop))
    elif callee.base != MUL_ADD:        # a use or component conversion, a transpose
        m, r = matrix_type(str(ops[0].type), S), matrix_type(str(ins.type), S)
        cast = _conversion_cast(callee, m, r)
        spill = fg.coop_spill(m.vector)
        fg.lines.append(f"  store {m.vector} {ref(ops[0])}, ptr {spill}")
        out = fg.coop_spill(r.vector)
        slots = [(0, _ptr_bits(fg, spill)), (3, _ptr_bits(fg, out))]
        result = (r, out)
        coop.table(m)
        coop.table(r)
        coop.functions.append(_convert_function(fname, site, m, r, cast, callee.base == TRANSPOSE))
    else:
        a, b, c = (matrix_type(str(o.type), S) for o in ops[:3])
        r = matrix_type(str(ins.type), S)
        operands = mul_add_operands(ops, (a, b, c, r))
        mad = coop.mul_add_routine(a.rows, b.cols, a.cols, tuple(routine_type(mt) for mt in (a, b, c, r)),
                                   operands)
        spills = []
        for i, (mt, o) in enumerate(zip((a, b, c), ops[:3])):
            spill = fg.coop_spill(mt.vector)
            fg.lines.append(f"  store {mt.vector} {ref(o)}, ptr {spill}")
            spills.append((i, _ptr_bits(fg, spill)))
        out = fg.coop_spill(r.vector)
        slots = spills + [(3, _ptr_bits(fg, out))]
        result = (r, out)
        coop.functions.append(_mul_add_function(fname, site, (a, b, c, r), mad,
                                                [coop.table(m) for m in (a, b, c, r)]))
    if callee.base in (LOAD, STORE):
        slots.append((1, str(layout)))
    for slot, value in slots:
        p = fg.fresh("cs")
        fg.lines += [f"  {p} = getelementptr i64, ptr %__ctx, i64 {CTX[f'coop{slot}']}",
                     f"  store i64 {value}, ptr {p}"]
    coop.sites.setdefault(fg.f.name, []).append((site, fname))
    resume = fg.suspend(site)
    if result is not None:
        mt, spill = result
        fg.lines.append(f"  {lhs}load {mt.vector}, ptr {spill}")
    return resume


WORKGROUP_PREFIX = "__clcoop_wgcoop."
WORKGROUP_UNTAKEN = ("a workgroup-scope cooperative matrix where the native engine does not take one (it "
                     "needs the kernel's reqd_work_group_size; not on the subgroup-wide path, not in "
                     "tensor loads and stores)")


def _workgroup_operation(ins, ops, S):
    """The work-group size W when the operation's matrices are workgroup-scope (then it is
    a rendezvous of the whole work-group), else None; matrices of both scopes in one
    operation are refused (the interpreter faults on them)."""
    texts = [str(ins.type)] + [str(o.type) for o in ops[:-1]]
    scopes = {fields[1] for t in texts for fields in [coopmat_spec.first_matrix_type_fields(t)] if fields}
    if len(scopes) > 1:
        raise Unsupported("a cooperative-matrix operation on matrices of both scopes")
    if scopes == {coopmat_spec.Scope.WORKGROUP}:
        return getattr(S, "work_group_size", None)
    return None


def _check_reduce(fg, callee, ops, m, r, mode):
    """What the interpreter checks before a reduction (interp/coop_calls.py _do_reduce), and that the
    combine operand is a defined function of type T (T, T) (untrusted IR: the generated
    code calls it as that); anything else is left to the interpreter, with the reason."""
    problem = coopmat_spec.reduce_problem(callee.matrices[1].matrix_type(), callee.matrices[0].matrix_type(), mode)
    if problem is not None or (m.elem, m.fp8) != (r.elem, r.fp8):
        raise Unsupported(f"a cooperative-matrix reduction the interpreter refuses "
                          f"({problem.message if problem else 'types differ'})")
    combine = ops[2]
    target = fg.mg.functions.get(combine.name) if value_kind(combine) == "function" else None
    if target is None or target.is_declaration or combine.name in fg.mg.module.kernels:
        raise Unsupported(f"a coop_mat_reduce whose combine operand is not a function defined "
                          f"in the module ({typed(combine)})")
    want = f"{m.elem} ({m.elem}, {m.elem})"
    if str(target.global_value_type) != want:
        raise Unsupported(f"a coop_mat_reduce combine function @{combine.name} of type "
                          f"{target.global_value_type} (the operation calls it as {want})")


def _conversion_cast(callee, m, r):
    """The IR converting one element, as a builder function (builder, value) -> value, for a
    use conversion (NV2 ConvertNV: the same bits), a transpose (the same type) or a KHR
    Op*Convert that may change the use, as coopmat.convert does: FConvert an IEEE
    conversion; SConvert/UConvert sign- or zero-extend or truncate the bits; ConvertFToS/FToU
    toward zero, NaN -> 0, saturating to the result component's range (scalars.float_to_int:
    llvm.fpto[su]i.sat); ConvertSToF/UToF the sign- or zero-extended integer rounded once to
    double, then to the result type (the interpreter's path: exact for 32-bit integers, a
    double then a float rounding for 64-bit ones). The interpreter's type rules
    (coopmat_spec) first. What cannot be bit for bit the interpreter's this way is left to
    it, with the reason."""
    rule = coopmat_spec.transpose_problem if callee.base == TRANSPOSE else coopmat_spec.conversion_problem
    problem = rule(callee.matrices[1].matrix_type(), callee.matrices[0].matrix_type())
    name = coop_names.operation_name(callee.base)
    if problem is not None:
        raise Unsupported(f"a cooperative-matrix {name} the interpreter refuses ({problem.message})")
    src, dst = m.elem, r.elem
    same = lambda b, x: irbuild.freeze(b, x, name="cast")      # noqa: E731
    if callee.base in (CONVERT_USE, TRANSPOSE):
        if (src, m.fp8) != (dst, r.fp8):
            raise Unsupported(f"a cooperative-matrix {name} that changes the component type")
        return same
    if m.fp8 is not None and r.fp8 is not None and m.fp8.token == r.fp8.token:
        return same         # the interpreter copies (coopmat2.convert_use): NaN payloads kept
    if m.fp8 is not None or r.fp8 is not None:
        return float8_ir.matrix_cast(m, r, COMPONENT_DTYPES[callee.matrices[1].elem],
                                     COMPONENT_DTYPES[callee.matrices[0].elem], name)
    op = CONVERSIONS[callee.base]
    floats, ints = coop_ir.FLOAT_TYPES, coop_ir.INT_TYPES
    if "bfloat" in (src, dst) and src != dst:
        return _bfloat_cast(op, src, dst, np.dtype(COMPONENT_DTYPES[callee.matrices[0].elem]).kind == "i")
    target = irbuild.parse_type(dst)

    def cast(instruction):
        return lambda b, x: getattr(b, instruction)(x, target, name="cast")
    if op == "FConvert" and src in floats and dst in floats:
        if (src, dst) == ("double", "half"):
            # One correct rounding double -> half is a library call in LLVM's lowering.
            raise Unsupported("a cooperative-matrix FConvert from double to half")
        return same if src == dst else cast("fpext" if floats[dst] > floats[src] else "fptrunc")
    if op in ("SConvert", "UConvert") and src in ints and dst in ints:
        extend = "sext" if op == "SConvert" else "zext"
        return same if src == dst else cast(extend if ints[dst] > ints[src] else "trunc")
    if op in ("ConvertFToS", "ConvertFToU") and src in floats and dst in ints:
        # The range is the result component's (signed or not), as float_to_int's dtype.
        signed = np.dtype(COMPONENT_DTYPES[callee.matrices[0].elem]).kind == "i"
        return lambda b, x: _saturated(b, x, target, signed)
    if op in ("ConvertSToF", "ConvertUToF") and src in ints and dst in ("float", "double"):
        to_double = "sitofp" if op == "ConvertSToF" else "uitofp"
        if dst == "double":
            return cast(to_double)
        return lambda b, x: b.fptrunc(getattr(b, to_double)(x, irbuild.DOUBLE, name="d"), target, name="cast")
    raise Unsupported(f"the cooperative-matrix conversion {op} from {src} to {dst} (not compiled "
                      f"natively yet: the interpreter's rounding there is not one LLVM instruction's)")


def _saturated(b, x, target, signed):
    """llvm.fpto[su]i.sat: toward zero, NaN -> 0, saturating to target's range."""
    return irbuild.intrinsic(b, f"fpto{'s' if signed else 'u'}i.sat", [x], "cast", types=[target, x.type],
                             ret=target)


def _bfloat_cast(op, src, dst, signed_result):
    """A conversion with bf16 on one side, as coopmat2.convert_bfloat16: to bf16 one
    rounding of the exact value (floats, integers: bfloat_ir); from bf16 the exact float32
    value, then as a float32 source (FConvert to half one rounding; ConvertFTo[SU]
    saturating, NaN -> 0)."""
    floats, ints = coop_ir.FLOAT_TYPES, coop_ir.INT_TYPES
    if dst == "bfloat" and op == "FConvert" and src in floats:
        return lambda b, x: bfloat_ir.round_from_value(b, src, x)
    if dst == "bfloat" and op in ("ConvertSToF", "ConvertUToF") and src in ints:
        return lambda b, x: bfloat_ir.int_to_bfloat_value(b, x, op == "ConvertSToF")
    if src == "bfloat" and op == "FConvert" and dst in floats:
        if dst == "half":
            return lambda b, x: b.fptrunc(bfloat_ir.widen_value(b, x, "float"), irbuild.HALF, name="cast")
        return lambda b, x: bfloat_ir.widen_value(b, x, dst)
    if src == "bfloat" and op in ("ConvertFToS", "ConvertFToU") and dst in ints:
        return lambda b, x: _saturated(b, bfloat_ir.widen_value(b, x, "float"), irbuild.parse_type(dst),
                                       signed_result)
    raise Unsupported(f"the cooperative-matrix conversion {op} from {src} to {dst}")


def _convert_function(fname, site, m, r, cast, transpose):
    """One subgroup's conversion (coopmat2.convert_use / transpose): gather the logical
    source through its layout, then each result component is the source element at the
    same (row, col), or at (col, row) for a transpose, cast, through the result's layout
    (padding 0)."""
    routine = Routine(fname, site, m.group_size)
    b, T = routine.b, irbuild.parse_type(m.elem)
    source = _logical(routine, m, "w")
    gather(routine, m, "coop0", source, "g0")

    def converted(i):
        if transpose:       # result (i, j) = source (j, i): source index j * cols + i
            row, col = b.udiv(i, i64(r.cols), name="g3.ri"), b.urem(i, i64(r.cols), name="g3.rj")
            i = b.add(b.mul(col, i64(m.cols), name="g3.sj"), row, name="g3.k")
        return cast(b, b.load(element(b, T, source, i, "g3.src"), name="g3.x", typ=T))
    scatter(routine, r, converted, "g3")
    return routine.finish(False)


def reduce_sequences(rows, cols, mode):
    """(order, length, result_of): the logical indices of the source in sequence order
    (sequence s is order[s*length:(s+1)*length], coopmat2.reduce's), and the function
    giving, for a result element (r, c), the sequence it holds."""
    grid = [[r * cols + c for c in range(cols)] for r in range(rows)]
    if mode == coopmat_spec.Reduce.ROW:
        return [i for row in grid for i in row], cols, lambda r, c: r
    if mode == coopmat_spec.Reduce.COLUMN:
        return [grid[r][c] for c in range(cols) for r in range(rows)], rows, lambda r, c: c
    if mode == coopmat_spec.Reduce.ROW | coopmat_spec.Reduce.COLUMN:
        return [i for row in grid for i in row], rows * cols, lambda r, c: 0
    order = [grid[2 * r + dr][2 * c + dc] for r in range(rows // 2) for c in range(cols // 2)
             for dr in (0, 1) for dc in (0, 1)]
    return order, 4, lambda r, c: r * (cols // 2) + c


def _reduce_function(fname, site, m, r, mode, combine, coop):
    """Reduction of one subgroup (coopmat2.reduce): gather the logical matrix into its
    sequences, run the pairwise tree (combine_tree: each level combines (x[2i], x[2i+1])
    in place, an odd last element moves up unchanged; combine called with the subgroup's
    first work-item's context, as the interpreter's lanes act for it), then scatter each
    result element's sequence value through the result's layout. Returns whether combine
    recorded a fault."""
    order, length, result_of = reduce_sequences(m.rows, m.cols, mode)
    count = len(order) // length
    # Where each logical source element goes in sequence order (the inverse of order).
    place = [0] * len(order)
    for k, i in enumerate(order):
        place[i] = k
    places = f"@__clcoop_rdp.{m.rows}.{m.cols}.{mode}"
    coop.tables[places] = (f"{places} = internal constant [{len(order)} x i32] ["
                           + ", ".join(f"i32 {k}" for k in place) + "]")
    owner = [result_of(i // r.cols, i % r.cols) * length for i in range(r.rows * r.cols)]
    owners = f"@__clcoop_rdo.{m.rows}.{m.cols}.{mode}.{r.rows}.{r.cols}"
    coop.tables[owners] = (f"{owners} = internal constant [{len(owner)} x i32] ["
                           + ", ".join(f"i32 {k}" for k in owner) + "]")
    routine = Routine(fname, site, m.group_size)
    b, T = routine.b, irbuild.parse_type(m.elem)
    w = _logical(routine, m, "w", len(order))

    def entry_of(table, length, name):
        return lambda i: b.zext(b.load(b.gep(routine.table(table, length), [i], source_etype=I32, name=f"{name}p"),
                                       name=f"{name}32", typ=I32), I64, name=name)
    gather(routine, m, "coop0", w, "g0", entry_of(places, len(order), "g0.k"))
    n, level = length, 0
    while n > 1:
        pairs = n // 2
        _combine_level(routine, w, f"l{level}", count, pairs, length, T, combine)
        if n % 2:
            # The odd last element moves up a level unchanged: to position `pairs`.
            for s in range(count):
                source = element(b, T, w, i64(s * length + n - 1), f"l{level}m{s}.s")
                target = element(b, T, w, i64(s * length + pairs), f"l{level}m{s}.d")
                b.store(b.load(source, name=f"l{level}m{s}", typ=T), target)
        n = pairs + n % 2
        level += 1
    sequence_of = entry_of(owners, len(owner), "g3.o")
    scatter(routine, r, lambda i: b.load(element(b, T, w, sequence_of(i), "g3.src"), name="g3.x", typ=T), "g3")
    return routine.finish(irbuild.icmp(b, "ne", routine.slot(routine.base, "fault"), i64(0), name="faulted"))


def _combine_level(routine, w, p, count, pairs, length, T, combine):
    """One tree level over every sequence: w[s*length + i] = combine(w[s*length + 2i],
    w[s*length + 2i + 1]) for i < pairs (in place: i <= 2i, read before written)."""
    b = routine.b
    with irbuild.for_range(b, 0, count * pairs, p) as (q, _):
        sequence, i = b.udiv(q, i64(pairs), name=f"{p}s"), b.urem(q, i64(pairs), name=f"{p}i")
        first = b.mul(sequence, i64(length), name=f"{p}b")
        x_at = b.add(first, b.shl(i, i64(1), name=f"{p}i2"), name=f"{p}x.k")
        y_at, out_at = b.add(x_at, i64(1), name=f"{p}y.k"), b.add(first, i, name=f"{p}o.k")
        x_p, y_p, out_p = (element(b, T, w, at, f"{p}{n}.p") for at, n in ((x_at, "x"), (y_at, "y"), (out_at, "o")))
        x, y = b.load(x_p, name=f"{p}x", typ=T), b.load(y_p, name=f"{p}y", typ=T)
        b.store(irbuild.call(b, combine, T, [routine.base, x, y], f"{p}z"), out_p)


def routine_type(mt):
    """The component name coop_ir.mul_add_ir takes: the LLVM type, or an fp8 format's."""
    return mt.fp8.token.lower() if mt.fp8 is not None else mt.elem


def mul_add_operands(ops, mats):
    """The constant Cooperative Matrix Operands word of a mul-add call (0 for floats: the
    signedness flags mean nothing there, coopmat)."""
    operands = _constant_int(ops[3], "operands word") if len(ops) > 4 else 0
    if operands & ~coopmat_spec.OPERAND_ALL:
        raise Unsupported(f"unknown cooperative matrix operands 0x{operands:x}")
    if all(m.elem in coop_ir.FLOAT_TYPES or m.fp8 is not None for m in mats):
        operands = 0
    return operands


def _memory_operands(ops, layout_index, callee, mt):
    if pointee_size(callee.params) != ELEMENT_BYTES[mt.elem]:
        # The stride counts pointee elements (coopmat._addresses): kept for later.
        raise Unsupported("a cooperative-matrix load or store through a pointer to another type")
    layout = _constant_int(ops[layout_index], "memory layout")
    if layout not in (0, 1):
        raise Unsupported(f"the cooperative-matrix memory layout {layout} (row- and column-major only)")
    if len(ops) < layout_index + 3:
        raise Unsupported("a cooperative-matrix load or store without a stride")
    return layout, ops[layout_index + 1]


def _region_slot(fg, pointer):
    """The region table row of the kernel argument or global the matrix pointer comes from,
    or None when that is known only at run time (codegen._FunctionGen.base_of)."""
    base = fg.base_of(pointer)
    if base is not None and base[0] == "arg":
        return len(fg.mg.global_index) + base[1]
    if base is not None and base[0] == "global":
        return fg.mg.global_index[base[1]]
    return None


def _ptr_bits(fg, value):
    text = typed(value) if not isinstance(value, str) else f"ptr {value}"
    out = fg.fresh("pb")
    fg.lines.append(f"  {out} = ptrtoint {text} to i64")
    return out


def _i64(fg, value):
    text = typed(value)
    ty = text.split(" ", 1)[0]
    if ty == "i64":
        return text.split(" ", 1)[1]
    out = fg.fresh("st")
    fg.lines.append(f"  {out} = sext {text} to i64")
    return out


# ------------------------------------------------------------------ rendezvous functions
# Built with llvmlite.ir on rendezvous_ir's skeleton (docs/native.md, "How generated code is
# built").

def _region_code(r, root, slot, name):
    """The region code of a matrix pointer's checks (__clcoop_chk_in): its region table row
    `slot` + 1 when known, else the region holding it at run time."""
    if slot is not None:
        return i64(slot + 1)
    return irbuild.call(r.b, "__clcoop_region_of", I64, [r.base, root], name)


def checked_access(r, pointer, root, code, size, align, site, kind, write, name):
    """__clcoop_chk_in of an element access of the subgroup (a fault of its first work-item)."""
    return irbuild.call(r.b, "__clcoop_chk_in", PTR,
                        [r.base, pointer, root, code, i64(size), i64(align), ir.Constant(I32, site),
                         ir.Constant(I32, kind), ir.Constant(I1, int(write))], name)


def _memory_function(fname, site, mt, layout, table, load, slot=None):
    """Load or store of one subgroup: uniform pointer, layout and stride; the stride rule of
    coopmat (_check_load_stride: >= 0; _check_store_stride: > 0); every element checked.
    An element out of bounds is a fault of the subgroup's first work-item, as in the
    interpreter (interp/coop_calls.py _per_memory_layout names a faulting subgroup by its first
    lane), in the region of the table row `slot` the pointer comes from (None: the region
    holding the pointer at run time)."""
    esz = ELEMENT_BYTES[mt.elem]
    r = Routine(fname, site, mt.group_size, ("coop0", "coop1", "coop2"))
    b = r.b
    start, stride = r.uniform["coop0"], r.uniform["coop2"]
    root = b.inttoptr(start, PTR, name="root")
    with b.if_then(irbuild.icmp(b, "slt" if load else "sle", stride, i64(0), name="badstride")):
        r.fault(r.base, NEGATIVE_LOAD_STRIDE if load else STORE_STRIDE, stride)
    # The fast path: the whole span [pointer, last element] inside one region, aligned and
    # writable if stored to, then no element can fault: no per-element checks. Otherwise
    # the checked loop finds and reports the faulting element.
    last_major, last_minor = (mt.rows - 1, mt.cols - 1) if layout == 0 else (mt.cols - 1, mt.rows - 1)
    last = b.add(b.mul(i64(last_major), stride, name="span.maj"), i64(last_minor + 1), name="span.last")
    hi = b.add(start, b.mul(last, i64(esz), name="span.bytes"), name="span.hi")
    # Every element is in the region of the pointer (its element (0, 0)): the kernel
    # argument or global it comes from (row `slot`), else the region holding it. An
    # element in a neighbouring region in host memory is out of bounds all the same, and
    # the fault names the pointer's region (runtime_ir.py, __clcoop_chk_in).
    span = [r.base, start, hi, i64(esz), ir.Constant(I1, int(not load))]
    ok = irbuild.call(b, "__clcoop_span_ok", I1, span, "span.ok") if slot is None else \
        irbuild.call(b, "__clcoop_span_row", I1, span + [i64(slot)], "span.ok")
    fast, checked = irbuild.new_block(b, "fast"), irbuild.new_block(b, "checked")
    b.cbranch(ok, fast, checked)
    irbuild.place(b, checked)
    _run_order_checks(r, mt, layout, esz, site, load, root, slot)
    _element_moves(r, mt, layout, table, load, root, _region_code(r, root, slot, "mcode"))
    b.ret(ir.Constant(I1, 0))
    irbuild.place(b, fast)
    _element_moves(r, mt, layout, table, load, root, None)
    return r.finish(False)


def _element_moves(r, mt, layout, table, load, root, code):
    """Each work-item's components moved between memory and its spill (context slot
    coop3), padding components of a load 0; each address checked (region `code`) or, with
    code None, not (the span is known good)."""
    b, T, V, esz = r.b, irbuild.parse_type(mt.elem), mt.length, ELEMENT_BYTES[mt.elem]
    start, stride = r.uniform["coop0"], r.uniform["coop2"]
    table = r.table(table, mt.layout.index.size)

    def move(j, v, c, step):
        index, pad = table_index(r, table, V, j, v, "m")
        with b.if_then(pad):
            if load:
                b.store(ir.Constant(T, None), element(b, T, r.slot_pointer(c, "coop3", "m.zs"), v, "m.zp"))
            b.branch(step)
        row, col = b.sdiv(index, i64(mt.cols), name="mrow"), b.srem(index, i64(mt.cols), name="mcol")
        major, minor = (row, col) if layout == 0 else (col, row)
        offset = b.add(b.mul(major, stride, name="mmaj"), minor, name="moff")
        address = b.add(start, b.mul(offset, i64(esz), name="mbytes"), name="maddr")
        pointer = b.inttoptr(address, PTR, name="mptr")
        if code is not None:
            pointer = checked_access(r, pointer, root, code, esz, esz, r.site.constant,
                                     FAULT_READ if load else FAULT_WRITE, not load, "mq")
        spill = element(b, T, r.slot_pointer(c, "coop3", "m.spill"), v, "m.sp")
        source, target = (pointer, spill) if load else (spill, pointer)
        b.store(b.load(source, name="m.val", typ=T), target)
    item_loop(r, "m", V, move, lambda j, c: r.stop_if_faulted())


def _run_order_checks(r, mt, layout, esz, site, load, root, slot):
    """Every element checked in memory order (row by row for a row-major layout, column by
    column for column-major), the first failing check recording the fault: an overrun is
    reported at the first element outside the buffer in that order, as the interpreter,
    which reads and writes the matrix run by run (coopmat.load/store), reports it; leaves
    the function on a fault."""
    b = r.b
    minor = mt.cols if layout == 0 else mt.rows
    code = _region_code(r, root, slot, "rocode")
    start, stride = r.uniform["coop0"], r.uniform["coop2"]
    with irbuild.for_range(b, 0, mt.rows * mt.cols, "ro") as (i, _):
        major, minor_index = b.udiv(i, i64(minor), name="ro.maj"), b.urem(i, i64(minor), name="ro.min")
        offset = b.add(b.mul(major, stride, name="ro.majoff"), minor_index, name="ro.off")
        pointer = b.inttoptr(b.add(start, b.mul(offset, i64(esz), name="ro.bytes"), name="ro.addr"), PTR,
                             name="ro.ptr")
        # (bounds and alignment only: the interpreter checks a store's whole extent before its
        # write permission, which the work-items' loop checks after)
        checked_access(r, pointer, root, code, esz, esz, site, FAULT_READ if load else FAULT_WRITE, False, "ro.q")
    r.stop_if_faulted()


# Whether a span lies in one region of the table (ll/span_check.ll): __clcoop_span_ok.
SPAN_OK_IR = fixed_ir.load("span_check.ll", vars(context))


def gather(r, mt, slot, target, name, place=None):
    """Each work-item's components of the matrix mt (the spill in its context slot `slot`)
    stored at their logical index in `target` (or at place(index)), padding skipped."""
    b, T = r.b, irbuild.parse_type(mt.elem)
    table = r.table(mt.table, mt.layout.index.size)

    def copy(j, v, c, step):
        index, pad = table_index(r, table, mt.length, j, v, name)
        with b.if_then(pad):
            b.branch(step)
        x = b.load(element(b, T, r.slot_pointer(c, slot, f"{name}.sp"), v, f"{name}.src"), name=f"{name}.x", typ=T)
        b.store(x, element(b, T, target, index if place is None else place(index), f"{name}.dst"))
    item_loop(r, name, mt.length, copy)


def scatter(r, mt, value_of, name):
    """Each work-item's result components (the spill in its context slot coop3): the value
    value_of(logical index) gives, built in the loop; padding components 0."""
    b, T = r.b, irbuild.parse_type(mt.elem)
    table = r.table(mt.table, mt.layout.index.size)

    def store(j, v, c, step):
        index, pad = table_index(r, table, mt.length, j, v, name)
        target = element(b, T, r.slot_pointer(c, "coop3", f"{name}.sp"), v, f"{name}.dst")
        value = value_of(b.select(pad, i64(0), index, name=f"{name}.si"))
        b.store(b.select(pad, ir.Constant(T, None), value, name=f"{name}.y"), target)
    item_loop(r, name, mt.length, store)


def _logical(r, mt, name, count=None):
    """An alloca of a matrix's logical elements (or `count` of them)."""
    return irbuild.alloca(r.b, ir.ArrayType(irbuild.parse_type(mt.elem), count or mt.rows * mt.cols), 64, name)


def _mul_add_function(fname, site, mats, mad, tables):
    """One subgroup's mul-add: A, B and C gathered into their logical matrices, the
    routine `mad` (coop_ir.mul_add_ir) computing the logical result, scattered."""
    r = Routine(fname, site, mats[0].group_size)
    logical = [_logical(r, mt, name) for mt, name in zip(mats, ("la", "lb", "lc", "lr"))]
    for i, (mt, target) in enumerate(zip(mats[:3], logical)):
        gather(r, mt, f"coop{i}", target, f"g{i}")
    irbuild.call(r.b, mad, ir.VoidType(), logical)
    result = mats[3]
    T = irbuild.parse_type(result.elem)
    scatter(r, result, lambda i: r.b.load(element(r.b, T, logical[3], i, "g3.src"), name="g3.x", typ=T), "g3")
    return r.finish(False)


def component_text(fg, text):
    """Type text with each matrix type replaced by its work-item's <V x T> components
    (unchanged when it names no matrix)."""
    if not coopmat_spec.mentions_matrix_type(text):
        return text
    if fg.mg.subgroup_size is None:
        raise Unsupported("cooperative-matrix operations (compiled per sub-group size)")
    return replace_matrix_types(text, sizes_of(fg))
