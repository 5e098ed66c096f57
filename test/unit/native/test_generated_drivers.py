"""The native engine's drivers and rendezvous functions (drivers.py, votes.py,
workgroup_collectives.py; built with native/irbuild.py), each compiled and run alone:
the plain driver around a small kernel written here (ids, arguments, arena and __local
zeroing, the work-group counter, a fault's record) against the ids counted in Python,
the votes and work-group collectives over contexts against the interpreter's NumPy
(ocl_builtins), the subgroup fast path's driver (subgroup.subgroup_driver) around a
subgroup function of its own, and the fast path's collective combine step
(collectives.combine spliced) against NumPy."""
import ctypes

import numpy as np
import pytest

from clcoop.interp import ocl_builtins
from clcoop.native import drivers, irbuild, jit, votes, workgroup_collectives
from clcoop.native.context import CTX, CTX_SLOTS, FAULT_RECORD, FAULT_RECORD_WORDS, REGION_HI, REGION_LO, \
    REGION_ROW_WORDS

_RENDEZVOUS = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)
_DRIVER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                           ctypes.c_void_p, ctypes.c_void_p)
_DECLS = ("declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
          "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\n")


def _engine(text):
    import llvmlite.binding as llvm
    jit.ensure_llvm()
    text = irbuild.loop_metadata(text)       # as codegen assembles a module (for_range's loops)
    llvm.parse_assembly(text).verify()
    return jit.Engine(text)


def _rendezvous(text, name):
    """The rendezvous function `name` of `text` (definitions) as f(contexts, first, count),
    called through an external wrapper (the definitions are internal)."""
    wrapper = (f'define i1 @run(ptr %c, i64 %f, i64 %n) {{\n  %r = call i1 @"{name}"(ptr %c, i64 %f, i64 %n)\n'
               '  ret i1 %r\n}\n')
    engine = _engine(text + "\n" + wrapper)
    f = _RENDEZVOUS(engine.address("run"))

    def call(contexts, first, count):
        assert contexts.dtype == np.int64 and contexts.shape[1] == CTX_SLOTS
        return f(contexts.ctypes.data, first, count)
    call.engine = engine
    return call


# ------------------------------------------------------------------ votes

@pytest.mark.parametrize("every", [True, False])
def test_vote_over_a_range_of_contexts(every):
    """work_group_all/any's function: 1 in coop3 of the contexts [first, first + count)
    when all (any) of their coop0 are 1; the other contexts untouched; no fault."""
    f = _rendezvous(votes.vote_function("vote", every), "vote")
    rng = np.random.default_rng(3)
    for first, count in ((0, 8), (3, 5), (8, 1), (2, 0)):
        for trial in range(6):
            contexts = np.zeros((12, CTX_SLOTS), np.int64)
            # votes.emit stores whether the predicate is not 0 (0 or 1).
            contexts[:, CTX["coop0"]] = rng.integers(0, 2, 12) if trial else 1
            contexts[:, CTX["coop3"]] = -7
            assert f(contexts, first, count) is False
            row = contexts[first:first + count, CTX["coop0"]] != 0
            want = row.all() if every else row.any()
            assert (contexts[first:first + count, CTX["coop3"]] == int(want)).all()
            outside = np.r_[0:first, first + count:12]
            assert (contexts[outside, CTX["coop3"]] == -7).all()


# ------------------------------------------------------------------ work-group collectives

_TYPES = {"i32": np.int32, "i64": np.int64, "float": np.float32, "double": np.float64}


def _collective(kind, op, T, signed):
    name = "wgc"
    text = workgroup_collectives.site_function(name, kind, op, T, signed)
    if kind == "reduce" and op == "add" and T in ("float", "double"):
        text += "\n" + workgroup_collectives.pairwise_function(T)
    return _rendezvous(text, name)


def _values(dtype, signed, n, rng):
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal(n).astype(dtype) * dtype(1000)
        x[rng.integers(0, n, max(1, n // 10))] = dtype(-0.0)
        return x
    dt = dtype if signed else np.dtype(dtype).str.replace("i", "u")
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)


def _as_slots(x):
    """Values stored in the low bytes of int64 context slots (as the kernel stores them)."""
    slots = np.zeros(len(x), np.int64)
    slots.view(np.uint8).reshape(len(x), 8)[:, :x.itemsize] = x.view(np.uint8).reshape(len(x), x.itemsize)
    return slots


def _from_slots(slots, dtype):
    size = np.dtype(dtype).itemsize
    return np.ascontiguousarray(slots.view(np.uint8).reshape(len(slots), 8)[:, :size]).view(dtype).reshape(-1)


# Float and/or/xor are refused (workgroup_collectives.unsupported).
_COLLECTIVES = [(op, kind, T, signed) for op in ("add", "mul", "min", "max", "and", "or", "xor")
                for kind in ("reduce", "scan_inclusive", "scan_exclusive")
                for T, signed in (("i32", True), ("i32", False), ("i64", True), ("float", True), ("double", True))
                if not (T in ("float", "double") and op in ("and", "or", "xor"))]


@pytest.mark.parametrize("op, kind, T, signed", _COLLECTIVES)
def test_collective_over_a_work_group_of_contexts(op, kind, T, signed):
    """Each reduction and scan bit for bit as the interpreter's _reduce/_scan over a
    (1, W) table (NumPy's pairwise float sum past 8 and 128 values, np.minimum's NaN
    rule, unsigned compares), W from 1 to 300, over contexts [first, first + W)."""
    f = _collective(kind, op, T, signed)
    dtype = _TYPES[T]
    rng = np.random.default_rng(hash((op, kind, T, signed)) % 1000)
    for W in (1, 5, 8, 37, 128, 300):
        x = _values(dtype, signed, W, rng)
        if np.dtype(dtype).kind == "f" and op in ("min", "max") and W > 4:
            x[W // 2] = np.nan
        first = 2
        contexts = np.zeros((W + 4, CTX_SLOTS), np.int64)
        contexts[first:first + W, CTX["coop0"]] = _as_slots(x)
        assert f(contexts, first, W) is False
        got = _from_slots(contexts[first:first + W, CTX["coop3"]].copy(), x.dtype)
        table = x.reshape(1, W)
        with np.errstate(over="ignore", invalid="ignore"):
            want = _interpreters(op, kind, table)
        assert np.array_equal(got.view(f"u{x.itemsize}"), want.view(f"u{x.itemsize}")), (W, got, want)
        assert (contexts[[0, 1, first + W], CTX["coop3"]] == 0).all()


def _interpreters(op, kind, table):
    """The interpreter's results for a (1, W) table (ocl_builtins._work_group_collective)."""
    if kind == "reduce":
        return np.repeat(ocl_builtins._reduce(op, table, axis=1), table.shape[1]).astype(table.dtype)
    scan = ocl_builtins._scan(op, table)
    if kind == "scan_exclusive":
        identity = ocl_builtins._identity(op, table.dtype)
        scan = np.concatenate([np.full((1, 1), identity, table.dtype), scan[:, :-1]], axis=1)
    return scan.reshape(-1).astype(table.dtype)


@pytest.mark.parametrize("T", ["i32", "float", "half"])
def test_broadcast_reads_the_floor_modulo_id(T):
    """work_group_broadcast: each work-item gets the value of the work-item whose linear id
    (coop1) floor-mod W it names, negative and past-the-end ids included."""
    f = _rendezvous(workgroup_collectives.site_function("bc", "broadcast", None, T, True), "bc")
    dtype = {"i32": np.int32, "float": np.float32, "half": np.float16}[T]
    W, first = 12, 3
    x = (np.arange(W) * 3 - 7).astype(dtype)
    ids = np.array([0, 11, 12, -1, -13, 5, 1 << 40, -(1 << 40), 7, 2, 24, -24], np.int64)
    contexts = np.zeros((W + first, CTX_SLOTS), np.int64)
    contexts[first:, CTX["coop0"]] = _as_slots(x)
    contexts[first:, CTX["coop1"]] = ids
    assert f(contexts, first, W) is False
    got = _from_slots(contexts[first:, CTX["coop3"]].copy(), dtype)
    assert np.array_equal(got, x[ids % W])


# ------------------------------------------------------------------ the plain driver

class _Ty:
    """A kernel parameter type as codegen's plans hold them (kind, bits, IR text)."""

    def __init__(self, text, kind, bits=None):
        self.text, self.kind, self.bits = text, kind, bits

    def __str__(self):
        return self.text


class _Plan:
    def __init__(self, local_rows=()):
        self.name, self.driver = "k", "__clcoop_run.k"
        self.params = [(_Ty("ptr addrspace(1)", "ptr"), 0, 8), (_Ty("i1", "int", 1), 16, 1),
                       (_Ty("i32", "int", 32), 32, 4)]
        self.local_rows = list(local_rows)
        self.coop_sites = []


_RECORD = 10      # words a work-item writes: its ids, arguments, arena byte, __local byte


def _kernel_ir():
    """void k(ctx, out, flag, v): writes its record at out[(group * W + llid) * _RECORD];
    reads and dirties its arena's first byte and the __local region's; the work-item whose
    linear id in the launch equals ctx[detail11] faults (site 4, its details set)."""
    s = CTX
    loads = "\n".join(f"  %p.{n} = getelementptr i64, ptr %ctx, i64 {s[n]}\n  %{n} = load i64, ptr %p.{n}"
                      for n in ("grp0", "grp1", "grp2", "lid0", "lid1", "lid2", "llid", "ngrp0", "ngrp1", "wg_size",
                                "detail11", "table"))
    return f"""
define void @k(ptr %ctx, ptr addrspace(1) %out1, i1 %flag, i32 %v) {{
entry:
{loads}
  %out = addrspacecast ptr addrspace(1) %out1 to ptr
  %g1 = mul i64 %grp2, %ngrp1
  %g2 = add i64 %g1, %grp1
  %g3 = mul i64 %g2, %ngrp0
  %g = add i64 %g3, %grp0
  %gw = mul i64 %g, %wg_size
  %item = add i64 %gw, %llid
  %base = mul i64 %item, {_RECORD}
  %rec = getelementptr i64, ptr %out, i64 %base
  %fl = zext i1 %flag to i64
  %vv = sext i32 %v to i64
  %p.priv = getelementptr i64, ptr %ctx, i64 {s["priv"]}
  %arena = load ptr, ptr %p.priv
  %ab = load i8, ptr %arena
  %abw = zext i8 %ab to i64
  store i8 9, ptr %arena
  %tab = inttoptr i64 %table to ptr
  %lop = getelementptr i64, ptr %tab, i64 {REGION_ROW_WORDS + REGION_LO}
  %lo = load i64, ptr %lop
  %lp = inttoptr i64 %lo to ptr
  %lb = load i8, ptr %lp
  %lbw = zext i8 %lb to i64
  store i8 7, ptr %lp
  %values = insertvalue [10 x i64] undef, i64 %grp0, 0
  %v1 = insertvalue [10 x i64] %values, i64 %grp1, 1
  %v2 = insertvalue [10 x i64] %v1, i64 %grp2, 2
  %v3 = insertvalue [10 x i64] %v2, i64 %lid0, 3
  %v4 = insertvalue [10 x i64] %v3, i64 %lid1, 4
  %v5 = insertvalue [10 x i64] %v4, i64 %lid2, 5
  %v6 = insertvalue [10 x i64] %v5, i64 %fl, 6
  %v7 = insertvalue [10 x i64] %v6, i64 %vv, 7
  %v8 = insertvalue [10 x i64] %v7, i64 %abw, 8
  %v9 = insertvalue [10 x i64] %v8, i64 %lbw, 9
  store [10 x i64] %v9, ptr %rec
  %bad = icmp eq i64 %item, %detail11
  br i1 %bad, label %fault, label %ok
fault:
{chr(10).join(f"  %f.{n} = getelementptr i64, ptr %ctx, i64 {s[n]}{chr(10)}  store i64 {v}, ptr %f.{n}"
              for n, v in (("fault", 4), ("fault_kind", 2), ("fault_addr", 1234), ("fault_size", 4),
                           ("fault_region", 9), ("detail0", 77)))}
  ret void
ok:
  ret void
}}
"""


class _Launch:
    """What a driver run alone reads (plain attributes): the records buffer the test kernels
    write (out), the argument block (args: out's address, an i1, an i32 -5), the __local
    buffer (its region row in `table`), the abort flag, the group counter and the context
    template (tmpl) of a launch of `groups` work-groups of `local` work-items."""

    def __init__(self, groups, local, chunk, fault_at, **slots):
        self.ngroups, self.wg = int(np.prod(groups)), int(np.prod(local))
        self.out = np.full(self.ngroups * self.wg * _RECORD, -1, np.int64)
        self.args = np.zeros(48, np.uint8)
        self.args[0:8].view(np.int64)[0] = self.out.ctypes.data
        self.args[16] = 1
        self.args[32:36].view(np.int32)[0] = -5
        self.local_buf = np.full(16, 0xFF, np.uint8)
        self.table = np.zeros(2 * REGION_ROW_WORDS, np.int64)
        self.table[REGION_ROW_WORDS + REGION_LO] = self.local_buf.ctypes.data
        self.table[REGION_ROW_WORDS + REGION_HI] = self.local_buf.ctypes.data + self.local_buf.size
        self.abort, self.counter = np.zeros(1, np.int64), np.zeros(1, np.int64)
        self.tmpl = np.zeros(CTX_SLOTS, np.int64)
        for name, value in (("wg_size", self.wg), ("ngrp0", groups[0]), ("ngrp1", groups[1]),
                            ("ngrp2", groups[2]), ("lsize0", local[0]), ("lsize1", local[1]),
                            ("lsize2", local[2]), ("table", self.table.ctypes.data),
                            ("abort", self.abort.ctypes.data), ("next_group", self.counter.ctypes.data),
                            ("group_chunk", chunk), ("steps", 99), ("detail11", fault_at), *slots.items()):
            self.tmpl[CTX[name]] = value
        self.fout = np.zeros(FAULT_RECORD_WORDS, np.int64)

    def run(self, driver, count, arena):
        driver(self.args.ctypes.data, self.tmpl.ctypes.data, 0, count, arena.ctypes.data, self.fout.ctypes.data)
        return self.out.reshape(self.ngroups * self.wg, _RECORD), self.fout, int(self.abort[0]), self.local_buf


def _expected_ids(n, groups, local):
    """[group id x, y, z, local id x, y, z] of the work-item of launch linear id n, counted in
    Python (work-groups and their work-items in linear order)."""
    g, l = divmod(n, int(np.prod(local)))
    return [g % groups[0], g // groups[0] % groups[1], g // (groups[0] * groups[1]),
            l % local[0], l // local[0] % local[1], l // (local[0] * local[1])]


def _run_plain(groups, local, count=None, chunk=3, fault_at=-1):
    """The plain driver of _Plan over `groups` work-groups of `local` work-items: (records by
    launch linear id, fout, abort flag, the __local buffer)."""
    plan = _Plan(local_rows=[1])
    engine = _engine(drivers.plain_driver(plan) + "\n" + _kernel_ir() + _DECLS)
    launch = _Launch(groups, local, chunk, fault_at, priv_size=16)
    arena = np.full(64, 0xEE, np.uint8)
    return launch.run(_DRIVER(engine.address(plan.driver)), launch.ngroups if count is None else count, arena)


@pytest.mark.parametrize("groups, local", [((5, 1, 1), (4, 1, 1)), ((3, 2, 2), (4, 2, 1)), ((2, 3, 1), (1, 2, 3))])
def test_plain_driver_runs_every_work_item_once_in_linear_order(groups, local):
    """Every work-group of the launch once (taken in chunks from the counter), in each the
    work-items with the ids of linear order (group ids in linear order, the 1-D launch's
    shortcut included), the arguments from the argument block (an i1 from its byte), the
    arena and the kernel's __local region zeroed before each work-item / work-group."""
    records, fout, aborted, _ = _run_plain(groups, local)
    assert fout[0] == 0 and aborted == 0
    wg = int(np.prod(local))
    for n, rec in enumerate(records):
        l = n % wg
        assert list(rec[:6]) == _expected_ids(n, groups, local), n
        assert list(rec[6:8]) == [1, -5]
        assert rec[8] == 0                          # the arena, zeroed per work-item
        assert rec[9] == (0 if l == 0 else 7)       # __local, zeroed per work-group


def test_plain_driver_count_and_first_bound_the_groups():
    """Only the groups [first, first + count) run (count 0: none)."""
    records, fout, _, local_buf = _run_plain((6, 1, 1), (2, 1, 1), count=4)
    ran = (records[:, 0] != -1).reshape(6, 2).all(axis=1)
    assert list(ran) == [True] * 4 + [False] * 2
    records, _, _, local_buf = _run_plain((6, 1, 1), (2, 1, 1), count=0)
    assert (records == -1).all() and (local_buf == 0xFF).all()


def test_plain_driver_records_a_fault_and_stops():
    """A work-item's fault: fout holds [site + 1, kind, address, group, local linear id,
    size, region, arena, details], the abort flag is set and no later work-item runs."""
    groups, local = (4, 1, 1), (3, 1, 1)
    records, fout, aborted, _ = _run_plain(groups, local, chunk=1, fault_at=7)
    assert aborted == 1
    record = dict(zip(FAULT_RECORD, fout))
    assert record == dict(site=4, kind=2, address=1234, group=2, item=1, size=4, region=9, arena=record["arena"])
    assert record["arena"] != 0
    details = fout[len(FAULT_RECORD):]
    assert details[0] == 77 and details[11] == 7
    assert (records[8:, 0] == -1).all() and (records[:8, 0] != -1).all()


# ------------------------------------------------------------------ the subgroup driver

def _subgroup_kernel_ir(S, lanes):
    """void k.sg(ctx, out, flag, v): the subgroup function of S lanes; lane j (j < lanes:
    those whose contexts the driver fills) reads context j and writes its record as _kernel_ir
    does; lane 0 also records the steps slot (the driver zeroes it) and the fault (site 4)
    when its launch linear id equals ctx[detail11]."""
    s, slot = CTX, CTX_SLOTS * 8
    lines = ["define void @\"k.sg\"(ptr %ctx0, ptr addrspace(1) %out1, i1 %flag, i32 %v) {", "entry:",
             "  %out = addrspacecast ptr addrspace(1) %out1 to ptr", "  %fl = zext i1 %flag to i64",
             "  %vv = sext i32 %v to i64"]
    for j in range(lanes):
        lines.append(f"  %c{j} = getelementptr i8, ptr %ctx0, i64 {j * slot}")
        for n in ("grp0", "grp1", "grp2", "lid0", "lid1", "lid2", "llid", "ngrp0", "ngrp1", "wg_size", "table"):
            lines += [f"  %p.{n}.{j} = getelementptr i64, ptr %c{j}, i64 {s[n]}",
                      f"  %{n}.{j} = load i64, ptr %p.{n}.{j}"]
        lines += [f"  %g1.{j} = mul i64 %grp2.{j}, %ngrp1.{j}", f"  %g2.{j} = add i64 %g1.{j}, %grp1.{j}",
                  f"  %g3.{j} = mul i64 %g2.{j}, %ngrp0.{j}", f"  %g.{j} = add i64 %g3.{j}, %grp0.{j}",
                  f"  %gw.{j} = mul i64 %g.{j}, %wg_size.{j}", f"  %item.{j} = add i64 %gw.{j}, %llid.{j}",
                  f"  %base.{j} = mul i64 %item.{j}, {_RECORD}",
                  f"  %rec.{j} = getelementptr i64, ptr %out, i64 %base.{j}",
                  f"  %tab.{j} = inttoptr i64 %table.{j} to ptr",
                  f"  %lop.{j} = getelementptr i64, ptr %tab.{j}, i64 {REGION_ROW_WORDS + REGION_LO}",
                  f"  %lo.{j} = load i64, ptr %lop.{j}", f"  %lp.{j} = inttoptr i64 %lo.{j} to ptr",
                  f"  %lb.{j} = load i8, ptr %lp.{j}", f"  %lbw.{j} = zext i8 %lb.{j} to i64"]
        values = [f"%{n}.{j}" for n in ("grp0", "grp1", "grp2", "lid0", "lid1", "lid2")] + \
            ["%fl", "%vv", "%steps" if j == 0 else "0", f"%lbw.{j}"]
        if j == 0:
            lines += [f"  %p.steps = getelementptr i64, ptr %c0, i64 {s['steps']}", "  %steps = load i64, ptr %p.steps",
                      "  store i64 5, ptr %p.steps"]
        for k, v in enumerate(values):
            lines += [f"  %w{k}.{j} = getelementptr i64, ptr %rec.{j}, i64 {k}", f"  store i64 {v}, ptr %w{k}.{j}"]
    for j in range(lanes):
        lines.append(f"  store i8 7, ptr %lp.{j}")
    lines += [f"  %p.d11 = getelementptr i64, ptr %c0, i64 {s['detail11']}", "  %d11 = load i64, ptr %p.d11",
              "  %bad = icmp eq i64 %item.0, %d11", "  br i1 %bad, label %fault, label %ok", "fault:",
              f"  %pf = getelementptr i64, ptr %c0, i64 {s['fault']}", "  store i64 4, ptr %pf", "  ret void",
              "ok:", "  ret void", "}"]
    return "\n".join(lines) + "\n"


def _run_subgroup(groups, local, S, lane_contexts=True, chunk=2, fault_at=-1):
    """subgroup.subgroup_driver of _Plan around _subgroup_kernel_ir: (records by launch linear
    id, fout, abort flag, the __local buffer)."""
    from clcoop.native import subgroup
    plan = _Plan(local_rows=[1])
    lanes = S if lane_contexts else 1
    engine = _engine(subgroup.subgroup_driver(plan, S, lane_contexts) + "\n" + _subgroup_kernel_ir(S, lanes) + _DECLS)
    launch = _Launch(groups, local, chunk, fault_at)
    return launch.run(_DRIVER(engine.address(subgroup.driver_name(plan.name))), launch.ngroups,
                      np.zeros(8, np.uint8))


# Group shapes with more than BAND groups along dimension 0 (a short last band), 2-D and
# 3-D launches, rows of one and of several subgroups.
@pytest.mark.parametrize("groups, local, S", [((9, 3, 1), (8, 1, 1), 4), ((6, 2, 2), (4, 3, 1), 4),
                                              ((1, 1, 1), (8, 2, 2), 8), ((5, 1, 1), (2, 2, 1), 2)])
def test_subgroup_driver_runs_every_subgroup_once(groups, local, S):
    """subgroup.subgroup_driver: every work-group once (in its banded order), in each every
    subgroup once with lane j's ids those of work-item s + j in linear order (ids against
    Python's count), the arguments from the argument block, the steps slot zeroed before
    each call, the kernel's __local region zeroed at the start of each work-group."""
    records, fout, aborted, _ = _run_subgroup(groups, local, S)
    assert fout[0] == 0 and aborted == 0
    wg = int(np.prod(local))
    for n, rec in enumerate(records):
        l = n % wg
        assert list(rec[:6]) == _expected_ids(n, groups, local), n
        assert list(rec[6:8]) == [1, -5]
        if l % S == 0:
            assert rec[8] == 0                      # steps, zeroed before each subgroup
        assert rec[9] == (0 if l < S else 7), n     # __local, zeroed per work-group


def test_subgroup_driver_fills_only_lane_zero_without_lane_contexts():
    """lane_contexts=False: only lane 0's context is set (the others are never read): the
    records of the first lanes of every subgroup, none of the others."""
    groups, local, S = (3, 2, 1), (8, 1, 1), 4
    records, fout, aborted, _ = _run_subgroup(groups, local, S, lane_contexts=False)
    assert fout[0] == 0 and aborted == 0
    ran = records[:, 0] != -1
    assert list(np.flatnonzero(ran) % S) == [0] * (len(records) // S)
    first = records[ran]
    assert list(first[:, 3]) == [0, 4] * 6 and list(first[:, 0]) == [0, 0, 1, 1, 2, 2] * 2


def test_subgroup_driver_stops_at_a_fault():
    """A fault in the subgroup function: fout[0] = 1 (runtime.py re-runs the launch on the
    per-work-item path), the abort flag set, no later subgroup of that thread runs."""
    groups, local, S = (4, 1, 1), (8, 1, 1), 4
    records, fout, aborted, _ = _run_subgroup(groups, local, S, chunk=1, fault_at=12)
    assert fout[0] == 1 and aborted == 1 and (fout[1:] == 0).all()
    ran = records[:, 0] != -1
    assert ran[:16].all() and not ran[16:].any()


def test_fault_record_reads_the_driver_record_by_name():
    """runtime.fault_record reads the plain driver's fault out by context.FAULT_RECORD's names
    (drivers.fault_out writes it so), the detail words after them; _launch_order is
    (work-group, work-item)."""
    from clcoop.native import runtime
    from clcoop.native.context import DETAIL_SLOTS
    _, fout, _, _ = _run_plain((4, 1, 1), (3, 1, 1), chunk=1, fault_at=7)
    record, details = runtime.fault_record(fout)
    assert {k: v for k, v in record.items() if k != "arena"} == \
        dict(site=4, kind=2, address=1234, group=2, item=1, size=4, region=9)
    assert all(type(v) is int for v in record.values()) and record["arena"] != 0
    assert len(details) == DETAIL_SLOTS and details[0] == 77 and details[11] == 7
    assert runtime._launch_order(fout) == (2, 1)


# ------------------------------------------------------------------ the sub-group combine

_COMBINE_TYPES = {"i8": (np.int8, ctypes.c_int8), "i32": (np.int32, ctypes.c_int32),
                  "i64": (np.int64, ctypes.c_int64), "float": (np.float32, ctypes.c_float),
                  "double": (np.float64, ctypes.c_double)}


def _spliced_combine(op, T, signed):
    """collectives.Emitter.combine's lines (the builder spliced in place) in a function
    T f(T a, T b) of their own, compiled."""
    from clcoop.native import collectives
    lines, names = [], iter(range(100))
    emitter = collectives.Emitter(lambda stem: f"%__{stem}{next(names)}", lines)
    out = emitter.combine(op, T, signed, "%a", "%b")
    text = f"define {T} @f({T} %a, {T} %b) {{\n" + "\n".join(lines) + f"\n  ret {T} {out}\n}}\n"
    engine = _engine(text)
    ctype = _COMBINE_TYPES[T][1]
    f = ctypes.CFUNCTYPE(ctype, ctype, ctype)(engine.address("f"))
    f.engine = engine
    return f


# Float and/or/xor are refused (collectives.unsupported_type).
_COMBINES = [(op, T, signed) for op in ("add", "mul", "min", "max", "and", "or", "xor")
             for T, signed in (("i8", True), ("i8", False), ("i32", True), ("i32", False), ("i64", False),
                               ("float", True), ("double", True))
             if not (T in ("float", "double") and op in ("and", "or", "xor"))]


@pytest.mark.parametrize("op, T, signed", _COMBINES)
def test_subgroup_combine_as_numpy(op, T, signed):
    """The fast path's combine (collectives.Emitter.combine, collectives.combine spliced):
    bit for bit NumPy's op of the interpreter's dtype on edge values: np.minimum/np.maximum's
    NaN rule (either operand NaN: NaN) and -0.0/+0.0 order, unsigned compares, wrapping."""
    dtype = _COMBINE_TYPES[T][0]
    if np.dtype(dtype).kind == "f":
        edge = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 3e38, -1e-40], dtype)
    else:
        info = np.iinfo(dtype)
        edge = np.array([0, 1, -1, info.min, info.max, 77, -100 % (info.max + 1)], dtype)
    f = _spliced_combine(op, T, signed)
    view = dtype if signed or np.dtype(dtype).kind == "f" else np.dtype(dtype).str.replace("i", "u")
    ufunc = {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
             "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    for a in edge:
        for b in edge:
            with np.errstate(all="ignore"):
                want = np.array(ufunc(np.array(a).view(view), np.array(b).view(view))).astype(view).view(dtype)
            got = np.array(f(a.item(), b.item()), dtype)
            assert got.tobytes() == want.tobytes(), (a, b)
