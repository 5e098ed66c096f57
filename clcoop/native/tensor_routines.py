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

import numpy as np

from clcoop import coop_names
from clcoop.coopmat_spec import ClampMode, tensor_operand_count_problem
from clcoop.ir.coop_operands import component_dtype
from clcoop.native import coop_routines
from clcoop.native.context import CTX, CTX_SLOTS, DETAIL_SLOTS, FAULT_COOP, FAULT_READ, FAULT_WRITE
from clcoop.native.coop_routines import (ELEMENT_BYTES, _ctx_lines, _head, _item_loop, _region_slot,
                                         _table_index, matrix_type)
from clcoop.native.support import Unsupported
from clcoop.native.text_rewrite import gquote, quote, ref, typed
from clcoop.native import fixed_ir
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
    V = _vector(spec)
    D = spec.dims
    f = _fields(spec)
    params = "".join(f", i32 %a{k}" for k in range(count))
    lines = [f"define internal {V} @{name}(ptr %c, i32 %site, {V} %t{params}) alwaysinline {{", "entry:"]
    for k in range(count):
        lines.append(f"  %u{k} = zext i32 %a{k} to i64")
    sets = {}                                   # field index -> value name
    if operation in ("coop_tensor_layout_set_dimension", "coop_tensor_view_set_dimension"):
        lines.append("  %s.last = add i64 1, 0")
        stride = {D - 1: "%s.last"}
        for i in range(D - 2, -1, -1):
            if spec.is_layout:      # stride[i] = stride[i+1] * ceil(Dim[i+1] / blockSize[i+1])
                lines += [f"  %b{i + 1} = extractelement {V} %t, i64 {f['block'] + i + 1}",
                          f"  %nb{i + 1} = sub i64 0, %u{i + 1}",
                          f"  %fq{i + 1} = call i64 @__clcoop_tfdiv(i64 %nb{i + 1}, i64 %b{i + 1})",
                          f"  %cd{i + 1} = sub i64 0, %fq{i + 1}",
                          f"  %s{i} = mul i64 {stride[i + 1]}, %cd{i + 1}"]
            else:                   # packed: stride[i] = stride[i+1] * Dim[i+1]
                lines.append(f"  %s{i} = mul i64 {stride[i + 1]}, %u{i + 1}")
            stride[i] = f"%s{i}"
        for d in range(D):
            sets[f["dim"] + d] = f"%u{d}"
            sets[f["stride"] + d] = stride[d]
            if spec.is_layout:
                sets[f["offset"] + d] = "0"
                sets[f["span"] + d] = f"%u{d}"
    elif operation in ("coop_tensor_layout_set_stride", "coop_tensor_view_set_stride"):
        sets = {f["stride"] + d: f"%u{d}" for d in range(D)}
    elif operation == "coop_tensor_layout_set_block_size":
        lines.append("  %bad0 = add i1 false, false")
        for d in range(D):
            lines += [f"  %z{d} = icmp eq i32 %a{d}, 0", f"  %bad{d + 1} = or i1 %bad{d}, %z{d}"]
        lines.append(f"  call void @__clcoop_coop_fault_if(ptr %c, i1 %bad{D}, i32 %site, "
                     f"i64 {BLOCK_SIZE_ZERO}, i64 0)")
        sets = {f["block"] + d: f"%u{d}" for d in range(D)}
    elif operation == "coop_tensor_layout_slice":
        for d in range(D):          # offset[d] = int32(offset[d] + Offset_d); span[d] = Span_d
            lines += [f"  %o{d} = extractelement {V} %t, i64 {f['offset'] + d}",
                      f"  %so{d} = sext i32 %a{2 * d} to i64",
                      f"  %no{d} = add i64 %o{d}, %so{d}",
                      f"  %to{d} = trunc i64 %no{d} to i32",
                      f"  %wo{d} = sext i32 %to{d} to i64"]
            sets[f["offset"] + d] = f"%wo{d}"
            sets[f["span"] + d] = f"%u{2 * d + 1}"
    elif operation == "coop_tensor_layout_set_clamp_value":
        sets = {f["clamp"]: "%u0"}
    elif operation == "coop_tensor_view_set_clip":
        sets = {f["clip"] + k: f"%u{k}" for k in range(4)}
    else:
        raise Unsupported(f"the tensor operation {operation}")
    value = "%t"
    for k, (field, v) in enumerate(sorted(sets.items())):
        lines.append(f"  %r{k} = insertelement {V} {value}, i64 {v}, i64 {field}")
        value = f"%r{k}"
    lines += [f"  ret {V} {value}", "}"]
    return "\n".join(lines)


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
    if mt.fp8 is not None:
        raise Unsupported(f"the fp8 cooperative-matrix operation {what}")
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
    text = _tensor_function(fname, (site, memory_site), access, coop.table(mt), owners, _region_slot(fg, args[0]))
    coop.functions.append(text.replace("@__S__", str(W)) if W else text)
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
    """The rendezvous function of one tensor load or store (see the module docstring)."""
    site, memory_site = sites
    mt, layout, view = access.mt, access.layout, access.view
    T, esz, R, C = mt.elem, ELEMENT_BYTES[mt.elem], mt.rows, mt.cols
    lines = _head(fname, site, ())
    lines += [f"  %w = alloca [{R * C} x {T}], align 64",
              f"  %kinds = alloca [{R * C} x i8], align 16",
              f"  %idx = alloca [{R * C} x i64], align 64",
              "  %lo.p = alloca i64, align 8",
              "  %hi.p = alloca i64, align 8",
              f"  %out = alloca [{1 + 3 * layout.dims} x i64], align 16",
              f"  %bc = alloca [{layout.dims} x i32], align 16",
              f"  %ib = alloca [{layout.dims} x i32], align 16"]
    lines += _slot_value("%p0", "%base", "coop0") + _slot_value("%lw", "%base", "coop1")
    lines += ["  %L = inttoptr i64 %lw to ptr"]
    if view is not None:
        lines += _slot_value("%vw", "%base", "coop2") + ["  %Vw = inttoptr i64 %vw to ptr"]
    lines += _uniform_checks(site, layout, view)
    lines += _field_loads("%L", "lf", layout.field_count)
    if view is not None:
        lines += _field_loads("%Vw", "vf", view.field_count)
    checks = _Checks(site)
    lines += checks.subgroup(access)
    addr = f"@{fname}.addr"
    call = f"call i32 {addr}(ptr %L, ptr {'%Vw' if view is not None else 'null'}, i64 %er, i64 %ec, ptr %out)"
    if access.mode == ClampMode.UNDEFINED:
        lines += _undefined_pass(site, access, call)
    lines.append("  %root = inttoptr i64 %p0 to ptr")
    lines.append("  %rcode = call i64 @__clcoop_region_of(ptr %base, ptr %root)" if region_slot is None
                 else f"  %rcode = add i64 0, {region_slot + 1}")
    if access.load and access.decode is not None:
        lines += _decode_pass(access, call, owners)
    else:
        lines += _address_pass(access, call)
        if not access.load:
            lines += _gather_matrix_lines(mt, table)
        lines += _checks_of_accesses(memory_site, access, esz, region_slot)
        lines += _access_pass(access, esz)
    if access.load:
        lines += _scatter_lines(access, table)
    lines += ["  ret i1 false", "}"]
    return "\n".join(lines) + "\n" + _address_function(addr, access)


def _slot_value(name, ctx, slot):
    return [f"  {name}.p = getelementptr i64, ptr {ctx}, i64 {CTX[slot]}", f"  {name} = load i64, ptr {name}.p"]


def _field_loads(ptr, prefix, count):
    lines = []
    for k in range(count):
        lines += [f"  %{prefix}{k}.p = getelementptr i64, ptr {ptr}, i64 {k}",
                  f"  %{prefix}{k} = load i64, ptr %{prefix}{k}.p"]
    return lines


def _fault_lines(ctx, site, code, details=(), word="0"):
    """Record a tensor fault in `ctx` (its detail slots first) and leave the function."""
    lines = []
    for k, value in enumerate(details):
        lines += [f"  %dt{code}.{k}.{ctx[1:]} = getelementptr i64, ptr {ctx}, i64 {CTX[f'detail{k}']}",
                  f"  store i64 {value}, ptr %dt{code}.{k}.{ctx[1:]}"]
    return lines + [f"  call void @__clcoop_fault(ptr {ctx}, i32 {site}, i32 {FAULT_COOP}, i64 {code}, i64 {word})",
                    "  ret i1 true"]


def _uniform_checks(site, layout, view):
    """interp/tensor_calls._addresses' order: the pointer over the whole subgroup (a fault
    of the first work-item whose pointer differs, with both values), then the layout, the
    created check, the view (faults of the subgroup's first work-item)."""
    lines = ["  br label %pu.pre",
             "pu.pre:",
             "  br label %pu.loop",
             "pu.loop:",
             "  %pu.j = phi i64 [ 1, %pu.pre ], [ %pu.next, %pu.same ]",
             "  %pu.more = icmp ult i64 %pu.j, %count",
             "  br i1 %pu.more, label %pu.body, label %pu.done",
             "pu.body:",
             *_ctx_lines("%pu.c", "%pu.j"),
             *_slot_value("%pu.p", "%pu.c", "coop0"),
             "  %pu.eq = icmp eq i64 %pu.p, %p0",
             "  br i1 %pu.eq, label %pu.same, label %pu.bad",
             "pu.bad:",
             *_fault_lines("%pu.c", site, PTR_NON_UNIFORM, ("%p0", "%pu.p")),
             "pu.same:",
             "  %pu.next = add i64 %pu.j, 1",
             "  br label %pu.loop",
             "pu.done:"]
    lines += _same_fields_loop("lu", "%L", "coop1", layout.field_count, site, NON_UNIFORM_TENSOR_LAYOUT)
    lines += _created_check(site, layout)
    if view is not None:
        lines += _same_fields_loop("vu", "%Vw", "coop2", view.field_count, site, VIEW_NON_UNIFORM)
    return lines


def _same_fields_loop(p, first, slot, count, site, code):
    """Every work-item's fields (through its slot) equal the first work-item's."""
    compare = [f"  %{p}.d0 = add i1 false, false"]
    for k in range(count):
        compare += [f"  %{p}.a{k}.p = getelementptr i64, ptr {first}, i64 {k}",
                    f"  %{p}.a{k} = load i64, ptr %{p}.a{k}.p",
                    f"  %{p}.b{k}.p = getelementptr i64, ptr %{p}.q, i64 {k}",
                    f"  %{p}.b{k} = load i64, ptr %{p}.b{k}.p",
                    f"  %{p}.n{k} = icmp ne i64 %{p}.a{k}, %{p}.b{k}",
                    f"  %{p}.d{k + 1} = or i1 %{p}.d{k}, %{p}.n{k}"]
    return [f"  br label %{p}.pre",
            f"{p}.pre:",
            f"  br label %{p}.loop",
            f"{p}.loop:",
            f"  %{p}.j = phi i64 [ 1, %{p}.pre ], [ %{p}.next, %{p}.same ]",
            f"  %{p}.more = icmp ult i64 %{p}.j, %count",
            f"  br i1 %{p}.more, label %{p}.body, label %{p}.done",
            f"{p}.body:",
            *_ctx_lines(f"%{p}.c", f"%{p}.j"),
            *_slot_value(f"%{p}.w", f"%{p}.c", slot),
            f"  %{p}.q = inttoptr i64 %{p}.w to ptr",
            *compare,
            f"  br i1 %{p}.d{count}, label %{p}.bad, label %{p}.same",
            f"{p}.bad:",
            *_fault_lines("%base", site, code),
            f"{p}.same:",
            f"  %{p}.next = add i64 %{p}.j, 1",
            f"  br label %{p}.loop",
            f"{p}.done:"]


def _created_check(site, layout):
    """interp/tensor_calls._check_created: a zero block size is a layout no create made."""
    D = layout.dims
    block = _fields(layout)["block"]
    lines = [line for k in range(D) for line in (
        f"  %cb{block + k}.p = getelementptr i64, ptr %L, i64 {block + k}",
        f"  %cb{block + k} = load i64, ptr %cb{block + k}.p")]
    lines.append("  %cb.bad0 = add i1 false, false")
    for d in range(D):
        lines += [f"  %cb.z{d} = icmp eq i64 %cb{block + d}, 0", f"  %cb.bad{d + 1} = or i1 %cb.bad{d}, %cb.z{d}"]
    return lines + [f"  br i1 %cb.bad{D}, label %cb.fault, label %cb.ok", "cb.fault:",
                    *_fault_lines("%base", site, NOT_CREATED), "cb.ok:"]


class _Checks:
    """The subgroup's checks after the uniform ones, in interp/tensor_calls._addresses'
    and tensor.tensor_addresses' order (each a fault of the subgroup's first work-item)."""

    def __init__(self, site):
        self.site = site
        self.n = 0

    def check(self, condition, code, details=(), word="0"):
        self.n += 1
        return [f"  br i1 {condition}, label %ck{self.n}.f, label %ck{self.n}.ok", f"ck{self.n}.f:",
                *_fault_lines("%base", self.site, code, details, word), f"ck{self.n}.ok:"]

    def subgroup(self, access):
        layout, view = access.layout, access.view
        D = layout.dims
        f = _fields(layout)
        lines = []
        if not access.load:         # NV2: no block size > 1 with a store
            lines.append("  %sb.bad0 = add i1 false, false")
            for d in range(D):
                lines += [f"  %sb.z{d} = icmp ne i64 %lf{f['block'] + d}, 1",
                          f"  %sb.bad{d + 1} = or i1 %sb.bad{d}, %sb.z{d}"]
            lines += self.check(f"%sb.bad{D}", STORE_BLOCK, [f"%lf{f['block'] + d}" for d in range(D)])
        if view is not None:
            if not view.has_dimensions and view.dims != D:
                lines += self.check("true", VIEW_DIMS)
                return lines
            dims = _view_dimension_names(layout, view)
            for d in range(view.dims - 1, -1, -1):
                i = view.permutation[d]
                lines.append(f"  %vz{d} = icmp eq i64 {dims[i]}, 0")
                lines += self.check(f"%vz{d}", VIEW_ZERO, word=str(i))
        for d in range(D - 1, -1, -1):
            lines.append(f"  %sz{d} = icmp eq i64 %lf{f['span'] + d}, 0")
            lines += self.check(f"%sz{d}", SPAN_ZERO, word=str(d))
        if access.mode in (ClampMode.CLAMP_TO_EDGE, ClampMode.REPEAT, ClampMode.REPEAT_MIRRORED):
            for d in range(D):
                lines.append(f"  %dz{d} = icmp eq i64 %lf{f['dim'] + d}, 0")
                lines += self.check(f"%dz{d}", DIM_ZERO, word=str(d))
        return lines


def _view_dimension_names(layout, view):
    """The view's dimension values: its own, or the layout's span without dimensions."""
    if view.has_dimensions:
        return [f"%vf{_fields(view)['dim'] + i}" for i in range(view.dims)]
    return [f"%lf{_fields(layout)['span'] + i}" for i in range(layout.dims)]


def _element_loop(p, count, body):
    """for e < count: %{p}.r, %{p}.c = divmod(e, C) are set by the body's caller."""
    return [f"  br label %{p}.pre",
            f"{p}.pre:",
            f"  br label %{p}.loop",
            f"{p}.loop:",
            f"  %{p}.e = phi i64 [ 0, %{p}.pre ], [ %{p}.next, %{p}.cont ]",
            f"  %{p}.more = icmp ult i64 %{p}.e, {count}",
            f"  br i1 %{p}.more, label %{p}.body, label %{p}.done",
            f"{p}.body:",
            *body,
            f"  br label %{p}.cont",
            f"{p}.cont:",
            f"  %{p}.next = add i64 %{p}.e, 1",
            f"  br label %{p}.loop",
            f"{p}.done:"]


def _address_call(p, access, call):
    C = access.mt.cols
    return [f"  %{p}.r = udiv i64 %{p}.e, {C}",
            f"  %{p}.c = urem i64 %{p}.e, {C}",
            "  " + f"%{p}.kind = " + call.replace("%er", f"%{p}.r").replace("%ec", f"%{p}.c")]


def _undefined_pass(site, access, call):
    """Clamp mode Undefined: the first element (row-major) outside the tensor is a fault
    naming it, its tensor coordinate and the tensor's dimensions (before any access, as the
    interpreter computes every address first)."""
    D = access.layout.dims
    dims = [f"%lf{_fields(access.layout)['dim'] + d}" for d in range(D)]
    coords = []
    body = _address_call("ud", access, call) + [f"  %ud.bad = icmp eq i32 %ud.kind, {FAULT}",
                                               "  br i1 %ud.bad, label %ud.fault, label %ud.cont",
                                               "ud.fault:"]
    for d in range(D):
        body += [f"  %ud.tc{d}.p = getelementptr i64, ptr %out, i64 {1 + d}",
                 f"  %ud.tc{d} = load i64, ptr %ud.tc{d}.p"]
        coords.append(f"%ud.tc{d}")
    body += _fault_lines("%base", site, UNDEFINED_OUTSIDE, ["%ud.r", "%ud.c"] + coords + dims)
    lines = _element_loop("ud", access.mt.rows * access.mt.cols, body)
    # the fault block ends in ret: drop the fall-through branch _element_loop adds after it
    return _drop_after_ret(lines)


def _drop_after_ret(lines):
    out = []
    for i, line in enumerate(lines):
        if out and out[-1] == "  ret i1 true" and line.startswith("  br label"):
            continue
        out.append(line)
    return out


def _address_pass(access, call):
    """Every element's kind and index (%kinds, %idx), and the least and greatest index of a
    valid one (%lo.p, %hi.p; lo > hi when none is)."""
    body = _address_call("ad", access, call) + [
        "  %ad.k8 = trunc i32 %ad.kind to i8",
        "  %ad.kp = getelementptr i8, ptr %kinds, i64 %ad.e",
        "  store i8 %ad.k8, ptr %ad.kp",
        *_index_of("ad"),
        "  %ad.ip = getelementptr i64, ptr %idx, i64 %ad.e",
        "  store i64 %ad.ix, ptr %ad.ip",
        f"  %ad.valid = icmp eq i32 %ad.kind, {VALID}",
        "  br i1 %ad.valid, label %ad.range, label %ad.cont",
        "ad.range:",
        "  %ad.lo = load i64, ptr %lo.p",
        "  %ad.hi = load i64, ptr %hi.p",
        "  %ad.lt = icmp slt i64 %ad.ix, %ad.lo",
        "  %ad.gt = icmp sgt i64 %ad.ix, %ad.hi",
        "  %ad.lo2 = select i1 %ad.lt, i64 %ad.ix, i64 %ad.lo",
        "  %ad.hi2 = select i1 %ad.gt, i64 %ad.ix, i64 %ad.hi",
        "  store i64 %ad.lo2, ptr %lo.p",
        "  store i64 %ad.hi2, ptr %hi.p"]
    return ["  store i64 9223372036854775807, ptr %lo.p", "  store i64 -9223372036854775808, ptr %hi.p"] + \
        _element_loop("ad", access.mt.rows * access.mt.cols, body)


def _valid_loop(p, access, esz, body):
    """for each valid element e (row-major): %{p}.ptr, its address."""
    return _element_loop(p, access.mt.rows * access.mt.cols, [
        f"  %{p}.kp = getelementptr i8, ptr %kinds, i64 %{p}.e",
        f"  %{p}.k = load i8, ptr %{p}.kp",
        f"  %{p}.valid = icmp eq i8 %{p}.k, {VALID}",
        f"  br i1 %{p}.valid, label %{p}.do, label %{p}.cont",
        f"{p}.do:",
        f"  %{p}.ip = getelementptr i64, ptr %idx, i64 %{p}.e",
        f"  %{p}.ix = load i64, ptr %{p}.ip",
        f"  %{p}.off = mul i64 %{p}.ix, {esz}",
        f"  %{p}.a = add i64 %p0, %{p}.off",
        f"  %{p}.ptr = inttoptr i64 %{p}.a to ptr",
        *body])


def _checks_of_accesses(site, access, esz, region_slot):
    """The valid elements' accesses checked as the interpreter's memory does
    (memory.Memory._locate, _check_all): when the span of their addresses is not inside
    the pointer's region, aligned and (stores) writable, the first element out of bounds
    (row-major), else the first misaligned one (all share the pointer's alignment), else,
    for a store, read-only memory, is the fault of the subgroup's first work-item."""
    kind = FAULT_READ if access.load else FAULT_WRITE
    write = "false" if access.load else "true"
    span = (f"call i1 @__clcoop_span_ok(ptr %base, i64 %sp.lo, i64 %sp.hi, i64 {esz}, i1 {write})"
            if region_slot is None else
            f"call i1 @__clcoop_span_row(ptr %base, i64 %sp.lo, i64 %sp.hi, i64 {esz}, i1 {write}, i64 {region_slot})")
    lines = ["  %sp.l = load i64, ptr %lo.p",
             "  %sp.h = load i64, ptr %hi.p",
             "  %sp.none = icmp sgt i64 %sp.l, %sp.h",
             "  br i1 %sp.none, label %mc.done, label %sp.test",
             "sp.test:",
             f"  %sp.lb = mul i64 %sp.l, {esz}",
             "  %sp.lo = add i64 %p0, %sp.lb",
             "  %sp.h1 = add i64 %sp.h, 1",
             f"  %sp.hb = mul i64 %sp.h1, {esz}",
             "  %sp.hi = add i64 %p0, %sp.hb",
             f"  %sp.ok = {span}",
             "  br i1 %sp.ok, label %mc.done, label %mc.pre",
             "mc.pre:"]
    passes = [("mb", 1, "false"), ("ma", esz, "false")] + ([] if access.load else [("mw", esz, "true")])
    for p, align, w in passes:
        lines += _valid_loop(p, access, esz, [
            f"  %{p}.q = call ptr @__clcoop_chk_in(ptr %base, ptr %{p}.ptr, ptr %root, i64 %rcode, "
            f"i64 {esz}, i64 {align}, i32 {site}, i32 {kind}, i1 {w})"])
        lines += [f"  %{p}.fp = getelementptr i64, ptr %base, i64 {CTX['fault']}",
                  f"  %{p}.f = load i64, ptr %{p}.fp",
                  f"  %{p}.faulted = icmp ne i64 %{p}.f, 0",
                  f"  br i1 %{p}.faulted, label %{p}.stop, label %{p}.ok",
                  f"{p}.stop:",
                  "  ret i1 true",
                  f"{p}.ok:"]
    return lines + ["  br label %mc.done", "mc.done:"]


def _access_pass(access, esz):
    """The checked accesses: each valid element read into %w, or written from it."""
    T = access.mt.elem
    move = [f"  %mv.wp = getelementptr {T}, ptr %w, i64 %mv.e"]
    if access.load:
        move += [f"  %mv.x = load {T}, ptr %mv.ptr", f"  store {T} %mv.x, ptr %mv.wp"]
    else:
        move += [f"  %mv.x = load {T}, ptr %mv.wp", f"  store {T} %mv.x, ptr %mv.ptr"]
    return _valid_loop("mv", access, esz, move)


def _index_of(p):
    return [f"  %{p}.ix.p = getelementptr i64, ptr %out, i64 0", f"  %{p}.ix = load i64, ptr %{p}.ix.p"]


def _decode_pass(access, call, owners):
    """Every valid element, row-major, decoded by the work-item holding it; the element
    kinds kept for the scatter."""
    T = access.mt.elem
    D = access.layout.dims
    body = _address_call("ld", access, call) + [
        "  %ld.k8 = trunc i32 %ld.kind to i8",
        "  %ld.kp = getelementptr i8, ptr %kinds, i64 %ld.e",
        "  store i8 %ld.k8, ptr %ld.kp",
        f"  %ld.valid = icmp eq i32 %ld.kind, {VALID}",
        "  br i1 %ld.valid, label %ld.get, label %ld.cont",
        "ld.get:",
        *_index_of("ld"),
        "  %ld.wp = getelementptr " + T + ", ptr %w, i64 %ld.e"]
    # SPV_NV_cooperative_matrix2: the block pointer is index * sizeof(block); blockCoord and
    # coordInBlock are uint[D] arrays (the wrapper takes them by value).
    body += [f"  %ld.boff = mul i64 %ld.ix, {access.block_bytes}",
             "  %ld.ba = add i64 %p0, %ld.boff",
             f"  %ld.bp = inttoptr i64 %ld.ba to {access.decode_type}",
             f"  %ld.op = getelementptr i32, ptr {owners}, i64 %ld.e",
             "  %ld.o32 = load i32, ptr %ld.op",
             "  %ld.o = zext i32 %ld.o32 to i64",
             *_ctx_lines("%ld.oc", "%ld.o")]
    arrays = {"bc": f"[{D} x i32] poison", "ib": f"[{D} x i32] poison"}
    for which, first in (("bc", 1 + D), ("ib", 1 + 2 * D)):
        value = "poison"
        for d in range(D):
            body += [f"  %ld.{which}{d}.p = getelementptr i64, ptr %out, i64 {first + d}",
                     f"  %ld.{which}{d}.w = load i64, ptr %ld.{which}{d}.p",
                     f"  %ld.{which}{d} = trunc i64 %ld.{which}{d}.w to i32",
                     f"  %ld.{which}a{d} = insertvalue [{D} x i32] {value}, i32 %ld.{which}{d}, {d}"]
            value = f"%ld.{which}a{d}"
        arrays[which] = value
    body += [f"  %ld.x = call {T} {gquote(access.decode)}(ptr %ld.oc, {access.decode_type} %ld.bp, "
             f"[{D} x i32] {arrays['bc']}, [{D} x i32] {arrays['ib']})",
             f"  store {T} %ld.x, ptr %ld.wp",
             f"  %ld.fp = getelementptr i64, ptr %ld.oc, i64 {CTX['fault']}",
             "  %ld.f = load i64, ptr %ld.fp",
             "  %ld.faulted = icmp ne i64 %ld.f, 0",
             "  br i1 %ld.faulted, label %ld.stop, label %ld.cont",
             "ld.stop:",
             "  ret i1 true"]
    return _drop_after_ret(_element_loop("ld", access.mt.rows * access.mt.cols, body))


def _clamp_value_lines(access):
    """interp/tensor.clamp_value_as: the low bits of the 32-bit pattern for 8- and 16-bit
    components, the pattern for 32-bit ones, zero-extended for 64-bit ones."""
    T = access.mt.elem
    bits = 8 * ELEMENT_BYTES[T]
    clamp = f"%lf{_fields(access.layout)['clamp']}"
    if bits == 64:
        lines = [f"  %cv.i = and i64 {clamp}, {UINT32_MAX}"]
    else:
        lines = [f"  %cv.i = trunc i64 {clamp} to i{bits}"]
    lines.append(f"  %cv = bitcast i{bits} %cv.i to {T}")
    return lines


def _scatter_lines(access, table):
    """Each work-item's components: the valid element read, the clamp value (Constant
    outside the tensor), or the Object operand's component already in its spill (clipped);
    padding 0."""
    mt = access.mt
    T = mt.elem
    p = "g3"
    body = _table_index(p, mt, mt.length) + [
        f"  %{p}.sl = getelementptr i64, ptr %{p}c, i64 {CTX['coop3']}",
        f"  %{p}.sv = load i64, ptr %{p}.sl",
        f"  %{p}.sp = inttoptr i64 %{p}.sv to ptr",
        f"  %{p}.dst = getelementptr {T}, ptr %{p}.sp, i64 %{p}v",
        f"  br i1 %{p}pad, label %{p}.zero, label %{p}.elem",
        f"{p}.zero:",
        f"  store {T} zeroinitializer, ptr %{p}.dst",
        f"  br label %{p}.vnext",
        f"{p}.elem:",
        f"  %{p}.kp = getelementptr i8, ptr %kinds, i64 %{p}idx",
        f"  %{p}.k = load i8, ptr %{p}.kp",
        f"  %{p}.clip = icmp eq i8 %{p}.k, {CLIPPED}",
        f"  br i1 %{p}.clip, label %{p}.vnext, label %{p}.set",
        f"{p}.set:",
        f"  %{p}.src = getelementptr {T}, ptr %w, i64 %{p}idx",
        f"  %{p}.x = load {T}, ptr %{p}.src",
        f"  %{p}.const = icmp eq i8 %{p}.k, {CONSTANT}",
        f"  %{p}.y = select i1 %{p}.const, {T} %cv, {T} %{p}.x",
        f"  store {T} %{p}.y, ptr %{p}.dst"]
    return _clamp_value_lines(access) + ["  br label %g3.pre", "g3.pre:"] + _item_loop(p, mt.length, body, [])


def _gather_matrix_lines(mt, table):
    """The stored matrix, logical row-major, into %w."""
    T = mt.elem
    p = "g0"
    body = _table_index(p, mt, mt.length) + [
        f"  br i1 %{p}pad, label %{p}.vnext, label %{p}.copy",
        f"{p}.copy:",
        f"  %{p}.sl = getelementptr i64, ptr %{p}c, i64 {CTX['coop3']}",
        f"  %{p}.sv = load i64, ptr %{p}.sl",
        f"  %{p}.sp = inttoptr i64 %{p}.sv to ptr",
        f"  %{p}.src = getelementptr {T}, ptr %{p}.sp, i64 %{p}v",
        f"  %{p}.x = load {T}, ptr %{p}.src",
        f"  %{p}.dst = getelementptr {T}, ptr %w, i64 %{p}idx",
        f"  store {T} %{p}.x, ptr %{p}.dst"]
    return ["  br label %g0.pre", "g0.pre:"] + _item_loop(p, mt.length, body, [])


# ------------------------------------------------------------------ addressing

def _address_function(name, access):
    """i32 kind = addr(layout fields, view fields, row, col, out): interp/tensor.py's
    tensor_addresses for one element. out[0] = the element index, out[1 + d] the tensor
    coordinate, out[1 + D + d] the block coordinate, out[1 + 2D + d] the coordinate in the
    block (0 where not valid)."""
    layout, view, mode = access.layout, access.view, access.mode
    D, C = layout.dims, access.mt.cols
    f = _fields(layout)
    L = ["define internal i32 " + name + "(ptr %L, ptr %V, i64 %r, i64 %c, ptr %out) alwaysinline {",
         "entry:"]
    L += _field_loads("%L", "lf", layout.field_count)
    if view is None:
        L += [f"  %rc = mul i64 %r, {C}", "  %lin = add i64 %rc, %c", "  %clipped = add i1 false, false"]
    else:
        vf = _fields(view)
        L += _field_loads("%V", "vf", view.field_count)
        ro, rs, co, cs = (f"%vf{vf['clip'] + k}" for k in range(4))
        # matrixCoordToLinear with a clip: skipped outside it, else row-major relative to it
        # with width min(C, clip column span).
        L += [f"  %roe = add i64 {ro}, {rs}", f"  %coe = add i64 {co}, {cs}",
              f"  %k1 = icmp slt i64 %r, {ro}", "  %k2 = icmp sge i64 %r, %roe",
              f"  %k3 = icmp slt i64 %c, {co}", "  %k4 = icmp sge i64 %c, %coe",
              "  %k12 = or i1 %k1, %k2", "  %k34 = or i1 %k3, %k4", "  %clipped = or i1 %k12, %k34",
              f"  %wlt = icmp slt i64 {C}, {cs}",
              f"  %width = select i1 %wlt, i64 {C}, i64 {cs}",
              f"  %dr = sub i64 %r, {ro}", f"  %dc = sub i64 %c, {co}",
              "  %drw = mul i64 %dr, %width", "  %lin0 = add i64 %drw, %dc",
              "  %vlin = select i1 %clipped, i64 0, i64 %lin0"]
        if view.has_dimensions:
            dims = [f"%vf{vf['dim'] + i}" for i in range(view.dims)]
            strides = [f"%vf{vf['stride'] + i}" for i in range(view.dims)]
        else:
            dims = [f"%lf{f['span'] + i}" for i in range(D)]
            strides = [None] * D
            strides[D - 1] = "%ps.last"
            L.append("  %ps.last = add i64 1, 0")
            for d in range(D - 2, -1, -1):
                L.append(f"  %ps{d} = mul i64 {strides[d + 1]}, {dims[d + 1]}")
                strides[d] = f"%ps{d}"
        # linearToViewCoord, innermost permuted dimension first, then viewCoordToLinear.
        index = "%vlin"
        coord = [None] * view.dims
        for d in range(view.dims - 1, -1, -1):
            i = view.permutation[d]
            if d == view.dims - 1:
                L += _divided_by_width(f"%vc{i}", f"%vq{d}", index, dims[i])
            else:
                L += [f"  %vc{i} = call i64 @__clcoop_tfmod(i64 {index}, i64 {dims[i]})",
                      f"  %vq{d} = call i64 @__clcoop_tfdiv(i64 {index}, i64 {dims[i]})"]
            coord[i] = f"%vc{i}"
            index = f"%vq{d}"
        total = "0"
        for d in range(view.dims - 1, -1, -1):
            L += [f"  %vt{d} = mul i64 {coord[d]}, {strides[d]}", f"  %vs{d} = add i64 {total}, %vt{d}"]
            total = f"%vs{d}"
        L.append(f"  %lin = add i64 {total}, 0")
    # linearToSpanCoord, innermost dimension first.
    spans = [f"%lf{f['span'] + d}" for d in range(D)]
    if view is not None and not view.has_dimensions:
        span = _span_coordinates_of_view(L, coord, spans)
    else:
        span = [None] * D
        index = "%lin"
        for d in range(D - 1, -1, -1):
            if d == D - 1 and view is None:
                L += [f"  %dr = add i64 %r, 0", f"  %dc = add i64 %c, 0", f"  %width = add i64 {C}, 0",
                      "  %clipped.w = add i1 false, false"]
                L += _divided_by_width(f"%sc{d}", f"%sq{d}", index, spans[d], clipped="%clipped.w")
            else:
                L += [f"  %sc{d} = call i64 @__clcoop_tfmod(i64 {index}, i64 {spans[d]})",
                      f"  %sq{d} = call i64 @__clcoop_tfdiv(i64 {index}, i64 {spans[d]})"]
            span[d] = f"%sc{d}"
            index = f"%sq{d}"
    # spanCoordToTensorCoord and tensorCoordToLinear, one dimension after another.
    ended, constant, fault, total = "false", "false", "false", "0"
    for d in range(D):
        size = f"%lf{f['dim'] + d}"
        L += [f"  %tc{d} = add i64 {span[d]}, %lf{f['offset'] + d}",
              f"  %tc{d}.p = getelementptr i64, ptr %out, i64 {1 + d}",
              f"  store i64 %tc{d}, ptr %tc{d}.p",
              f"  %lo{d} = icmp slt i64 %tc{d}, 0",
              f"  %hi{d} = icmp sge i64 %tc{d}, {size}",
              f"  %out{d} = or i1 %lo{d}, %hi{d}"]
        c = f"%tc{d}"
        if mode == ClampMode.UNDEFINED:
            L.append(f"  %fault{d} = or i1 {fault}, %out{d}")
            fault = f"%fault{d}"
        elif mode == ClampMode.CONSTANT:
            L.append(f"  %const{d} = or i1 {constant}, %out{d}")
            constant = f"%const{d}"
        else:
            L += _clamped_lines(mode, d, size)
            L.append(f"  %cl{d} = select i1 %out{d}, i64 %cm{d}, i64 %tc{d}")
            c = f"%cl{d}"
        L += [f"  %end{d} = or i1 {fault}, {constant}",
              f"  %cz{d} = select i1 %end{d}, i64 0, i64 {c}",
              f"  %ib{d} = call i64 @__clcoop_tfmod(i64 %cz{d}, i64 %lf{f['block'] + d})",
              f"  %bc{d} = call i64 @__clcoop_tfdiv(i64 %cz{d}, i64 %lf{f['block'] + d})",
              f"  %bs{d} = mul i64 %bc{d}, %lf{f['stride'] + d}",
              f"  %ix{d} = add i64 {total}, %bs{d}",
              f"  %bc{d}.p = getelementptr i64, ptr %out, i64 {1 + D + d}",
              f"  store i64 %bc{d}, ptr %bc{d}.p",
              f"  %ib{d}.p = getelementptr i64, ptr %out, i64 {1 + 2 * D + d}",
              f"  store i64 %ib{d}, ptr %ib{d}.p"]
        total = f"%ix{d}"
    L += [f"  store i64 {total}, ptr %out",
          f"  %kf = select i1 {fault}, i32 {FAULT}, i32 {VALID}",
          f"  %kc = select i1 {constant}, i32 {CONSTANT}, i32 %kf",
          f"  %kind = select i1 %clipped, i32 {CLIPPED}, i32 %kc",
          "  ret i32 %kind", "}"]
    return "\n".join(L)


def _divided_by_width(mod, quotient, index, divisor, clipped="%clipped"):
    """mod, quotient = index % divisor, index // divisor (floor), where index is
    %dr * %width + %dc (0 when %clipped) with 0 <= %dc < %width and %dr >= 0 when not
    clipped: when divisor == %width the results are %dc and %dr (0 and 0 when clipped)
    without dividing; else the division (a branch, so that the fast way skips it)."""
    m, q = mod[1:], quotient[1:]
    return [f"  %{m}.fast = icmp eq i64 {divisor}, %width",
            f"  br i1 %{m}.fast, label %{m}.f, label %{m}.s",
            f"{m}.s:",
            f"  %{m}.sm = call i64 @__clcoop_tfmod(i64 {index}, i64 {divisor})",
            f"  %{q}.sq = call i64 @__clcoop_tfdiv(i64 {index}, i64 {divisor})",
            f"  br label %{m}.j",
            f"{m}.f:",
            f"  %{m}.fm = select i1 {clipped}, i64 0, i64 %dc",
            f"  %{q}.fq = select i1 {clipped}, i64 0, i64 %dr",
            f"  br label %{m}.j",
            f"{m}.j:",
            f"  {mod} = phi i64 [ %{m}.fm, %{m}.f ], [ %{m}.sm, %{m}.s ]",
            f"  {quotient} = phi i64 [ %{q}.fq, %{m}.f ], [ %{q}.sq, %{m}.s ]"]


def _span_coordinates_of_view(L, coord, spans):
    """linearToSpanCoord of a view without dimensions (its strides are the spans' mixed
    radix): the view coordinates themselves when every span is positive and their product
    fits in 63 bits (each coordinate, a floor modulo by its span, is then in [0, span)),
    else the divisions. Appends to L; returns the coordinates' names."""
    D = len(spans)
    L += ["  %sv.ok0 = add i1 true, false", "  %sv.p0 = add i64 1, 0"]
    for d in range(D):
        L += [f"  %sv.pos{d} = icmp sgt i64 {spans[d]}, 0",
              f"  %sv.m{d} = call {{i64, i1}} @llvm.umul.with.overflow.i64(i64 %sv.p{d}, i64 {spans[d]})",
              f"  %sv.p{d + 1} = extractvalue {{i64, i1}} %sv.m{d}, 0",
              f"  %sv.o{d} = extractvalue {{i64, i1}} %sv.m{d}, 1",
              f"  %sv.no{d} = xor i1 %sv.o{d}, true",
              f"  %sv.a{d} = and i1 %sv.pos{d}, %sv.no{d}",
              f"  %sv.ok{d + 1} = and i1 %sv.ok{d}, %sv.a{d}"]
    L += [f"  %sv.fit = icmp sgt i64 %sv.p{D}, -1",
          f"  %sv.fast = and i1 %sv.ok{D}, %sv.fit",
          "  br i1 %sv.fast, label %sv.f, label %sv.s",
          "sv.s:"]
    index = "%lin"
    for d in range(D - 1, -1, -1):
        L += [f"  %sc{d}.s = call i64 @__clcoop_tfmod(i64 {index}, i64 {spans[d]})",
              f"  %sq{d} = call i64 @__clcoop_tfdiv(i64 {index}, i64 {spans[d]})"]
        index = f"%sq{d}"
    L += ["  br label %sv.j", "sv.f:", "  br label %sv.j", "sv.j:"]
    L += [f"  %sc{d} = phi i64 [ {coord[d]}, %sv.f ], [ %sc{d}.s, %sv.s ]" for d in range(D)]
    return [f"%sc{d}" for d in range(D)]


def _clamped_lines(mode, d, size):
    """interp/tensor._clamped: ClampToEdge clip(c, 0, size-1); Repeat c mod size;
    RepeatMirrored c mod max(2 size - 2, 1), reflected past size (remainders as OpSMod)."""
    c = f"%tc{d}"
    if mode == ClampMode.CLAMP_TO_EDGE:
        return [f"  %cm{d}.hi = sub i64 {size}, 1",
                f"  %cm{d}.neg = icmp slt i64 {c}, 0",
                f"  %cm{d}.lo = select i1 %cm{d}.neg, i64 0, i64 {c}",
                f"  %cm{d}.big = icmp sgt i64 %cm{d}.lo, %cm{d}.hi",
                f"  %cm{d} = select i1 %cm{d}.big, i64 %cm{d}.hi, i64 %cm{d}.lo"]
    if mode == ClampMode.REPEAT:
        return [f"  %cm{d} = call i64 @__clcoop_tfmod(i64 {c}, i64 {size})"]
    return [f"  %cm{d}.2s = mul i64 {size}, 2",
            f"  %cm{d}.p0 = sub i64 %cm{d}.2s, 2",
            f"  %cm{d}.small = icmp slt i64 %cm{d}.p0, 1",
            f"  %cm{d}.per = select i1 %cm{d}.small, i64 1, i64 %cm{d}.p0",
            f"  %cm{d}.m = call i64 @__clcoop_tfmod(i64 {c}, i64 %cm{d}.per)",
            f"  %cm{d}.ge = icmp sge i64 %cm{d}.m, {size}",
            f"  %cm{d}.refl = sub i64 %cm{d}.p0, %cm{d}.m",
            f"  %cm{d} = select i1 %cm{d}.ge, i64 %cm{d}.refl, i64 %cm{d}.m"]


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
