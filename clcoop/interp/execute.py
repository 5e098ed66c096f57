"""Vectorized SIMT execution of LLVM IR kernels over batches of work-groups.

Each function is translated once into a compact form (translate.py) whose records call
the instruction handlers (instructions.py). Execution runs every
instruction for all lanes of a batch at once: a value is a NumPy array with one row
per lane (docs/design.md "Interpreter value model"). Divergent control flow keeps a
per-lane "next block"; the lowest pending block in reverse post-order runs first, so
lanes reconverge at join points and loop exits.
"""
import numpy as np

from clcoop.coopmat_spec import Scope, matrix_scopes
from clcoop.errors import IRError, RuntimeFault
from clcoop.ir.loader import METADATA_TABLES
from clcoop.ir.source_map import render_fault
from clcoop.ir.memory import LocalArgument
from clcoop.prepare import DEFAULT_INSTRUCTION_LIMIT
from clcoop.interp.lanes import assign_lanes, bcast, select_lanes
from clcoop.interp.translate import constant_value, uses_private_memory

# Lanes of one batch (prepare.DEFAULT_MAX_LANES): more lanes amortize the per-instruction cost over more work-items
# (docs/performance.md), fewer bound the working set. Values of alloca-free kernels take
# ~0.5 KB per lane (1 << 15 lanes: ~2.3x the buffers of the 1024^3 GEMM); kernels with
# private variables (-O0 code) also keep every variable in memory (~1 KB per lane), so
# their batches are split to PRIVATE_MEMORY_MAX_LANES.
PRIVATE_MEMORY_MAX_LANES = 1 << 13

# ============================================================================ execution

class Executor:
    """Runs one kernel launch. Also the ctx handed to execute_coop_call."""

    def __init__(self, module, translator, kernel, ndrange, subgroup_size, memory,
                 instruction_limit=DEFAULT_INSTRUCTION_LIMIT, serial_subgroups=False):
        self.module = module
        self.translator = translator
        self.kernel = kernel
        self.nd = ndrange
        self.subgroup_size = subgroup_size
        self.memory = memory
        self.layout = module.layout
        self.instruction_limit = instruction_limit
        self.serial_subgroups = serial_subgroups
        self.instructions = 0
        memory.fault_handler = self._memory_fault
        memory.row_owners = self.row_owners
        self.current = None        # instruction being executed
        self.cur_lanes = None      # lanes of the rows passed to memory
        self.mask = None
        self.pointer_provenance = None   # a memory intrinsic's pointers (instructions.op_call)
        self.global_addrs = {}
        self.work_group_size = ndrange.wg_size   # lanes of one work-group in the batch
        self.pending = None        # (lane, RuntimeFault, waiting) kept: _defer
        self.stopped = None        # lanes stopped after it
        self.stops = 0             # changes of `stopped`
        self.deferring = True

    # ------------------------------------------------------------------ batches
    def run_batch(self, first_group, group_count, args, globals_per_batch):
        """Run work-groups [first_group, first_group + group_count), in several batches
        when the kernel uses private memory (bounded memory, see DEFAULT_MAX_LANES), or
        one work-group at a time, one sub-group per batch, with serial_subgroups."""
        groups_per_batch = group_count
        if self.serial_subgroups:
            groups_per_batch = 1
        elif group_count * self.nd.wg_size > PRIVATE_MEMORY_MAX_LANES \
                and uses_private_memory(self.translator):
            groups_per_batch = max(1, PRIVATE_MEMORY_MAX_LANES // self.nd.wg_size)
        for first in range(first_group, first_group + group_count, groups_per_batch):
            count = min(groups_per_batch, first_group + group_count - first)
            self._run_one_batch(first, count, args, globals_per_batch)

    def _run_one_batch(self, first_group, group_count, args, globals_per_batch):
        """__local memory for the work-groups, then their work-items: all at once, or
        with serial_subgroups one sub-group after the other (sharing that memory)."""
        wg, S = self.nd.wg_size, self.subgroup_size
        spans = [(0, wg)]
        if self.serial_subgroups and not self._has_workgroup_matrices():
            spans = [(first, min(first + S, wg)) for first in range(0, wg, S)]
        regions = []
        try:
            local_globals, local_args = self._allocate_local_memory(first_group, group_count, args, regions)
            for span in spans:
                self._run_lanes(first_group, group_count, span, args, globals_per_batch,
                                local_globals, local_args)
        finally:
            for r in regions:
                self.memory.free(r)

    def _has_workgroup_matrices(self):
        """A workgroup-scope matrix is spread over the whole work-group, so with
        serial_subgroups such a module runs one whole work-group per batch (docs/layout.md)."""
        if not hasattr(self, "_workgroup_matrices"):
            self._workgroup_matrices = int(Scope.WORKGROUP) in matrix_scopes(self.module.ir)
        return self._workgroup_matrices

    def _allocate_local_memory(self, first_group, group_count, args, regions):
        """(global name -> (base, stride), argument index -> (base, stride)): one slice
        of a region per work-group in the batch, for __local variables and arguments."""
        groups = np.arange(first_group, first_group + group_count, dtype=np.int64)

        def allocate(what, nbytes):
            # One object per work-group of the batch, each checked on its own (memory.Slots).
            region = self.memory.allocate_slots(what, nbytes, groups, "work-group", 16, space=3)
            regions.append(region)
            return region.base, region.slots.stride
        local_globals = {name: allocate(f"__local {name}", self.layout.size(gv.ty))
                         for name, gv in self.module.globals.items() if gv.addrspace == 3}
        local_args = {i: allocate(f"{a.name} (__local)", a.nbytes)
                      for i, a in enumerate(args) if isinstance(a, LocalArgument)}
        return local_globals, local_args

    def _run_lanes(self, first_group, group_count, span, args, globals_per_batch,
                   local_globals, local_args):
        """Runs the work-items of local linear ids span[0] <= id < span[1] of each work-group."""
        nd = self.nd
        self.group_count = group_count
        self.work_group_size = span[1] - span[0]
        self.lane_count = group_count * self.work_group_size
        L = self.lane_count
        self.lane_ids = _LaneIds(nd, first_group, group_count, self.subgroup_size, span)
        # The limit bounds the instructions of each work-item: lanes of a batch run in
        # lockstep, so one count per batch (divergent paths add up) is what one work-item
        # could have executed at most.
        self.instructions = 0
        self.batch_cache = {}
        wg_in_batch = np.repeat(np.arange(group_count, dtype=np.int64), self.work_group_size)
        self.global_addrs = dict(globals_per_batch)
        for name, (base, stride) in local_globals.items():
            self.global_addrs[name] = base + wg_in_batch * stride
        call_args = list(args)
        for i, (base, stride) in local_args.items():
            call_args[i] = base + wg_in_batch * stride
        self.pending, self.stopped = None, None
        self.call(self.kernel.name, call_args, np.ones(L, bool))
        if self.pending is not None:
            raise self.pending[1]

    def work_item_keys(self):
        """The key of each lane's work-item, unique in the launch (memory.Slots owners)."""
        ids = self.lane_ids
        return ids.group_linear * self.nd.wg_size + ids.llid

    def row_owners(self, rows):
        """(work-item keys, work-group keys) of the rows of the addresses memory is asked
        to access: the lanes in cur_lanes (lanes.active_lanes), None when unknown."""
        lanes = self.cur_lanes
        if lanes is None or len(lanes) != rows:
            return None
        ids = self.lane_ids
        groups = ids.group_linear[lanes]
        return groups * self.nd.wg_size + ids.llid[lanes], groups

    def runs_part_of_work_groups(self):
        """True when the batch holds only some sub-groups of its work-groups (serial_subgroups)."""
        return self.work_group_size != self.nd.wg_size

    # ------------------------------------------------------------------ functions
    def call(self, name, args, mask):
        fn = self.translator.function(name)
        vals = list(fn.template)
        for slot, const in fn.late:
            vals[slot] = self._late_constant(const)
        for slot, a in zip(fn.arg_slots, args):
            vals[slot] = a
        L = self.lane_count
        nblocks = len(fn.blocks)
        cur = np.full(L, nblocks, np.int32)
        cur[mask] = 0
        prev = np.full(L, -1, np.int32)
        frame = _Frame(vals, nblocks, name)
        blocks = fn.blocks
        saved_frame, self.frame = getattr(self, "frame", None), frame
        try:
            next_block = None
            while True:
                if next_block is None:
                    b = int(cur.min())
                    if b >= nblocks:
                        break
                    bmask = cur == b
                    full = bool(bmask.all())
                else:
                    b = next_block      # every lane took the same branch: bmask stays all-true
                block = blocks[b]
                self.instructions += len(block.body) + 1
                if self.instructions > self.instruction_limit:
                    self.current = block.term
                    self.fault(f"instruction limit of {self.instruction_limit} exceeded "
                               f"(runaway loop?); raise it with instruction_limit=", bmask, defer=False)
                if block.phis:
                    self._phis(block, vals, prev, bmask, full)
                stops = self.stops
                for ins in block.body:
                    self.current = ins
                    self.cur_lanes = None     # (set by the instruction: row_owners)
                    try:
                        value = ins.fn(self, vals, ins, bmask, full)
                    except _Stopped:
                        value = None          # its faulting lanes stopped: again without them
                        while bmask is not None:
                            bmask, full = self._without_stopped(bmask)
                            try:
                                value = ins.fn(self, vals, ins, bmask, full) if bmask is not None else None
                                break
                            except _Stopped:
                                pass
                    if stops != self.stops:  # lanes stopped, here or in a called function
                        stops = self.stops
                        cur[self.stopped] = nblocks
                        if bmask is not None:
                            bmask, full = self._without_stopped(bmask)
                    if bmask is None:
                        break
                    if ins.dst is not None and value is not None:
                        assign_lanes(vals, ins.dst, value, bmask, full, L)
                if bmask is not None:
                    self.current = block.term
                    try:
                        next_block = self._terminator(block, vals, cur, prev, bmask, full, frame)
                    except _Stopped:
                        next_block = None
                    if stops != self.stops:
                        cur[self.stopped] = nblocks
                        next_block = None
                else:
                    next_block = None
                for slot in block.dead:
                    vals[slot] = None
        finally:
            self.frame = saved_frame
            for region in frame.allocas:
                self.memory.free(region)
        return frame.ret

    def call_on_lanes(self, name, args, owners):
        """Runs the defined function `name` over len(owners) lanes at once, lane k acting
        for the batch's work-item owners[k] (its ids, its work-group's __local memory, the
        work-item faults name): how a reduction's combine function or a per-element
        function (coop_function_calls.py) runs over pairs or elements. Returns (n,)."""
        count = len(owners)
        saved = (self.lane_count, self.lane_ids, self.mask, self.global_addrs, self.batch_cache,
                 self.cur_lanes, self.current, self.work_group_size, self.deferring)
        # (its lanes are not the batch's: a fault in it is raised at once)
        self.deferring = False
        try:
            self.lane_ids = self.lane_ids.of_lanes(owners)
            self.global_addrs = {key: value[owners] if np.ndim(value) else value
                                 for key, value in self.global_addrs.items()}
            self.lane_count = self.work_group_size = count
            self.batch_cache, self.cur_lanes = {}, None
            self.mask = np.ones(count, bool)
            return bcast(self.call(name, list(args), self.mask), count)
        finally:
            (self.lane_count, self.lane_ids, self.mask, self.global_addrs, self.batch_cache,
             self.cur_lanes, self.current, self.work_group_size, self.deferring) = saved

    def _phis(self, block, vals, prev, bmask, full):
        # Phis of a block read their inputs simultaneously (LLVM LangRef "phi").
        new = []
        for ins in block.phis:
            res = None
            for slot, pred in ins.data:
                sel = prev == pred
                if not full:
                    sel &= bmask
                if not sel.any():
                    continue
                v = vals[slot]
                res = v if res is None else select_lanes(sel, v, res, self.lane_count)
            new.append((ins.dst, res))
        for dst, res in new:
            if res is not None:
                assign_lanes(vals, dst, res, bmask, full, self.lane_count)

    def _terminator(self, block, vals, cur, prev, bmask, full, frame):
        """Set each active lane's next block; return the next block when all lanes of a
        fully active frame go to the same one (the scheduler then skips its search)."""
        t = block.term
        op = t.op
        if op == "br":
            if len(t.data) == 1:
                target = t.data[0]
                if full:
                    cur[:] = target
                    prev[:] = block.index
                    return target
                cur[bmask] = target
                prev[bmask] = block.index
                return None
            cond = vals[t.args[0]]
            if full:
                uniform = bool(cond) if np.ndim(cond) == 0 else \
                    (True if cond.all() else False if not cond.any() else None)
                if uniform is not None:
                    target = t.data[0] if uniform else t.data[1]
                    cur[:] = target
                    prev[:] = block.index
                    return target
            tgt = bcast(np.where(cond, np.int32(t.data[0]), np.int32(t.data[1])), self.lane_count)
            cur[bmask] = tgt[bmask]
            prev[bmask] = block.index
        elif op == "switch":
            cond = np.broadcast_to(vals[t.args[0]], (self.lane_count,))
            default, values, targets = t.data
            tgt = np.full(self.lane_count, default, np.int32)
            for v, dest in zip(values, targets):
                tgt[cond == v] = dest
            cur[bmask] = tgt[bmask]
            prev[bmask] = block.index
        elif op == "ret":
            if t.args:
                v = vals[t.args[0]]
                frame.ret = v if frame.ret is None else select_lanes(bmask, v, frame.ret, self.lane_count)
            cur[bmask] = frame.nblocks
        else:
            self.fault("reached 'unreachable'", bmask)
        return None

    def _late_constant(self, const):
        key = id(const)
        v = self.batch_cache.get(key)
        if v is None:
            v = constant_value(const, self.layout, self._global_addr)
            self.batch_cache[key] = v
        return v

    def _global_addr(self, name):
        if name in self.global_addrs:
            return self.global_addrs[name]
        if name in self.module.functions:
            raise IRError(f"function pointers are not supported (@{name})")
        if name in METADATA_TABLES:
            raise IRError(f"the kernel reads @{name}, which holds nothing at run time (an "
                          f"intrinsic table of section \"llvm.metadata\", LangRef \"Intrinsic "
                          f"Global Variables\")")
        raise IRError(f"unknown global @{name}")

    # ------------------------------------------------------------------ faults
    # The work-item a fault names is the first to fault when the work-items of a launch
    # run one after another, as the native engine runs them (docs/native.md "Faults"):
    # work-groups in order; in a work-group, from barrier to barrier, its sub-groups one
    # after another, each work-item of a sub-group in local-id order up to its next
    # sub-group or matrix operation, where it waits for the others of its sub-group.
    # The lanes of a batch run in lockstep instead, so a fault is kept (`pending`) and the
    # lanes after it in that order stop (`stopped`: the faulting lane, the later lanes of
    # its work-group and the later work-groups); the others go on: the earlier work-items
    # of its work-group to their next barrier (where the stopped lanes are missing: they
    # stop there), the earlier work-groups to their end. A fault among them comes first
    # in that order and replaces the kept one. A barrier reached by part of a work-group is
    # kept the same way, after every fault of that work-group (the native engine finds it
    # when none of its work-items can go on). The batch then raises the kept fault.
    def _defer(self, err, lane, message):
        """Keep `err` (a fault of `lane`) or drop it, stop lanes; False: raise it now."""
        if not self.deferring:
            return False
        size = self.work_group_size
        group = lane // size
        first, end = group * size, (group + 1) * size
        kept = self.pending
        if any(words in message for words in _WAITING_FAULTS):
            # Work-items at a barrier, sub-group or matrix operation the others of their
            # group or sub-group have not reached: they wait there (stopped), the others go
            # on. Only when none is left is it a fault (kept): one of theirs comes first.
            # At a sub-group's operation only that sub-group waits: the earlier sub-groups,
            # whose work-items have all arrived, run it and go on to the barrier (the
            # launch order runs a work-group's sub-groups one after another between its
            # barriers: docs/native.md "Faults").
            arrived = np.zeros(self.lane_count, bool)
            arrived[first:end] = self.mask[first:end] if self.mask is not None else True
            if any(words in message for words in _SUBGROUP_WAITING_FAULTS):
                S = self.subgroup_size
                llid = self.lane_ids.llid
                arrived[first:end] &= llid[first:end] // S == llid[lane] // S
            if kept is None or kept[0] // size > group:
                self.pending = (lane, err, True)
                self._stop(end, self.lane_count)
            self._stop_lanes(arrived)
            return True
        if kept is None or kept[2] or lane < kept[0]:
            self.pending = (lane, err, False)
        self._stop(lane, self.lane_count)
        return True

    def _stop_lanes(self, lanes):
        if self.stopped is None:
            self.stopped = np.zeros(self.lane_count, bool)
        self.stopped |= lanes
        self.stops += 1

    def _stop(self, first, end):
        if self.stopped is None:
            self.stopped = np.zeros(self.lane_count, bool)
        self.stopped[first:end] = True
        self.stops += 1

    def _without_stopped(self, bmask):
        """(bmask without the stopped lanes, full), bmask None when none is left."""
        bmask = bmask & ~self.stopped
        return (bmask, False) if bmask.any() else (None, False)

    def fault(self, message, lanes_mask=None, buffer=None, lane=None, defer=True):
        """Raise a RuntimeFault naming kernel, work-item, instruction and buffer (or keep
        it and stop the lanes after it: _defer)."""
        if lane is None:
            if lanes_mask is None:
                lanes_mask = self.mask
            lane = int(np.argmax(lanes_mask)) if lanes_mask is not None and np.any(lanes_mask) else 0
        gid, lid, grp = self.lane_ids.describe(lane)
        instruction = self.current.text if self.current is not None else None
        point = self.module.debug_info.point(self.current.loc) \
            if self.current is not None and self.current.loc else None
        work_item_line = f"in work-item global id {gid} (local id {lid}, group {grp})"
        buffer_line = f"buffer: {buffer}"
        if point is not None:
            # -g: the source line replaces the IR instruction (still in .instruction).
            text = render_fault(f"kernel '{self.kernel.name}': {message}", point,
                                self.module.sources,
                                [work_item_line] + ([buffer_line] if buffer else []))
        else:
            parts = [f"kernel '{self.kernel.name}': {message}", "  " + work_item_line]
            if buffer:
                parts.append("  " + buffer_line)
            if instruction:
                where = getattr(getattr(self, "frame", None), "fn_name", None)
                parts.append(f"  instruction: {instruction}" + (f"  (in @{where})" if where else ""))
            text = "\n".join(parts)
        work_item = tuple(int(self.lane_ids.global_id(d)[lane]) for d in range(self.nd.dims))
        err = RuntimeFault(text, kernel=self.kernel.name, work_item=work_item,
                           instruction=instruction, buffer=buffer, location=point)
        if defer and self._defer(err, lane, message):
            raise _Stopped()
        raise err

    def _memory_fault(self, message, addrs, buffer, bad_mask):
        lane = None
        if self.cur_lanes is not None and bad_mask is not None:
            rows = np.asarray(bad_mask).reshape(np.shape(bad_mask)[0], -1).any(axis=1) \
                if np.ndim(bad_mask) else None
            if rows is not None and rows.size == len(self.cur_lanes) and rows.any():
                lane = int(self.cur_lanes[int(np.argmax(rows))])
        if lane is None and self.cur_lanes is not None and len(self.cur_lanes):
            lane = int(self.cur_lanes[0])     # every row faults (a write to read-only memory)
        if lane is None and self.mask is not None and np.any(self.mask):
            lane = int(np.argmax(self.mask))
        self.fault(message, buffer=buffer, lane=lane if lane is not None else 0)


class _Stopped(Exception):
    """A fault was kept and its lanes stopped (Executor._defer): the instruction runs again
    without them."""


# Faults of work-items that wait for others (a barrier, a sub-group or matrix operation):
# in the kept fault's work-group they mean its running work-items reached one.
_WAITING_FAULTS = ("barrier reached under divergent control flow",
                   "sub-group operation reached under divergent control flow",
                   "reached by only part of")
# ... those where only the sub-group waits (a workgroup-scope matrix's "part of the
# work-group" and a barrier stop the work-group).
_SUBGROUP_WAITING_FAULTS = ("sub-group operation reached under divergent control flow",
                            "reached by only part of sub-group")


class _Frame:
    __slots__ = ("vals", "ret", "allocas", "nblocks", "alloca_regions", "fn_name", "alloca_views",
                 "stored_matrices")

    def __init__(self, vals, nblocks, fn_name):
        self.vals = vals
        self.nblocks = nblocks
        self.fn_name = fn_name
        self.alloca_regions = {}
        self.alloca_views = {}
        self.stored_matrices = {}   # alloca slot -> matrix value last stored whole to it
        self.ret = None
        self.allocas = []


class _LaneIds:
    """Work-item ids of each lane of a batch (lazily computed, cached)."""

    def __init__(self, nd, first_group, group_count, subgroup_size, span=None):
        self.nd = nd
        self.first_group = first_group
        self.group_count = group_count
        self.S = subgroup_size
        self.cache = {}
        first, end = span or (0, nd.wg_size)     # the local linear ids in the batch
        self.llid = np.tile(np.arange(first, end, dtype=np.int64), group_count)
        self.group_linear = np.repeat(np.arange(first_group, first_group + group_count,
                                                dtype=np.int64), end - first)

    def of_lanes(self, lanes):
        """The ids of the work-items `lanes` (indices into this batch), as a _LaneIds."""
        view = _LaneIds.__new__(_LaneIds)
        view.nd, view.first_group, view.group_count, view.S = self.nd, self.first_group, self.group_count, self.S
        view.cache = {}
        view.llid, view.group_linear = self.llid[lanes], self.group_linear[lanes]
        return view

    def local_id(self, d):
        key = ("l", d)
        if key not in self.cache:
            lx, ly = self.nd.local_size[0], self.nd.local_size[1]
            v = (self.llid % lx, (self.llid // lx) % ly, self.llid // (lx * ly))[d]
            self.cache[key] = v
        return self.cache[key]

    def group_id(self, d):
        key = ("g", d)
        if key not in self.cache:
            nx, ny = self.nd.num_groups[0], self.nd.num_groups[1]
            g = self.group_linear
            self.cache[key] = (g % nx, (g // nx) % ny, g // (nx * ny))[d]
        return self.cache[key]

    def global_id(self, d):
        key = ("G", d)
        if key not in self.cache:
            self.cache[key] = self.group_id(d) * self.nd.local_size[d] + self.local_id(d) + \
                self.nd.offset[d]
        return self.cache[key]

    def describe(self, lane):
        gid = tuple(int(self.global_id(d)[lane]) for d in range(self.nd.dims))
        lid = tuple(int(self.local_id(d)[lane]) for d in range(self.nd.dims))
        grp = tuple(int(self.group_id(d)[lane]) for d in range(self.nd.dims))
        fmt = lambda t: "(" + ", ".join(str(x) for x in t) + ")"  # noqa: E731
        return fmt(gid), fmt(lid), fmt(grp)


