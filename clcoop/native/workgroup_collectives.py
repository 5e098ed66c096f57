"""Work-group collectives natively on the per-work-item path (OpenCL C 3.0 6.15.13
"Work-group Collective Functions", cl_khr_work_group_uniform_arithmetic for mul/and/or/xor):
work_group_broadcast and work_group_reduce / scan_inclusive / scan_exclusive of add, min,
max, mul, and, or, xor, bit for bit as the interpreter (interp/ocl_builtins.py,
_work_group_collective, which computes them on a (work-groups, W) table of the values).

Each is a rendezvous of the work-group, as a work-group vote is (votes.py): the work-item
stores its value (and, for a broadcast, the linear local id it names) in its context and
suspends; when every work-item of the group waits there, the driver runs the site's
function (named coop_routines.WORKGROUP_PREFIX + site: drivers.workgroup_round_lines) over
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
import re

from clcoop.ir.demangle import signed_param
from clcoop.native.collectives import FLOAT_TYPES, INT_TYPES, Emitter, identity
from clcoop.native.context import CTX, CTX_SLOTS, WORKGROUP_COLLECTIVES
from clcoop.native.coop_routines import WORKGROUP_PREFIX
from clcoop.native.support import Unsupported
from clcoop.native.text_rewrite import quote, ref

_ARITHMETIC = re.compile(r"work_group_(reduce|scan_inclusive|scan_exclusive)_(add|mul|min|max|and|or|xor)")
# Bytes between one work-item's context and the next one's.
_CONTEXT_BYTES = CTX_SLOTS * 8


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


def _slot(out, ctxs, index, field):
    """Lines setting `out` to the address of work-item `index`'s context slot `field`."""
    return [f"  {out}.o = mul i64 {index}, {CTX_SLOTS}",
            f"  {out}.s = add i64 {out}.o, {CTX[field]}",
            f"  {out} = getelementptr i64, ptr {ctxs}, i64 {out}.s"]


def site_function(fname, kind, op, T, signed):
    """i1 fname(ctxs, first, count): the collective over the contexts [first, first +
    count) (the whole work-group), each result written to the context's coop3; never
    faults (false)."""
    lines = [f"define internal i1 @{fname}(ptr %ctxs, i64 %first, i64 %count) {{",
             "entry:",
             "  br label %loop",
             "loop:",
             "  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]"]
    body = []
    emitter = Emitter(_Fresh(), body)
    if kind == "broadcast":
        lines += ["  %more = icmp ult i64 %i, %count", "  br i1 %more, label %body, label %done", "body:",
                  "  %k = add i64 %first, %i",
                  *_slot("%ip", "%ctxs", "%k", "coop1"),
                  "  %want = load i64, ptr %ip",
                  # Python's floor modulo of the int64 id by W (the interpreter's lin % wg).
                  "  %r = srem i64 %want, %count",
                  "  %neg = icmp slt i64 %r, 0",
                  "  %rw = add i64 %r, %count",
                  "  %at = select i1 %neg, i64 %rw, i64 %r",
                  "  %from = add i64 %first, %at",
                  *_slot("%vp", "%ctxs", "%from", "coop0"),
                  f"  %v = load {T}, ptr %vp",
                  *_slot("%op", "%ctxs", "%k", "coop3"),
                  f"  store {T} %v, ptr %op",
                  "  %i.next = add i64 %i, 1",
                  "  br label %loop"]
        return "\n".join(lines + ["done:", "  ret i1 false", "}"])
    if kind == "reduce" and op == "add" and T in FLOAT_TYPES:
        return _pairwise_reduce(fname, T)
    # A fold in order from the row's first value (np.prod, np.min, ... along the row, and
    # ufunc.accumulate: x0, op(x0, x1), ...); the exclusive scan's value before it starts
    # at the identity.
    lines += [f"  %acc = phi {T} [ {identity(op, T, signed)}, %entry ], [ %acc.next, %body ]",
              "  %more = icmp ult i64 %i, %count",
              "  br i1 %more, label %body, label %write",
              "body:",
              "  %k = add i64 %first, %i",
              *_slot("%vp", "%ctxs", "%k", "coop0"),
              f"  %v = load {T}, ptr %vp",
              "  %isfirst = icmp eq i64 %i, 0"]
    folded = emitter.combine(op, T, signed, "%acc", "%v")
    lines += body + [f"  %acc.next = select i1 %isfirst, {T} %v, {T} {folded}"]
    if kind == "reduce":
        return "\n".join(lines + ["  %i.next = add i64 %i, 1",
                                   "  br label %loop",
                                   "write:",
                                   *_write_all(T, "%acc")])
    lines += [*_slot("%op", "%ctxs", "%k", "coop3"),
              f"  store {T} {'%acc.next' if kind == 'scan_inclusive' else '%acc'}, ptr %op",
              "  %i.next = add i64 %i, 1",
              "  br label %loop",
              "write:",
              "  ret i1 false",
              "}"]
    return "\n".join(lines)


def _write_all(T, value):
    """Lines storing `value` to every context's coop3, then returning."""
    return ["  br label %wloop",
            "wloop:",
            "  %j = phi i64 [ 0, %write ], [ %j.next, %wbody ]",
            "  %wmore = icmp ult i64 %j, %count",
            "  br i1 %wmore, label %wbody, label %done",
            "wbody:",
            "  %wk = add i64 %first, %j",
            *_slot("%wp", "%ctxs", "%wk", "coop3"),
            f"  store {T} {value}, ptr %wp",
            "  %j.next = add i64 %j, 1",
            "  br label %wloop",
            "done:",
            "  ret i1 false",
            "}"]


def _pairwise_reduce(fname, T):
    """np.sum of the row: 0.0 + pairwise(row) (collectives.Emitter.reduce's order, here
    over a row whose length is known at run time)."""
    return "\n".join([
        f"define internal i1 @{fname}(ptr %ctxs, i64 %first, i64 %count) {{",
        "entry:",
        *_slot("%base", "%ctxs", "%first", "coop0"),
        f"  %p = call {T} @{_pairwise_name(T)}(ptr %base, i64 %count)",
        f"  %sum = fadd {T} 0.0, %p",
        "  br label %write",
        "write:",
        *_write_all(T, "%sum")])


def _pairwise_name(T):
    return f"__clcoop_wg_pairwise.{T}"


def pairwise_function(T):
    """T pairwise(ptr a, i64 n): NumPy's pairwise_sum (numpy/_core/src/umath/loops_utils.h.src)
    of n values of type T, one per work-item context (a points at the first one's)."""
    step = _CONTEXT_BYTES
    at = lambda out, index: [f"  {out}.o = mul i64 {index}, {step}",  # noqa: E731
                             f"  {out}.p = getelementptr i8, ptr %a, i64 {out}.o",
                             f"  {out} = load {T}, ptr {out}.p"]
    L = [f"define internal {T} @{_pairwise_name(T)}(ptr %a, i64 %n) {{",
         "entry:",
         "  %small = icmp slt i64 %n, 8",
         "  br i1 %small, label %seq, label %mid.test",
         # Fewer than 8: in order from -0.0.
         "seq:",
         "  %si = phi i64 [ 0, %entry ], [ %si.next, %seq.body ]",
         f"  %sacc = phi {T} [ -0.0, %entry ], [ %sacc.next, %seq.body ]",
         "  %smore = icmp slt i64 %si, %n",
         "  br i1 %smore, label %seq.body, label %seq.done",
         "seq.body:",
         *at("%sx", "%si"),
         f"  %sacc.next = fadd {T} %sacc, %sx",
         "  %si.next = add i64 %si, 1",
         "  br label %seq",
         "seq.done:",
         f"  ret {T} %sacc",
         "mid.test:",
         "  %mid = icmp sle i64 %n, 128",
         "  br i1 %mid, label %blocks.pre, label %split",
         # 8 to 128: eight partial sums over the whole blocks of 8.
         "blocks.pre:"]
    for j in range(8):
        L += at(f"%r0.{j}", str(j))
    L += ["  %tail = srem i64 %n, 8",
          "  %whole = sub i64 %n, %tail",
          "  br label %blocks",
          "blocks:",
          "  %bi = phi i64 [ 8, %blocks.pre ], [ %bi.next, %blocks.body ]"]
    L += [f"  %r.{j} = phi {T} [ %r0.{j}, %blocks.pre ], [ %r.{j}.next, %blocks.body ]" for j in range(8)]
    L += ["  %bmore = icmp slt i64 %bi, %whole",
          "  br i1 %bmore, label %blocks.body, label %combine",
          "blocks.body:"]
    for j in range(8):
        L += [f"  %bi{j} = add i64 %bi, {j}", *at(f"%bx{j}", f"%bi{j}"),
              f"  %r.{j}.next = fadd {T} %r.{j}, %bx{j}"]
    L += ["  %bi.next = add i64 %bi, 8",
          "  br label %blocks",
          "combine:",
          f"  %c01 = fadd {T} %r.0, %r.1", f"  %c23 = fadd {T} %r.2, %r.3",
          f"  %c45 = fadd {T} %r.4, %r.5", f"  %c67 = fadd {T} %r.6, %r.7",
          f"  %c03 = fadd {T} %c01, %c23", f"  %c47 = fadd {T} %c45, %c67",
          f"  %c07 = fadd {T} %c03, %c47",
          "  br label %rest",
          # The values after the last whole block, in order.
          "rest:",
          "  %ri = phi i64 [ %whole, %combine ], [ %ri.next, %rest.body ]",
          f"  %racc = phi {T} [ %c07, %combine ], [ %racc.next, %rest.body ]",
          "  %rmore = icmp slt i64 %ri, %n",
          "  br i1 %rmore, label %rest.body, label %rest.done",
          "rest.body:",
          *at("%rx", "%ri"),
          f"  %racc.next = fadd {T} %racc, %rx",
          "  %ri.next = add i64 %ri, 1",
          "  br label %rest",
          "rest.done:",
          f"  ret {T} %racc",
          # More than 128: two halves, the first a multiple of 8 long.
          "split:",
          "  %half = sdiv i64 %n, 2",
          "  %hrem = srem i64 %half, 8",
          "  %n2 = sub i64 %half, %hrem",
          "  %n3 = sub i64 %n, %n2",
          f"  %off = mul i64 %n2, {step}",
          "  %a2 = getelementptr i8, ptr %a, i64 %off",
          f"  %x = call {T} @{_pairwise_name(T)}(ptr %a, i64 %n2)",
          f"  %y = call {T} @{_pairwise_name(T)}(ptr %a2, i64 %n3)",
          f"  %xy = fadd {T} %x, %y",
          f"  ret {T} %xy",
          "}"]
    return "\n".join(L)


class _Fresh:
    """Fresh local names for Emitter.combine inside one generated function."""

    def __init__(self):
        self.n = 0

    def __call__(self, stem):
        self.n += 1
        return f"%{stem}.{self.n}"
