"""Per-kernel drivers (docs/native.md, "Execution model"): a generated function that runs
work-groups taken from an atomic counter and, in each, the work-items in linear local-id
order; kernels with barriers run as coroutines advanced barrier by barrier.

Built with llvmlite.ir through irbuild's helpers (docs/native.md, "How generated code is
built"): the context slots and region rows are reached by their context.py names only.
The subgroup-wide fast path's own driver (subgroup.subgroup_driver) is built from the
shared pieces below (load_arguments, one_dim, group_head, group_ids, zero_locals,
next_local_id)."""
import llvmlite.ir as ir

from clcoop.native import irbuild
from clcoop.native.context import CTX_SLOTS, DETAIL_SLOTS, FAULT_BARRIER, FAULT_RECORD, REGION_HI, REGION_LO
from clcoop.native.coop_routines import WORKGROUP_PREFIX
from clcoop.native.irbuild import I1, I8, I64, PTR, context_slot, icmp, load_slot, region_word, store_atomic

VOID = ir.VoidType()
CONTEXT_BYTES = CTX_SLOTS * 8
# void driver(args, ctx template, first group, group count, arena, fault out): the
# signature runtime.py calls (runtime._run_driver, the pool's calls table).
LAUNCH_PARAMS = ((PTR, "args"), (PTR, "tmpl"), (I64, "first"), (I64, "count"), (PTR, "priv"), (PTR, "fout"))
# A fault's record: context.FAULT_RECORD; a divergent barrier's: [site + 1, FAULT_BARRIER,
# the first work-item done or -1, group, the first suspended, how many wait there in its
# sub-group (work-group), the first that does not].


def _i64(n):
    return ir.Constant(I64, n)


def _launch(name):
    """(function, builder, launch parameters by name) of a driver @name (external: runtime.py
    looks its address up)."""
    fn, b = irbuild.define(name, VOID, list(LAUNCH_PARAMS), inline=False)
    fn.linkage = ""
    return fn, b, {arg.name: arg for arg in fn.args}


def _blocks(b, *names):
    """Blocks placed where the code reaches them (irbuild.place), named now."""
    return {name: irbuild.new_block(b, name) for name in names}


def _memcpy(b, dst, src, size):
    irbuild.call(b, "llvm.memcpy.p0.p0.i64", VOID, [dst, src, size, ir.Constant(I1, 0)])


def _memset(b, dst, size):
    irbuild.call(b, "llvm.memset.p0.i64", VOID, [dst, ir.Constant(I8, 0), size, ir.Constant(I1, 0)])


def _store_slot(b, ctx, slot, value, name=None):
    b.store(value, context_slot(b, ctx, slot, name))


def _load_ptr_slot(b, ctx, slot, name):
    """The pointer a context slot holds (the abort flag, the group counter)."""
    return b.load(context_slot(b, ctx, slot), name=name, typ=PTR)


def _handle(b, handles, index, name):
    """Coroutine handle number `index` (its pointer, its value)."""
    p = b.gep(handles, [index], source_etype=PTR, name=f"{name}p")
    return b.load(p, name=name, typ=PTR)


# ------------------------------------------------------------------ shared pieces

def load_arguments(b, plan, args):
    """The kernel's arguments loaded from the argument block (plan.params: type, offset)."""
    values = []
    for i, (t, off, _) in enumerate(plan.params):
        p = b.gep(args, [_i64(off)], source_etype=I8, name=f"ap{i}")
        if t.kind == "int" and t.bits == 1:
            values.append(b.trunc(b.load(p, name=f"ab{i}", typ=I8, align=1), I1, name=f"a{i}"))
        else:
            values.append(b.load(p, name=f"a{i}", typ=irbuild.value_type(str(t)), align=1))
    return values


def one_dim(b, ngrp1, ngrp2):
    """Whether the launch has one work-group in dimensions 1 and 2 (group_ids)."""
    return b.and_(icmp(b, "eq", ngrp1, _i64(1), "oned1"), icmp(b, "eq", ngrp2, _i64(1), "oned2"), name="oned")


def next_local_id(b, x, y, z, lsize0, lsize1, p="", step=1):
    """The local ids of the next work-item in linear order (step > 1: of the first lane of
    the next subgroup of `step` work-items within a row, subgroup.subgroup_driver): counted
    up, since a division per work-item costs more than a small kernel."""
    x1 = b.add(x, _i64(step), name=f"{p}x1")
    xwrap = icmp(b, "eq", x1, lsize0, f"{p}xwrap")
    xn = b.select(xwrap, _i64(0), x1, name=f"{p}xn")
    y1 = b.add(y, _i64(1), name=f"{p}y1")
    yinc = b.select(xwrap, y1, y, name=f"{p}yinc")
    ywrap = icmp(b, "eq", yinc, lsize1, f"{p}ywrap")
    yn = b.select(ywrap, _i64(0), yinc, name=f"{p}yn")
    z1 = b.add(z, _i64(1), name=f"{p}z1")
    zn = b.select(ywrap, z1, z, name=f"{p}zn")
    return xn, yn, zn


def group_head(b, first, count, tmpl, nextp, abp, done, after):
    """Takes the next work-group %g of [first, first + count): chunks of tmpl[group_chunk]
    consecutive groups from the atomic counter nextp shared by the threads (dynamic balance
    without returning to Python; one atomic per group made two threads slower than one on
    small groups: the counter's cache line went back and forth); to `done` when none is
    left or another thread faulted (abp), else to `after`. Returns (the loop's head block
    `group`, g)."""
    blk = _blocks(b, "group", "group.chunk", "group.store", "group.take", "group.body")
    end = b.add(first, count, name="end")
    chunk = load_slot(b, tmpl, "group_chunk", "gchunk")
    gcur, gend = irbuild.alloca(b, I64, 8, "gcur"), irbuild.alloca(b, I64, 8, "gend")
    b.store(_i64(0), gcur)
    b.store(_i64(0), gend)
    b.branch(blk["group"])
    irbuild.place(b, blk["group"])
    gc = b.load(gcur, name="gc", typ=I64)
    ge = b.load(gend, name="ge", typ=I64)
    b.cbranch(icmp(b, "ult", gc, ge, "ghave"), blk["group.take"], blk["group.chunk"])
    irbuild.place(b, blk["group.chunk"])
    gi = b.atomic_rmw("add", nextp, chunk, "monotonic", name="gi")
    gk0 = b.add(gi, first, name="gk0")
    b.cbranch(icmp(b, "ult", gk0, end, "gkmore"), blk["group.store"], done)
    irbuild.place(b, blk["group.store"])
    gk1 = b.add(gk0, chunk, name="gk1")
    gkend = b.select(icmp(b, "ult", gk1, end, "gkfull"), gk1, end, name="gkend")
    b.store(gk0, gcur)
    b.store(gkend, gend)
    b.branch(blk["group"])
    irbuild.place(b, blk["group.take"])
    g = b.add(gc, _i64(0), name="g")
    b.store(b.add(gc, _i64(1), name="gnext"), gcur)
    b.branch(blk["group.body"])
    irbuild.place(b, blk["group.body"])
    abv = b.load_atomic(abp, "monotonic", 8, name="abv", typ=I64)
    b.cbranch(icmp(b, "ne", abv, _i64(0), "aborted"), done, after)
    return blk["group"], g


def group_ids(b, oned, g, compute, label):
    """The group ids (gx, gy, gz) of work-group g: g, 0, 0 in a 1-D launch (oned), else those
    compute(builder) returns (up to six 64-bit divisions, a quarter of the vector add's
    driver time at local size 64), in block <label>.nd; continues in block <label>.done."""
    here = b.block
    nd, done = irbuild.new_block(b, f"{label}.nd"), irbuild.new_block(b, f"{label}.done")
    b.cbranch(oned, done, nd)
    irbuild.place(b, nd)
    computed = compute(b)
    nd_end = b.block
    b.branch(done)
    irbuild.place(b, done)
    ids = []
    for v, one, n in zip(("gx", "gy", "gz"), (g, _i64(0), _i64(0)), computed):
        phi = b.phi(I64, name=v)
        phi.add_incoming(one, here)
        phi.add_incoming(n, nd_end)
        ids.append(phi)
    return ids


def linear_ids(g, ngrp0, ngrp1):
    """group_ids' compute in linear order (dimension 0 fastest), as the interpreter numbers
    the work-groups."""
    def compute(b):
        gx = b.urem(g, ngrp0, name="gx.n")
        gq = b.udiv(g, ngrp0, name="gq")
        return gx, b.urem(gq, ngrp1, name="gy.n"), b.udiv(gq, ngrp1, name="gz.n")
    return compute


def zero_locals(b, table, rows, prefix):
    """Zeroes the kernel's __local regions (rows: their region-table rows,
    KernelPlan.local_rows) at the start of a work-group: local memory starts as zeros in
    the interpreter too. Only those rows (none: no work), not a scan of the whole table per
    work-group. Continues in block <prefix>.zdone."""
    for r in rows:
        p = f"{prefix}.r{r}"
        lo = b.load(region_word(b, table, r, REGION_LO, f"{p}.lop"), name=f"{p}.lo", typ=I64)
        hi = b.load(region_word(b, table, r, REGION_HI, f"{p}.hip"), name=f"{p}.hi", typ=I64)
        _memset(b, b.inttoptr(lo, PTR, name=f"{p}.p"), b.sub(hi, lo, name=f"{p}.n"))
    zdone = irbuild.new_block(b, f"{prefix}.zdone")
    b.branch(zdone)
    irbuild.place(b, zdone)


def fault_out(b, fout, ctx, fault, group, item):
    """Copies a work-item's fault to fout (context.FAULT_RECORD, then its detail slots)."""
    words = {"site": fault, "group": group, "item": item}
    slots = {"kind": "fault_kind", "address": "fault_addr", "size": "fault_size", "region": "fault_region",
             "arena": "priv"}
    fields = [(k, w) for k, w in enumerate(FAULT_RECORD)] + \
        [(len(FAULT_RECORD) + d, f"detail{d}") for d in range(DETAIL_SLOTS)]
    for k, word in fields:
        value = words.get(word)
        if value is None:
            slot = slots.get(word, word)
            value = load_slot(b, ctx, slot, f"fo.{slot}")
        b.store(value, fout if k == 0 else b.gep(fout, [_i64(k)], source_etype=I64, name=f"fo{k}"))


# ------------------------------------------------------------------ the plain driver

def plain_driver(plan):
    """void driver(args, ctx template, first group, group count, arena, fault out): the
    work-items of each work-group one after the other, each a call of the kernel."""
    fn, b, launch = _launch(plan.driver)
    ctx = irbuild.alloca(b, ir.ArrayType(I64, CTX_SLOTS), 16, "ctx")
    _memcpy(b, ctx, launch["tmpl"], _i64(CONTEXT_BYTES))
    _store_slot(b, ctx, "priv", launch["priv"])
    call_args = [ctx] + load_arguments(b, plan, launch["args"])
    wg = load_slot(b, ctx, "wg_size", "wg")
    ngx, ngy = load_slot(b, ctx, "ngrp0", "ngx"), load_slot(b, ctx, "ngrp1", "ngy")
    lx, ly = load_slot(b, ctx, "lsize0", "lx"), load_slot(b, ctx, "lsize1", "ly")
    ngz = load_slot(b, ctx, "ngrp2", "ngz")
    oned = one_dim(b, ngy, ngz)
    psz = load_slot(b, ctx, "priv_size", "psz")
    abp = _load_ptr_slot(b, ctx, "abort", "abp")
    nextp = _load_ptr_slot(b, ctx, "next_group", "nextp")
    blk = _blocks(b, "item", "item.body", "item.zero", "item.call", "item.ok", "group.next", "fault", "done")
    ids = irbuild.new_block(b, "group.ids")
    group, g = group_head(b, launch["first"], launch["count"], launch["tmpl"], nextp, abp, blk["done"], ids)
    irbuild.place(b, ids)
    gx, gy, gz = group_ids(b, oned, g, linear_ids(g, ngx, ngy), "group.ids")
    for slot, v in (("grp0", gx), ("grp1", gy), ("grp2", gz)):
        _store_slot(b, ctx, slot, v)
    tab = b.inttoptr(load_slot(b, ctx, "table", "tabi"), PTR, name="tab")
    pre = irbuild.new_block(b, "gz.pre")
    b.branch(pre)
    irbuild.place(b, pre)
    zero_locals(b, tab, plan.local_rows, "gz")
    zdone = b.block
    b.branch(blk["item"])

    irbuild.place(b, blk["item"])
    l, x, y, z = (b.phi(I64, name=n) for n in ("l", "x", "y", "z"))
    for phi in (l, x, y, z):
        phi.add_incoming(_i64(0), zdone)
    b.cbranch(icmp(b, "ult", l, wg, "lmore"), blk["item.body"], blk["group.next"])
    irbuild.place(b, blk["item.body"])
    for slot, v in (("llid", l), ("lid0", x), ("lid1", y), ("lid2", z), ("steps", _i64(0))):
        _store_slot(b, ctx, slot, v)
    b.cbranch(icmp(b, "ne", psz, _i64(0), "hasarena"), blk["item.zero"], blk["item.call"])
    irbuild.place(b, blk["item.zero"])
    _memset(b, launch["priv"], psz)
    b.branch(blk["item.call"])
    irbuild.place(b, blk["item.call"])
    irbuild.call(b, plan.name, VOID, call_args)
    fv = load_slot(b, ctx, "fault", "fv")
    b.cbranch(icmp(b, "ne", fv, _i64(0), "faulted"), blk["fault"], blk["item.ok"])
    irbuild.place(b, blk["item.ok"])
    lnext = b.add(l, _i64(1), name="lnext")
    for phi, v in zip((l, x, y, z), (lnext, *next_local_id(b, x, y, z, lx, ly))):
        phi.add_incoming(v, blk["item.ok"])
    b.branch(blk["item"])
    irbuild.place(b, blk["group.next"])
    b.branch(group)
    irbuild.place(b, blk["fault"])
    fault_out(b, launch["fout"], ctx, fv, g, l)
    store_atomic(b, _i64(1), abp, "monotonic", 8)
    b.ret_void()
    irbuild.place(b, blk["done"])
    b.ret_void()
    return irbuild.function_text(fn)


# ------------------------------------------------------------------ the coroutine driver

def coroutine_driver(plan, kernel, lanes=1, name=None, lane_contexts=True):
    """Driver of a kernel with barriers: every work-item of a group is a coroutine; the
    group advances barrier by barrier (all work-items suspended at the same barrier, then
    all resumed), and a work-item that finishes while others wait is a divergent barrier
    (OpenCL C 3.0 6.15.8: all work-items of the group must reach it).
    With lanes > 1 (the subgroup-wide fast path, subgroup.py) each coroutine is the
    subgroup function of `lanes` consecutive work-items, called with the first one's
    context (the lanes' contexts follow it; lanes other than the first read theirs only
    when lane_contexts); its faults only need fout[0] != 0."""
    d = _Coroutines(plan, kernel, lanes, name or plan.driver)
    d.start(lane_contexts)
    d.scan()
    d.check_and_resume()
    if lanes == 1 and workgroup_sites(plan):
        d.workgroup_round()
    d.destroy()
    d.faults()
    return irbuild.function_text(d.fn)


class _Coroutines:
    """The coroutine driver being built: its blocks and the values its parts share."""

    def __init__(self, plan, kernel, lanes, name):
        self.plan, self.kernel, self.lanes = plan, kernel, lanes
        self.fn, self.b, self.launch = _launch(name)
        b = self.b
        self.blk = _blocks(b, "round", "scan", "scan.body", "scan.state", "scan.next", "scan.end",
                           "check", "resume", "resume.body", "destroy", "destroy.loop", "destroy.body",
                           "destroyed", "fault", "divergent", "abandon", "abandon.loop", "abandon.body", "done")
        # The sub-group operations (matrices, votes) a work-item may wait at: each sub-group
        # is advanced through them as soon as it has been started or resumed (advance).
        self.subgroup_sites = [(site, fname) for site, fname in plan.coop_sites
                               if not fname.startswith(WORKGROUP_PREFIX)] if lanes == 1 else []
        if lanes == 1 and workgroup_sites(plan):
            self.blk["wg.pre"] = irbuild.new_block(b, "wg.pre")
            self.blk["wg.done"] = irbuild.new_block(b, "wg.done")
        # When every work-item waits at one workgroup-scope operation, its function runs
        # before all resume.
        self.next_round = self.blk["round"]
        self.agreed = self.blk.get("wg.pre", self.blk["resume"])

    def handle(self, index, name):
        return _handle(self.b, self.hs, index, name)

    def context(self, index, name):
        """Coroutine number `index`'s (first) context."""
        return irbuild.context_at(self.b, self.ctxs, index, name, self.lanes)

    def start(self, lane_contexts):
        """The entry (launch values, the contexts and handles), the work-group loop, and the
        coroutines' start; continues in %round."""
        b, tmpl = self.b, self.launch["tmpl"]
        self.call_args = load_arguments(b, self.plan, self.launch["args"])
        self.t = {f: load_slot(b, tmpl, f, f"t.{f}") for f in
                  ("wg_size", "ngrp0", "ngrp1", "ngrp2", "lsize0", "lsize1", "priv_size", "table", "sg_size")}
        self.abp = _load_ptr_slot(b, tmpl, "abort", "abp")
        tab = b.inttoptr(self.t["table"], PTR, name="tab")
        oned = one_dim(b, self.t["ngrp1"], self.t["ngrp2"])
        ctxbytes = b.mul(self.t["wg_size"], _i64(CONTEXT_BYTES), name="ctxbytes")
        self.ctxs = irbuild.call(b, "malloc", PTR, [ctxbytes], "ctxs")
        self.nh = b.udiv(self.t["wg_size"], _i64(self.lanes), name="nh")
        self.hs = irbuild.call(b, "malloc", PTR, [b.mul(self.nh, _i64(8), name="hbytes")], "hs")
        nextp = _load_ptr_slot(b, tmpl, "next_group", "nextp")
        self.hasarena = icmp(b, "ne", self.t["priv_size"], _i64(0), "hasarena")
        self.fpool_p, self.fcap_p = irbuild.alloca(b, PTR, 8, "fpool.p"), irbuild.alloca(b, I64, 8, "fcap.p")
        b.store(ir.Constant(PTR, None), self.fpool_p)
        b.store(_i64(0), self.fcap_p)
        if self.lanes > 1:
            self.contexts_once()
        pre = irbuild.new_block(b, "gz.pre")
        self.group, self.g = group_head(b, self.launch["first"], self.launch["count"], tmpl, nextp, self.abp,
                                        self.blk["done"], pre)
        irbuild.place(b, pre)
        zero_locals(b, tab, self.plan.local_rows, "gz")
        ids = irbuild.new_block(b, "group.ids")
        b.branch(ids)
        irbuild.place(b, ids)
        self.gx, self.gy, self.gz = group_ids(b, oned, self.g, linear_ids(self.g, self.t["ngrp0"], self.t["ngrp1"]),
                                              "group.ids")
        init_pre = irbuild.new_block(b, "init.pre")
        b.branch(init_pre)
        irbuild.place(b, init_pre)
        if self.lanes == 1:
            self.init_items()
        else:
            self.init_subgroups(lane_contexts)

    def contexts_once(self):
        """Copies the template into every work-item context once per thread, with the
        work-item's own local ids and private arena (the fast path with barriers sets only
        the group ids per work-group: init_subgroups)."""
        b, t = self.b, self.t
        entry = b.block
        blk = _blocks(b, "cinit", "cinit.body", "cinit.done")
        b.branch(blk["cinit"])
        irbuild.place(b, blk["cinit"])
        ci, x, y, z = (b.phi(I64, name=n) for n in ("ci", "ci.x", "ci.y", "ci.z"))
        for phi in (ci, x, y, z):
            phi.add_incoming(_i64(0), entry)
        b.cbranch(icmp(b, "ult", ci, t["wg_size"], "ci.more"), blk["cinit.body"], blk["cinit.done"])
        irbuild.place(b, blk["cinit.body"])
        c = irbuild.context_at(b, self.ctxs, ci, "ci.c")
        _memcpy(b, c, self.launch["tmpl"], _i64(CONTEXT_BYTES))
        for slot, v in (("llid", ci), ("lid0", x), ("lid1", y), ("lid2", z)):
            _store_slot(b, c, slot, v, f"ci.{slot}")
        poff = b.mul(ci, t["priv_size"], name="ci.poff")
        _store_slot(b, c, "priv", b.gep(self.launch["priv"], [poff], source_etype=I8, name="ci.pl"), "ci.priv")
        nxt = b.add(ci, _i64(1), name="ci.next")
        for phi, v in zip((ci, x, y, z), (nxt, *next_local_id(b, x, y, z, t["lsize0"], t["lsize1"], "ci."))):
            phi.add_incoming(v, blk["cinit.body"])
        b.branch(blk["cinit"])
        irbuild.place(b, blk["cinit.done"])

    def frame_slot(self, ctx, index):
        """Gives the coroutine about to start (context ctx, number index in its work-group)
        its slot of the frame pool (runtime_ir.FRAME_IR)."""
        b = self.b
        fpool = b.load(self.fpool_p, name="fpool", typ=PTR)
        fcap = b.load(self.fcap_p, name="fcap", typ=I64)
        fslot = b.gep(fpool, [b.mul(index, fcap, name="foff")], source_etype=I8, name="fslot")
        _store_slot(b, ctx, "frame", fslot, "fslot")
        _store_slot(b, ctx, "frame_cap", fcap, "fcap.c")
        _store_slot(b, ctx, "frame_need", _i64(0), "fneed.c")

    def start_coroutine(self, ctx, index):
        """The coroutine of context ctx started and its handle stored at `index`."""
        b = self.b
        self.frame_slot(ctx, index)
        h = irbuild.call(b, self.kernel, PTR, [ctx] + self.call_args, "h")
        b.store(h, b.gep(self.hs, [index], source_etype=PTR, name="hp"))

    def init_items(self):
        """Starts a work-group's coroutines, one per work-item: each context is the template
        with the work-item's ids; then the next round."""
        b, t = self.b, self.t
        blk = _blocks(b, "init", "init.body", "init.zero", "init.call")
        if self.subgroup_sites:
            # A fault stops the start at its sub-group (advance): the handles of the
            # work-items not started are null, which destroy_all skips.
            _memset(b, self.hs, b.mul(self.nh, _i64(8), name="hs.bytes"))
        pre = b.block
        b.branch(blk["init"])
        irbuild.place(b, blk["init"])
        l, x, y, z = (b.phi(I64, name=n) for n in ("l", "x", "y", "z"))
        for phi in (l, x, y, z):
            phi.add_incoming(_i64(0), pre)
        b.cbranch(icmp(b, "ult", l, t["wg_size"], "lmore"), blk["init.body"], self.next_round)
        irbuild.place(b, blk["init.body"])
        c = irbuild.context_at(b, self.ctxs, l, "c")
        _memcpy(b, c, self.launch["tmpl"], _i64(CONTEXT_BYTES))
        for slot, v in (("llid", l), ("lid0", x), ("lid1", y), ("lid2", z), ("grp0", self.gx), ("grp1", self.gy),
                        ("grp2", self.gz)):
            _store_slot(b, c, slot, v, f"c.{slot}")
        pl = b.gep(self.launch["priv"], [b.mul(l, t["priv_size"], name="poff")], source_etype=I8, name="pl")
        _store_slot(b, c, "priv", pl, "c.priv")
        b.cbranch(self.hasarena, blk["init.zero"], blk["init.call"])
        irbuild.place(b, blk["init.zero"])
        _memset(b, pl, t["priv_size"])
        b.branch(blk["init.call"])
        irbuild.place(b, blk["init.call"])
        self.start_coroutine(c, l)
        lnext = b.add(l, _i64(1), name="lnext")
        ids_next = next_local_id(b, x, y, z, t["lsize0"], t["lsize1"])
        self.advance_at_subgroup_end(l, lnext, "ia")
        for phi, v in zip((l, x, y, z), (lnext, *ids_next)):
            phi.add_incoming(v, b.block)
        b.branch(blk["init"])

    def init_subgroups(self, lane_contexts):
        """Starts a work-group's coroutines, one per subgroup of `lanes` work-items (the fast
        path): the contexts already hold the work-items' own ids (contexts_once), only the
        group ids and step counts are set, in the lanes that read them; the private arenas
        are zeroed at once; then the next round."""
        b, t = self.b, self.t
        blk = _blocks(b, "init.zero", "init.go", "init", "init.body", "init.lane", "init.call")
        b.cbranch(self.hasarena, blk["init.zero"], blk["init.go"])
        irbuild.place(b, blk["init.zero"])
        _memset(b, self.launch["priv"], b.mul(t["wg_size"], t["priv_size"], name="abytes"))
        b.branch(blk["init.go"])
        irbuild.place(b, blk["init.go"])
        b.branch(blk["init"])
        irbuild.place(b, blk["init"])
        hi = b.phi(I64, name="hi")
        hi.add_incoming(_i64(0), blk["init.go"])
        b.cbranch(icmp(b, "ult", hi, self.nh, "himore"), blk["init.body"], self.next_round)
        irbuild.place(b, blk["init.body"])
        c0 = self.context(hi, "c0")
        b.branch(blk["init.lane"])
        irbuild.place(b, blk["init.lane"])
        j = b.phi(I64, name="j")
        j.add_incoming(_i64(0), blk["init.body"])
        c = irbuild.context_at(b, c0, j, "c")
        for slot, v in (("grp0", self.gx), ("grp1", self.gy), ("grp2", self.gz), ("steps", _i64(0))):
            _store_slot(b, c, slot, v, f"c.{slot}")
        j_next = b.add(j, _i64(1), name="j.next")
        j.add_incoming(j_next, blk["init.lane"])
        more = icmp(b, "ult", j_next, _i64(self.lanes if lane_contexts else 1), "j.more")
        b.cbranch(more, blk["init.lane"], blk["init.call"])
        irbuild.place(b, blk["init.call"])
        self.start_coroutine(c0, hi)
        hi.add_incoming(b.add(hi, _i64(1), name="hi.next"), blk["init.call"])
        b.branch(blk["init"])

    def scan(self):
        """A round: every coroutine has run to a barrier or to its end. The scan counts those
        done and suspended, the first suspended one's site and whether others wait elsewhere,
        and in the first suspended work-item's sub-group how many wait where it waits and
        the first that does not (a matrix operation reached by part of a sub-group is worded
        as the interpreter's: runtime.py); a fault goes to %fault."""
        b, blk, t = self.b, self.blk, self.t
        irbuild.place(b, blk["round"])
        b.branch(blk["scan"])
        irbuild.place(b, blk["scan"])
        starts = (("s", 0), ("ndone", 0), ("nsusp", 0), ("site0", -1), ("mixed", False), ("firstdone", -1),
                  ("firstsusp", -1), ("nsg", 0), ("inact", -1))
        phi = {}
        for n, start in starts:
            ty = I1 if n == "mixed" else I64
            phi[n] = b.phi(ty, name=n)
            phi[n].add_incoming(ir.Constant(ty, start), blk["round"])
        s = phi["s"]
        self.s = s
        b.cbranch(icmp(b, "ult", s, self.nh, "smore"), blk["scan.body"], blk["scan.end"])
        irbuild.place(b, blk["scan.body"])
        self.sc = self.context(s, "sc")
        self.sfv = load_slot(b, self.sc, "fault", "sfv")
        b.cbranch(icmp(b, "ne", self.sfv, _i64(0), "sfault"), blk["fault"], blk["scan.state"])
        irbuild.place(b, blk["scan.state"])
        sdone = irbuild.call(b, "llvm.coro.done", I1, [self.handle(s, "sh")], "sdone")
        sb = load_slot(b, self.sc, "barrier", "sb")
        dinc = b.zext(sdone, I64, name="dinc")
        new = {"ndone": b.add(phi["ndone"], dinc, name="ndone2")}
        new["nsusp"] = b.add(phi["nsusp"], b.xor(dinc, _i64(1), name="sinc"), name="nsusp2")
        nofirst = icmp(b, "eq", phi["site0"], _i64(-1), "nofirst")
        waiting = b.xor(sdone, ir.Constant(I1, 1), name="sdone.not")
        site2 = new["site0"] = b.select(b.and_(nofirst, waiting, name="takesite"), sb, phi["site0"], name="site2")
        baddiff = b.and_(icmp(b, "ne", sb, site2, "differs"), waiting, name="baddiff")
        new["mixed"] = b.or_(phi["mixed"], baddiff, name="mixed2")
        takefd = b.and_(icmp(b, "eq", phi["firstdone"], _i64(-1), "fdnone"), sdone, name="takefd")
        new["firstdone"] = b.select(takefd, s, phi["firstdone"], name="firstdone2")
        takefs = b.and_(icmp(b, "eq", phi["firstsusp"], _i64(-1), "fsnone"), waiting, name="takefs")
        firstsusp2 = new["firstsusp"] = b.select(takefs, s, phi["firstsusp"], name="firstsusp2")
        fs_sg = b.udiv(firstsusp2, t["sg_size"], name="fs.sg")
        s_sg = b.udiv(s, t["sg_size"], name="s.sg")
        same_sg = icmp(b, "eq", s_sg, fs_sg, "same.sg")
        in_sg = b.and_(same_sg, icmp(b, "ne", firstsusp2, _i64(-1), "has.fs"), name="in.sg")
        waits_here = b.and_(waiting, icmp(b, "eq", sb, site2, "at.site"), name="waits.here")
        counted = b.and_(in_sg, waits_here, name="counted")
        new["nsg"] = b.add(phi["nsg"], b.zext(counted, I64, name="cinc"), name="nsg2")
        inact_new = b.and_(in_sg, b.xor(waits_here, ir.Constant(I1, 1), name="elsewhere"), name="inact.new")
        take_inact = b.and_(inact_new, icmp(b, "eq", phi["inact"], _i64(-1), "no.inact"), name="take.inact")
        new["inact"] = b.select(take_inact, s, phi["inact"], name="inact2")
        b.branch(blk["scan.next"])
        irbuild.place(b, blk["scan.next"])
        new["s"] = b.add(s, _i64(1), name="snext")
        for n, _ in starts:
            phi[n].add_incoming(new[n], blk["scan.next"])
        b.branch(blk["scan"])
        self.phi = phi

    def check_and_resume(self):
        """After the scan: all done (destroy), a divergence (its fault), else every
        coroutine resumed (after the workgroup-scope operation they wait at, if any)."""
        b, blk, phi = self.b, self.blk, self.phi
        irbuild.place(b, blk["scan.end"])
        b.cbranch(icmp(b, "eq", phi["nsusp"], _i64(0), "alldone"), blk["destroy"], blk["check"])
        irbuild.place(b, blk["check"])
        self.somedone = icmp(b, "ne", phi["ndone"], _i64(0), "somedone")
        b.cbranch(b.or_(self.somedone, phi["mixed"], name="diverged"), blk["divergent"], self.agreed)
        irbuild.place(b, blk["resume"])
        r = b.phi(I64, name="r")
        r.add_incoming(_i64(0), blk.get("wg.done", blk["check"]))
        b.cbranch(icmp(b, "ult", r, self.nh, "rmore"), blk["resume.body"], self.next_round)
        irbuild.place(b, blk["resume.body"])
        irbuild.call(b, "llvm.coro.resume", VOID, [self.handle(r, "rh")])
        rnext = b.add(r, _i64(1), name="rnext")
        self.advance_at_subgroup_end(r, rnext, "ra")
        r.add_incoming(rnext, b.block)
        b.branch(blk["resume"])

    def advance_at_subgroup_end(self, index, next_index, prefix):
        """After work-item `index` was started or resumed: when it is the last of its
        sub-group (next_index a multiple of S, or the work-group's end), that sub-group is
        advanced (advance) before the next work-item runs. The builder ends in the block
        that goes on with the next work-item."""
        if not self.subgroup_sites:
            return
        b, t = self.b, self.t
        blk = _blocks(b, f"{prefix}.sg", f"{prefix}.go")
        at_end = b.or_(icmp(b, "eq", b.urem(next_index, t["sg_size"], name=f"{prefix}.r"), _i64(0), f"{prefix}.m"),
                       icmp(b, "eq", next_index, t["wg_size"], f"{prefix}.w"), name=f"{prefix}.end")
        b.cbranch(at_end, blk[f"{prefix}.sg"], blk[f"{prefix}.go"])
        irbuild.place(b, blk[f"{prefix}.sg"])
        sgf = b.mul(b.udiv(index, t["sg_size"], name=f"{prefix}.q"), t["sg_size"], name=f"{prefix}.sgf")
        self.advance(sgf, b.sub(next_index, sgf, name=f"{prefix}.cnt"), prefix, blk[f"{prefix}.go"])
        irbuild.place(b, blk[f"{prefix}.go"])

    def advance(self, sgf, sgcnt, prefix, cont):
        """Sub-group [sgf, sgf + sgcnt) runs on through its matrix operations and votes
        (coop_routines.py): while all its work-items wait at the same one, the operation's
        function does it and they are resumed. Then `cont`; a fault of one of them, or of
        the operation, goes to %round, whose scan reports it (no later sub-group has run:
        the launch order runs a work-group's sub-groups one after another between its
        barriers, as the interpreter does: docs/native.md "Faults"). A work-item that
        finished, or waits elsewhere (a barrier, a workgroup-scope operation), leaves the
        rest to the round's barrier logic."""
        b, t = self.b, self.t
        blk = _blocks(b, f"{prefix}.head", f"{prefix}.resume", f"{prefix}.stuck")
        calls = {site: irbuild.new_block(b, f"{prefix}.call.{site}") for site, _ in self.subgroup_sites}
        b.branch(blk[f"{prefix}.head"])
        irbuild.place(b, blk[f"{prefix}.head"])
        site = load_slot(b, irbuild.context_at(b, self.ctxs, sgf, f"{prefix}.ctx"), "barrier", f"{prefix}.site")
        with irbuild.for_range(b, 0, sgcnt, f"{prefix}.q") as (q, next_q):
            qi = b.add(sgf, q, name=f"{prefix}.qi")
            qctx = irbuild.context_at(b, self.ctxs, qi, f"{prefix}.qctx")
            qfault = icmp(b, "ne", load_slot(b, qctx, "fault", f"{prefix}.qfv"), _i64(0), f"{prefix}.qfault")
            checked = irbuild.new_block(b, f"{prefix}.qok")
            b.cbranch(qfault, self.blk["round"], checked)
            irbuild.place(b, checked)
            qdone = irbuild.call(b, "llvm.coro.done", I1, [self.handle(qi, f"{prefix}.qh")], f"{prefix}.qdone")
            qsame = icmp(b, "eq", load_slot(b, qctx, "barrier", f"{prefix}.qsite"), site, f"{prefix}.qsame")
            qbad = b.or_(qdone, b.xor(qsame, ir.Constant(I1, 1), name=f"{prefix}.qdiff"), name=f"{prefix}.qbad")
            b.cbranch(qbad, blk[f"{prefix}.stuck"], next_q)
        switch = b.switch(site, blk[f"{prefix}.stuck"])
        for s, fname in self.subgroup_sites:
            switch.add_case(_i64(s), calls[s])
            irbuild.place(b, calls[s])
            faulted = irbuild.call(b, fname, I1, [self.ctxs, sgf, sgcnt], f"{prefix}.f.{s}")
            b.cbranch(faulted, self.blk["round"], blk[f"{prefix}.resume"])
        irbuild.place(b, blk[f"{prefix}.resume"])
        with irbuild.for_range(b, 0, sgcnt, f"{prefix}.rq") as (rq, _):
            irbuild.call(b, "llvm.coro.resume", VOID, [self.handle(b.add(sgf, rq, name=f"{prefix}.rqi"),
                                                                   f"{prefix}.rqh")])
        b.branch(blk[f"{prefix}.head"])
        irbuild.place(b, blk[f"{prefix}.stuck"])
        b.branch(cont)

    def workgroup_round(self):
        """A kernel with workgroup-scope operations (matrices, votes, collectives): when
        every work-item of the group waits at one of them (the check found no divergence),
        its function runs over the whole work-group (first 0, count W), then all resume; a
        fault it records goes to %round, whose scan reports it."""
        b = self.b
        irbuild.place(b, self.blk["wg.pre"])
        switch = b.switch(self.phi["site0"], self.blk["wg.done"])
        for site, fname in workgroup_sites(self.plan):
            call = irbuild.new_block(b, f"wg.call.{site}")
            switch.add_case(_i64(site), call)
            irbuild.place(b, call)
            faulted = irbuild.call(b, fname, I1, [self.ctxs, _i64(0), self.t["wg_size"]], f"wg.f.{site}")
            b.cbranch(faulted, self.blk["round"], self.blk["wg.done"])
        irbuild.place(b, self.blk["wg.done"])
        b.branch(self.blk["resume"])

    def destroy(self):
        """All coroutines done: destroyed, the frame pool grown if a frame did not fit, and
        the next work-group."""
        b, blk = self.b, self.blk
        irbuild.place(b, blk["destroy"])
        self.destroy_all("destroy", "d", blk["destroyed"])
        irbuild.place(b, blk["destroyed"])
        self.grow_frame_pool()
        b.branch(self.group)

    def destroy_all(self, label, v, after):
        """From block <label> (where the builder is): destroys every coroutine of the
        work-group (blocks <label>.loop, <label>.body), then to `after`."""
        b, blk = self.b, self.blk
        b.branch(blk[f"{label}.loop"])
        irbuild.place(b, blk[f"{label}.loop"])
        i = b.phi(I64, name=v)
        i.add_incoming(_i64(0), blk[label])
        b.cbranch(icmp(b, "ult", i, self.nh, f"{v}more"), blk[f"{label}.body"], after)
        irbuild.place(b, blk[f"{label}.body"])
        h = self.handle(i, f"{v}h")
        if self.subgroup_sites:
            started, step = irbuild.new_block(b, f"{label}.started"), irbuild.new_block(b, f"{label}.step")
            b.cbranch(icmp(b, "ne", h, ir.Constant(PTR, None), f"{v}h.some"), started, step)
            irbuild.place(b, started)
            irbuild.call(b, "llvm.coro.destroy", VOID, [h])
            b.branch(step)
            irbuild.place(b, step)
        else:
            irbuild.call(b, "llvm.coro.destroy", VOID, [h])
        i.add_incoming(b.add(i, _i64(1), name=f"{v}next"), b.block)
        b.branch(blk[f"{label}.loop"])

    def grow_frame_pool(self):
        """When a frame did not fit its slot (frame_need), the pool grows to slots of the
        largest size for the next work-groups (a failed allocation leaves the slots empty:
        frames are then allocated one by one)."""
        b = self.b
        blk = _blocks(b, "fneed", "fneed.body", "fneed.end", "fgrow.body", "fgrow.done")
        destroyed = b.block
        b.branch(blk["fneed"])
        irbuild.place(b, blk["fneed"])
        fs, fmax = b.phi(I64, name="fs"), b.phi(I64, name="fmax")
        for phi in (fs, fmax):
            phi.add_incoming(_i64(0), destroyed)
        b.cbranch(icmp(b, "ult", fs, self.nh, "fs.more"), blk["fneed.body"], blk["fneed.end"])
        irbuild.place(b, blk["fneed.body"])
        need = load_slot(b, self.context(fs, "fs.c"), "frame_need", "fs.n")
        fmax.add_incoming(b.select(icmp(b, "ugt", need, fmax, "fs.gt"), need, fmax, name="fmax2"), blk["fneed.body"])
        fs.add_incoming(b.add(fs, _i64(1), name="fs.next"), blk["fneed.body"])
        b.branch(blk["fneed"])
        irbuild.place(b, blk["fneed.end"])
        cap = b.load(self.fcap_p, name="fcap.old", typ=I64)
        b.cbranch(icmp(b, "ugt", fmax, cap, "fgrow"), blk["fgrow.body"], blk["fgrow.done"])
        irbuild.place(b, blk["fgrow.body"])
        irbuild.call(b, "free", VOID, [b.load(self.fpool_p, name="fpool.old", typ=PTR)])
        size = b.mul(fmax, self.nh, name="fbytes")
        pool = irbuild.call(b, "aligned_alloc", PTR, [_i64(64), size], "fpool.new")
        ok = icmp(b, "ne", pool, ir.Constant(PTR, None), "fpool.ok")
        cap = b.select(ok, fmax, _i64(0), name="fcap.new")
        b.store(pool, self.fpool_p)
        b.store(cap, self.fcap_p)
        b.branch(blk["fgrow.done"])
        irbuild.place(b, blk["fgrow.done"])

    def faults(self):
        """A work-item's fault or a divergence recorded in fout; every coroutine of the
        group destroyed, the other threads stopped, the pool and contexts freed."""
        b, blk, phi, fout = self.b, self.blk, self.phi, self.launch["fout"]
        irbuild.place(b, blk["fault"])
        fault_out(b, fout, self.sc, self.sfv, self.g, self.s)
        b.branch(blk["abandon"])
        irbuild.place(b, blk["divergent"])
        word = lambda k: b.gep(fout, [_i64(k)], source_etype=I64, name=f"dv{k}")  # noqa: E731
        b.store(b.add(phi["site0"], _i64(1), name="bsite"), fout)
        b.store(_i64(FAULT_BARRIER), word(1))
        other = word(2)
        b.store(b.select(self.somedone, phi["firstdone"], _i64(-1), name="other"), other)
        b.store(self.g, word(3))
        b.store(phi["firstsusp"], word(4))
        count = word(5)
        n, inact = self.divergence_counts()
        b.store(n, count)
        b.store(inact, word(6))
        b.branch(blk["abandon"])
        irbuild.place(b, blk["abandon"])
        store_atomic(b, _i64(1), self.abp, "monotonic", 8)
        self.destroy_all("abandon", "e", blk["done"])
        irbuild.place(b, blk["done"])
        irbuild.call(b, "free", VOID, [b.load(self.fpool_p, name="fpool.end", typ=PTR)])
        irbuild.call(b, "free", VOID, [self.ctxs])
        irbuild.call(b, "free", VOID, [self.hs])
        b.ret_void()

    def divergence_counts(self):
        """The divergence fault's counts: at a workgroup-scope operation the work-items
        waiting there in the whole work-group and the first that finished (runtime.py words
        them as the interpreter's coop_calls.Subgroups._partial_message), else the
        sub-group's."""
        b, phi = self.b, self.phi
        sites = workgroup_sites(self.plan) if self.lanes == 1 else []
        if not sites:
            return phi["nsg"], phi["inact"]
        at_workgroup = ir.Constant(I1, 0)
        for k, (site, _) in enumerate(sites):
            at_workgroup = b.or_(at_workgroup, icmp(b, "eq", phi["site0"], _i64(site), f"dv.is{k}"),
                                 name=f"dv.wg{k + 1}")
        return (b.select(at_workgroup, phi["nsusp"], phi["nsg"], name="dv.n"),
                b.select(at_workgroup, phi["firstdone"], phi["inact"], name="dv.inact"))


def workgroup_sites(plan):
    """The (site, function) of the kernel's workgroup-scope operations
    (coop_routines.WORKGROUP_PREFIX names their functions)."""
    return [(site, fname) for site, fname in plan.coop_sites if fname.startswith(WORKGROUP_PREFIX)]
