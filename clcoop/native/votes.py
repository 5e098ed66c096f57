"""Votes natively on the per-work-item path: work_group_all / work_group_any (OpenCL C 3.0
6.15.13) and sub_group_all / sub_group_any (6.15.17) in every launch, including sub-groups
that are partial (a work-group size that is not a multiple of the sub-group size), which
the subgroup-wide fast path does not take. Each is a rendezvous, as a cooperative-matrix
operation is: a work-group vote's function is named coop_routines.WORKGROUP_PREFIX + site
(drivers.workgroup_round_lines runs it when every work-item of the group waits there), a
sub-group vote's '__clcoop_coop.' + site (drivers.coop_round_lines runs it over each sub-group
whose work-items all wait there, with the sub-group's own count: a partial one has fewer).

Each work-item stores whether its predicate is not 0 in its context and suspends; the
function reads the contexts, and every work-item resumes with 1 when all (any) of them were,
else 0: the interpreter's (table != 0).all(axis=1), whose padding lanes hold the identity
(ocl_builtins._work_group_collective, _sub_group_collective). Reached by part of the group,
the driver's divergence check faults, worded as the interpreter's check_convergence
(runtime.py: FAULT_BARRIER with the site's name)."""
from clcoop.native.context import CTX, CTX_SLOTS, SUBGROUP_VOTES, WORKGROUP_VOTES
from clcoop.native.coop_routines import WORKGROUP_PREFIX
from clcoop.native.support import Unsupported
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
    written to each one's coop3; never faults (false)."""
    combine, start = ("and", 1) if every else ("or", 0)
    return "\n".join([
        f"define internal i1 @{fname}(ptr %ctxs, i64 %first, i64 %count) {{",
        "entry:",
        "  br label %scan",
        "scan:",
        "  %i = phi i64 [ 0, %entry ], [ %i.next, %scan.body ]",
        f"  %acc = phi i64 [ {start}, %entry ], [ %acc.next, %scan.body ]",
        "  %more = icmp ult i64 %i, %count",
        "  br i1 %more, label %scan.body, label %write",
        "scan.body:",
        "  %k = add i64 %first, %i",
        f"  %off = mul i64 %k, {CTX_SLOTS}",
        f"  %slot = add i64 %off, {CTX['coop0']}",
        "  %vp = getelementptr i64, ptr %ctxs, i64 %slot",
        "  %v = load i64, ptr %vp",
        f"  %acc.next = {combine} i64 %acc, %v",
        "  %i.next = add i64 %i, 1",
        "  br label %scan",
        "write:",
        "  %j = phi i64 [ 0, %scan ], [ %j.next, %write.body ]",
        "  %wmore = icmp ult i64 %j, %count",
        "  br i1 %wmore, label %write.body, label %done",
        "write.body:",
        "  %wk = add i64 %first, %j",
        f"  %woff = mul i64 %wk, {CTX_SLOTS}",
        f"  %wslot = add i64 %woff, {CTX['coop3']}",
        "  %wp = getelementptr i64, ptr %ctxs, i64 %wslot",
        "  store i64 %acc, ptr %wp",
        "  %j.next = add i64 %j, 1",
        "  br label %write",
        "done:",
        "  ret i1 false",
        "}"])
