"""The bridge from IR calls of tensor layout/view operations and tensor loads/stores
(coop_names.TENSOR_BASES) to clcoop.interp.tensor.

A layout or view value is a vector of int64 fields per lane (the loader gives these types
the Ty of `<F x i64>`, so allocas, phis and selects need nothing new):

    layout  dimension[D] stride[D] offset[D] span[D] block_size[D] clamp_value   (5D + 1)
    view    dimension[D] stride[D] clip[4]                                         (2D + 4)

Layout and view operations are plain per-work-item value operations (not cooperative):
they run on the active lanes. Loads and stores are cooperative: the pointer, layout and
view must be uniform in each subgroup, and each subgroup's matrix goes through
tensor.tensor_addresses with that subgroup's layout.
"""
import re
from contextlib import contextmanager

import numpy as np

from clcoop import coop_names
from clcoop.errors import IRError, RuntimeFault
from clcoop.interp.coop_calls import Subgroups, _fault, _layout, call_scope, parse_callee
from clcoop.ir.coop_operands import component_dtype
from clcoop.ir.memory import Provenance
from clcoop.interp.coop_function_calls import call_function, component_values, element_owners
from clcoop.interp.tensor import (TensorError, TensorLayout, TensorView, assemble_load,
                                  clamp_value_as, store_tensor_check, tensor_addresses)
from clcoop.tensor_spec import TensorType

UINT32_MAX = 0xFFFFFFFF
# SPV_NV_cooperative_matrix2 "Tensor Addressing Operands".
ADDRESSING_TENSOR_VIEW = 0x1
ADDRESSING_DECODE_FUNC = 0x2


# ---------------------------------------------------------------- values <-> fields

def tensor_type(ty, what):
    """The TensorType of a loader Ty (its text keeps the IR type)."""
    spec = TensorType.parse(getattr(ty, "text", "") or "")
    if spec is None:
        raise IRError(f"{what}: '{ty}' is not a tensor layout or view type")
    return spec


def to_object(spec, fields):
    """(..., F) int64 fields -> TensorLayout / TensorView whose values are (...) arrays."""
    D = spec.dims
    col = [fields[..., k] for k in range(fields.shape[-1])]
    if spec.is_layout:
        return TensorLayout(D, spec.clamp_mode, tuple(col[0:D]), tuple(col[D:2 * D]),
                            tuple(col[2 * D:3 * D]), tuple(col[3 * D:4 * D]),
                            tuple(col[4 * D:5 * D]), col[5 * D])
    return TensorView(D, spec.has_dimensions, spec.permutation, tuple(col[0:D]),
                      tuple(col[D:2 * D]), tuple(col[2 * D:2 * D + 4]))


def to_fields(obj, count):
    """TensorLayout / TensorView -> (count, F) int64 fields."""
    if isinstance(obj, TensorLayout):
        values = (obj.dimension + obj.stride + obj.offset + obj.span + obj.block_size
                  + (obj.clamp_value,))
    else:
        values = obj.dimension + obj.stride + obj.clip
    return np.stack([np.broadcast_to(np.asarray(v, dtype=np.int64), (count,)) for v in values], axis=-1)


def created(spec, count):
    """OpCreateTensorLayoutNV / OpCreateTensorViewNV for `count` lanes."""
    if spec.is_layout:
        obj = TensorLayout.create(spec.dims, spec.clamp_mode)
    else:
        obj = TensorView.create(spec.dims, spec.has_dimensions, spec.permutation)
    return to_fields(obj, count)


# ---------------------------------------------------------------- layout and view operations

_UPDATES = {
    "coop_tensor_layout_set_dimension": "set_dimension",
    "coop_tensor_layout_set_stride": "set_stride",
    "coop_tensor_layout_set_block_size": "set_block_size",
    "coop_tensor_layout_slice": "slice",
    "coop_tensor_layout_set_clamp_value": "set_clamp_value",
    "coop_tensor_view_set_dimension": "set_dimension",
    "coop_tensor_view_set_stride": "set_stride",
    "coop_tensor_view_set_clip": "set_clip",
}


def _do_tensor_op(ctx, operation, args, ret_type, what):
    spec = tensor_type(ret_type, what)
    L = int(ctx.lane_count)
    out = np.zeros((L, spec.field_count), dtype=np.int64)
    active = np.nonzero(np.asarray(ctx.mask, dtype=bool).reshape(-1))[0]
    if operation in ("coop_tensor_layout_create", "coop_tensor_view_create"):
        out[active] = created(spec, active.size)
        return out
    fields = np.asarray(args[0], dtype=np.int64).reshape(L, -1)[active]
    values = [np.asarray(a).reshape(-1)[active].astype(np.int64) if np.ndim(a) else int(a)
              for a in args[1:]]
    try:
        updated = getattr(to_object(spec, fields), _UPDATES[operation])(*values)
    except TensorError as error:
        _fault(ctx, f"{what}: {error}", lanes=active[:1])
    out[active] = to_fields(updated, active.size)
    return out


# ---------------------------------------------------------------- loads and stores

def _uniform_fields(groups, value, what, operand):
    """(G, F) fields of a layout/view operand, which must be uniform in each subgroup."""
    L = int(groups.ctx.lane_count)
    value = np.asarray(value, dtype=np.int64)
    value = np.broadcast_to(value, (L,) + value.shape[1:]) if value.shape[0] != L else value
    per_lane = value[groups.lanes]                         # (G, S, F)
    same = (per_lane == per_lane[:, :1]).all(axis=(1, 2))
    if not same.all():
        bad = int(np.nonzero(~same)[0][0])
        group = "work-group" if groups.workgroup else "sub-group"
        _fault(groups.ctx, f"cooperative matrix operation {what}: operand '{operand}' must be "
                           f"uniform across the {group} but differs between work-items",
               lanes=groups.lanes[bad])
    return per_lane[:, 0]


def _check_created(groups, layout, what):
    """A zero block size is a layout no create made (an uninitialized variable)."""
    bad = np.zeros(groups.count, dtype=bool)
    for block in layout.block_size:
        bad |= np.asarray(block) == 0
    if bad.any():
        _fault(groups.ctx, f"{what}: the tensor layout was not made by coop_tensor_layout_create "
                           f"(block size 0: an uninitialized layout variable?)",
               lanes=groups.lanes[int(np.nonzero(bad)[0][0])])


def _addresses(groups, callee, args, rows, cols, what, store):
    """The TensorAccess of every active subgroup, and its pointer and layout."""
    lspec = TensorType.parse(_tensor_arg_type(callee, 0))
    pointer = groups.uniform(args[0], what, "pointer").astype(np.int64)
    layout = to_object(lspec, _uniform_fields(groups, args[2], what, "layout"))
    _check_created(groups, layout, what)
    view = None
    mask = int(np.asarray(args[4]).reshape(-1)[0]) if len(args) > 4 else 0
    if mask & ~(ADDRESSING_TENSOR_VIEW | ADDRESSING_DECODE_FUNC) or (store and mask & ADDRESSING_DECODE_FUNC):
        _fault(groups.ctx, f"{what}: tensor addressing operands {mask:#x} are not supported here")
    named = bool(mask & ADDRESSING_TENSOR_VIEW) + bool(mask & ADDRESSING_DECODE_FUNC)
    if len(args) != 5 + named:
        # SPV_NV_cooperative_matrix2: one operand follows the mask for each bit it sets.
        _fault(groups.ctx, f"{what}: the tensor addressing operands {mask:#x} name {named} "
                           f"operand(s) after them (a view, then a decode function), but the "
                           f"call passes {len(args) - 5}")
    if mask & ADDRESSING_TENSOR_VIEW and np.ndim(args[5]) != 2:      # fields: (lanes, F)
        _fault(groups.ctx, f"{what}: operand 6 must be the tensor view the addressing operands "
                           f"{mask:#x} name, but it is no tensor view")
    if mask & ADDRESSING_TENSOR_VIEW:
        vspec = TensorType.parse(_tensor_arg_type(callee, 1))
        view = to_object(vspec, _uniform_fields(groups, args[5], what, "view"))
    if store and store_tensor_check(layout) is not None:
        blocks = np.stack([np.broadcast_to(np.asarray(b), (groups.count,)) for b in layout.block_size], axis=-1)
        g = int(np.nonzero((blocks != 1).any(axis=1))[0][0])
        _fault(groups.ctx, f"{what}: tensor store with block size ({', '.join(str(int(b)) for b in blocks[g])}): "
                           f"a block size greater than 1 must not be used with a store "
                           f"(SPV_NV_cooperative_matrix2)", lanes=groups.lanes[g])
    try:
        access = tensor_addresses(layout, rows, cols, view, store=store)
    except TensorError as error:
        _fault(groups.ctx, f"{what}: {error}", lanes=groups.lanes[0])
    if access.fault.any():
        g, r, c = (int(i[0]) for i in np.nonzero(access.fault))
        coord = tuple(int(x) for x in access.tensor_coord[g, r, c])
        dims = tuple(int(np.asarray(d).reshape(-1)[g]) for d in layout.dimension)
        _fault(groups.ctx, f"{what}: matrix element ({r}, {c}) maps to tensor coordinate "
                           f"{coord}, outside the tensor's dimensions {dims}, with clamp mode "
                           f"Undefined (use a clamp mode, or keep the tile inside the tensor)",
               lanes=groups.lanes[g])
    return access, pointer, layout


def _decode_block_size(callee):
    """sizeof(block) of a load's decode function, from its callee name (lower_tensor.py)."""
    match = re.search(r"u\d+TensorBlockNV_(\d+)", callee.params)
    if match is None:
        raise IRError(f"tensor load callee '{callee.params}' with a decode function does not "
                      f"name the size of its block (u<len>TensorBlockNV_<bytes>)")
    return int(match.group(1))


def _decode(groups, access, pointer, decode, block_size, dims, result_layout, dtype):
    """The decode function's values for the valid elements (SPV_NV_cooperative_matrix2:
    pointer = index * sizeof(block), then blockCoord and coordInBlock as uint[D] arrays),
    each element decoded by the work-item that holds it (as a per-element function)."""
    ctx = groups.ctx
    valid = access.valid
    owners = element_owners(result_layout, groups.lanes)[valid.reshape(-1)]
    blocks = (pointer[:, None, None] + access.index * block_size)[valid]
    # The decode operand takes the coordinates as [D x i32] arrays by value (lower_tensor's
    # wrapper of the user's function): an aggregate is a tuple of its elements' lane arrays.
    coords = [tuple(values[valid][:, d].astype(np.int32) for d in range(dims))
              for values in (access.block_coord, access.coord_in_block)]
    result = call_function(ctx, decode, [blocks.astype(np.int64)] + coords, owners)
    return component_values(result, dtype)


def _tensor_arg_type(callee, k):
    """The k-th tensor type a callee name spells (u<len>TensorLayoutNV_...), as IR text."""
    codes = _vendor_types(callee.params)
    if k >= len(codes):
        raise IRError(f"tensor callee parameters '{callee.params}' name no tensor type {k}")
    return codes[k]


def _vendor_types(params):
    """'PU3AS1fu18TensorLayoutNV_2_1ii' -> [the IR text of each tensor type named]."""
    out = []
    i = params.find("u")
    while i >= 0:
        j = i + 1
        while j < len(params) and params[j].isdigit():
            j += 1
        if j == i + 1:
            i = params.find("u", i + 1)
            continue
        name = params[j:j + int(params[i + 1:j])]
        parts = name.split("_")
        if parts[0] == "TensorLayoutNV":
            out.append(TensorType.layout(int(parts[1]), int(parts[2])).ir_text())
        elif parts[0] == "TensorViewNV":
            out.append(TensorType.view(int(parts[1]), int(parts[2]), [int(p) for p in parts[3]]).ir_text())
        i = params.find("u", j + len(name))
    return out


def _memory(groups, operation):
    """Runs a memory operation over all subgroups; on a fault, names the first subgroup
    whose own part faults."""
    try:
        return operation(np.arange(groups.count))
    except RuntimeFault as fault:
        if getattr(fault, "kernel", None) is not None:
            raise
        for g in range(groups.count):
            try:
                operation(np.array([g]))
            except RuntimeFault:
                _fault(groups.ctx, str(fault), lanes=groups.lanes[g])
        _fault(groups.ctx, str(fault))


def _do_load_tensor(ctx, callee, args, ret_type, what):
    result = callee.matrices[0]
    layout_of_result = _layout(result, ctx)
    dtype = component_dtype(result)
    groups = Subgroups(ctx, what)
    access, pointer, layout = _addresses(groups, callee, args, result.rows, result.cols, what, False)
    size = dtype.itemsize
    addresses = pointer[:, None, None] + access.index * size
    gathered = np.zeros(access.index.shape, dtype=dtype)
    mask = int(np.asarray(args[4]).reshape(-1)[0])
    if mask & ADDRESSING_DECODE_FUNC:
        gathered[access.valid] = _decode(groups, access, pointer, args[-1], _decode_block_size(callee),
                                         layout.dims, layout_of_result, dtype)
    else:
        _memory(groups, lambda chosen: _gather(ctx, gathered, access, addresses, chosen, dtype,
                                               groups, pointer))
    keep = groups.gather_matrix(args[1], layout_of_result).astype(dtype, copy=False)
    clamp = clamp_value_as(np.asarray(layout.clamp_value), dtype).reshape(-1, 1, 1)
    mats = assemble_load(access, gathered, clamp, keep)
    return groups.scatter_matrix(mats, layout_of_result, dtype)


@contextmanager
def _element_rows(ctx, groups, access, chosen, pointer):
    """Around the access of the valid elements of the subgroups `chosen` (one row each):
    the lane each is accessed for (execute.Executor.row_owners), its subgroup's first,
    which a fault names; and the object each must lie in, the one its subgroup's pointer
    points into (memory.Provenance), as the subgroups' own loads and stores
    (coop_calls._per_memory_layout) and the native engine check them."""
    counts = access.valid[chosen].reshape(len(chosen), -1).sum(axis=1)
    ctx.cur_lanes = np.repeat(groups.lanes[chosen, 0], counts)
    if hasattr(ctx.memory, "provenance"):
        ctx.memory.provenance = Provenance(np.repeat(pointer[chosen], counts), None)
    try:
        yield
    finally:
        ctx.cur_lanes = None
        if hasattr(ctx.memory, "provenance"):
            ctx.memory.provenance = None


def _gather(ctx, gathered, access, addresses, chosen, dtype, groups, pointer):
    """Loads the valid elements of the subgroups `chosen` into `gathered`."""
    valid = access.valid[chosen]
    part = gathered[chosen]
    with _element_rows(ctx, groups, access, chosen, pointer):
        part[valid] = ctx.memory.load(addresses[chosen][valid], dtype)
    gathered[chosen] = part


def _do_store_tensor(ctx, callee, args, ret_type, what):
    (matrix,) = callee.matrices[:1]
    dtype = component_dtype(matrix)
    groups = Subgroups(ctx, what)
    mats = groups.gather_matrix(args[1], _layout(matrix, ctx)).astype(dtype, copy=False)
    access, pointer, _ = _addresses(groups, callee, args, matrix.rows, matrix.cols, what, True)
    addresses = pointer[:, None, None] + access.index * dtype.itemsize

    def store(chosen):
        valid = access.valid[chosen]
        with _element_rows(ctx, groups, access, chosen, pointer):
            ctx.memory.store(addresses[chosen][valid], mats[chosen][valid], dtype)

    _memory(groups, store)
    return None


def execute_tensor_call(ctx, name, args, ret_type):
    """Runs one tensor call (coop_names.TENSOR_BASES) for all lanes."""
    callee = parse_callee(name)
    operation = coop_names.TENSOR_BASES.get(callee.base)
    if operation is None:
        raise IRError(f"unknown tensor operation '{name}'")
    what = coop_names.operation_name(callee.base)
    if operation == "coop_mat_load_tensor":
        with call_scope(ctx, callee, ret_type, what):
            return _do_load_tensor(ctx, callee, list(args), ret_type, what)
    if operation == "coop_mat_store_tensor":
        with call_scope(ctx, callee, ret_type, what):
            return _do_store_tensor(ctx, callee, list(args), ret_type, what)
    return _do_tensor_op(ctx, operation, list(args), ret_type, what)


def is_tensor_call(name):
    callee = coop_names.parse_callee(name)
    return callee is not None and callee.base in coop_names.TENSOR_BASES
