"""Votes natively on the per-work-item path: work_group_all / work_group_any (OpenCL C 3.0
6.15.13) and sub_group_all / sub_group_any (6.15.17) in every launch, including sub-groups
that are partial (a work-group size that is not a multiple of the sub-group size), which
the subgroup-wide fast path does not take. Each is a rendezvous, as a cooperative-matrix
operation is: a work-group vote's function is named coop_routines.WORKGROUP_PREFIX + site
(the coroutine driver runs it when every work-item of the group waits there), a
sub-group vote's '__clcoop_coop.' + site (the driver's matrix round runs it over each sub-group
whose work-items all wait there, with the sub-group's own count: a partial one has fewer).

Each work-item stores whether its predicate is not 0 in its context and suspends; the
function reads the contexts, and every work-item resumes with 1 when all (any) of them were,
else 0: the interpreter's (table != 0).all(axis=1), whose padding lanes hold the identity
(ocl_builtins._work_group_collective, _sub_group_collective). Reached by part of the group,
the driver's divergence check faults, worded as the interpreter's check_convergence
(runtime.py: FAULT_BARRIER with the site's name)."""
import llvmlite.ir as ir

from clcoop.native import irbuild
from clcoop.native.context import CTX, SUBGROUP_VOTES, WORKGROUP_VOTES
from clcoop.native.coop_routines import WORKGROUP_PREFIX
from clcoop.native.support import Unsupported
from clcoop.native.irbuild import I1, I64, PTR
from clcoop.native.text_rewrite import quote, ref

SUBGROUP_PREFIX = "__clcoop_coop."


def is_vote(base):
    return base in WORKGROUP_VOTES or base in SUBGROUP_VOTES


def emit(fg, ins, ops, base):
    """The call `ins` of a vote (int predicate -> int); returns the label the block continues
    in after the rendezvous."""
    if str(ins.type) != "i32" or len(ops) != 2 or str(ops[0].type) != "i32":
        raise Unsupported(f"{base} of type {ins.type} ({', '.join(str(o.type) for o in ops[:-1])})")
    site = fg.site(ins, base, 0)
    fname = f"{WORKGROUP_PREFIX if base in WORKGROUP_VOTES else SUBGROUP_PREFIX}{site}"
    coop = fg.mg.coop
    coop.functions.append(vote_function(fname, base.endswith("_all")))
    coop.sites.setdefault(fg.f.name, []).append((site, fname))
    p = fg.fresh("vote")
    fg.lines += [f"  {p}.set = icmp ne i32 {ref(ops[0])}, 0",
                 f"  {p}.wide = zext i1 {p}.set to i64",
                 f"  {p}.in = getelementptr i64, ptr %__ctx, i64 {CTX['coop0']}",
                 f"  store i64 {p}.wide, ptr {p}.in"]
    resume = fg.suspend(site)
    fg.lines += [f"  {p}.out = getelementptr i64, ptr %__ctx, i64 {CTX['coop3']}",
                 f"  {p}.got = load i64, ptr {p}.out",
                 f"  {quote(ins.name)} = trunc i64 {p}.got to i32"]
    return resume


def vote_function(fname, every):
    """i1 fname(ctxs, first, count): the vote over the contexts [first, first + count),
    written to each one's coop3; never faults (false). Built with irbuild (docs/native.md,
    "How generated code is built")."""
    fn, b = irbuild.define(fname, I1, [(PTR, "ctxs"), (I64, "first"), (I64, "count")], inline=False)
    ctxs, first, count = fn.args
    combine, start = (b.and_, 1) if every else (b.or_, 0)
    entry = b.block
    scan, body, write, write_body, done = (fn.append_basic_block(n) for n in
                                           ("scan", "scan.body", "write", "write.body", "done"))
    b.branch(scan)
    b.position_at_end(scan)
    i, acc = b.phi(I64, name="i"), b.phi(I64, name="acc")
    i.add_incoming(ir.Constant(I64, 0), entry)
    acc.add_incoming(ir.Constant(I64, start), entry)
    b.cbranch(irbuild.icmp(b, "ult", i, count, "more"), body, write)
    b.position_at_end(body)
    ctx = irbuild.context_at(b, ctxs, b.add(first, i, name="k"), "ctx")
    acc.add_incoming(combine(acc, irbuild.load_slot(b, ctx, "coop0", "v"), name="acc.next"), body)
    i.add_incoming(b.add(i, ir.Constant(I64, 1), name="i.next"), body)
    b.branch(scan)
    b.position_at_end(write)
    j = b.phi(I64, name="j")
    j.add_incoming(ir.Constant(I64, 0), scan)
    b.cbranch(irbuild.icmp(b, "ult", j, count, "wmore"), write_body, done)
    b.position_at_end(write_body)
    b.store(acc, irbuild.context_slot(b, irbuild.context_at(b, ctxs, b.add(first, j, name="wk"), "wctx"), "coop3"))
    j.add_incoming(b.add(j, ir.Constant(I64, 1), name="j.next"), write_body)
    b.branch(write)
    b.position_at_end(done)
    b.ret(ir.Constant(I1, 0))
    return irbuild.function_text(fn)
