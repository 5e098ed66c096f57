"""The bridge from IR calls to cooperative-matrix semantics.

`execute_coop_call(ctx, name, args, ret_type)` runs one call to a `__spirv_*`
declaration named as docs/ir-conventions.md says, for every lane of a batch:
matrices are (L, V) arrays (row l = lane l's components, docs/design.md
"Interpreter value model"), gathered per subgroup into logical (G, rows, cols)
matrices, computed by clcoop.interp.coopmat, and scattered back.

The ctx gives `memory` (load(addrs, dtype), store(addrs, values, dtype)),
`subgroup_size`, `mask` (bool (L,)), `lane_count`, `fault(message)`, and
optionally `work_group_size` (lanes per work-group; default: all lanes form one
work-group) so subgroups restart at every work-group, and `nd.wg_size` (the launch's
work-group size, which workgroup-scope layouts depend on; default work_group_size).

The matrices of one call share a scope (coopmat_spec), which decides the group of
work-items each matrix is spread over: a subgroup, or a whole work-group at Workgroup
scope (docs/layout.md "Workgroup scope"). execute_coop_call reads it from the callee
and `Subgroups` groups the lanes by it, so every operation works at both scopes.
"""
import collections
import contextlib
import functools

import numpy as np

from clcoop import coop_names, coopmat_spec
from clcoop.errors import IRError, RuntimeFault
from clcoop.interp import coop_function_calls, coopmat, coopmat2, float8
from clcoop.ir.memory import Provenance
from clcoop.interp.matrix_value import MatrixValue
from clcoop.ir.layout import LayoutError
from clcoop.ir.wg_layout import layout_of_matrix
from clcoop.ir.coop_operands import component_dtype, operand_matrices, pointee_size, result_matrix
from clcoop.ir.rounding import is_float8


def parse_callee(name):
    """The CalleeName of a cooperative-matrix call (clcoop.coop_names); IRError if malformed."""
    callee = coop_names.parse_callee(name)
    if callee is None:
        raise IRError(f"cooperative matrix callee '{name}' is not a mangled name")
    if not callee.well_formed:
        raise IRError(f"cannot read the template arguments of cooperative matrix callee '{name}'")
    return callee


# ---------------------------------------------------------------- subgroups

@functools.lru_cache(maxsize=64)
def _subgroup_lanes(lane_count, work_group_size, subgroup_size):
    """(n_subgroups, S) lane index of each subgroup slot, -1 where a work-group's last
    subgroup is partial (docs/design.md: subgroups are consecutive runs of S lanes
    inside a work-group)."""
    n_groups = lane_count // work_group_size
    per_group = -(-work_group_size // subgroup_size)
    local = np.arange(per_group * subgroup_size).reshape(per_group, subgroup_size)
    group_base = (np.arange(n_groups) * work_group_size).reshape(n_groups, 1, 1)
    lanes = np.where(local < work_group_size, group_base + local, -1)
    return lanes.reshape(n_groups * per_group, subgroup_size)


def _cache_key(layout, groups):
    """What a MatrixValue's forms are valid for: one matrix of `layout` for every subgroup
    of this batch (MatrixValues are only made when all of them are active)."""
    return (layout,) + groups.batch


def launch_work_group_size(ctx):
    """W of the launch: the workgroup-scope layouts are made for it (serial_subgroups runs
    only part of each work-group in a batch, so the batch's work_group_size may be less)."""
    nd = getattr(ctx, "nd", None)
    if nd is not None:
        return int(nd.wg_size)
    return int(getattr(ctx, "work_group_size", None) or ctx.lane_count)


def _call_scope(ctx, callee, ret_type, what):
    """The scope of the matrices a call names (its result's from the IR type if the callee
    names none): one operation cannot mix scopes (SPV_KHR_cooperative_matrix: the
    operands of OpCooperativeMatrixMulAddKHR must have the same scope, and the other
    operations take one matrix type)."""
    scopes = {m.scope for m in callee.matrices}
    if not scopes and ret_type is not None and getattr(ret_type, "kind", None) == "matrix":
        scopes = {ret_type.matrix.scope}
    if len(scopes) > 1:
        _fault(ctx, f"cooperative matrix operation {what} mixes matrices of different scopes "
                    f"({', '.join(_scope_name(s) for s in sorted(scopes))})")
    return scopes.pop() if scopes else int(coopmat_spec.Scope.SUBGROUP)


@contextlib.contextmanager
def call_scope(ctx, callee, ret_type, what):
    """Runs a cooperative call with `ctx.coop_scope` set to the scope of its matrices, which
    `Subgroups` groups the lanes by (every entry point of cooperative calls goes through
    this: execute_coop_call, tensor_calls)."""
    outer_scope = getattr(ctx, "coop_scope", None)
    ctx.coop_scope = _call_scope(ctx, callee, ret_type, what)
    try:
        yield
    finally:
        ctx.coop_scope = outer_scope


def _scope_name(scope):
    known = scope in coopmat_spec.Scope._value2member_map_
    return coopmat_spec.Scope(scope).spirv if known else str(scope)


def _workgroup_lanes(ctx, lane_count, wg_size, what):
    """(work-groups, W) lanes: a workgroup-scope matrix is spread over a whole work-group."""
    if wg_size != launch_work_group_size(ctx):
        _fault(ctx, f"cooperative matrix operation {what} on a workgroup-scope matrix cannot run "
                    f"when the sub-groups of a work-group run one at a time (serial_subgroups)")
    return np.arange(lane_count).reshape(lane_count // wg_size, wg_size)


class Subgroups:
    """The fully active groups of a call, and how to gather/scatter lane values. A group
    is a subgroup, or a whole work-group for a workgroup-scope call (`S` is then W, and
    the layouts are WorkgroupLayouts over W work-items): nothing below depends on which.

    `selected` is None when every subgroup of the batch is active, in lane order
    (`identity`), else the indices of the active ones among the batch's subgroups: a
    MatrixValue holds a matrix for each subgroup of the batch, and an operation under
    divergent control flow (SPV_KHR_cooperative_matrix only requires each subgroup to be
    uniform; different subgroups may take different paths) takes the selected ones."""

    def __init__(self, ctx, what):
        self.ctx = ctx
        self.workgroup = getattr(ctx, "coop_scope", None) == coopmat_spec.Scope.WORKGROUP
        lane_count = int(ctx.lane_count)
        wg_size = int(getattr(ctx, "work_group_size", None) or lane_count)
        if lane_count % wg_size:
            raise IRError(f"internal: lane count {lane_count} is not a multiple of the "
                          f"work-group size {wg_size}")
        if self.workgroup:
            self.S = wg_size
            all_lanes = _workgroup_lanes(ctx, lane_count, wg_size, what)
        else:
            self.S = int(ctx.subgroup_size)
            all_lanes = _subgroup_lanes(lane_count, wg_size, self.S)
        self.batch = (lane_count, wg_size, self.S, self.workgroup)
        mask = np.asarray(ctx.mask, dtype=bool).reshape(-1)
        self.selected = None
        if wg_size % self.S == 0 and mask.all():
            # The common case: whole subgroups, every lane active (no partial checks).
            self.lanes = all_lanes
            self.count = all_lanes.shape[0]
            self.identity = self.count * self.S == lane_count
            return
        present = all_lanes >= 0
        active = np.where(present, mask[np.maximum(all_lanes, 0)], False)
        any_active = active.any(axis=1)
        full = active.all(axis=1)
        partial = any_active & ~full
        if partial.any():
            first = int(np.nonzero(partial)[0][0])
            first_active = all_lanes[first][active[first]]
            _fault(ctx, self._partial_message(what, all_lanes, active, present, partial, wg_size),
                   lanes=first_active)
        self.lanes = all_lanes[full]          # (G, S)
        self.count = self.lanes.shape[0]
        # Common case: every subgroup full and active, lanes in order: plain reshapes.
        self.identity = bool(full.all()) and self.count * self.S == lane_count
        if not self.identity:
            self.selected = np.nonzero(full)[0]

    def _partial_message(self, what, all_lanes, active, present, partial, wg_size):
        first = int(np.nonzero(partial)[0][0])
        lanes = all_lanes[first]
        lane_ids = getattr(self.ctx, "lane_ids", None)   # the batch may start inside a work-group
        local_ids = lane_ids.llid[lanes[present[first]]] if lane_ids is not None \
            else lanes[present[first]] % wg_size
        sub_group_id = int(local_ids[0]) // self.S
        n_active = int(active[first].sum())
        if self.workgroup:
            inactive = local_ids[~active[first]]
            return (f"cooperative matrix operation {what} on a workgroup-scope matrix reached by "
                    f"only part of the work-group ({n_active} of {self.S} work-items active; e.g. "
                    f"local linear id {int(inactive[0])} is not): it must be executed in uniform "
                    f"control flow (SPV_KHR_cooperative_matrix: all invocations of the scope must "
                    f"be active)")
        if not present[first].all():
            return (f"cooperative matrix operation {what} in sub-group {sub_group_id}, which has "
                    f"only {int(present[first].sum())} of {self.S} work-items (the work-group "
                    f"size is not a multiple of the sub-group size {self.S})")
        inactive = local_ids[~active[first][present[first]]]
        return (f"cooperative matrix operation {what} reached by only part of sub-group "
                f"{sub_group_id} ({n_active} of {self.S} work-items active; e.g. local linear id "
                f"{int(inactive[0])} is not): it must be executed in uniform control flow "
                f"(SPV_KHR_cooperative_matrix: all invocations of the scope must be active)")

    def gather_matrix(self, values, layout):
        """(L, V) lane values -> (G, rows, cols) logical matrices."""
        if isinstance(values, MatrixValue) and values.key == _cache_key(layout, self):
            return values.logical(self.selected)
        values = np.asarray(values)
        if values.ndim < 2:
            # A zeroinitializer / undef / poison matrix constant (execute.constant_value:
            # a zero scalar, possibly spread per lane): every component is zero.
            return np.zeros((self.count, layout.rows, layout.cols), values.dtype)
        if values.ndim != 2 or values.shape[1] != layout.length:
            raise IRError(f"internal: matrix value of shape {values.shape} does not match "
                          f"{layout!r} (length {layout.length})")
        return layout.to_logical(self.gather_lanes(values))

    def gather_lanes(self, values):
        """(L, V) -> (G, S, V) components of the active subgroups."""
        if self.identity:
            return values.reshape(self.count, self.S, values.shape[1])
        return values[self.lanes]

    def scatter_factored(self, tiles, index, layout, dtype):
        """The matrices tiles[index] ((D, rows, cols), (G,)) when every subgroup is active
        in order, as a MatrixValue: a mul-add uses the factored form, anything else the
        lane form (the D distinct tiles relayouted, then copied out per subgroup)."""
        tiles = np.ascontiguousarray(tiles, dtype=dtype)
        return MatrixValue(_cache_key(layout, self), layout, self.count, dtype,
                           factored=(tiles, np.asarray(index)))

    def scatter_matrix(self, mats, layout, dtype):
        """(G, rows, cols) -> (L, V) lane values (lanes outside active subgroups are 0);
        a MatrixValue keeping the logical form when every subgroup is active in order."""
        if not self.count:
            return np.zeros((int(self.ctx.lane_count), layout.length), dtype=dtype)
        if isinstance(mats, coopmat.Grid):
            if self.identity and mats.dtype == dtype:
                return MatrixValue(_cache_key(layout, self), layout, self.count, dtype, grid=mats)
            mats = mats.logical()
        mats = np.ascontiguousarray(mats, dtype=dtype)
        if self.identity:
            return MatrixValue(_cache_key(layout, self), layout, self.count, dtype, logical=mats)
        return self.scatter_lanes(layout.from_logical(mats), dtype)

    def scatter_lanes(self, lanes, dtype):
        """(G, S, V) (or (G, S*V)) components -> (L, V) lane values, 0 outside."""
        V = lanes.size // max(self.count * self.S, 1)
        if self.identity:
            return lanes.reshape(self.count * self.S, V).astype(dtype, copy=False)
        out = np.zeros((int(self.ctx.lane_count), V), dtype=dtype)
        out[self.lanes.reshape(-1)] = lanes.reshape(-1, V)
        return out

    def uniform(self, value, what, operand):
        """(G,) values of an operand that must be the same in every lane of a group."""
        value = np.asarray(value)
        if value.ndim == 0:
            return np.broadcast_to(value, (self.count,))
        if value.ndim == 1 and value.strides[0] == 0:
            return np.broadcast_to(value[0], (self.count,))   # a broadcast constant
        if self.identity:
            per_lane = value.reshape(self.count, self.S)
        else:
            per_lane = value.reshape(-1)[self.lanes]
        first = per_lane[:, :1]
        same = per_lane == first
        if per_lane.dtype.kind == "f":
            same |= np.isnan(per_lane) & np.isnan(first)
        if not same.all():
            bad = int(np.nonzero(~same.all(axis=1))[0][0])
            group = "work-group" if self.workgroup else "sub-group"
            _fault(self.ctx, f"cooperative matrix operation {what}: operand '{operand}' must be "
                             f"uniform across the {group} but differs between work-items "
                             f"(e.g. {per_lane[bad, 0]} and {per_lane[bad][~same[bad]][0]})",
                   lanes=self.lanes[bad][~same[bad]])
        return per_lane[:, 0]


def _fault(ctx, message, lanes=None):
    """ctx.fault names the work-item: the first of `lanes` (lane indices) if given."""
    if lanes is None:
        ctx.fault(message)
    else:
        lanes_mask = np.zeros(int(ctx.lane_count), dtype=bool)
        lanes_mask[np.asarray(lanes)[np.asarray(lanes) >= 0][:1]] = True
        ctx.fault(message, lanes_mask=lanes_mask)
    raise RuntimeFault(message)   # in case ctx.fault returned


# ---------------------------------------------------------------- the operations

def _layout(matrix_arg, ctx):
    """The layout of a MatrixArg at its scope: every operation takes it from here."""
    try:
        return layout_of_matrix(matrix_arg.rows, matrix_arg.cols, matrix_arg.use, matrix_arg.elem,
                                matrix_arg.scope, ctx.subgroup_size, launch_work_group_size(ctx))
    except LayoutError as error:
        _fault(ctx, str(error))


def _do_load(ctx, callee, args, ret_type, what):
    result = result_matrix(callee, ret_type, what)
    layout = _layout(result, ctx)
    groups = Subgroups(ctx, what)
    pointer = groups.uniform(args[0], what, "pointer")
    memory_layout = groups.uniform(args[1], what, "layout")
    stride = groups.uniform(_stride_operand(ctx, args, 2, what), what, "stride")
    pointee = pointee_size(callee.params)
    dtype = component_dtype(result)
    # fp8: NumPy cannot stride over ml_dtypes' float8 views; the bytes move as uint8.
    bytes_dtype = np.dtype(np.uint8) if is_float8(dtype) else dtype
    parts = []      # (subgroup indices, (G', rows, cols) tiles, index of each one's tile)
    objects = _object_bases(ctx, groups, pointer)

    def load(chosen, code):
        bases, strides = pointer[chosen], stride[chosen]
        site = (id(getattr(ctx, "current", None)), callee.base, int(code))
        distinct, copy_of = _distinct_tiles_at(site, bases, strides)
        if distinct is None:
            parts.append((chosen, coopmat.load(ctx.memory, bases, code, strides, pointee, bytes_dtype,
                                               result.rows, result.cols).view(dtype), None))
            return
        if getattr(ctx, "cur_lanes", None) is not None:
            # Rows of a faulting access map to the first subgroup reading that tile.
            per_group = ctx.cur_lanes.size // chosen.size
            ctx.cur_lanes = np.repeat(groups.lanes[chosen[distinct], 0], per_group)
            if getattr(ctx.memory, "provenance", None) is not None:
                ctx.memory.provenance = Provenance(np.repeat(objects[chosen][distinct], per_group), None)
        tiles = coopmat.load(ctx.memory, bases[distinct], code, strides[distinct], pointee,
                             bytes_dtype, result.rows, result.cols).view(dtype)
        parts.append((chosen, tiles, copy_of))

    _per_memory_layout(ctx, groups, memory_layout, load, (result.rows, result.cols), objects)
    if len(parts) == 1 and parts[0][2] is not None and groups.identity \
            and parts[0][0].size == groups.count:
        # One layout, every subgroup: relayout the distinct tiles only, copy them out in
        # lane order, and keep the factored form for a mul-add (coopmat.mul_add_factored).
        return groups.scatter_factored(parts[0][1], parts[0][2], layout, dtype)
    mats = np.zeros((groups.count, result.rows, result.cols), dtype=dtype) \
        if len(parts) != 1 else None
    for chosen, tiles, copy_of in parts:
        values = tiles if copy_of is None else np.take(tiles, copy_of, axis=0)
        if mats is None:
            mats = values
        else:
            mats[chosen] = values
    # Kept in logical form too: the mul-add that usually follows needs no relayout.
    return groups.scatter_matrix(mats, layout, dtype)


def _stride_operand(ctx, args, index, what):
    """SPV_KHR_cooperative_matrix: Stride is optional, but RowMajorKHR and ColumnMajorKHR
    (the only layouts we have) need it; a producer may still leave it out."""
    if len(args) <= index:
        _fault(ctx, f"cooperative matrix operation {what} has no stride operand, which the "
                    f"row-major and column-major layouts require (SPV_KHR_cooperative_matrix)")
    return args[index]


def _unique_first_inverse(values):
    """np.unique(values, return_index=True, return_inverse=True)[1:] for a 1-D array,
    without its overhead (a stable sort keeps each value's first occurrence first)."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.empty(values.size, dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    inverse = np.empty(values.size, dtype=np.intp)
    inverse[order] = np.cumsum(new) - 1
    return order[new], inverse


def _repeated_runs(bases):
    """np.unique(bases, return_index, return_inverse) on a shorter array for the usual
    grids of subgroups: runs of equal pointers (a row of GEMM tiles reads one A tile) or
    a repeating period (each row reads the same B tiles). (None, None) otherwise."""
    count = bases.size
    change = np.flatnonzero(bases[1:] != bases[:-1]) + 1
    if change.size * 2 < count:
        starts = np.concatenate([[0], change])
        lengths = np.diff(np.append(starts, count))
        first_run, run_inverse = _unique_first_inverse(bases[starts])
        return starts[first_run], np.repeat(run_inverse, lengths)
    period = np.flatnonzero(bases == bases[0])
    if period.size < 2 or count % period[1]:
        return None, None
    period = int(period[1])
    if not (bases.reshape(-1, period) == bases[:period]).all():
        return None, None
    first, inverse = _unique_first_inverse(bases[:period])
    return first, np.tile(inverse, count // period)


# The last distinct-tile search of each load site: (bases, strides, result). A loop
# that advances every subgroup's pointer by the same amount (a K loop) keeps the same
# tiles equal, so the search is skipped when bases - previous bases is one constant.
_DISTINCT_MEMO = collections.OrderedDict()
_DISTINCT_MEMO_SIZE = 16


def _distinct_tiles_at(site, bases, strides):
    """_distinct_tiles, reusing the previous result of `site` (a hashable hint; the
    reuse is checked, so a stale or shared hint only costs the check)."""
    bases = np.asarray(bases).astype(np.int64, copy=False)
    previous = _DISTINCT_MEMO.get(site)
    if previous is not None and previous[0].shape == bases.shape \
            and np.array_equal(previous[1], strides) \
            and ((bases - previous[0]) == (bases[0] - previous[0][0])).all():
        result = previous[2]
    else:
        result = _distinct_tiles(bases, strides)
    _DISTINCT_MEMO[site] = (bases.copy(), np.array(strides), result)
    _DISTINCT_MEMO.move_to_end(site)
    while len(_DISTINCT_MEMO) > _DISTINCT_MEMO_SIZE:
        _DISTINCT_MEMO.popitem(last=False)
    return result


def _distinct_tiles(bases, strides):
    """Subgroups often load the same tile (in a GEMM, every subgroup of a row of tiles
    reads the same tile of A): then only the distinct (pointer, stride) pairs are read
    from memory. Returns (index of each distinct tile's first subgroup, in order of first
    occurrence so that faults name the same subgroup as a full load; for every subgroup,
    its tile's position in that list), or (None, None) when fewer than half repeat."""
    count = bases.size
    if count < 4:
        return None, None
    if (strides == strides[0]).all():
        first, inverse = _repeated_runs(bases)
        if first is None:
            first, inverse = _unique_first_inverse(bases)
    else:
        pairs = np.stack([bases.astype(np.int64), strides.astype(np.int64)], axis=1)
        _, first, inverse = np.unique(pairs, axis=0, return_index=True, return_inverse=True)
    if first.size * 2 > count:
        return None, None
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order], rank[inverse.reshape(-1)]


def _do_store(ctx, callee, args, ret_type, what):
    (matrix,) = operand_matrices(callee, 1, what, has_result=False)
    layout = _layout(matrix, ctx)
    groups = Subgroups(ctx, what)
    pointer = groups.uniform(args[0], what, "pointer")
    memory_layout = groups.uniform(args[2], what, "layout")
    stride = groups.uniform(_stride_operand(ctx, args, 3, what), what, "stride")
    mats = groups.gather_matrix(args[1], layout).astype(component_dtype(matrix), copy=False)
    if is_float8(mats.dtype):
        mats = mats.view(np.uint8)      # bytes (as the load: no strided float8 views)
    pointee = pointee_size(callee.params)

    def store(chosen, code):
        coopmat.store(ctx.memory, pointer[chosen], mats[chosen], code, stride[chosen], pointee)

    _per_memory_layout(ctx, groups, memory_layout, store, (matrix.rows, matrix.cols),
                       _object_bases(ctx, groups, pointer))
    return None


def _object_bases(ctx, groups, pointer):
    """Per sub-group, the address of the object its matrix pointer was derived from (the
    call's provenance.py base: a kernel argument, a global, a private variable), else the
    pointer: the object its elements must lie in, as the native engine checks them."""
    ins, frame = getattr(ctx, "current", None), getattr(ctx, "frame", None)
    slot = getattr(ins, "base", None)
    value = frame.vals[slot] if slot is not None and frame is not None else None
    if value is None:
        return pointer
    return np.broadcast_to(np.asarray(value, np.int64), (int(ctx.lane_count),))[groups.lanes[:, 0]]


def _per_memory_layout(ctx, groups, memory_layout, operation, shape, pointer=None):
    """Runs operation(subgroup indices, layout) once per layout value (it is a constant,
    so once in practice), locating faults at a work-item of the faulting subgroup.

    coopmat hands memory the rows of addresses subgroup by subgroup (one row each, or
    coopmat.memory_rows(...) rows each with load_rows/store_rows); an executor that maps
    the rows of a faulting access to lanes through `cur_lanes` (clcoop.interp.execute)
    then names that subgroup's first work-item itself. Otherwise (a memory without that
    hook, or a stride/layout fault from coopmat) the subgroups are retried one by one."""
    if memory_layout.size and (memory_layout == memory_layout[0]).all():
        codes = [memory_layout[0]]        # the usual case: one constant layout
    else:
        codes = np.unique(memory_layout)
    for code in codes:
        chosen = np.nonzero(memory_layout == code)[0]
        remap = hasattr(ctx, "cur_lanes")
        if remap:
            per_group = coopmat.memory_rows(int(code), *shape) \
                if hasattr(ctx.memory, "load_rows") else 1
            ctx.cur_lanes = np.repeat(groups.lanes[chosen, 0], per_group)
            if pointer is not None and hasattr(ctx.memory, "provenance"):
                # Each sub-group's elements lie in the object its pointer points into, as
                # the native engine checks them (memory.Provenance).
                ctx.memory.provenance = Provenance(np.repeat(pointer[chosen], per_group), None)
        try:
            operation(chosen, int(code))
        except RuntimeFault as fault:
            if getattr(fault, "kernel", None) is not None:
                raise
            _fault(ctx, str(fault), lanes=groups.lanes[_faulting_subgroup(chosen, code, operation)])
        finally:
            if remap:
                ctx.cur_lanes = None
                if hasattr(ctx.memory, "provenance"):
                    ctx.memory.provenance = None


def _faulting_subgroup(chosen, code, operation):
    for g in chosen:
        try:
            operation(np.array([g]), int(code))
        except RuntimeFault:
            return g
    return chosen[0]


def _run_checked(ctx, run):
    """Faults of coopmat (unknown operands...) go through ctx.fault to be located."""
    try:
        return run()
    except RuntimeFault as fault:
        if getattr(fault, "kernel", None) is not None:
            raise
        _fault(ctx, str(fault))


def _do_mul_add(ctx, callee, args, ret_type, what):
    result = result_matrix(callee, ret_type, what)
    a_type, b_type, c_type = operand_matrices(callee, 3, what, has_result=True)
    problem = _mul_add_problem(a_type, b_type, c_type, result)
    if problem is not None:
        _fault(ctx, f"cooperative matrix {what}: {problem.message}"
                    + (f" ({problem.note})" if problem.note else ""))
    groups = Subgroups(ctx, what)
    operands = groups.uniform(args[3], what, "operands") if len(args) > 3 else np.zeros(1)
    flags = int(operands[0]) if len(operands) else 0
    mats = None
    bfloat16 = component_dtype(a_type) == coopmat2.BFLOAT16
    fp8 = is_float8(component_dtype(a_type))
    bfloat16 = bfloat16 or fp8          # neither goes through the factored integer/float paths
    a_factored = None if bfloat16 else _factored_operand(args[0], a_type, groups, ctx)
    b_factored = None if bfloat16 else _factored_operand(args[1], b_type, groups, ctx)
    if a_factored is not None and b_factored is not None:
        # A and B loaded as few distinct tiles each: one matmul of the distinct tiles,
        # the accumulator kept in the Grid order of that product between mul-adds.
        c = _grid_operand(args[2], c_type, groups, ctx)
        if c is None:
            c = groups.gather_matrix(args[2], _layout(c_type, ctx)).astype(component_dtype(c_type), copy=False)
        mats = _run_checked(ctx, lambda: coopmat.mul_add_factored(
            a_factored, b_factored, c, flags, component_dtype(result), keep_grid=True))
    if mats is None:
        c = groups.gather_matrix(args[2], _layout(c_type, ctx)).astype(component_dtype(c_type), copy=False)
        a = groups.gather_matrix(args[0], _layout(a_type, ctx)).astype(component_dtype(a_type), copy=False)
        b = groups.gather_matrix(args[1], _layout(b_type, ctx)).astype(component_dtype(b_type), copy=False)
        if fp8:             # SPV_EXT_float8: exact products, float32 sums (float8.mul_add)
            mats = _run_checked(ctx, lambda: float8.mul_add(a, b, c, component_dtype(result)))
        elif bfloat16:      # SPV_KHR_bfloat16: exact products, one rounding (coopmat2)
            mats = _run_checked(ctx, lambda: coopmat2.bfloat16_mul_add(a, b, c, component_dtype(result)))
        else:
            mats = _run_checked(ctx, lambda: coopmat.mul_add(a, b, c, flags, component_dtype(result)))
    return groups.scatter_matrix(mats, _layout(result, ctx), component_dtype(result))


@functools.lru_cache(maxsize=None)
def _mul_add_problem(a, b, c, result):
    """coopmat_spec's mul-add type rule on the matrix types a call names (MatrixArg)."""
    return coopmat_spec.mul_add_problem(a.matrix_type(), b.matrix_type(), c.matrix_type(),
                                        result.matrix_type())


def _own_value(value, matrix_type, groups, ctx):
    """value when it is a MatrixValue of matrix_type for these subgroups, else None."""
    if isinstance(value, MatrixValue) and value.key == _cache_key(_layout(matrix_type, ctx), groups) \
            and value.dtype == component_dtype(matrix_type):
        return value
    return None


def _factored_operand(value, matrix_type, groups, ctx):
    """The (tiles, index) form of a mul-add operand a load returned (index of the active
    subgroups), or None."""
    value = _own_value(value, matrix_type, groups, ctx)
    factored = value.factored(groups.selected) if value is not None else None
    if factored is None or factored[0].dtype != component_dtype(matrix_type):
        return None
    return factored


def _grid_operand(value, matrix_type, groups, ctx):
    """The coopmat.Grid form of an accumulator a mul-add returned, or None (also when only
    some subgroups run: they are not a grid)."""
    value = _own_value(value, matrix_type, groups, ctx)
    return value.grid() if value is not None and groups.selected is None else None


def _do_length(ctx, callee, args, ret_type, what):
    """OpCooperativeMatrixLengthKHR depends only on the type: no uniformity needed."""
    matrix = callee.matrices[0] if callee.matrices else None
    if matrix is None:
        raise IRError(f"cooperative matrix callee for {what} must name the matrix type")
    length = _layout(matrix, ctx).length
    return np.full(int(ctx.lane_count), length, dtype=np.int32)


def _do_splat(ctx, callee, args, ret_type, what):
    result = result_matrix(callee, ret_type, what)
    groups = Subgroups(ctx, what)
    value = groups.uniform(args[0], what, "value")
    if is_float8(component_dtype(result)):       # the scalar is an i8 of fp8 bits
        value = np.asarray(value).view(component_dtype(result))
    mats = coopmat.splat(value, component_dtype(result), (result.rows, result.cols))
    return groups.scatter_matrix(mats, _layout(result, ctx), component_dtype(result))


BINARY_OPS = {base: op for op, base in coop_names.BINARY.items()}


def _unary_setup(ctx, callee, args, ret_type, what, operand_count):
    result = result_matrix(callee, ret_type, what)
    operand_types = operand_matrices(callee, operand_count, what, has_result=True)
    groups = Subgroups(ctx, what)
    operands = [groups.gather_matrix(args[k], _layout(t, ctx)).astype(component_dtype(t), copy=False)
                for k, t in enumerate(operand_types)]
    return result, groups, operands


def _do_binary(ctx, callee, args, ret_type, what):
    result, groups, (a, b) = _unary_setup(ctx, callee, args, ret_type, what, 2)
    if BINARY_OPS[callee.base] == "div" and b.dtype.kind in "iu":
        zero = (b == 0).reshape(groups.count, -1).any(axis=1)
        if zero.any():
            # Name a work-item of the subgroup whose matrix holds the zero divisor.
            _fault(ctx, f"integer division by zero in cooperative matrix {what}",
                   lanes=groups.lanes[int(np.argmax(zero))])
    mats = _run_checked(ctx, lambda: coopmat.binary(BINARY_OPS[callee.base], a, b))
    return groups.scatter_matrix(mats, _layout(result, ctx), component_dtype(result))


def _do_negate(ctx, callee, args, ret_type, what):
    result, groups, (a,) = _unary_setup(ctx, callee, args, ret_type, what, 1)
    return groups.scatter_matrix(coopmat.negate(a), _layout(result, ctx), component_dtype(result))


def _do_scalar_mul(ctx, callee, args, ret_type, what):
    result, groups, (a,) = _unary_setup(ctx, callee, args, ret_type, what, 1)
    scalar = groups.uniform(args[1], what, "scalar")
    mats = coopmat.scalar_mul(a, np.asarray(scalar).reshape(-1, 1, 1))
    return groups.scatter_matrix(mats, _layout(result, ctx), component_dtype(result))


def _do_convert(ctx, callee, args, ret_type, what):
    """KHR Op*Convert; the use may change too (NV2/EXT), and bf16 rounds once (coopmat2)."""
    result, groups, (x,) = _unary_setup(ctx, callee, args, ret_type, what, 1)
    _check_types(ctx, coopmat_spec.conversion_problem, callee, result, what)
    mats = coopmat2.convert_use(x, component_dtype(result), coop_names.CONVERSIONS[callee.base])
    return groups.scatter_matrix(mats, _layout(result, ctx), component_dtype(result))


def _check_types(ctx, rule, callee, result, what):
    """A coopmat_spec rule on (operand, result) types, for IR that another producer wrote."""
    (operand,) = operand_matrices(callee, 1, what, has_result=True)
    problem = rule(operand.matrix_type(), result.matrix_type())
    if problem is not None:
        _fault(ctx, f"cooperative matrix {what}: {problem.message}"
                    + (f" ({problem.note})" if problem.note else ""))


def _do_convert_use(ctx, callee, args, ret_type, what):
    """NV2 OpCooperativeMatrixConvertNV / EXT ConvertUseEXT: the same logical matrix in
    the result use's layout (int <-> uint of one width keep their bits)."""
    result, groups, (x,) = _unary_setup(ctx, callee, args, ret_type, what, 1)
    _check_types(ctx, coopmat_spec.conversion_problem, callee, result, what)
    dtype = component_dtype(result)
    if x.dtype != dtype and (x.dtype.kind not in "iu" or x.dtype.itemsize != dtype.itemsize):
        _fault(ctx, f"cooperative matrix {what} cannot change the component type "
                    f"({x.dtype} to {dtype}); use a conversion")
    return groups.scatter_matrix(coopmat2.convert_use(x).view(dtype), _layout(result, ctx), dtype)


def _do_transpose(ctx, callee, args, ret_type, what):
    """NV2 OpCooperativeMatrixTransposeNV (into B) and the EXT transpose (into A)."""
    result, groups, (x,) = _unary_setup(ctx, callee, args, ret_type, what, 1)
    _check_types(ctx, coopmat_spec.transpose_problem, callee, result, what)
    return groups.scatter_matrix(coopmat2.transpose(x), _layout(result, ctx), component_dtype(result))


def _do_access_chain(ctx, callee, args, ret_type, what):
    """&m[i] = m.addr + i * sizeof(T) (docs/ir-conventions.md); allowed in divergent
    control flow (SPV_KHR issue 11), so no uniformity check."""
    if callee.matrices:
        size = component_dtype(callee.matrices[0]).itemsize
    else:
        size = pointee_size(callee.params)
    base = np.asarray(args[0], dtype=np.int64)
    index = np.asarray(args[1]).astype(np.int64)
    return base + index * size


# ---- operations with a function operand (coop_function_calls.py; NV2 / EXT maintenance1)

def _do_reduce(ctx, callee, args, ret_type, what):
    result, groups, (m,) = _unary_setup(ctx, callee, args, ret_type, what, 1)
    mode = groups.uniform(args[1], what, "mode")
    mode = int(mode[0]) if mode.size else 1
    problem = coopmat_spec.reduce_problem(callee.matrices[1].matrix_type(), result.matrix_type(), mode)
    if problem is not None:
        _fault(ctx, f"cooperative matrix {what}: {problem.message}" + (f" ({problem.note})" if problem.note else ""))
    mats = _run_checked(ctx, lambda: coop_function_calls.reduce(
        ctx, m, mode, args[2], (result.rows, result.cols), groups.lanes[:, 0]))
    return groups.scatter_matrix(mats, _layout(result, ctx), component_dtype(result))


def _do_per_element(ctx, callee, args, ret_type, what):
    result = result_matrix(callee, ret_type, what)
    groups = Subgroups(ctx, what)
    layout = _layout(result, ctx)
    owners = coop_function_calls.element_owners(layout, groups.lanes)
    m = groups.gather_matrix(args[0], layout).astype(component_dtype(result), copy=False)
    extras = []
    for value, is_matrix in zip(args[2:], _matrix_arguments(ctx, callee, len(args))[2:]):
        if is_matrix:
            extras.append(groups.gather_matrix(value, layout).astype(component_dtype(result), copy=False))
        else:       # the value of the work-item that holds each element
            extras.append(np.broadcast_to(np.asarray(value), (int(ctx.lane_count),))[owners])
    mats = _run_checked(ctx, lambda: coop_function_calls.per_element(ctx, m, args[1], extras, owners))
    return groups.scatter_matrix(mats, layout, component_dtype(result))


def _matrix_arguments(ctx, callee, count):
    """Which arguments of the call are matrices, from the callee's declaration (a
    per-element call's extras mix matrices and scalars in any order)."""
    name = coop_names.callee_name(callee.base, callee.matrices, [callee.params])
    declared = getattr(getattr(ctx, "module", None), "functions", {}).get(name)
    if declared is None:
        raise IRError(f"cooperative matrix callee '{name}' is not declared in the module")
    kinds = [ctx.module.type_of(str(a.type)).kind == "matrix" for a in declared.arguments]
    if len(kinds) != count:
        raise IRError(f"cooperative matrix callee '{name}' is called with {count} arguments "
                      f"but declared with {len(kinds)}")
    return kinds


def _do_get_coordinate(ctx, callee, args, ret_type, what):
    (matrix,) = operand_matrices(callee, 1, what, has_result=False)
    layout = _layout(matrix, ctx)
    groups = Subgroups(ctx, what)
    index = groups.gather_lanes(np.broadcast_to(np.asarray(args[1]), (int(ctx.lane_count),))[:, None])[:, :, 0]
    coordinates = _run_checked(ctx, lambda: coop_function_calls.coordinates(layout, index))
    return groups.scatter_lanes(coordinates, np.int32)


HANDLERS = {
    coop_names.LOAD: _do_load,
    coop_names.STORE: _do_store,
    coop_names.MUL_ADD: _do_mul_add,
    coop_names.LENGTH: _do_length,
    coop_names.SPLAT: _do_splat,
    coop_names.NEGATE: _do_negate,
    coop_names.SCALAR_MUL: _do_scalar_mul,
    coop_names.ACCESS_CHAIN: _do_access_chain,
    coop_names.CONVERT_USE: _do_convert_use,
    coop_names.TRANSPOSE: _do_transpose,
    coop_names.REDUCE: _do_reduce,
    coop_names.PER_ELEMENT: _do_per_element,
    coop_names.GET_COORDINATE: _do_get_coordinate,
}
HANDLERS.update({base: _do_binary for base in BINARY_OPS})
HANDLERS.update({base: _do_convert for base in coop_names.CONVERSIONS})


def is_coop_call(name):
    """True for the callee names execute_coop_call handles."""
    try:
        return parse_callee(name).base in HANDLERS
    except IRError:
        return False


def execute_coop_call(ctx, name, args, ret_type):
    """Runs one cooperative-matrix call for all lanes; returns (L, V) for matrix results,
    (L,) for length and access chain, None for store."""
    module = getattr(ctx, "module", None)
    callee = parse_callee(getattr(module, "coop_aliases", {}).get(name, name))
    handler = HANDLERS.get(callee.base)
    if handler is None:
        raise IRError(f"unknown cooperative matrix operation '{name}'")
    what = coop_names.operation_name(callee.base)
    with call_scope(ctx, callee, ret_type, what):
        return handler(ctx, callee, list(args), ret_type, what)
