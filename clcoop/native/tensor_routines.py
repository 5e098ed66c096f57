"""Tensor layouts and views, tensor loads and stores in native kernels (SPV_NV_tensor_addressing;
SPV_NV_cooperative_matrix2 rev 2 "Tensor Layout and View"; docs/native.md "Tensor layouts").

The interpreter is the reference (clcoop/interp/tensor.py, tensor_calls.py): this module
computes the same int64 values in the same order, bit for bit.

- A layout or view value is the interpreter's vector of int64 fields, `<F x i64>`
  (tensor_spec.TensorType.field_count), so allocas, phis and selects of them need nothing
  new. Layout and view operations are per-work-item code (one helper function per
  operation and type).
- Loads and stores are rendezvous points of the subgroup, as coop_routines' matrix loads:
  each work-item leaves the pointer (slot coop0), its layout and view spills (coop1, coop2)
  and its result spill (coop3, holding the `Object` operand of a load, or the stored
  matrix) in its context and suspends; the driver runs the operation's function once per
  subgroup, which checks what the interpreter checks in its order, addresses every element
  (row, col) of the logical matrix as interp/tensor.tensor_addresses does, gathers or
  stores the valid elements in row-major order with every access checked, calls the decode
  function per valid element with the context of the work-item holding it, and scatters
  the result through the matrix layout.
- Faults are FAULT_COOP with the sub-codes below; their words come from fault_message,
  with the values the native code left in the context's detail slots (context.DETAIL).
"""
import re

import llvmlite.ir as ir
import numpy as np

from clcoop import coop_names
from clcoop.coopmat_spec import ClampMode, tensor_operand_count_problem
from clcoop.ir.coop_operands import component_dtype
from clcoop.native import coop_routines
from clcoop.native.context import CTX, CTX_SLOTS, DETAIL_SLOTS, FAULT_READ, FAULT_WRITE
from clcoop.native.coop_routines import ELEMENT_BYTES, _region_slot, matrix_type
from clcoop.native.support import Unsupported
from clcoop.native.text_rewrite import quote, ref, typed
from clcoop.native import fixed_ir, irbuild
from clcoop.native.rendezvous_ir import I1, I8, I32, I64, PTR, Routine, element, i64, item_loop, table_index
from clcoop.tensor_spec import TensorType
from clcoop.ir.loader import value_kind

# FAULT_COOP sub-codes of tensor operations (coop_routines' own are below 32).
(PTR_NON_UNIFORM, NON_UNIFORM_TENSOR_LAYOUT, VIEW_NON_UNIFORM, NOT_CREATED, STORE_BLOCK, VIEW_DIMS, VIEW_ZERO,
 SPAN_ZERO, DIM_ZERO, UNDEFINED_OUTSIDE, BLOCK_SIZE_ZERO) = range(32, 43)
FIRST_CODE = PTR_NON_UNIFORM
# SPV_NV_cooperative_matrix2 "Tensor Addressing Operands".
ADDRESSING_TENSOR_VIEW, ADDRESSING_DECODE_FUNC = 0x1, 0x2
LOAD_TENSOR, STORE_TENSOR = coop_names.LOAD_TENSOR, coop_names.STORE_TENSOR
RENDEZVOUS = (LOAD_TENSOR, STORE_TENSOR)
UINT32_MAX = 0xFFFFFFFF
# Element kinds of the addressing (interp/tensor.TensorAccess).
VALID, CONSTANT, CLIPPED, FAULT = 0, 1, 2, 3

_TENSOR_TYPE_RE = re.compile(r'target\("spirv\.Type"(?:\s*,\s*target\("spirv\.IntegralConstant",\s*i(?:1|32),'
                             r'\s*-?\d+\))+\s*,\s*537[01]\s*,\s*0\s*,\s*0\s*\)')


def mentions_tensor_type(text):
    return _TENSOR_TYPE_RE.search(text) is not None


def _spec_of_text(text):
    spec = TensorType.parse(text)
    if spec is None or spec.problem() is not None:
        raise Unsupported(f"the tensor layout or view type {text}")
    return spec


def replace_tensor_types(text):
    """Every tensor layout or view type in IR text -> its `<F x i64>` fields."""
    return _TENSOR_TYPE_RE.sub(lambda m: _vector(_spec_of_text(m.group(0))), text)


def _vector(spec):
    return f"<{spec.field_count} x i64>"


def is_tensor_call(name):
    """Whether `name` is a tensor layout/view operation or a tensor load/store callee."""
    callee = coop_routines.callee_of(name)
    return callee is not None and callee.base in coop_names.TENSOR_BASES


def emit_call(fg, ins, ops, name):
    """Code of one tensor call (coop_names.TENSOR_BASES) in the work-item function `fg`;
    returns the label the block continues in (loads and stores suspend), or None."""
    callee = coop_routines.callee_of(name)
    lhs = f"{quote(ins.name)} = " if str(ins.type) != "void" else ""
    if fg.mg.subgroup_size is None:
        raise Unsupported(f"cooperative-matrix operations ({name})")
    operation = coop_names.TENSOR_BASES[callee.base]
    if callee.base in RENDEZVOUS:
        return _memory_call(fg, ins, ops, callee, lhs, callee.base == LOAD_TENSOR)
    return _layout_operation(fg, ins, ops, callee, operation, lhs)


# ------------------------------------------------------------------ layout and view operations

def _fields(spec):
    """Field offsets of a layout (dimension, stride, offset, span, block size, clamp value)
    or view (dimension, stride, clip): interp/tensor_calls.py's order."""
    D = spec.dims
    if spec.is_layout:
        return {"dim": 0, "stride": D, "offset": 2 * D, "span": 3 * D, "block": 4 * D, "clamp": 5 * D}
    return {"dim": 0, "stride": D, "clip": 2 * D}


def created_fields(spec):
    """OpCreateTensorLayoutNV / OpCreateTensorViewNV (interp/tensor.py create): a layout's
    block sizes 1 and everything else 0; a view's clip spans 0xFFFFFFFF."""
    D = spec.dims
    if spec.is_layout:
        return [0] * (4 * D) + [1] * D + [0]
    return [0] * (2 * D) + [0, UINT32_MAX, 0, UINT32_MAX]


def _layout_operation(fg, ins, ops, callee, operation, lhs):
    spec = _spec_of_text(str(ins.type))
    V = _vector(spec)
    what = coop_names.operation_name(callee.base)
    if operation in ("coop_tensor_layout_create", "coop_tensor_view_create"):
        if ops[:-1]:
            raise Unsupported(f"the tensor operation {what} with operands")
        values = ", ".join(f"i64 {v}" for v in created_fields(spec))
        fg.lines.append(f"  {lhs}add {V} <{values}>, zeroinitializer")
        return None
    args = ops[:-1]
    if not args or str(args[0].type) != str(ins.type):
        raise Unsupported(f"the tensor operation {what} on a {args[0].type if args else 'missing'} operand "
                          f"(its result is {ins.type})")
    values = args[1:]
    problem = tensor_operand_count_problem(operation, spec.dims, len(values))
    if problem is not None or any(str(v.type) != "i32" for v in values):
        raise Unsupported(f"the tensor operation {what} with operands {', '.join(str(v.type) for v in values)}"
                          + (f" ({problem.message})" if problem else ""))
    coop = fg.mg.coop
    key = ("op", operation, spec)
    if key not in coop.tensor:
        coop.tensor[key] = f"__clcoop_tensor_op.{len(coop.tensor)}"
        coop.functions.append(_operation_ir(coop.tensor[key], spec, operation, len(values)))
        _ensure_floor_helpers(coop)
    site = 0
    if operation == "coop_tensor_layout_set_block_size":
        site = fg.site(ins, "cooperative-matrix operation", 0)
        fg.mg.out.sites[site].operation = what
        coop.uses_coop_fault = True
    call_args = ", ".join(["ptr %__ctx", f"i32 {site}", f"{V} {ref(args[0])}"] + [typed(v) for v in values])
    fg.lines.append(f"  {lhs}call {V} @{coop.tensor[key]}({call_args})")
    return None


def _operation_ir(name, spec, operation, count):
    """The helper computing one layout or view operation (interp/tensor.py TensorLayout /
    TensorView methods): 32-bit operands read as unsigned (slice offsets as signed), the
    derived strides in int64 as NumPy computes them."""
    V = ir.VectorType(I64, spec.field_count)
    D = spec.dims
    f = _fields(spec)
    fn, b = irbuild.define(name, V, [(PTR, "c"), (I32, "site"), (V, "t")] + [(I32, f"a{k}") for k in range(count)])
    c, site, t, operands = fn.args[0], fn.args[1], fn.args[2], fn.args[3:]
    u = [b.zext(a, I64, name=f"u{k}") for k, a in enumerate(operands)]
    sets = {}                                   # field index -> value
    if operation in ("coop_tensor_layout_set_dimension", "coop_tensor_view_set_dimension"):
        stride = {D - 1: i64(1)}
        for i in range(D - 2, -1, -1):
            if spec.is_layout:      # stride[i] = stride[i+1] * ceil(Dim[i+1] / blockSize[i+1])
                block = b.extract_element(t, i64(f["block"] + i + 1), name=f"b{i + 1}")
                quotient = _floor(b, "div", b.sub(i64(0), u[i + 1], name=f"nb{i + 1}"), block, f"fq{i + 1}")
                stride[i] = b.mul(stride[i + 1], b.sub(i64(0), quotient, name=f"cd{i + 1}"), name=f"s{i}")
            else:                   # packed: stride[i] = stride[i+1] * Dim[i+1]
                stride[i] = b.mul(stride[i + 1], u[i + 1], name=f"s{i}")
        for d in range(D):
            sets[f["dim"] + d] = u[d]
            sets[f["stride"] + d] = stride[d]
            if spec.is_layout:
                sets[f["offset"] + d] = i64(0)
                sets[f["span"] + d] = u[d]
    elif operation in ("coop_tensor_layout_set_stride", "coop_tensor_view_set_stride"):
        sets = {f["stride"] + d: u[d] for d in range(D)}
    elif operation == "coop_tensor_layout_set_block_size":
        bad = _any(b, (irbuild.icmp(b, "eq", operands[d], ir.Constant(I32, 0), name=f"z{d}") for d in range(D)), "bad")
        irbuild.call(b, "__clcoop_coop_fault_if", ir.VoidType(), [c, bad, site, i64(BLOCK_SIZE_ZERO), i64(0)])
        sets = {f["block"] + d: u[d] for d in range(D)}
    elif operation == "coop_tensor_layout_slice":
        for d in range(D):          # offset[d] = int32(offset[d] + Offset_d); span[d] = Span_d
            moved = b.add(b.extract_element(t, i64(f["offset"] + d), name=f"o{d}"),
                          b.sext(operands[2 * d], I64, name=f"so{d}"), name=f"no{d}")
            sets[f["offset"] + d] = b.sext(b.trunc(moved, I32, name=f"to{d}"), I64, name=f"wo{d}")
            sets[f["span"] + d] = u[2 * d + 1]
    elif operation == "coop_tensor_layout_set_clamp_value":
        sets = {f["clamp"]: u[0]}
    elif operation == "coop_tensor_view_set_clip":
        sets = {f["clip"] + k: u[k] for k in range(4)}
    else:
        raise Unsupported(f"the tensor operation {operation}")
    value = t
    for k, (field, v) in enumerate(sorted(sets.items())):
        value = b.insert_element(value, v, i64(field), name=f"r{k}")
    b.ret(value)
    return irbuild.function_text(fn)


# NumPy's int64 // and % (floor), as interp/tensor.py computes: ll/floor_division.ll.
FLOOR_HELPERS_IR = fixed_ir.text("floor_division.ll")


def _ensure_floor_helpers(coop):
    if "floor" not in coop.tensor:
        coop.tensor["floor"] = True
        coop.functions.append(FLOOR_HELPERS_IR)


# ------------------------------------------------------------------ loads and stores

class _Access:
    """What one tensor load or store site addresses: the matrix, the layout and view types,
    the addressing operands, the decode function."""

    def __init__(self, mt, layout, view, decode, block_bytes, decode_type, load):
        self.mt, self.layout, self.view, self.load = mt, layout, view, load
        self.decode, self.block_bytes, self.decode_type = decode, block_bytes, decode_type
        self.mode = ClampMode(layout.clamp_mode)
        if not load and self.mode != ClampMode.UNDEFINED:
            # NV2: "For stores ... everything is treated as discard" outside the tensor.
            self.mode = ClampMode.CONSTANT


def _memory_call(fg, ins, ops, callee, lhs, load):
    S = coop_routines.sizes_of(fg)     # with the work-group size W a workgroup-scope matrix needs
    coop = fg.mg.coop
    what = coop_names.operation_name(callee.base)
    args = ops[:-1]
    if len(args) < 5:
        raise Unsupported(f"the tensor operation {what} with {len(args)} operands")
    matrix = args[1]
    mt = matrix_type(str(ins.type if load else matrix.type), S)
    # A workgroup-scope matrix: one rendezvous of the whole work-group (coop_routines'
    # WORKGROUP_PREFIX; the interpreter's Subgroups over the work-group).
    W = coop_routines._workgroup_operation(ins, ops, S)
    if load and str(matrix.type) != str(ins.type):
        raise Unsupported(f"a {what} whose Object operand is not of its result type")
    layout = _spec_of_text(str(args[2].type))
    if not layout.is_layout:
        raise Unsupported(f"a {what} whose layout operand is a {args[2].type}")
    mask = coop_routines._constant_int(args[4], "tensor addressing operands")
    if mask & ~(ADDRESSING_TENSOR_VIEW | ADDRESSING_DECODE_FUNC) or (not load and mask & ADDRESSING_DECODE_FUNC):
        raise Unsupported(f"the tensor addressing operands {mask:#x} of {what}")
    expected = 5 + bool(mask & ADDRESSING_TENSOR_VIEW) + bool(mask & ADDRESSING_DECODE_FUNC)
    if len(args) != expected:
        raise Unsupported(f"a {what} with {len(args)} operands (its addressing operands {mask:#x} give {expected})")
    view = None
    if mask & ADDRESSING_TENSOR_VIEW:
        view = _spec_of_text(str(args[5].type))
        if view.is_layout:
            raise Unsupported(f"a {what} whose view operand is a {args[5].type}")
    named = _named_tensor_types(callee.params)
    if named[:1 + (view is not None)] != [layout] + ([view] if view is not None else []):
        raise Unsupported(f"a {what} whose callee names other tensor types than its operands have")
    decode = block_bytes = decode_type = None
    if mask & ADDRESSING_DECODE_FUNC:
        decode, decode_type = _decode_function(fg, args[-1], mt, layout.dims, what)
        match = re.search(r"u\d+TensorBlockNV_(\d+)", callee.params)
        if match is None:
            raise Unsupported(f"a {what} with a decode function whose callee does not name the size "
                              f"of its block (u<len>TensorBlockNV_<bytes>)")
        block_bytes = int(match.group(1))
    access = _Access(mt, layout, view, decode, block_bytes, decode_type, load)
    site = fg.site(ins, "cooperative-matrix operation", 0)
    record = fg.mg.out.sites[site]
    record.operation = what
    coop_routines.element_site(record, mt)
    record.dtype = component_dtype(callee.matrices[0]) if callee.matrices else record.dtype
    record.tensor_mode = ClampMode(layout.clamp_mode).spirv
    record.tensor_dims = (layout.dims, view.dims if view is not None else None)
    # The element accesses' own site: the interpreter words their faults as a read or a
    # write of the component type (memory.Memory._locate).
    memory_site = fg.site(ins, "read" if load else "write", ELEMENT_BYTES[mt.elem])
    fg.mg.out.sites[memory_site].dtype = record.dtype
    coop.uses_coop_fault = True
    _ensure_floor_helpers(coop)
    coop.table(mt)
    record.workgroup_size = W
    fname = f"{coop_routines.WORKGROUP_PREFIX if W else '__clcoop_coop.'}{site}"
    layout_spill = fg.coop_spill(_vector(layout))
    fg.lines.append(f"  store {_vector(layout)} {ref(args[2])}, ptr {layout_spill}")
    slots = [(0, coop_routines._ptr_bits(fg, args[0])), (1, coop_routines._ptr_bits(fg, layout_spill))]
    if view is not None:
        view_spill = fg.coop_spill(_vector(view))
        fg.lines.append(f"  store {_vector(view)} {ref(args[5])}, ptr {view_spill}")
        slots.append((2, coop_routines._ptr_bits(fg, view_spill)))
    else:
        slots.append((2, "0"))
    spill = fg.coop_spill(mt.vector)
    fg.lines.append(f"  store {mt.vector} {ref(matrix)}, ptr {spill}")
    slots.append((3, coop_routines._ptr_bits(fg, spill)))
    owners = _owner_table(coop, mt) if decode is not None else None
    coop.functions.append(_tensor_function(fname, (site, memory_site), access, coop.table(mt), owners,
                                           _region_slot(fg, args[0])))
    for slot, value in slots:
        p = fg.fresh("cs")
        fg.lines += [f"  {p} = getelementptr i64, ptr %__ctx, i64 {CTX[f'coop{slot}']}",
                     f"  store i64 {value}, ptr {p}"]
    coop.sites.setdefault(fg.f.name, []).append((site, fname))
    resume = fg.suspend(site)
    if load:
        fg.lines.append(f"  {lhs}load {mt.vector}, ptr {spill}")
    return resume


def _named_tensor_types(params):
    """The tensor types a callee's mangled parameters name (u18TensorLayoutNV_2_1 ...), in order,
    as interp/tensor_calls.py reads them."""
    out = []
    for match in re.finditer(r"u(\d+)(Tensor(?:Layout|View)NV_[\d_]+)", params):
        parts = match.group(2)[:int(match.group(1))].split("_")
        try:
            if parts[0] == "TensorLayoutNV":
                out.append(TensorType.layout(int(parts[1]), int(parts[2])))
            else:
                out.append(TensorType.view(int(parts[1]), int(parts[2]), [int(p) for p in parts[3]]))
        except (IndexError, ValueError):
            raise Unsupported(f"the tensor callee parameters '{params}'")
    return out


def _decode_function(fg, fn, mt, dims, what):
    """The decode operand: a function defined in the module of type
    T (ptr, [D x i32], [D x i32]) (lower_tensor.py's wrapper of the user's function), which
    the generated code calls as that (untrusted IR: checked, never read from a name)."""
    target = fg.mg.functions.get(fn.name) if value_kind(fn) == "function" else None
    if target is None or target.is_declaration or fn.name in fg.mg.module.kernels:
        raise Unsupported(f"a {what} whose decode operand is not a function defined in the module ({typed(fn)})")
    ty = str(target.global_value_type)
    match = re.fullmatch(r"(\S+) \((ptr(?: addrspace\(\d+\))?), \[(\d+) x i32\], \[(\d+) x i32\]\)", ty)
    if match is None or match.group(1) != mt.elem or int(match.group(3)) != dims or int(match.group(4)) != dims:
        raise Unsupported(f"a {what} decode function @{fn.name} of type {ty} (the load calls it as "
                          f"{mt.elem} (ptr, [{dims} x i32], [{dims} x i32]))")
    return fn.name, match.group(2)


def _owner_table(coop, mt):
    """@table: the work-item of the subgroup holding each logical element (row-major), as
    interp/coop_function_calls.element_owners chooses it (the last holder in item order)."""
    name = f"@__clcoop_town.{mt.elem}.{mt.rows}.{mt.cols}.{mt.use}"
    if name not in coop.tables:
        holder = np.zeros(mt.rows * mt.cols, dtype=np.int64)
        index = np.asarray(mt.layout.index)
        items, slots = np.nonzero(index >= 0)
        holder[index[items, slots]] = items
        coop.tables[name] = (f"{name} = internal constant [{holder.size} x i32] ["
                             + ", ".join(f"i32 {int(h)}" for h in holder) + "]")
    return name


def _tensor_function(fname, sites, access, table, owners, region_slot):
    """The rendezvous function of one tensor load or store (see the module docstring), and
    its addressing function."""
    site, memory_site = sites
    mt, layout, view = access.mt, access.layout, access.view
    T, R, C = irbuild.parse_type(mt.elem), mt.rows, mt.cols
    r = Routine(fname, site, mt.group_size)
    b = r.b
    frame = _Frame(w=irbuild.alloca(b, ir.ArrayType(T, R * C), 64, "w"),
                   kinds=irbuild.alloca(b, ir.ArrayType(I8, R * C), 16, "kinds"),
                   idx=irbuild.alloca(b, ir.ArrayType(I64, R * C), 64, "idx"),
                   lo=irbuild.alloca(b, I64, 8, "lo.p"), hi=irbuild.alloca(b, I64, 8, "hi.p"),
                   out=irbuild.alloca(b, ir.ArrayType(I64, 1 + 3 * layout.dims), 16, "out"))
    frame.p0 = r.slot(r.base, "coop0", "p0")
    frame.L = r.slot_pointer(r.base, "coop1", "L")
    frame.V = r.slot_pointer(r.base, "coop2", "Vw") if view is not None else ir.Constant(PTR, None)
    _uniform_checks(r, frame, layout, view)
    frame.lf = _field_loads(b, frame.L, "lf", layout.field_count)
    frame.vf = _field_loads(b, frame.V, "vf", view.field_count) if view is not None else None
    _subgroup_checks(r, access, frame)
    addr = f"{fname}.addr"
    frame.address = lambda row, col, name: irbuild.call(b, addr, I32, [frame.L, frame.V, row, col, frame.out], name)
    if access.mode == ClampMode.UNDEFINED:
        _undefined_pass(r, access, frame)
    root = b.inttoptr(frame.p0, PTR, name="root")
    code = ir.Constant(I64, region_slot + 1) if region_slot is not None else \
        irbuild.call(b, "__clcoop_region_of", I64, [r.base, root], "rcode")
    if access.load and access.decode is not None:
        _decode_pass(r, access, frame, owners)
    else:
        _address_pass(r, access, frame)
        if not access.load:     # the stored matrix, logical row-major, into %w
            coop_routines.gather(r, mt, "coop3", frame.w, "g0")
        _checks_of_accesses(r, memory_site, access, frame, root, code, region_slot)
        _access_pass(r, access, frame)
    if access.load:
        _scatter(r, access, frame, table)
    return r.finish(False) + "\n" + _address_function(addr, access)


class _Frame:
    """The values of a tensor rendezvous function its passes share: the allocas (w, the
    logical matrix; kinds and idx, each element's kind and index; lo, hi; out, the
    addressing's results), the pointer p0, the layout and view pointers and fields."""

    def __init__(self, **values):
        self.__dict__.update(values)


def _field(b, pointer, k, name):
    """Field k of a layout's or view's fields at pointer."""
    return b.load(b.gep(pointer, [i64(k)], source_etype=I64, name=f"{name}.p"), name=name, typ=I64)


def _field_loads(b, pointer, prefix, count):
    return [_field(b, pointer, k, f"{prefix}{k}") for k in range(count)]


def _any(b, conditions, name):
    """The i1 `or` of conditions (false when there are none)."""
    value = ir.Constant(I1, 0)
    for k, condition in enumerate(conditions):
        value = b.or_(value, condition, name=f"{name}{k + 1}")
    return value


def _uniform_checks(r, frame, layout, view):
    """interp/tensor_calls._addresses' order: the pointer over the whole subgroup (a fault
    of the first work-item whose pointer differs, with both values), then the layout, the
    created check, the view (faults of the subgroup's first work-item)."""
    b = r.b
    with irbuild.for_range(b, 1, r.count, "pu") as (j, _):
        c = r.context(j, "pu.c")
        pointer = r.slot(c, "coop0", "pu.p")
        with b.if_then(irbuild.icmp(b, "ne", pointer, frame.p0, name="pu.bad")):
            r.fault(c, PTR_NON_UNIFORM, i64(0), (frame.p0, pointer))
    _same_fields_loop(r, "lu", frame.L, "coop1", layout.field_count, NON_UNIFORM_TENSOR_LAYOUT)
    # interp/tensor_calls._check_created: a zero block size is a layout no create made.
    block = _fields(layout)["block"]
    blocks = [_field(b, frame.L, block + d, f"cb{block + d}") for d in range(layout.dims)]
    with b.if_then(_any(b, (irbuild.icmp(b, "eq", x, i64(0), name=f"cb.z{d}") for d, x in enumerate(blocks)),
                        "cb.bad")):
        r.fault(r.base, NOT_CREATED, i64(0))
    if view is not None:
        _same_fields_loop(r, "vu", frame.V, "coop2", view.field_count, VIEW_NON_UNIFORM)


def _same_fields_loop(r, p, first, slot, count, code):
    """Every work-item's fields (through its slot) equal the first work-item's."""
    b = r.b
    with irbuild.for_range(b, 1, r.count, p) as (j, _):
        theirs = r.slot_pointer(r.context(j, f"{p}.c"), slot, f"{p}.q")
        differs = (irbuild.icmp(b, "ne", _field(b, first, k, f"{p}.a{k}"), _field(b, theirs, k, f"{p}.b{k}"),
                                name=f"{p}.n{k}") for k in range(count))
        with b.if_then(_any(b, differs, f"{p}.d")):
            r.fault(r.base, code, i64(0))


def _subgroup_checks(r, access, frame):
    """The subgroup's checks after the uniform ones, in interp/tensor_calls._addresses'
    and tensor.tensor_addresses' order (each a fault of the subgroup's first work-item)."""
    b, layout, view, lf = r.b, access.layout, access.view, frame.lf
    D = layout.dims
    f = _fields(layout)

    def check(condition, code, details=(), word=0):
        with b.if_then(condition):
            r.fault(r.base, code, i64(word), details)
    if not access.load:         # NV2: no block size > 1 with a store
        blocks = lf[f["block"]:f["block"] + D]
        check(_any(b, (irbuild.icmp(b, "ne", x, i64(1), name=f"sb.z{d}") for d, x in enumerate(blocks)), "sb.bad"),
              STORE_BLOCK, blocks)
    if view is not None:
        if not view.has_dimensions and view.dims != D:
            check(ir.Constant(I1, 1), VIEW_DIMS)
            return
        dims = _view_dimensions(access, frame)
        for d in range(view.dims - 1, -1, -1):
            i = view.permutation[d]
            check(irbuild.icmp(b, "eq", dims[i], i64(0), name=f"vz{d}"), VIEW_ZERO, word=i)
    for d in range(D - 1, -1, -1):
        check(irbuild.icmp(b, "eq", lf[f["span"] + d], i64(0), name=f"sz{d}"), SPAN_ZERO, word=d)
    if access.mode in (ClampMode.CLAMP_TO_EDGE, ClampMode.REPEAT, ClampMode.REPEAT_MIRRORED):
        for d in range(D):
            check(irbuild.icmp(b, "eq", lf[f["dim"] + d], i64(0), name=f"dz{d}"), DIM_ZERO, word=d)


def _view_dimensions(access, frame):
    """The view's dimension values: its own, or the layout's span without dimensions."""
    layout, view = access.layout, access.view
    if view.has_dimensions:
        start = _fields(view)["dim"]
        return frame.vf[start:start + view.dims]
    start = _fields(layout)["span"]
    return frame.lf[start:start + layout.dims]


def _elements(r, access, p, body):
    """for e < rows * cols (row-major): body(e, row, col, next), (row, col) = divmod(e, cols),
    `next` the block that goes on with the next element."""
    b, C = r.b, access.mt.cols
    with irbuild.for_range(b, 0, access.mt.rows * access.mt.cols, p) as (e, step):
        body(e, b.udiv(e, i64(C), name=f"{p}.r"), b.urem(e, i64(C), name=f"{p}.c"), step)


def _undefined_pass(r, access, frame):
    """Clamp mode Undefined: the first element (row-major) outside the tensor is a fault
    naming it, its tensor coordinate and the tensor's dimensions (before any access, as the
    interpreter computes every address first)."""
    b, D = r.b, access.layout.dims
    dims = frame.lf[_fields(access.layout)["dim"]:_fields(access.layout)["dim"] + D]

    def test(e, row, col, step):
        kind = frame.address(row, col, "ud.kind")
        with b.if_then(irbuild.icmp(b, "eq", kind, ir.Constant(I32, FAULT), name="ud.bad")):
            coords = [_out(b, frame, 1 + d, f"ud.tc{d}") for d in range(D)]
            r.fault(r.base, UNDEFINED_OUTSIDE, i64(0), [row, col] + coords + dims)
    _elements(r, access, "ud", test)


def _out(b, frame, k, name):
    """Word k of the addressing function's results."""
    return b.load(b.gep(frame.out, [i64(k)], source_etype=I64, name=f"{name}.p"), name=name, typ=I64)


def _at(b, array, T, index, name):
    return b.gep(array, [index], source_etype=T, name=name)


def _address_pass(r, access, frame):
    """Every element's kind and index (kinds, idx), and the least and greatest index of a
    valid one (lo, hi; lo > hi when none is)."""
    b = r.b
    b.store(i64(2 ** 63 - 1), frame.lo)
    b.store(i64(-2 ** 63), frame.hi)

    def address(e, row, col, step):
        kind = frame.address(row, col, "ad.kind")
        b.store(b.trunc(kind, I8, name="ad.k8"), _at(b, frame.kinds, I8, e, "ad.kp"))
        index = _out(b, frame, 0, "ad.ix")
        b.store(index, _at(b, frame.idx, I64, e, "ad.ip"))
        with b.if_then(irbuild.icmp(b, "eq", kind, ir.Constant(I32, VALID), name="ad.valid")):
            lo, hi = b.load(frame.lo, name="ad.lo", typ=I64), b.load(frame.hi, name="ad.hi", typ=I64)
            b.store(b.select(irbuild.icmp(b, "slt", index, lo, name="ad.lt"), index, lo, name="ad.lo2"), frame.lo)
            b.store(b.select(irbuild.icmp(b, "sgt", index, hi, name="ad.gt"), index, hi, name="ad.hi2"), frame.hi)
    _elements(r, access, "ad", address)


def _valid_elements(r, access, frame, p, body):
    """for each valid element e (row-major): body(e, its address)."""
    b, esz = r.b, ELEMENT_BYTES[access.mt.elem]
    with irbuild.for_range(b, 0, access.mt.rows * access.mt.cols, p) as (e, step):
        kind = b.load(_at(b, frame.kinds, I8, e, f"{p}.kp"), name=f"{p}.k", typ=I8)
        with b.if_then(irbuild.icmp(b, "ne", kind, ir.Constant(I8, VALID), name=f"{p}.skip")):
            b.branch(step)
        index = b.load(_at(b, frame.idx, I64, e, f"{p}.ip"), name=f"{p}.ix", typ=I64)
        address = b.add(frame.p0, b.mul(index, i64(esz), name=f"{p}.off"), name=f"{p}.a")
        body(e, b.inttoptr(address, PTR, name=f"{p}.ptr"))


def _checks_of_accesses(r, site, access, frame, root, code, region_slot):
    """The valid elements' accesses checked as the interpreter's memory does
    (memory.Memory._locate, _check_all): when the span of their addresses is not inside
    the pointer's region, aligned and (stores) writable, the first element out of bounds
    (row-major), else the first misaligned one (all share the pointer's alignment), else,
    for a store, read-only memory, is the fault of the subgroup's first work-item."""
    b, esz = r.b, ELEMENT_BYTES[access.mt.elem]
    kind = FAULT_READ if access.load else FAULT_WRITE
    lo, hi = b.load(frame.lo, name="sp.l", typ=I64), b.load(frame.hi, name="sp.h", typ=I64)
    done, test, each = (irbuild.new_block(b, n) for n in ("mc.done", "sp.test", "mc.pre"))
    b.cbranch(irbuild.icmp(b, "sgt", lo, hi, name="sp.none"), done, test)
    irbuild.place(b, test)
    low = b.add(frame.p0, b.mul(lo, i64(esz), name="sp.lb"), name="sp.lo")
    high = b.add(frame.p0, b.mul(b.add(hi, i64(1), name="sp.h1"), i64(esz), name="sp.hb"), name="sp.hi")
    span = [r.base, low, high, i64(esz), ir.Constant(I1, int(not access.load))]
    ok = irbuild.call(b, "__clcoop_span_ok", I1, span, "sp.ok") if region_slot is None else \
        irbuild.call(b, "__clcoop_span_row", I1, span + [i64(region_slot)], "sp.ok")
    b.cbranch(ok, done, each)
    irbuild.place(b, each)
    passes = [("mb", 1, False), ("ma", esz, False)] + ([] if access.load else [("mw", esz, True)])
    for p, align, write in passes:
        _valid_elements(r, access, frame, p, lambda e, pointer: coop_routines.checked_access(
            r, pointer, root, code, esz, align, site, kind, write, f"{p}.q"))
        r.stop_if_faulted()
    b.branch(done)
    irbuild.place(b, done)


def _access_pass(r, access, frame):
    """The checked accesses: each valid element read into w, or written from it."""
    b, T = r.b, irbuild.parse_type(access.mt.elem)

    def move(e, pointer):
        slot = _at(b, frame.w, T, e, "mv.wp")
        source, target = (pointer, slot) if access.load else (slot, pointer)
        b.store(b.load(source, name="mv.x", typ=T), target)
    _valid_elements(r, access, frame, "mv", move)


def _decode_pass(r, access, frame, owners):
    """Every valid element, row-major, decoded by the work-item holding it; the element
    kinds kept for the scatter."""
    b, T, D = r.b, irbuild.parse_type(access.mt.elem), access.layout.dims
    owner_table = r.table(owners, access.mt.rows * access.mt.cols)
    coordinates = ir.ArrayType(I32, D)

    def decode(e, row, col, step):
        kind = frame.address(row, col, "ld.kind")
        b.store(b.trunc(kind, I8, name="ld.k8"), _at(b, frame.kinds, I8, e, "ld.kp"))
        with b.if_then(irbuild.icmp(b, "ne", kind, ir.Constant(I32, VALID), name="ld.skip")):
            b.branch(step)
        index = _out(b, frame, 0, "ld.ix")
        slot = _at(b, frame.w, T, e, "ld.wp")
        # SPV_NV_cooperative_matrix2: the block pointer is index * sizeof(block); blockCoord and
        # coordInBlock are uint[D] arrays (the wrapper takes them by value).
        address = b.add(frame.p0, b.mul(index, i64(access.block_bytes), name="ld.boff"), name="ld.ba")
        block = b.inttoptr(address, irbuild.parse_type(access.decode_type), name="ld.bp")
        owner = b.zext(b.load(_at(b, owner_table, I32, e, "ld.op"), name="ld.o32", typ=I32), I64, name="ld.o")
        c = r.context(owner, "ld.oc")
        arrays = []
        for which, first in (("bc", 1 + D), ("ib", 1 + 2 * D)):
            value = ir.Constant(coordinates, ir.Undefined)
            for d in range(D):
                word = b.trunc(_out(b, frame, first + d, f"ld.{which}{d}.w"), I32, name=f"ld.{which}{d}")
                value = b.insert_value(value, word, d, name=f"ld.{which}a{d}")
            arrays.append(value)
        b.store(irbuild.call(b, access.decode, T, [c, block] + arrays, "ld.x"), slot)
        r.stop_if_faulted(c)
    _elements(r, access, "ld", decode)


def _clamp_value(b, access, frame):
    """interp/tensor.clamp_value_as: the low bits of the 32-bit pattern for 8- and 16-bit
    components, the pattern for 32-bit ones, zero-extended for 64-bit ones."""
    T = irbuild.parse_type(access.mt.elem)
    bits = 8 * ELEMENT_BYTES[access.mt.elem]
    clamp = frame.lf[_fields(access.layout)["clamp"]]
    pattern = b.and_(clamp, i64(UINT32_MAX), name="cv.i") if bits == 64 else \
        b.trunc(clamp, ir.IntType(bits), name="cv.i")
    return b.bitcast(pattern, T, name="cv")


def _scatter(r, access, frame, table):
    """Each work-item's components: the valid element read, the clamp value (Constant
    outside the tensor), or the Object operand's component already in its spill (clipped);
    padding 0."""
    mt = access.mt
    b, T = r.b, irbuild.parse_type(mt.elem)
    clamp = _clamp_value(b, access, frame)
    table = r.table(table, mt.layout.index.size)

    def store(j, v, c, step):
        index, pad = table_index(r, table, mt.length, j, v, "g3")
        target = element(b, T, r.slot_pointer(c, "coop3", "g3.sp"), v, "g3.dst")
        with b.if_then(pad):
            b.store(ir.Constant(T, None), target)
            b.branch(step)
        kind = b.load(_at(b, frame.kinds, I8, index, "g3.kp"), name="g3.k", typ=I8)
        with b.if_then(irbuild.icmp(b, "eq", kind, ir.Constant(I8, CLIPPED), name="g3.clip")):
            b.branch(step)
        x = b.load(_at(b, frame.w, T, index, "g3.src"), name="g3.x", typ=T)
        constant = irbuild.icmp(b, "eq", kind, ir.Constant(I8, CONSTANT), name="g3.const")
        b.store(b.select(constant, clamp, x, name="g3.y"), target)
    item_loop(r, "g3", mt.length, store)


# ------------------------------------------------------------------ addressing

def _floor(b, op, x, y, name):
    """NumPy's int64 x // y (op "div") or x % y ("mod"): ll/floor_division.ll."""
    return irbuild.call(b, f"__clcoop_tf{op}", I64, [x, y], name)


def _address_function(name, access):
    """i32 kind = addr(layout fields, view fields, row, col, out): interp/tensor.py's
    tensor_addresses for one element. out[0] = the element index, out[1 + d] the tensor
    coordinate, out[1 + D + d] the block coordinate, out[1 + 2D + d] the coordinate in the
    block (0 where not valid)."""
    layout, view, mode = access.layout, access.view, access.mode
    D, C = layout.dims, access.mt.cols
    f = _fields(layout)
    fn, b = irbuild.define(name.lstrip("@"), I32, [(PTR, "L"), (PTR, "V"), (I64, "r"), (I64, "c"), (PTR, "out")])
    _, view_fields, row, col, out = fn.args
    lf = _field_loads(b, fn.args[0], "lf", layout.field_count)
    spans = lf[f["span"]:f["span"] + D]
    if view is None:
        lin = b.add(b.mul(row, i64(C), name="rc"), col, name="lin")
        clipped = ir.Constant(I1, 0)
        span = _span_coordinates(b, lin, spans, (row, col, i64(C), clipped))
    else:
        vf = _field_loads(b, view_fields, "vf", view.field_count)
        lin, clipped, coord = _view_linear(b, view, vf, spans, row, col, C)
        span = _span_coordinates_of_view(b, lin, coord, spans) if not view.has_dimensions else \
            _span_coordinates(b, lin, spans, None)
    # spanCoordToTensorCoord and tensorCoordToLinear, one dimension after another.
    constant, fault, total = ir.Constant(I1, 0), ir.Constant(I1, 0), i64(0)

    def put(k, value, name):
        b.store(value, b.gep(out, [i64(k)], source_etype=I64, name=f"{name}.p"))
    for d in range(D):
        size = lf[f["dim"] + d]
        tc = b.add(span[d], lf[f["offset"] + d], name=f"tc{d}")
        put(1 + d, tc, f"tc{d}")
        outside = b.or_(irbuild.icmp(b, "slt", tc, i64(0), name=f"lo{d}"),
                        irbuild.icmp(b, "sge", tc, size, name=f"hi{d}"), name=f"out{d}")
        c = tc
        if mode == ClampMode.UNDEFINED:
            fault = b.or_(fault, outside, name=f"fault{d}")
        elif mode == ClampMode.CONSTANT:
            constant = b.or_(constant, outside, name=f"const{d}")
        else:
            c = b.select(outside, _clamped(b, mode, d, tc, size), tc, name=f"cl{d}")
        cz = b.select(b.or_(fault, constant, name=f"end{d}"), i64(0), c, name=f"cz{d}")
        within = _floor(b, "mod", cz, lf[f["block"] + d], f"ib{d}")
        block = _floor(b, "div", cz, lf[f["block"] + d], f"bc{d}")
        total = b.add(total, b.mul(block, lf[f["stride"] + d], name=f"bs{d}"), name=f"ix{d}")
        put(1 + D + d, block, f"bc{d}")
        put(1 + 2 * D + d, within, f"ib{d}")
    put(0, total, "ix")
    kind = b.select(fault, ir.Constant(I32, FAULT), ir.Constant(I32, VALID), name="kf")
    kind = b.select(constant, ir.Constant(I32, CONSTANT), kind, name="kc")
    b.ret(b.select(clipped, ir.Constant(I32, CLIPPED), kind, name="kind"))
    return irbuild.function_text(fn)


def _view_linear(b, view, vf, spans, row, col, C):
    """(linear index, clipped, view coordinates) of element (row, col) through a view:
    matrixCoordToLinear with its clip (skipped outside it, else row-major relative to it
    with width min(C, clip column span)), linearToViewCoord (innermost permuted dimension
    first), then viewCoordToLinear."""
    ro, rs, co, cs = vf[_fields(view)["clip"]:_fields(view)["clip"] + 4]
    clipped = _any(b, [irbuild.icmp(b, "slt", row, ro, name="k1"),
                       irbuild.icmp(b, "sge", row, b.add(ro, rs, name="roe"), name="k2"),
                       irbuild.icmp(b, "slt", col, co, name="k3"),
                       irbuild.icmp(b, "sge", col, b.add(co, cs, name="coe"), name="k4")], "clipped")
    width = b.select(irbuild.icmp(b, "slt", i64(C), cs, name="wlt"), i64(C), cs, name="width")
    dr, dc = b.sub(row, ro, name="dr"), b.sub(col, co, name="dc")
    index = b.select(clipped, i64(0), b.add(b.mul(dr, width, name="drw"), dc, name="lin0"), name="vlin")
    if view.has_dimensions:
        vd = _fields(view)
        dims, strides = vf[vd["dim"]:vd["dim"] + view.dims], vf[vd["stride"]:vd["stride"] + view.dims]
    else:
        dims, strides = spans, [i64(1)] * len(spans)
        for d in range(len(spans) - 2, -1, -1):
            strides[d] = b.mul(strides[d + 1], dims[d + 1], name=f"ps{d}")
    coord = [None] * view.dims
    for d in range(view.dims - 1, -1, -1):
        i = view.permutation[d]
        if d == view.dims - 1:
            coord[i], index = _divided_by_width(b, index, dims[i], (dr, dc, width, clipped), f"vc{i}")
        else:
            coord[i], index = _floor(b, "mod", index, dims[i], f"vc{i}"), _floor(b, "div", index, dims[i], f"vq{d}")
    total = i64(0)
    for d in range(view.dims - 1, -1, -1):
        total = b.add(total, b.mul(coord[d], strides[d], name=f"vt{d}"), name=f"vs{d}")
    return total, clipped, coord


def _span_coordinates(b, lin, spans, by_width):
    """linearToSpanCoord, innermost dimension first; the innermost through
    _divided_by_width when `by_width` (dr, dc, width, clipped) describes lin."""
    span, index = [None] * len(spans), lin
    for d in range(len(spans) - 1, -1, -1):
        if d == len(spans) - 1 and by_width is not None:
            span[d], index = _divided_by_width(b, index, spans[d], by_width, f"sc{d}")
        else:
            span[d], index = _floor(b, "mod", index, spans[d], f"sc{d}"), _floor(b, "div", index, spans[d], f"sq{d}")
    return span


def _divided_by_width(b, index, divisor, by_width, name):
    """(index % divisor, index // divisor) (floor), where index is dr * width + dc (0 when
    clipped) with 0 <= dc < width and dr >= 0 when not clipped (by_width: dr, dc, width,
    clipped): when divisor == width the results are dc and dr (0 and 0 when clipped)
    without dividing; else the division (a branch, so that the fast way skips it)."""
    dr, dc, width, clipped = by_width
    fast, slow, join = (irbuild.new_block(b, f"{name}.{n}") for n in ("f", "s", "j"))
    b.cbranch(irbuild.icmp(b, "eq", divisor, width, name=f"{name}.fast"), fast, slow)
    irbuild.place(b, slow)
    slow_mod, slow_quotient = _floor(b, "mod", index, divisor, f"{name}.sm"), _floor(b, "div", index, divisor, f"{name}.sq")
    b.branch(join)
    irbuild.place(b, fast)
    fast_mod = b.select(clipped, i64(0), dc, name=f"{name}.fm")
    fast_quotient = b.select(clipped, i64(0), dr, name=f"{name}.fq")
    b.branch(join)
    irbuild.place(b, join)
    mod, quotient = b.phi(I64, name=name), b.phi(I64, name=f"{name}.q")
    for phi, values in ((mod, (fast_mod, slow_mod)), (quotient, (fast_quotient, slow_quotient))):
        phi.add_incoming(values[0], fast)
        phi.add_incoming(values[1], slow)
    return mod, quotient


def _span_coordinates_of_view(b, lin, coord, spans):
    """linearToSpanCoord of a view without dimensions (its strides are the spans' mixed
    radix): the view coordinates themselves when every span is positive and their product
    fits in 63 bits (each coordinate, a floor modulo by its span, is then in [0, span)),
    else the divisions."""
    D = len(spans)
    ok, product = ir.Constant(I1, 1), i64(1)
    pair = ir.LiteralStructType([I64, I1])
    for d in range(D):
        positive = irbuild.icmp(b, "sgt", spans[d], i64(0), name=f"sv.pos{d}")
        m = irbuild.intrinsic(b, "umul.with.overflow", [product, spans[d]], f"sv.m{d}", ret=pair)
        product = b.extract_value(m, 0, name=f"sv.p{d + 1}")
        fits = b.xor(b.extract_value(m, 1, name=f"sv.o{d}"), ir.Constant(I1, 1), name=f"sv.no{d}")
        ok = b.and_(ok, b.and_(positive, fits, name=f"sv.a{d}"), name=f"sv.ok{d + 1}")
    fast = b.and_(ok, irbuild.icmp(b, "sgt", product, i64(-1), name="sv.fit"), name="sv.fast")
    fast_block, slow, join = (irbuild.new_block(b, f"sv.{n}") for n in ("f", "s", "j"))
    b.cbranch(fast, fast_block, slow)
    irbuild.place(b, slow)
    divided, index = [None] * D, lin
    for d in range(D - 1, -1, -1):
        divided[d], index = _floor(b, "mod", index, spans[d], f"sc{d}.s"), _floor(b, "div", index, spans[d], f"sq{d}")
    b.branch(join)
    irbuild.place(b, fast_block)
    b.branch(join)
    irbuild.place(b, join)
    span = []
    for d in range(D):
        phi = b.phi(I64, name=f"sc{d}")
        phi.add_incoming(coord[d], fast_block)
        phi.add_incoming(divided[d], slow)
        span.append(phi)
    return span


def _clamped(b, mode, d, c, size):
    """interp/tensor._clamped: ClampToEdge clip(c, 0, size-1); Repeat c mod size;
    RepeatMirrored c mod max(2 size - 2, 1), reflected past size (remainders as OpSMod)."""
    p = f"cm{d}"
    if mode == ClampMode.CLAMP_TO_EDGE:
        high = b.sub(size, i64(1), name=f"{p}.hi")
        low = b.select(irbuild.icmp(b, "slt", c, i64(0), name=f"{p}.neg"), i64(0), c, name=f"{p}.lo")
        return b.select(irbuild.icmp(b, "sgt", low, high, name=f"{p}.big"), high, low, name=p)
    if mode == ClampMode.REPEAT:
        return _floor(b, "mod", c, size, p)
    period0 = b.sub(b.mul(size, i64(2), name=f"{p}.2s"), i64(2), name=f"{p}.p0")
    period = b.select(irbuild.icmp(b, "slt", period0, i64(1), name=f"{p}.small"), i64(1), period0, name=f"{p}.per")
    m = _floor(b, "mod", c, period, f"{p}.m")
    return b.select(irbuild.icmp(b, "sge", m, size, name=f"{p}.ge"), b.sub(period0, m, name=f"{p}.refl"), m, name=p)


# ------------------------------------------------------------------ fault words

def fault_message(code, word, site, detail):
    """The interpreter's words (interp/tensor_calls.py, interp/tensor.py) for a tensor
    FAULT_COOP sub-code; `detail` holds the context's detail slots."""
    what = getattr(site, "operation", "tensor operation")
    detail = [int(x) for x in detail]
    if code in (PTR_NON_UNIFORM, NON_UNIFORM_TENSOR_LAYOUT, VIEW_NON_UNIFORM):
        operand = {PTR_NON_UNIFORM: "pointer", NON_UNIFORM_TENSOR_LAYOUT: "layout", VIEW_NON_UNIFORM: "view"}[code]
        group = "work-group" if getattr(site, "workgroup_size", None) else "sub-group"
        text = (f"cooperative matrix operation {what}: operand '{operand}' must be uniform across "
                f"the {group} but differs between work-items")
        return text + (f" (e.g. {detail[0]} and {detail[1]})" if code == PTR_NON_UNIFORM else "")
    if code == NOT_CREATED:
        return (f"{what}: the tensor layout was not made by coop_tensor_layout_create (block size 0: "
                f"an uninitialized layout variable?)")
    layout_dims, view_dims = getattr(site, "tensor_dims", (0, None))
    if code == STORE_BLOCK:
        blocks = ", ".join(str(b) for b in detail[:layout_dims])
        return (f"{what}: tensor store with block size ({blocks}): a block size greater than 1 must "
                f"not be used with a store (SPV_NV_cooperative_matrix2)")
    if code == VIEW_DIMS:
        return (f"{what}: a tensor view without dimensions uses the layout's span: it must have the "
                f"layout's {layout_dims} dimensions, not {view_dims}")
    if code == VIEW_ZERO:
        return (f"{what}: tensor view dimension {word} is 0 (set the view's or the layout's dimensions "
                f"before loading or storing)")
    if code == SPAN_ZERO:
        return (f"{what}: tensor layout span of dimension {word} is 0 (set the layout's dimensions or a "
                f"slice before loading or storing)")
    if code == DIM_ZERO:
        return (f"{what}: tensor layout dimension {word} is 0: clamp mode {site.tensor_mode} has no "
                f"coordinate to clamp to")
    if code == UNDEFINED_OUTSIDE:
        r, c = detail[:2]
        coord = tuple(detail[2:2 + layout_dims])
        dims = tuple(detail[2 + layout_dims:2 + 2 * layout_dims])
        return (f"{what}: matrix element ({r}, {c}) maps to tensor coordinate {coord}, outside the "
                f"tensor's dimensions {dims}, with clamp mode Undefined (use a clamp mode, or keep the "
                f"tile inside the tensor)")
    if code == BLOCK_SIZE_ZERO:
        return f"{what}: a tensor layout block size must be at least 1"
    return "cooperative matrix operation fault"


assert DETAIL_SLOTS >= 2 + 2 * 5, "context.DETAIL_SLOTS holds an Undefined fault's element, coordinate and dimensions"
assert CTX_SLOTS > max(CTX[f"detail{k}"] for k in range(DETAIL_SLOTS))
