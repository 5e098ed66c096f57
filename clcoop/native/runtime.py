"""Launching natively compiled kernels (docs/native.md).

The caller's arguments go through every engine's checks and conversions (clcoop/prepare.py),
mapped by native/engine.py: writable buffers are the caller's arrays, with backups the caller
copies back when the launch fails (docs/native.md, "Safety"). The region table given to native code lists every buffer the
kernel may touch; the generated checks compare each access with it.
Work-groups run on every core: a launch is one foreign call into the worker pool
(pool.py), and each thread runs the kernel's driver on chunks of work-groups.
"""
import collections
import functools
import threading
import time

import numpy as np

from clcoop.errors import RuntimeFault
from clcoop.ir.memory import describe_offset
from clcoop.ir.source_map import render_fault
from clcoop.native import codegen, interrupt, packed_loads, pool, ranges, subgroup
from clcoop.native import context
from clcoop.native.context import CTX, CTX_SLOTS, REGION_LOCAL, REGION_ROW_WORDS, REGION_WRITABLE
from clcoop.native.support import WorkItemPathUnavailable
from clcoop.native import bit_ops_ir



def default_threads():
    """Threads a launch may use: every CPU the process may run on (its affinity mask, as
    taskset or a container's cpuset sets it), with no fixed cap. Read at each launch (about
    a microsecond), so a mask changed while running is followed."""
    return max(1, pool.usable_cpus())


# A launch estimated to take less than this on one thread runs on one (_threads_for).
SMALL_LAUNCH_SECONDS = 2e-3

# Once both thread counts of a kernel are measured, every this many launches use the one
# measured slower, to measure it again (_threads_for).
PROBE_EVERY = 8

# Launches per thread count whose wall times _threads_for compares (the least of them).
RECENT_LAUNCHES = 4

# Fewest lanes worth a build of their own for launches with narrow rows (_narrower).
MIN_NARROW_LANES = 4

# The launch API's default sub-group size: the size cooperative-matrix kernels are compiled
# for first (engine="auto" decides with it); other sizes are compiled when launched.
COMPILED_SUBGROUP_SIZE = 16


class NativeProgram:
    """The native build of a loaded module: which kernels compiled, and why not."""

    def __init__(self, module, subgroup_size=None, max_lanes=None):
        from clcoop.native.jit import Engine
        self.module = module
        # Cooperative-matrix kernels are compiled for one sub-group size (their layout);
        # a launch at another size builds the module again for it (_for_subgroup_size).
        self.subgroup_size = subgroup_size or COMPILED_SUBGROUP_SIZE
        self._other_sizes = {}
        # Builds whose fast path runs fewer lanes (_narrower), by lane count.
        self._narrower_builds = {}
        fast_path = functools.partial(subgroup.generate, max_lanes=max_lanes) if max_lanes else subgroup.generate
        t0 = time.perf_counter()
        self.native = codegen.generate(module, sorted(module.kernels), self.subgroup_size, fast_path)
        self.codegen_seconds = time.perf_counter() - t0
        self.engine = None
        self.compile_seconds = 0.0
        # Kernels whose per-work-item path is compiled only when a launch first needs it
        # (_deferrable): the engine built now holds their fast paths alone.
        self.deferred = set()
        self._work_item_engine = None
        self._work_item_error = None
        self._work_item_lock = threading.Lock()
        if self.native.plans:
            t0 = time.perf_counter()
            self.deferred = self._deferrable()
            try:
                self.engine = Engine(self.native.text_without(self.native.plans[k].driver for k in self.deferred))
            except RuntimeError as exc:
                # LLVM rejected the generated module: an engine bug. Without the fast
                # paths (subgroup.py), the kernels still run natively; else reported per kernel.
                error = f"internal: the generated module did not compile ({str(exc).strip()[:300]})"
                self.deferred = set()
                if any(plan.subgroup_driver for plan in self.native.plans.values()):
                    self.native = codegen.generate(module, sorted(module.kernels), self.subgroup_size)
                    for plan in self.native.plans.values():
                        plan.subgroup_reason = error
                    try:
                        self.engine = Engine(self.native.text)
                    except RuntimeError as again:
                        error = f"internal: the generated module did not compile ({str(again).strip()[:300]})"
                if self.engine is None:
                    for name in list(self.native.plans):
                        self.native.reasons[name] = error
                    self.native.plans.clear()
            self.compile_seconds = time.perf_counter() - t0
        self.drivers = {}
        self.subgroup_drivers = {}    # kernel -> the subgroup-wide fast path (subgroup.py)
        # Per kernel: launches the fast path completed, and launches it gave back to the
        # per-work-item path (a fault, or a case it does not take at run time).
        self.fast_launches = {}
        self.fast_reruns = {}
        # Per kernel: launches run on the caller's arrays, proven fault-free (ranges.py).
        self.in_place_launches = {}
        # Per kernel: the parameters of which its last launch made padded copies for the
        # fast path's loads (packed_loads.py).
        self.packed_params = {}
        self._ranges = ranges.ModuleRanges(module, self.native.named)
        # Per kernel: {threads: wall seconds per work-group of its last launches on that many
        # threads (RECENT_LAUNCHES)} (_threads_for).
        self._group_seconds = {}
        self._launch_counts = {}      # per kernel, launches since both counts were measured
        self.wide_kernels = set()     # kernels whose last launch asked for several threads
        # Launches in progress: close() waits for them (their threads call into the
        # engine's code, which close() frees).
        self._users = 0
        self._users_lock = threading.Lock()
        if self.engine is not None:
            pool.get().reserve(default_threads() - 1)
            for name, plan in self.native.plans.items():
                # Addresses of the drivers (pool's clcoop_launch calls them).
                if name not in self.deferred:
                    self.drivers[name] = self.engine.address(plan.driver)
                if plan.subgroup_driver:
                    self.subgroup_drivers[name] = self.engine.address(plan.subgroup_driver)

    def reason(self, kernel_name):
        """None when the kernel runs natively, else why it does not."""
        if self.engine is not None and self.engine.closed:
            return "the native engine was closed"
        if kernel_name in self.drivers or kernel_name in self.deferred:
            return None
        return self.native.reasons.get(kernel_name, "not compiled")

    def execution_mode(self, kernel_name, subgroup_size=None):
        """'subgroup' when the kernel has the subgroup-wide fast path (taken at launch when
        the work-group size is a multiple of the subgroup size), 'work-item' when it runs
        work-item by work-item, None when it does not run natively."""
        if self.reason(kernel_name) is not None:
            return None
        S = subgroup_size or self.subgroup_size
        plan = self.native.plans[kernel_name]
        try:
            program = self if S == self.subgroup_size or not (plan.coop_sites or plan.work_item_reason) \
                else self._for_subgroup_size(S, self.module.kernels[kernel_name])
        except WorkItemPathUnavailable:
            return None       # its launches at this size run in the interpreter
        return "subgroup" if kernel_name in program.subgroup_drivers else "work-item"

    def in_place_reason(self, kernel_name):
        """None when launches of the kernel may be proven fault-free (ranges.py), else why
        they never are."""
        return self.reason(kernel_name) or self._ranges.kernel(kernel_name).reason

    def proves_in_place(self, info, nd, scalars, buffers, instruction_limit):
        """True when the launch cannot fault (ranges.py): it may run on the caller's arrays.
        scalars, buffers: native/engine.py's proof_facts."""
        if self.reason(info.name) is not None:
            return False
        return self._ranges.kernel(info.name).proves(nd, scalars, buffers, int(instruction_limit)) is True

    def prewake(self, kernel_name):
        """Called as a launch of the kernel begins: when its last launch asked for several
        threads, the pool's sleeping workers are woken now, so that they are spinning when
        the launch's Python steps are done (a wake-up takes 50-100 us on this machine's
        virtual CPUs, a third of a short launch)."""
        if kernel_name in self.wide_kernels:
            pool.get().wake()

    def close(self):
        # Waits for the launches in progress by polling: close is rare, a launch must not
        # pay for a condition variable's notify (Python code) on every return.
        while True:
            with self._users_lock:
                if not self._users:
                    self.drivers.clear()
                    self.subgroup_drivers.clear()
                    for engine in (self.engine, self._work_item_engine):
                        if engine is not None:
                            engine.close()
                    break
            time.sleep(0.001)
        for other in list(self._other_sizes.values()) + list(self._narrower_builds.values()):
            other.close()

    def plan_launch(self, info, prepared, instruction_limit, threads=None):
        """The native state of a prepared launch (LaunchPlan; prepared: engine.MappedLaunch), on
        the build that runs it (this one, one for another sub-group size, or a narrower one).
        It holds the addresses of the caller's arrays, not the arrays: it may be run again for
        a launch with the same sizes and the same arrays (native/engine.py's launch cache)."""
        with self._users_lock:
            if self.engine is None or self.engine.closed:
                raise RuntimeError("the native engine was closed")
        plan = self.native.plans[info.name]
        nd, S, memory, call_args = prepared.nd, prepared.subgroup_size, prepared.memory, prepared.call_args
        if (plan.coop_sites or plan.work_item_reason) and S != self.subgroup_size:
            # Matrices' layouts and collectives' lanes depend on the sub-group size.
            return self._for_subgroup_size(S, info).plan_launch(info, prepared, instruction_limit, threads)
        narrower = self._narrower(info, plan, nd, S)
        if narrower is not None:
            return narrower.plan_launch(info, prepared, instruction_limit, threads)
        fast = self.subgroup_drivers.get(info.name)
        if fast is not None and not subgroups_in_rows(nd, S, self.subgroup_size, plan.subgroup_lanes):
            fast = None
        if fast is None and plan.work_item_reason:
            raise WorkItemPathUnavailable(f"kernel '{info.name}': {plan.work_item_reason}, and this "
                                          f"launch does not take that path ({_fast_path_condition(nd, plan)})")
        total = nd.total_groups
        most = 1 if plan.single_thread else max(1, min(threads or default_threads(), total))
        psz = (plan.arena_size + 15) // 16 * 16
        arena_items = nd.wg_size if plan.coroutine else 1
        lp = LaunchPlan()
        lp.build, lp.info, lp.nd, lp.total, lp.threads = self, info, nd, total, threads
        lp.in_place, lp.limit = prepared.in_place, int(instruction_limit)
        lp.subgroup_size = S
        lp.scratch = np.zeros(self.native.scratch_bytes, np.uint8)
        lp.abort = np.zeros(1, np.int64)
        tmpl = _launch_template(nd.dims, nd.global_size, nd.local_size, nd.offset, S, psz, lp.limit).copy()
        tmpl[CTX["scratch"]] = lp.scratch.ctypes.data
        tmpl[CTX["abort"]] = lp.abort_address = lp.abort.ctypes.data
        # Each thread's __local memory, region table, argument block and template (one,
        # shared, when the kernel has no __local memory).
        buffers = _buffer_regions(info, memory, call_args)
        # Padded copies of read-only matrix operands the fast path's loads may read
        # (packed_loads.py; made afresh at each run: _run).
        lp.packs = packed_loads.launch_packs(plan.packed_loads if fast is not None else (), len(info.params),
                                             buffers, call_args, total, most)
        if lp.packs is not None:
            tmpl[CTX["packs"]] = lp.packs.address
        lp.states = [self._thread_state(info, plan, buffers, call_args, tmpl)
                     for _ in range(most if plan.uses_local else 1)]
        lp.arenas = [np.zeros(psz * arena_items + 16, np.uint8) for _ in range(most)]
        lp.fouts = [np.zeros(context.FAULT_RECORD_WORDS, np.int64) for _ in range(most)]
        lp.next_group = np.zeros(1, np.int64)
        for state in lp.states:
            state.tmpl[CTX["next_group"]] = lp.next_group.ctypes.data
        lp.fast = fast
        lp.block = launch_block(lp, self.native.scratch_bytes, psz * arena_items + 16)
        lp.block_address = lp.block.ctypes.data
        return lp

    def run_plan(self, lp, restart):
        """Run a planned launch (plan_launch) from the start; raise RuntimeFault on a fault.
        restart(): puts the launch's written buffers back as the caller passed them (before
        the fast path's launch runs again on the per-work-item path)."""
        with self._users_lock:
            if self.engine is None or self.engine.closed:
                raise RuntimeError("the native engine was closed")
            self._users += 1
        try:
            self.packed_params[lp.info.name] = lp.packs.params() if lp.fast is not None and lp.packs else ()
            lp.build._run(lp, restart)
            # Launches of a kernel that last asked for several threads wake the pool's
            # workers first (prewake).
            if lp.asked > 1:
                self.wide_kernels.add(lp.info.name)
            else:
                self.wide_kernels.discard(lp.info.name)
            if lp.in_place:
                self.in_place_launches[lp.info.name] = self.in_place_launches.get(lp.info.name, 0) + 1
        finally:
            with self._users_lock:
                self._users -= 1

    # ------------------------------------------------------------------ launch
    def _run(self, lp, restart):
        info, nd, total = lp.info, lp.nd, lp.total
        self._limit = lp.limit
        plan = self.native.plans[info.name]
        nthreads = lp.asked = self._threads_for(info.name, plan, total, lp.threads)
        # (A launch starts from zeroed arenas and scratch, as a launch planned anew does:
        # pool's clcoop_launch zeroes them.)
        if lp.fast is not None:
            # The subgroup-wide fast path (subgroup.py). It reports no fault itself: on any
            # failed check the launch starts again from the caller's arrays on the
            # per-work-item path, which reports it exactly.
            started = time.perf_counter()
            if lp.packs:
                lp.packs.refresh(nthreads)
            if not _run_driver(lp.fast, lp, nthreads):
                self.fast_launches[info.name] = self.fast_launches.get(info.name, 0) + 1
                self._record_wall(info.name, nthreads, total, time.perf_counter() - started)
                return
            if lp.in_place:
                raise RuntimeError(f"internal: kernel '{info.name}': a launch proven fault-free "
                                   f"(ranges.py) failed a check of the fast path while running on the "
                                   f"caller's arrays")
            self.fast_reruns[info.name] = self.fast_reruns.get(info.name, 0) + 1
            if plan.work_item_reason:
                raise WorkItemPathUnavailable(f"kernel '{info.name}': {plan.work_item_reason}, and this "
                                              f"launch failed a check of that path")
            restart()
        driver = self._work_item_driver(info.name)
        started = time.perf_counter()
        fouts = _run_driver(driver, lp, nthreads)
        self._record_wall(info.name, nthreads, total, time.perf_counter() - started)
        # Every buffer the native code saw (args, table, scratch, abort, tmpl) is alive
        # until here: the threads have joined.
        if fouts:
            # The threads' faults: the first in launch order (work-group, then work-item).
            k, first = min(fouts, key=lambda kf: _launch_order(kf[1]))
            state = lp.states[k if len(lp.states) > 1 else 0]
            psz = (plan.arena_size + 15) // 16 * 16
            arena = (lp.arenas[k].ctypes.data, psz, nd.wg_size if plan.coroutine else 1)
            fault = self._fault(info, nd, first, state.names, state.table, arena, lp.subgroup_size)
            if lp.in_place:
                raise RuntimeError(f"internal: a launch proven fault-free (ranges.py) faulted while "
                                   f"running on the caller's arrays: {fault}")
            raise fault

    def _threads_for(self, name, plan, total, threads):
        """Threads for a launch of `total` work-groups: one when the kernel must (its
        __local memory could not be made per thread); `threads` when given; else the cores
        (at most one per work-group), unless launches of this kernel are short: waking
        another core costs 50-100 us on this machine (a virtual CPU), more than it saves on
        a launch of a few hundred. A kernel whose launches on all cores (two) took less
        than SMALL_LAUNCH_SECONDS tries one thread; from then on the count with the lower wall
        time per work-group is used (the least of its last RECENT_LAUNCHES launches: a
        launch is only ever slowed by what else runs, such as the page faults of a first
        write to fresh arrays or another process, and one such launch must not decide),
        and every PROBE_EVERY launches the other count once more, so that the choice
        follows the machine."""
        if plan.single_thread:
            return 1
        cores = max(1, min(threads or default_threads(), total))
        if threads is not None or cores == 1:
            return cores
        recent = self._group_seconds.get(name, {})
        if 1 in recent and cores in recent:
            best, other = (1, cores) if min(recent[1]) <= min(recent[cores]) else (cores, 1)
            count = self._launch_counts[name] = self._launch_counts.get(name, 0) + 1
            return other if count % PROBE_EVERY == 0 else best
        # Two launches on all cores first: a kernel's first launch pays the first writes to
        # fresh arrays (page faults: 5 ms of the vector add's 0.5), which later ones do not.
        if cores in recent and len(recent[cores]) >= 2 and min(recent[cores]) * total < SMALL_LAUNCH_SECONDS:
            return 1
        return cores

    def _record_wall(self, name, nthreads, total, seconds):
        """Keeps a launch's wall time per work-group for _threads_for."""
        recent = self._group_seconds.setdefault(name, {})
        if nthreads not in recent:
            recent[nthreads] = collections.deque(maxlen=RECENT_LAUNCHES)
        recent[nthreads].append(seconds / total)

    def _thread_state(self, info, plan, buffers, call_args, tmpl):
        """One thread's view of a launch: its __local buffers (arguments and kernel-scope
        variables), the region table and argument block that point at them, and the
        context template that points at that table."""
        locals_ = {i: np.zeros(max(a.nbytes, 1), np.uint8) for i, a in enumerate(call_args)
                   if info.params[i][1].kind == "ptr" and info.params[i][1].addrspace == 3}
        state = ThreadState()
        state.locals = locals_
        state.local_globals = {}
        state.names, state.table = self._region_table(info, buffers, locals_, state.local_globals)
        state.args = self._arg_block(plan, buffers, call_args, locals_)
        state.tmpl = tmpl.copy()
        state.tmpl[CTX["table"]] = state.table.ctypes.data
        state.tmpl[CTX["table_count"]] = state.table.shape[0]
        state.args_address, state.tmpl_address = state.args.ctypes.data, state.tmpl.ctypes.data
        return state

    def _narrower(self, info, plan, nd, S):
        """The build to launch a kernel whose fast path runs more lanes than the launch's
        rows hold (a 16 x 16 work-group of a 64-lane kernel): one built with the most lanes
        that fit (at least MIN_NARROW_LANES), else None (this build: the fast path, or
        the per-work-item path when no lane count fits)."""
        if info.name not in self.subgroup_drivers or not plan.lanes_free or \
                subgroups_in_rows(nd, S, self.subgroup_size, plan.subgroup_lanes):
            return None
        lanes = plan.subgroup_lanes // 2
        while lanes >= MIN_NARROW_LANES and not subgroups_in_rows(nd, S, self.subgroup_size, lanes):
            lanes //= 2
        if lanes < MIN_NARROW_LANES:
            return None
        if lanes not in self._narrower_builds:
            other = NativeProgram(self.module, self.subgroup_size, max_lanes=lanes)
            # One kernel's counts, whichever build ran it.
            other.fast_launches, other.fast_reruns = self.fast_launches, self.fast_reruns
            self._narrower_builds[lanes] = other
        other = self._narrower_builds[lanes]
        if info.name not in other.subgroup_drivers or other.native.plans[info.name].subgroup_lanes != lanes:
            return None
        return other

    def _for_subgroup_size(self, S, info):
        if S not in self._other_sizes:
            self._other_sizes[S] = NativeProgram(self.module, S)
        other = self._other_sizes[S]
        compiled = other.reason(info.name) is None
        if not compiled and self.native.plans[info.name].work_item_reason:
            raise WorkItemPathUnavailable(f"kernel '{info.name}' at sub-group size {S}: "
                                          f"{other.reason(info.name)}")
        if not compiled:
            # The layout cannot hold a matrix of the kernel at this size, or another reason:
            # the interpreter would report it as a fault at the operation.
            raise RuntimeFault(f"kernel '{info.name}': not compiled natively at sub-group size {S}: "
                               f"{other.reason(info.name)}", kernel=info.name)
        return other

    def _deferrable(self):
        """Kernels whose per-work-item driver can wait for the first launch that needs it:
        those with a fast path (most launches need nothing else; the per-work-item path is
        for faults, launches the fast path does not take, and about two thirds of a build's
        LLVM time). Not when the region table would hold addresses in the engine (a
        program-scope variable, a __local one reached by address): the engine built later
        has its own copies, which a table made for the first would not describe."""
        if any(self._global_in_engine(gname) for gname in self.native.globals):
            return set()
        return {name for name, plan in self.native.plans.items() if plan.subgroup_driver}

    def _global_in_engine(self, gname):
        """Whether the global `gname` has its storage in the engine (its region-table row,
        _region_table, holds an address there), not in a buffer of the launch."""
        gv = self.module.globals[gname]
        if gv.addrspace == 3:
            return not self.native.local_per_thread
        return gv.init is not None

    def _work_item_driver(self, name):
        """The address of the kernel's per-work-item driver; a deferred one (_deferrable) is
        compiled now, with every other deferred kernel's, as a module of its own (the fast
        paths left out). WorkItemPathUnavailable when LLVM rejects that module: the launch
        then runs in the interpreter (an engine bug, reported as the engine's fallback)."""
        driver = self.drivers.get(name)
        if driver is not None:
            return driver
        with self._work_item_lock:
            if self._work_item_engine is None and self._work_item_error is None:
                self._build_work_item_path()
        if name not in self.drivers:
            raise WorkItemPathUnavailable(f"kernel '{name}': {self._work_item_error}")
        return self.drivers[name]

    def _build_work_item_path(self):
        from clcoop.native.jit import Engine
        plans = self.native.plans
        internal = [plan.subgroup_driver for plan in plans.values() if plan.subgroup_driver]
        internal += [plan.driver for name, plan in plans.items() if name not in self.deferred]
        t0 = time.perf_counter()
        try:
            engine = Engine(self.native.text_without(internal))
        except RuntimeError as exc:
            self._work_item_error = (f"internal: the per-work-item path did not compile "
                                     f"({str(exc).strip()[:300]})")
            return
        finally:
            self.compile_seconds += time.perf_counter() - t0
        with self._users_lock:
            self._work_item_engine = engine
            for name in self.deferred:
                self.drivers[name] = engine.address(plans[name].driver)

    def _region_table(self, info, buffers, locals_, local_globals):
        """Rows [lo, hi, writable]: the program's globals, then the kernel's parameters.
        __local variables get buffers of their own (kept in local_globals) when the module
        reaches them per thread (local_memory.py)."""
        names, rows = [], []
        for gname in self.native.globals:
            gv = self.module.globals[gname]
            if gv.init is None and gv.addrspace != 3:
                names.append(None)
                rows.append((0, 0, 0))
                continue
            size = self.module.layout.size(gv.ty)
            if self._global_in_engine(gname):
                addr = self.engine.global_address(gname)
            else:       # a __local variable each thread has its own of (local_memory.py)
                local_globals[gname] = np.zeros(max(size, 1), np.uint8)
                addr = local_globals[gname].ctypes.data
            if gv.addrspace == 3:
                # __local: zeroed by the driver at the start of every work-group (flag 2).
                names.append(f"__local {gname}")
                rows.append((addr, addr + size, REGION_WRITABLE | REGION_LOCAL))
                continue
            names.append(f"global variable @{gname}")
            rows.append((addr, addr + size, 0 if gv.constant else REGION_WRITABLE))
        for i, (pname, ptype) in enumerate(info.params):
            if i in locals_:
                lo = locals_[i].ctypes.data
                names.append(f"{buffers[i]} (__local)")
                rows.append((lo, lo + locals_[i].size, REGION_WRITABLE | REGION_LOCAL))
            elif ptype.kind == "ptr":
                region, lo = buffers[i]
                names.append(region.name)
                rows.append((lo, lo + region.size, REGION_WRITABLE if region.writable else 0))
            else:
                names.append(None)
                rows.append((0, 0, 0))
        # (lo, hi, flags): context.REGION_LO, REGION_HI, REGION_FLAGS
        table = np.array(rows, np.int64).reshape(-1, REGION_ROW_WORDS)
        return names, np.ascontiguousarray(table)

    def _arg_block(self, plan, buffers, call_args, locals_):
        block = np.zeros(plan.arg_block_size + 16, np.uint8)
        for i, ((t, off, size), arg) in enumerate(zip(plan.params, call_args)):
            if i in locals_:
                raw = np.int64(locals_[i].ctypes.data).tobytes()
            elif t.kind == "ptr":
                raw = np.int64(buffers[i][1]).tobytes()
            elif t.kind == "int" and t.bits == 1:
                raw = bytes([1 if bool(arg) else 0])
            else:
                raw = np.asarray(arg).tobytes()
            if len(raw) != size:
                raise RuntimeError(f"internal: argument of {size} bytes packed as {len(raw)}")
            block[off:off + size] = np.frombuffer(raw, np.uint8)
        return block

    # ------------------------------------------------------------------ faults
    def _checked_region(self, code, priv, names, table):
        """(name, lo, hi) of the region a failed check was against (its region code:
        runtime_ir.py, __clcoop_fault_in; `priv` is the faulting work-item's arena), or
        None when the pointer was in no region and came from none the check knew."""
        if 0 < code <= len(names) and names[code - 1] is not None:
            lo, hi, _ = (int(x) for x in table[code - 1])
            return names[code - 1], lo, hi
        if code < 0 and -1 - code in self.native.private_names:
            name, size = self.native.private_names[-1 - code]
            lo = priv + (-1 - code)
            return name, lo, lo + size
        return None

    def _other_private(self, addr, llid, arena):
        """The name of the private array of another work-item of the group that `addr`
        points into (arena: the thread's arenas' address, each one's size, how many: one per
        work-item of the group for kernels with barriers), or None."""
        if arena is None or not self.native.private_names:
            return None
        base, psz, items = arena
        rel = addr - base
        if psz <= 0 or not 0 <= rel < psz * items or rel // psz == llid:
            return None
        offset = rel % psz
        below = [off for off in self.native.private_names if off <= offset]
        return self.native.private_names[max(below) if below else min(self.native.private_names)][0]

    def _fault(self, info, nd, fout, names, table, arena=None, subgroup_size=None):
        record, details = fault_record(fout)
        site = self.native.sites[record["site"] - 1]
        kind, addr, group, llid = record["kind"], record["address"], record["group"], record["item"]
        size, code, priv = record["size"], record["region"], record["arena"]
        buffer = None
        what = {context.FAULT_READ: "read", context.FAULT_WRITE: "write",
                context.FAULT_ATOMIC: "atomic"}.get(kind, site.what)
        region = self._checked_region(code, priv, names, table)
        other = self._other_private(addr, llid, arena) if region is None else None
        if region is None and other is None and kind in (context.FAULT_READ, context.FAULT_WRITE,
                                                         context.FAULT_ATOMIC):
            region = _nearest_buffer(addr, names, table)
        if other is not None and kind in (context.FAULT_READ, context.FAULT_WRITE, context.FAULT_ATOMIC,
                                          context.FAULT_FREED):
            # The interpreter's words (memory.Memory._object_fault).
            message, buffer = f"{what} through a pointer to another work-item's private memory ('{other}')", other
        elif kind in (context.FAULT_READ, context.FAULT_WRITE, context.FAULT_ATOMIC):
            message, buffer = _describe_bad(addr, size, what, region, site.dtype)
        elif kind == context.FAULT_MISALIGNED:
            buffer = region[0] if region else None
            if region is not None and site.dtype is not None:
                dtype = np.dtype(site.dtype)
                message = f"misaligned {site.what} of {dtype.name} at {_offset_words(region, addr, dtype)}"
            else:
                message = f"misaligned {site.what} of {site.size} bytes at address {addr:#x}"
        elif kind == context.FAULT_READONLY:
            buffer = region[0] if region else None
            # (a matrix store's site is its operation's: the interpreter says "write")
            message = f"{'atomic' if site.what == 'atomic' else 'write'} to read-only memory"
        elif kind == context.FAULT_FREED:
            message = (f"{site.what} through an invalid pointer {addr:#x} (no buffer there, or "
                       f"it was freed)")
        elif kind == context.FAULT_BARRIER and getattr(site, "workgroup_size", None):
            # A workgroup-scope matrix operation reached by part of the work-group (the
            # driver's count of those waiting there, and the first that finished):
            # coop_calls.Subgroups._partial_message's words.
            inactive = code if code >= 0 else addr
            message = (f"cooperative matrix operation {site.operation} on a workgroup-scope matrix reached by "
                       f"only part of the work-group ({size} of {site.workgroup_size} work-items active; e.g. "
                       f"local linear id {inactive} is not): it must be executed in uniform control flow "
                       f"(SPV_KHR_cooperative_matrix: all invocations of the scope must be active)")
        elif kind == context.FAULT_BARRIER and site.what in context.SUBGROUP_VOTES:
            # A sub-group vote reached by part of its sub-group (votes.py): check_convergence's
            # words, naming a work-item that is not there.
            inactive = code if code >= 0 else addr
            message = (f"{site.what}: sub-group operation reached under divergent control flow: work-item "
                       f"{_fmt(_ids(nd, group, inactive)[0], nd)} of the sub-group is not active")
        elif kind == context.FAULT_BARRIER and getattr(site, "operation", None) and subgroup_size:
            # A matrix operation reached by part of a sub-group: the words of
            # clcoop/interp/coop_calls.py (Subgroups._partial_message).
            inactive = code if code >= 0 else addr
            message = (f"cooperative matrix operation {site.operation} reached by only part of sub-group "
                       f"{llid // subgroup_size} ({size} of {subgroup_size} work-items active; e.g. local "
                       f"linear id {inactive} is not): it must be executed in uniform control flow "
                       f"(SPV_KHR_cooperative_matrix: all invocations of the scope must be active)")
        elif kind == context.FAULT_BARRIER:
            arrived = _ids(nd, group, llid)[0]
            if addr >= 0:
                missing = _ids(nd, group, addr)[0]
                # (site.what: "barrier", or the work-group vote's name, as check_convergence's)
                message = (f"{site.what}: barrier reached under divergent control flow: work-item "
                           f"{_fmt(arrived, nd)} arrived but work-item {_fmt(missing, nd)} of "
                           f"the same work-group did not")
            else:
                message = ("barrier: work-items of one work-group wait at different barriers "
                           "(divergent control flow)")
        elif kind == context.FAULT_COOP:
            message = _coop_fault_message(addr, size, site, llid, details, code, subgroup_size)
        elif kind == context.FAULT_DIVZERO:
            message = "integer division by zero"
        elif kind == context.FAULT_BIT_FIELD:
            message = bit_ops_ir.fault_message(site, addr, size)
        elif kind == context.FAULT_LIMIT:
            message = (f"instruction limit of {self._limit} exceeded (runaway loop?); raise it "
                       f"with instruction_limit=")
        else:
            message = "reached 'unreachable'"
        gid, lid, grp = _ids(nd, group, llid)
        fmt = lambda t: "(" + ", ".join(str(x) for x in t[:nd.dims]) + ")"  # noqa: E731
        notes = [f"in work-item global id {fmt(gid)} (local id {fmt(lid)}, group {fmt(grp)})"]
        if buffer:
            notes.append(f"buffer: {buffer}")
        debug = self.native.debug_info
        point = debug.point(site.dbg) if debug is not None and site.dbg else None
        if point is not None:
            # -g: the source line replaces the IR instruction, as in the interpreter.
            text = render_fault(f"kernel '{info.name}': {message}", point, self.module.sources, notes)
        else:
            text = "\n".join([f"kernel '{info.name}': {message}"] + [f"  {note}" for note in notes] +
                             [f"  instruction: {site.text}  (in @{site.function})"])
        return RuntimeFault(text, kernel=info.name, work_item=tuple(gid[:nd.dims]),
                            instruction=site.text, buffer=buffer, location=point)


def fault_record(fout):
    """(the fault record's words by their context.FAULT_RECORD names, as ints; its detail
    words) of a driver's fault out (drivers.fault_out writes it in that layout)."""
    names = context.FAULT_RECORD
    return {name: int(word) for name, word in zip(names, fout[:len(names)])}, \
        fout[len(names):context.FAULT_RECORD_WORDS]


def _launch_order(fout):
    """A fault record's place in launch order: (work-group, work-item)."""
    record, _ = fault_record(fout)
    return record["group"], record["item"]


def subgroups_in_rows(nd, S, compiled_S, lanes):
    """The launch condition of the subgroup-wide fast path (subgroup.py): the lanes run in
    lockstep (the subgroup, or WIDE_LANES work-items where nothing observes the subgroup,
    then any S) are full and lie in one row of dimension 0, their global ids in dimension 0
    a multiple of the lane count plus the lane."""
    if lanes == compiled_S and S != compiled_S:
        return False
    return nd.local_size[0] % lanes == 0 and nd.offset[0] % lanes == 0


@functools.lru_cache(maxsize=64)
def _launch_template(dims, global_size, local_size, offset, S, psz, limit):
    """The context template's slots that depend only on the launch's sizes (kept for the
    next launches of the same sizes; the caller copies it before filling in the rest)."""
    tmpl = np.zeros(CTX_SLOTS, np.int64)
    tmpl[CTX["limit"]] = limit
    tmpl[CTX["work_dim"]] = dims
    tmpl[CTX["sg_size"]] = S
    tmpl[CTX["priv_size"]] = psz
    tmpl[CTX["wg_size"]] = local_size[0] * local_size[1] * local_size[2]
    for d in range(3):
        tmpl[CTX[f"gsize{d}"]] = global_size[d]
        tmpl[CTX[f"lsize{d}"]] = local_size[d]
        tmpl[CTX[f"ngrp{d}"]] = global_size[d] // local_size[d]
        tmpl[CTX[f"off{d}"]] = offset[d]
    tmpl.flags.writeable = False
    return tmpl


def _buffer_regions(info, memory, call_args):
    """Per kernel parameter: (region, its data's address) for a __global/__constant buffer,
    the argument's name for a __local one, None for a scalar (looked up once per launch:
    every thread's table and argument block use them)."""
    out = []
    for (_, ptype), arg in zip(info.params, call_args):
        if ptype.kind != "ptr":
            out.append(None)
        elif ptype.addrspace == 3:
            out.append(arg.name)
        else:
            region = memory.region_at(int(arg))
            out.append((region, region.data.ctypes.data))
    return out


def _fast_path_condition(nd, plan):
    """Why subgroups_in_rows refused a launch, in the user's terms."""
    return (f"it needs work-groups whose size in dimension 0 ({nd.local_size[0]}) and global "
            f"offset ({nd.offset[0]}) are multiples of {plan.subgroup_lanes}")


class ThreadState:
    """What one thread's driver reads (runtime._thread_state); plain attributes."""


class LaunchPlan:
    """A launch's native state (NativeProgram.plan_launch; plain attributes): the build
    that runs it, the kernel, its NDRange and work-group count, the thread count asked for,
    whether it runs on the caller's arrays (in_place) and the instruction limit; the
    threads' states and arenas, the scratch area and the abort flag; the fast path's
    driver, or None when the launch does not take it."""


def thread_states(lp, nthreads):
    """The state of each of nthreads threads running a launch: its own when the kernel has
    __local memory, else one shared."""
    return lp.states[:nthreads] if len(lp.states) > 1 else lp.states * nthreads


def _run_driver(driver, lp, nthreads):
    """Runs the launch's work-groups [0, lp.total) with the driver at address `driver` on
    up to nthreads threads (pool.py: one foreign call, which resets the launch's state
    first), each with its state (shared when the kernel has no __local memory) and arena;
    [(thread, fault record)] of the threads that faulted ([] when none did).
    KeyboardInterrupt when Ctrl-C stopped it (interrupt.py: the caller restores the
    written buffers, as for a fault)."""
    # The abort flag is zeroed here, before Ctrl-C is armed, not by the pool's reset inside
    # the launch: a SIGINT between the two would be wiped out, and the launch would run to
    # its end before the KeyboardInterrupt (test_native_interrupt).
    lp.abort[0] = 0
    armed = interrupt.arm(lp.abort_address)
    try:
        lp.ran_threads, faulted = pool.get().launch(lp.block_address, driver, nthreads)
    finally:
        stopped = interrupt.disarm(armed)
    if stopped:
        raise KeyboardInterrupt
    if not faulted:
        return []
    return [(k, f) for k, f in enumerate(lp.fouts[:lp.ran_threads]) if f[0]]


def launch_block(lp, scratch_bytes, arena_bytes):
    """The launch's block (pool.py): its counters, scratch and arenas to reset, and the
    argument block, template, arena and fault record of each of its threads."""
    states = thread_states(lp, len(lp.arenas))
    calls = [(state.args_address, state.tmpl_address, lp.arenas[k].ctypes.data, lp.fouts[k].ctypes.data)
             for k, state in enumerate(states)]
    return pool.launch_block(lp.total, lp.next_group.ctypes.data, lp.scratch.ctypes.data,
                             scratch_bytes, arena_bytes, CTX["group_chunk"], calls)


def _fmt(t, nd):
    return "(" + ", ".join(str(x) for x in t[:nd.dims]) + ")"


def _ids(nd, group, llid):
    nx, ny = nd.num_groups[0], nd.num_groups[1]
    grp = (group % nx, (group // nx) % ny, group // (nx * ny))
    lx, ly = nd.local_size[0], nd.local_size[1]
    lid = (llid % lx, (llid // lx) % ly, llid // (lx * ly))
    gid = tuple(grp[d] * nd.local_size[d] + lid[d] + nd.offset[d] for d in range(3))
    return gid, lid, grp


# How far outside a buffer a pointer that no check could attribute is still named as that
# buffer's overrun (_nearest_buffer): a tile or row running past the end reaches a few KiB,
# a wild pointer (an integer made into one) is almost never that close to a buffer.
NEAR_BUFFER_BYTES = 1 << 16


def _nearest_buffer(addr, names, table):
    """(name, lo, hi) of the launch's buffer nearest to `addr`, when `addr` lies within
    NEAR_BUFFER_BYTES before or after it; else None. For a pointer whose buffer no check
    knew (its provenance lost: it went through private memory at -O0) and that points into
    no buffer: the interpreter names the nearest buffer too (Memory._describe_bad, within
    its 4 GiB gaps), so a tile that runs one past the end of its buffer is "out of bounds
    of 'A'" in both engines, not an "invalid pointer" natively."""
    best = None
    for name, row in zip(names, table):
        if name is None:
            continue
        lo, hi = int(row[0]), int(row[1])
        distance = lo - addr if addr < lo else max(0, addr - hi)
        if distance < NEAR_BUFFER_BYTES and (best is None or distance < best[0]):
            best = (distance, (name, lo, hi))
    return best[1] if best else None


def _describe_bad(addr, size, what, region, dtype=None):
    """The interpreter's words (clcoop/ir/memory.py, Memory._describe_bad) for an access
    outside `region` (name, lo, hi), the region its pointer came from; None: it came from
    none the check knew, and points into none (an invalid pointer, not a guess). With the
    element dtype, at the first element outside the region, as the interpreter, which
    checks element by element."""
    if addr == 0:
        return f"{what} through a null pointer", None
    if region is not None:
        name, lo, hi = region
        if dtype is not None:
            first_bad = hi if lo <= addr < hi else addr
            where = _offset_words(region, first_bad, np.dtype(dtype))
            return f"out-of-bounds {what} of {np.dtype(dtype).name} at {where}", name
        return (f"out-of-bounds {what} of {size} bytes at byte offset {addr - lo} of buffer "
                f"'{name}' ({hi - lo} bytes)"), name
    return f"{what} through an invalid pointer {addr:#x} (no buffer there, or it was freed)", None


class _Region:
    """What memory.describe_offset reads of a region."""

    def __init__(self, name, base, size):
        self.name, self.base, self.size = name, base, size


def _offset_words(region, addr, dtype):
    """addr in region (name, lo, hi) as the interpreter words it (memory.describe_offset):
    an element of dtype, or a byte offset, of the named buffer and its size."""
    name, lo, hi = region
    return describe_offset(_Region(name, lo, hi - lo), addr, dtype)


def _coop_fault_message(code, stride=0, site=None, llid=0, detail=(), first=0, subgroup_size=None):
    """Words FAULT_COOP's sub-codes (coop_routines.NON_UNIFORM, ...) as the interpreter's
    clcoop/interp/coop_calls.py, coopmat.py and coopmat2.py do (a stride fault's word is the
    stride, a coordinate's the index, a partial sub-group's its count; a non-uniform
    operand's the differing value, and `first`, the fault's region word, the sub-group's
    first work-item's)."""
    from clcoop.native import coop_routines, tensor_routines
    if code >= tensor_routines.FIRST_CODE:
        return tensor_routines.fault_message(code, stride, site, detail)
    S = subgroup_size
    if code == coop_routines.PARTIAL_SUBGROUP and S and getattr(site, "operation", None):
        # coop_calls.Subgroups._partial_message (the fault's work-item is the sub-group's first)
        return (f"cooperative matrix operation {site.operation} in sub-group {llid // S}, which has only "
                f"{stride} of {S} work-items (the work-group size is not a multiple of the sub-group size {S})")
    operand = {coop_routines.NON_UNIFORM_POINTER: "pointer", coop_routines.NON_UNIFORM_LAYOUT: "layout",
               coop_routines.NON_UNIFORM_STRIDE: "stride"}.get(code)
    if operand is not None:
        # (coop_calls.Subgroups.uniform; a pointer's values are addresses, which differ
        # between the engines by construction)
        group = "work-group" if getattr(site, "workgroup_size", None) else "sub-group"
        return (f"cooperative matrix operation {site.operation}: operand '{operand}' must be uniform "
                f"across the {group} but differs between work-items (e.g. {first} and {stride})")
    if code == coop_routines.COORD_INDEX:
        S = site.subgroup_size
        return (f"coop_mat_get_coord index {stride} is outside the matrix's {site.matrix_length} "
                f"components (work-item {llid % S} of subgroup {llid // S})")
    return {coop_routines.PARTIAL_SUBGROUP: "cooperative matrix operation in a sub-group with fewer "
                                         "work-items than the sub-group size (the work-group size "
                                         "is not a multiple of it)",
            coop_routines.NEGATIVE_LOAD_STRIDE: f"cooperative matrix load with negative stride {stride} "
                                             "(Stride must be >= 0 for OpCooperativeMatrixLoadKHR)",
            coop_routines.STORE_STRIDE: f"cooperative matrix store with stride {stride} (Stride must be "
                                     "greater than 0 for OpCooperativeMatrixStoreKHR)"}.get(
        code, "cooperative matrix operation fault")
