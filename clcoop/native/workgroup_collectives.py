"""Work-group collectives natively on the per-work-item path (OpenCL C 3.0 6.15.13
"Work-group Collective Functions", cl_khr_work_group_uniform_arithmetic for mul/and/or/xor):
work_group_broadcast and work_group_reduce / scan_inclusive / scan_exclusive of add, min,
max, mul, and, or, xor, bit for bit as the interpreter (interp/ocl_builtins.py,
_work_group_collective, which computes them on a (work-groups, W) table of the values).

Each is a rendezvous of the work-group, as a work-group vote is (votes.py): the work-item
stores its value (and, for a broadcast, the linear local id it names) in its context and
suspends; when every work-item of the group waits there, the driver runs the site's
function (named coop_routines.WORKGROUP_PREFIX + site: drivers.coroutine_driver's workgroup round) over
the W contexts in local linear id order, which writes each work-item's result to its
context; the work-items resume and read it. Reached by part of the group, the driver's
divergence check faults with check_convergence's words (runtime.py).

The orders are NumPy's, as the interpreter's:
- reduce: a float add is np.sum(row): 0.0 + NumPy's pairwise sum of the row (fewer than 8
  values in order from -0.0; up to 128 in eight interleaved partial sums combined
  ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the rest in order; more: two halves, the
  first a multiple of 8 long); every other reduction folds the row in order (np.prod,
  np.min/np.max with np.minimum/np.maximum's NaN and signed-zero rule, integer ones wrap);
- scans are ufunc.accumulate, in order; the exclusive scan shifts it behind the identity;
- broadcast reads the work-item whose linear local id is (id0 + id1*L0 + id2*L0*L1) floor-mod
  W, computed in wrapping int64 as the interpreter's NumPy does;
- unsigned operands (the built-in's mangled parameter) compare unsigned.
half values are copied by a broadcast; their arithmetic is refused (NumPy accumulates
float16 differently), as on the sub-group path (collectives.unsupported_type).
"""
import math
import re

import llvmlite.ir as ir

from clcoop.ir.demangle import signed_param
from clcoop.native import irbuild
from clcoop.native.collectives import FLOAT_TYPES, INT_TYPES, combine, identity
from clcoop.native.context import CTX, WORKGROUP_COLLECTIVES
from clcoop.native.coop_routines import WORKGROUP_PREFIX
from clcoop.native.irbuild import I1, I64, PTR
from clcoop.native.support import Unsupported
from clcoop.native.text_rewrite import quote, ref

_ARITHMETIC = re.compile(r"work_group_(reduce|scan_inclusive|scan_exclusive)_(add|mul|min|max|and|or|xor)")


def is_collective(base):
    return base in WORKGROUP_COLLECTIVES


def kind_of(base):
    """(kind, op) of the work-group collective `base`: ("broadcast", None), or a reduction
    or scan and its operation."""
    if base == "work_group_broadcast":
        return "broadcast", None
    m = _ARITHMETIC.fullmatch(base)
    return m.group(1), m.group(2)


def unsupported(kind, op, T, ops):
    """Why this call cannot run natively, else None."""
    if kind == "broadcast":
        if T not in INT_TYPES + FLOAT_TYPES + ("half",):
            return f"on {T} values (scalars only)"
        if not 2 <= len(ops) - 1 <= 4 or any(str(o.type) != "i64" for o in ops[1:-1]):
            return "with other local ids than one to three size_t values"
        return None
    if len(ops) != 2:
        return "with other operands than one value"
    if T in ("half", "bfloat"):
        return f"on {T} values (NumPy accumulates float16 differently)"
    if T not in INT_TYPES + FLOAT_TYPES:
        return f"on {T} values (scalars only)"
    if T in FLOAT_TYPES and op in ("and", "or", "xor"):
        return f"on {T}"
    return None


def emit(fg, ins, ops, base, params):
    """The call `ins` of the work-group collective `base` (params: its demangled
    parameters); returns the label the block continues in after the rendezvous."""
    kind, op = kind_of(base)
    T = str(ins.type)
    why = unsupported(kind, op, T, ops)
    if why is not None or str(ops[0].type) != T:
        raise Unsupported(f"{base} {why or f'of type {T} ({ops[0].type})'}")
    site = fg.site(ins, base, 0)
    fname = f"{WORKGROUP_PREFIX}{site}"
    coop = fg.mg.coop
    coop.functions.append(site_function(fname, kind, op, T, signed_param(params, 0)))
    if kind == "reduce" and op == "add" and T in FLOAT_TYPES:
        helper = pairwise_function(T)
        if helper not in coop.functions:
            coop.functions.append(helper)
    coop.sites.setdefault(fg.f.name, []).append((site, fname))
    p = fg.fresh("wgc")
    fg.lines += [f"  {p}.in = getelementptr i64, ptr %__ctx, i64 {CTX['coop0']}",
                 f"  store {T} {ref(ops[0])}, ptr {p}.in"]
    if kind == "broadcast":
        fg.lines += _linear_id_lines(p, [ref(o) for o in ops[1:-1]])
    resume = fg.suspend(site)
    fg.lines += [f"  {p}.out = getelementptr i64, ptr %__ctx, i64 {CTX['coop3']}",
                 f"  {quote(ins.name)} = load {T}, ptr {p}.out"]
    return resume


def _linear_id_lines(p, ids):
    """coop1 = id0 + id1 * L0 + id2 * L0 * L1 (wrapping i64, the interpreter's int64)."""
    lines = [f"  {p}.l0p = getelementptr i64, ptr %__ctx, i64 {CTX['lsize0']}",
             f"  {p}.l0 = load i64, ptr {p}.l0p",
             f"  {p}.l1p = getelementptr i64, ptr %__ctx, i64 {CTX['lsize1']}",
             f"  {p}.l1 = load i64, ptr {p}.l1p",
             f"  {p}.l01 = mul i64 {p}.l0, {p}.l1"]
    acc = ids[0]
    for k, (index, size) in enumerate(zip(ids[1:], (f"{p}.l0", f"{p}.l01"))):
        lines += [f"  {p}.m{k} = mul i64 {index}, {size}", f"  {p}.s{k} = add i64 {acc}, {p}.m{k}"]
        acc = f"{p}.s{k}"
    return lines + [f"  {p}.at = getelementptr i64, ptr %__ctx, i64 {CTX['coop1']}",
                    f"  store i64 {acc}, ptr {p}.at"]


def _i64(n):
    return ir.Constant(I64, n)


def _constant(t, text):
    """The IR constant text of collectives.identity as a constant of type t."""
    if isinstance(t, ir.IntType):
        return ir.Constant(t, int(text))
    infinities = {"0x7FF0000000000000": math.inf, "0xFFF0000000000000": -math.inf}
    return ir.Constant(t, infinities[text] if text in infinities else float(text))


def _slot(b, ctxs, index, field, name):
    """Pointer to work-item `index`'s context slot `field`."""
    return irbuild.context_slot(b, irbuild.context_at(b, ctxs, index, f"{name}.c"), field, name)


def _site(fname):
    """(function, builder, ctxs, first, count) of i1 fname(ctxs, first, count)."""
    fn, b = irbuild.define(fname, I1, [(PTR, "ctxs"), (I64, "first"), (I64, "count")], inline=False)
    return (fn, b, *fn.args)


def site_function(fname, kind, op, T, signed):
    """i1 fname(ctxs, first, count): the collective over the contexts [first, first +
    count) (the whole work-group), each result written to the context's coop3; never
    faults (false). Built with irbuild (docs/native.md, "How generated code is built")."""
    if kind == "reduce" and op == "add" and T in FLOAT_TYPES:
        return _pairwise_reduce(fname, T)
    ty = irbuild.parse_type(T)
    fn, b, ctxs, first, count = _site(fname)
    entry = b.block
    loop, body, after = (fn.append_basic_block(n) for n in ("loop", "body", "done" if kind == "broadcast" else "write"))
    b.branch(loop)
    b.position_at_end(loop)
    i = b.phi(I64, name="i")
    i.add_incoming(_i64(0), entry)
    if kind != "broadcast":
        acc = b.phi(ty, name="acc")
        acc.add_incoming(_constant(ty, identity(op, T, signed)), entry)
    b.cbranch(irbuild.icmp(b, "ult", i, count, "more"), body, after)
    b.position_at_end(body)
    k = b.add(first, i, name="k")
    if kind == "broadcast":
        want = b.load(_slot(b, ctxs, k, "coop1", "ip"), name="want", typ=I64)
        # Python's floor modulo of the int64 id by W (the interpreter's lin % wg).
        r = b.srem(want, count, name="r")
        at = b.select(irbuild.icmp(b, "slt", r, _i64(0), "neg"), b.add(r, count, name="rw"), r, name="at")
        v = b.load(_slot(b, ctxs, b.add(first, at, name="from"), "coop0", "vp"), name="v", typ=ty)
        b.store(v, _slot(b, ctxs, k, "coop3", "op"))
    else:
        # A fold in order from the row's first value (np.prod, np.min, ... along the row,
        # and ufunc.accumulate: x0, op(x0, x1), ...); the exclusive scan's value before it
        # starts at the identity.
        v = b.load(_slot(b, ctxs, k, "coop0", "vp"), name="v", typ=ty)
        isfirst = irbuild.icmp(b, "eq", i, _i64(0), "isfirst")
        acc_next = b.select(isfirst, v, combine(b, op, signed, acc, v, "folded"), name="acc.next")
        acc.add_incoming(acc_next, body)
        if kind != "reduce":
            b.store(acc_next if kind == "scan_inclusive" else acc, _slot(b, ctxs, k, "coop3", "op"))
    i.add_incoming(b.add(i, _i64(1), name="i.next"), body)
    b.branch(loop)
    b.position_at_end(after)
    if kind == "reduce":
        _write_all(b, ctxs, first, count, acc)
    b.ret(ir.Constant(I1, 0))
    return irbuild.function_text(fn)


def _write_all(b, ctxs, first, count, value):
    """Stores `value` to every context's coop3; continues after the loop."""
    fn, before = b.function, b.block
    loop, body, done = (fn.append_basic_block(n) for n in ("wloop", "wbody", "done"))
    b.branch(loop)
    b.position_at_end(loop)
    j = b.phi(I64, name="j")
    j.add_incoming(_i64(0), before)
    b.cbranch(irbuild.icmp(b, "ult", j, count, "wmore"), body, done)
    b.position_at_end(body)
    b.store(value, _slot(b, ctxs, b.add(first, j, name="wk"), "coop3", "wp"))
    j.add_incoming(b.add(j, _i64(1), name="j.next"), body)
    b.branch(loop)
    b.position_at_end(done)


def _pairwise_reduce(fname, T):
    """np.sum of the row: 0.0 + pairwise(row) (collectives.Emitter.reduce's order, here
    over a row whose length is known at run time)."""
    ty = irbuild.parse_type(T)
    fn, b, ctxs, first, count = _site(fname)
    base = _slot(b, ctxs, first, "coop0", "base")
    total = irbuild.call(b, _pairwise_name(T), ty, [base, count], "p")
    _write_all(b, ctxs, first, count, b.fadd(ir.Constant(ty, 0.0), total, name="sum"))
    b.ret(ir.Constant(I1, 0))
    return irbuild.function_text(fn)


def _pairwise_name(T):
    return f"__clcoop_wg_pairwise.{T}"


def pairwise_function(T):
    """T pairwise(ptr a, i64 n): NumPy's pairwise_sum (numpy/_core/src/umath/loops_utils.h.src)
    of n values of type T, one per work-item context (a points at the first one's)."""
    ty = irbuild.parse_type(T)
    fn, b = irbuild.define(_pairwise_name(T), ty, [(PTR, "a"), (I64, "n")], inline=False)
    a, n = fn.args
    blk = {name: fn.append_basic_block(name) for name in (
        "seq", "seq.body", "seq.done", "mid.test", "blocks.pre", "blocks", "blocks.body", "combine", "rest",
        "rest.body", "rest.done", "split")}
    at = lambda index, name: b.load(irbuild.context_at(b, a, index, f"{name}.p"), name=name, typ=ty)  # noqa: E731

    def in_order(label, start, start_value, start_block, end):
        """Blocks <label>, <label>.body, <label>.done: acc + a[i] for i in [start, n)."""
        b.position_at_end(blk[label])
        i, acc = b.phi(I64, name=f"{label[0]}i"), b.phi(ty, name=f"{label[0]}acc")
        i.add_incoming(start, start_block)
        acc.add_incoming(start_value, start_block)
        b.cbranch(irbuild.icmp(b, "slt", i, end, f"{label[0]}more"), blk[f"{label}.body"], blk[f"{label}.done"])
        b.position_at_end(blk[f"{label}.body"])
        acc.add_incoming(b.fadd(acc, at(i, f"{label[0]}x"), name=f"{label[0]}acc.next"), blk[f"{label}.body"])
        i.add_incoming(b.add(i, _i64(1), name=f"{label[0]}i.next"), blk[f"{label}.body"])
        b.branch(blk[label])
        b.position_at_end(blk[f"{label}.done"])
        b.ret(acc)

    entry = b.block
    b.cbranch(irbuild.icmp(b, "slt", n, _i64(8), "small"), blk["seq"], blk["mid.test"])
    # Fewer than 8: in order from -0.0.
    in_order("seq", _i64(0), ir.Constant(ty, -0.0), entry, n)
    b.position_at_end(blk["mid.test"])
    b.cbranch(irbuild.icmp(b, "sle", n, _i64(128), "mid"), blk["blocks.pre"], blk["split"])
    # 8 to 128: eight partial sums over the whole blocks of 8.
    b.position_at_end(blk["blocks.pre"])
    r0 = [at(_i64(j), f"r0.{j}") for j in range(8)]
    whole = b.sub(n, b.srem(n, _i64(8), name="tail"), name="whole")
    b.branch(blk["blocks"])
    b.position_at_end(blk["blocks"])
    bi = b.phi(I64, name="bi")
    bi.add_incoming(_i64(8), blk["blocks.pre"])
    r = []
    for j in range(8):
        r.append(b.phi(ty, name=f"r.{j}"))
        r[j].add_incoming(r0[j], blk["blocks.pre"])
    b.cbranch(irbuild.icmp(b, "slt", bi, whole, "bmore"), blk["blocks.body"], blk["combine"])
    b.position_at_end(blk["blocks.body"])
    for j in range(8):
        x = at(b.add(bi, _i64(j), name=f"bi{j}"), f"bx{j}")
        r[j].add_incoming(b.fadd(r[j], x, name=f"r.{j}.next"), blk["blocks.body"])
    bi.add_incoming(b.add(bi, _i64(8), name="bi.next"), blk["blocks.body"])
    b.branch(blk["blocks"])
    b.position_at_end(blk["combine"])
    c01, c23 = b.fadd(r[0], r[1], name="c01"), b.fadd(r[2], r[3], name="c23")
    c45, c67 = b.fadd(r[4], r[5], name="c45"), b.fadd(r[6], r[7], name="c67")
    c03, c47 = b.fadd(c01, c23, name="c03"), b.fadd(c45, c67, name="c47")
    c07 = b.fadd(c03, c47, name="c07")
    b.branch(blk["rest"])
    # The values after the last whole block, in order.
    in_order("rest", whole, c07, blk["combine"], n)
    # More than 128: two halves, the first a multiple of 8 long.
    b.position_at_end(blk["split"])
    half = b.sdiv(n, _i64(2), name="half")
    n2 = b.sub(half, b.srem(half, _i64(8), name="hrem"), name="n2")
    n3 = b.sub(n, n2, name="n3")
    a2 = irbuild.context_at(b, a, n2, "a2")
    x = irbuild.call(b, _pairwise_name(T), ty, [a, n2], "x")
    y = irbuild.call(b, _pairwise_name(T), ty, [a2, n3], "y")
    b.ret(b.fadd(x, y, name="xy"))
    return irbuild.function_text(fn)
