"""cl_khr_subgroup_ballot and cl_khr_subgroup_non_uniform_vote natively (docs/native.md,
"Sub-group collectives"), bit for bit as the interpreter's (interp/subgroup_ballot.py).

These built-ins are non-uniform: only the active work-items of a sub-group take part. On
the subgroup-wide fast path (subgroup.py) a lane is active where the block runs for it:
every lane in uniform control flow (the fast path runs only full sub-groups), the lane's
predicate in the masked copy of a lane-varying if (masking.py) and the lane's mask in a
masked region (regions.py: loops and nested ifs). Three groups:
- votes (VOTES: ballot, elect, non_uniform_all/any/all_equal, broadcast_first,
  non_uniform_broadcast) read the other lanes: fast path only, like the collectives of
  collectives.py (the per-work-item path faults; KernelPlan.work_item_reason);
- bit queries of a ballot (BIT_QUERIES) and the get_sub_group_*_mask queries (MASKS)
  depend only on the work-item's sub-group local id and its sub-group's size: compiled on
  both paths (lane_definition reads them from the context, the fast path has constants).
A ballot is a uint4, bit i (bit i % 32 of word i / 32, which is i128 bit i on the
little-endian hosts the engine runs on) for sub-group local id i; the bit queries consider
only the bits below the sub-group's size. As the interpreter decides where the extension
leaves the result undefined: find_lsb/find_msb of no bit give 0xFFFFFFFF, and
sub_group_non_uniform_broadcast with an index that differs between the active work-items or
names an inactive one faults (the fast path records the fault, and the launch runs where it
is reported: the interpreter).
Values of masked-off lanes may be poison (a masked copy computes every lane): they only
reach `select`s on the lane's activity, never an `and`/`or` that would propagate it."""
import llvmlite.ir as ir

from clcoop.ir.demangle import demangle
from clcoop.native import irbuild
from clcoop.native.context import FAULT_UNREACHABLE
from clcoop.native.support import Unsupported

VOTES = {"sub_group_ballot": "ballot", "sub_group_elect": "elect", "sub_group_non_uniform_all": "all",
         "sub_group_non_uniform_any": "any", "sub_group_non_uniform_all_equal": "all_equal",
         "sub_group_broadcast_first": "first", "sub_group_non_uniform_broadcast": "broadcast"}
BIT_QUERIES = {"sub_group_inverse_ballot": "inverse", "sub_group_ballot_bit_extract": "extract",
               "sub_group_ballot_bit_count": "count", "sub_group_ballot_inclusive_scan": "inclusive_scan",
               "sub_group_ballot_exclusive_scan": "exclusive_scan", "sub_group_ballot_find_lsb": "find_lsb",
               "sub_group_ballot_find_msb": "find_msb"}
MASKS = {f"get_sub_group_{k}_mask": k for k in ("eq", "ge", "gt", "le", "lt")}
BALLOT = "<4 x i32>"
BALLOT_BITS = 128
INT_TYPES = ("i8", "i16", "i32", "i64")
FLOAT_TYPES = ("half", "float", "double")
# Bit queries whose result is the same in every lane given the same ballot (and index).
_LANE_FREE = ("extract", "count", "find_lsb", "find_msb")


def kind_of(base):
    """("vote" | "bits" | "mask", the operation) of a ballot built-in, else None."""
    for kind, table in (("vote", VOTES), ("bits", BIT_QUERIES), ("mask", MASKS)):
        if base in table:
            return kind, table[base]
    return None


def lane_kind(kind, op, uniform):
    """The lane kind (lane_kinds.py) of the result: 'u' the same in every (active) lane,
    'v' per lane, None not known yet; uniform: per operand, whether it is uniform (None:
    not known yet)."""
    if kind == "vote":
        return "v" if op == "elect" else "u"
    if kind == "bits" and op in _LANE_FREE:
        return None if None in uniform else ("u" if all(uniform) else "v")
    return "v"


def check_types(kind, op, ret, params):
    """Why the built-in cannot run natively with these IR types (Unsupported), else None."""
    scalar = lambda t: t in INT_TYPES or t in FLOAT_TYPES      # noqa: E731
    element = lambda t: t.rsplit(" x ", 1)[-1].rstrip(">") if t.startswith("<") else t   # noqa: E731
    if kind == "mask":
        ok = ret == BALLOT and not params
    elif kind == "bits":
        ok = ret == "i32" and params == ([BALLOT, "i32"] if op == "extract" else [BALLOT])
    elif op == "ballot":
        ok = ret == BALLOT and len(params) == 1 and params[0] in INT_TYPES
    elif op == "elect":
        ok = ret == "i32" and not params
    elif op in ("all", "any"):
        ok = ret == "i32" and len(params) == 1 and params[0] in INT_TYPES
    elif op == "all_equal":
        ok = ret == "i32" and len(params) == 1 and scalar(params[0])
    elif op == "first":
        ok = len(params) == 1 and params[0] == ret and scalar(element(ret))
    else:       # broadcast
        ok = len(params) == 2 and params[0] == ret and scalar(element(ret)) and params[1] == "i32"
    if not ok:
        raise Unsupported(f"the ballot built-in of {kind} '{op}' on ({', '.join(params)}) -> {ret}")


def mask_words(op, j, size):
    """get_sub_group_<op>_mask of the work-item of local id j in a sub-group of `size`:
    the bits i < size with i <op> j, as an IR <4 x i32> constant."""
    compare = {"eq": int.__eq__, "ge": int.__ge__, "gt": int.__gt__, "le": int.__le__, "lt": int.__lt__}[op]
    bits = sum(1 << i for i in range(size) if compare(i, j))
    words = [(bits >> (32 * k)) & 0xFFFFFFFF for k in range(4)]
    return f"<{', '.join(f'i32 {w}' for w in words)}>"


class BallotEmitter:
    """IR lines of the ballot built-ins, with fresh names from fresh(stem)."""

    def __init__(self, fresh, lines):
        self.fresh = fresh
        self.lines = lines

    # ------------------------------------------------------------ per work-item
    def query(self, op, ballot, index, j, size):
        """query's lines (spliced: the rule is written once, as a builder) for the lane of
        local id j in a sub-group of `size` (IR references of i128s)."""
        inputs = [(BALLOT, ballot), ("i128", j), ("i128", size)] + ([("i32", index)] if op == "extract" else [])
        n = self.fresh("bq")
        self.lines += irbuild.splice(lambda b, ballot, j, size, index=None: query(b, op, ballot, index, j, size),
                                     inputs, n, n)
        return n

    # ------------------------------------------------------------ over the lanes
    def flags(self, T, xs, active, reference=None, zero=False):
        """Per lane, i1: the lane is active and its x != 0 (zero: x == 0; reference: x
        differs from it); false where inactive (a select: an inactive lane's value may be
        poison)."""
        out = []
        for x, a in zip(xs, active):
            f = self.fresh("bv")
            if reference is None:
                self.lines.append(f"  {f}.c = icmp {'eq' if zero else 'ne'} {T} {x}, 0")
            elif T in FLOAT_TYPES:
                # NumPy's x == reference is false for a NaN: it differs from itself.
                self.lines.append(f"  {f}.c = fcmp une {T} {x}, {reference}")
            else:
                self.lines.append(f"  {f}.c = icmp ne {T} {x}, {reference}")
            self.lines.append(f"  {f} = select i1 {a}, i1 {f}.c, i1 false")
            out.append(f)
        return out

    def fold(self, op, bits, start):
        acc = start
        for b in bits:
            out = self.fresh("bf")
            self.lines.append(f"  {out} = {op} i1 {acc}, {b}")
            acc = out
        return acc

    def first_active(self, T, xs, active):
        """The value of the lowest active lane (zero where no lane is active)."""
        acc = "zeroinitializer"
        for x, a in reversed(list(zip(xs, active))):
            out = self.fresh("bl")
            self.lines.append(f"  {out} = select i1 {a}, {T} {x}, {T} {acc}")
            acc = out
        return acc

    def ballot(self, T, xs, active):
        """The <4 x i32> of the active lanes whose value is not 0."""
        S = len(xs)
        n = self.fresh("bb")
        prev = "poison"
        for j, f in enumerate(self.flags(T, xs, active)):
            self.lines.append(f"  {n}.v{j} = insertelement <{S} x i1> {prev}, i1 {f}, i64 {j}")
            prev = f"{n}.v{j}"
        self.lines.append(f"  {n}.i = bitcast <{S} x i1> {prev} to i{S}")
        wide = f"{n}.i"
        if S < BALLOT_BITS:
            self.lines.append(f"  {n}.w = zext i{S} {n}.i to i128")
            wide = f"{n}.w"
        self.lines.append(f"  {n} = bitcast i128 {wide} to {BALLOT}")
        return n

    def elect(self, active):
        """Per lane, i32: whether it is the lowest active lane."""
        seen, out = "false", []
        for a in active:
            n = self.fresh("be")
            self.lines += [f"  {n}.f = xor i1 {seen}, true", f"  {n}.e = and i1 {a}, {n}.f",
                           f"  {n}.s = or i1 {seen}, {a}", f"  {n} = zext i1 {n}.e to i32"]
            seen = f"{n}.s"
            out.append(n)
        return out

    def vote(self, op, T, xs, active):
        """sub_group_non_uniform_all / any / all_equal over the active lanes, as i32."""
        if op == "any":
            truth = self.fold("or", self.flags(T, xs, active), "false")
        elif op == "all":      # no active lane's value is 0
            truth = self._not(self.fold("or", self.flags(T, xs, active, zero=True), "false"))
        else:                  # no active lane's value differs from the first active one's
            reference = self.first_active(T, xs, active)
            truth = self._not(self.fold("or", self.flags(T, xs, active, reference), "false"))
        out = self.fresh("bz")
        self.lines.append(f"  {out} = zext i1 {truth} to i32")
        return out

    def _not(self, b):
        out = self.fresh("bn")
        self.lines.append(f"  {out} = xor i1 {b}, true")
        return out


_I128 = ir.IntType(BALLOT_BITS)


def _below(b, size, name):
    """The i128 of bits 0 .. size - 1 (size: an i128 in [1, 128])."""
    return b.lshr(ir.Constant(_I128, -1), b.sub(ir.Constant(_I128, BALLOT_BITS), size, name=f"{name}.sh"), name=name)


def query(b, op, ballot, index, j, size):
    """The i32 result of the bit query `op` of the work-item of local id j (an i128) in a
    sub-group of `size` (an i128), built with b; index: the bit_extract index (an i32).
    Only the ballot's bits below `size` are considered."""
    m = b.and_(b.bitcast(ballot, _I128, name="bits"), _below(b, size, "kept"), name="m")
    if op == "inverse":
        return b.zext(b.trunc(b.lshr(m, j, name="x"), irbuild.I1, name="t"), irbuild.I32, name="r")
    if op == "extract":
        # (an index of 128 or more names no bit: 0)
        i = b.zext(index, _I128, name="i")
        inside = irbuild.icmp(b, "ult", i, ir.Constant(_I128, BALLOT_BITS), "in")
        bit = b.trunc(b.lshr(m, b.select(inside, i, ir.Constant(_I128, 0), name="s"), name="x"), irbuild.I1, name="t")
        return b.zext(b.select(inside, bit, ir.Constant(irbuild.I1, 0), name="on"), irbuild.I32, name="r")
    if op in ("count", "inclusive_scan", "exclusive_scan"):
        bits = m
        if op != "count":
            # bits 0..j (2 << j wraps to 0 for j = 127: all ones) or 0..j-1
            end = b.shl(ir.Constant(_I128, 2 if op == "inclusive_scan" else 1), j, name="e")
            bits = b.and_(m, b.sub(end, ir.Constant(_I128, 1), name="k"), name="mj")
        return b.trunc(irbuild.intrinsic(b, "ctpop", [bits], "c"), irbuild.I32, name="r")
    if op in ("find_lsb", "find_msb"):
        none = irbuild.icmp(b, "eq", m, ir.Constant(_I128, 0), "z")
        at = irbuild.intrinsic(b, "cttz" if op == "find_lsb" else "ctlz", [m, ir.Constant(irbuild.I1, 1)], "c")
        if op == "find_msb":
            at = b.sub(ir.Constant(_I128, BALLOT_BITS - 1), at, name="h")
        return b.select(none, ir.Constant(irbuild.I32, -1), b.trunc(at, irbuild.I32, name="t"), name="r")
    raise Unsupported(f"the ballot bit query '{op}'")


def mask(b, op, j, size):
    """get_sub_group_<op>_mask from local id j and the sub-group's size (i128s), built with b."""
    below = _below(b, size, "all") if op in ("ge", "gt") else None
    eq = b.shl(ir.Constant(_I128, 1), j, name="eq")
    lt = b.sub(eq, ir.Constant(_I128, 1), name="lt")
    le = b.or_(lt, eq, name="le") if op in ("le", "gt") else None
    bits = {"eq": eq, "lt": lt, "le": le}.get(op)
    if bits is None:    # ge, gt: the complement of lt, le below the size
        bits = b.and_(b.xor(lt if op == "ge" else le, ir.Constant(_I128, -1), name="not"), below, name="in")
    return b.bitcast(bits, irbuild.parse_type(BALLOT), name="r")


def lane_definition(name, base, ret, params):
    """The per-work-item definition of a bit query or mask built-in (its sub-group local id
    and sub-group size from the context, as builtin_ir.workitem_definition computes them),
    or None where `base` is none."""
    found = kind_of(base)
    if found is None or found[0] == "vote":
        return None
    kind, op = found
    check_types(kind, op, ret, params)
    fn, b = irbuild.builtin(name, ret, params)
    c = fn.args[0]
    sg_size, wg_size, llid = (irbuild.load_slot(b, c, field) for field in ("sg_size", "wg_size", "llid"))
    # local id llid % S; size: S, or what the work-group leaves to its last sub-group.
    first = b.mul(b.udiv(llid, sg_size, name="sg"), sg_size, name="first")
    lid = b.sub(llid, first, name="lid")
    left = b.sub(wg_size, first, name="left")
    size = b.select(irbuild.icmp(b, "ult", left, sg_size, "short"), left, sg_size, name="size")
    j, n = b.zext(lid, _I128, name="j"), b.zext(size, _I128, name="n")
    if kind == "mask":
        b.ret(mask(b, op, j, n))
    else:
        b.ret(query(b, op, fn.args[1], fn.args[2] if op == "extract" else None, j, n))
    return irbuild.function_text(fn)


# What emit_fast uses of the subgroup generator (subgroup._SubgroupGen), and nothing else
# (test_native_subgroup_parts checks it): the lane count S, fresh names, the lines being
# emitted, the varying values, lane j's value of an operand and the lanes' mask
# (masked_preds: None where every lane is active).
GENERATOR_USES = ("S", "fresh", "lines", "varying", "lane", "masked_preds")


def emit_fast(gen, ins, ops, kind, op, site_of, lanes_table):
    """A ballot built-in on the subgroup-wide fast path (gen: subgroup._SubgroupGen, S
    lanes of one full sub-group; lane j is sub-group local id j). Returns the result: one
    value (uniform) or a list, one per lane. site_of(): a fault site (non_uniform_broadcast);
    lanes_table(T, xs) -> read(index), the value of lane index (collectives.Emitter.lanes_table)."""
    args = ops[:-1]
    ret = str(ins.type)
    check_types(kind, op, ret, [str(a.type) for a in args])
    S = gen.S
    if S > BALLOT_BITS:
        raise Unsupported(f"the ballot built-in '{demangle(ops[-1].name)[0]}' at {S} lanes (a ballot has 128 bits)")
    emit = BallotEmitter(gen.fresh, gen.lines)
    varying = ins.name in gen.varying
    lanes = range(S) if varying else [0]
    if kind == "mask":
        return [mask_words(op, j, S) for j in range(S)] if varying else mask_words(op, 0, S)
    if kind == "bits":
        values = [emit.query(op, gen.lane(args[0], j), gen.lane(args[1], j) if op == "extract" else None,
                             str(j), str(S)) for j in lanes]
        return values if varying else values[0]
    active = gen.masked_preds or ["true"] * S
    T = str(args[0].type) if args else None
    xs = [gen.lane(args[0], j) for j in range(S)] if args else []
    if op == "ballot":
        return emit.ballot(T, xs, active)
    if op == "elect":
        return emit.elect(active)
    if op in ("all", "any", "all_equal"):
        return emit.vote(op, T, xs, active)
    if op == "first":
        return emit.first_active(T, xs, active)
    return _non_uniform_broadcast(gen, emit, T, xs, args[1], active, site_of, lanes_table)


def _non_uniform_broadcast(gen, emit, T, xs, index, active, site_of, lanes_table):
    """The value of the lane the active lanes' index names; a fault where the index differs
    between them, is S or more, or names an inactive lane (interp: _non_uniform_broadcast)."""
    S = gen.S
    ids = [gen.lane(index, j) for j in range(S)]
    first = emit.first_active("i32", ids, active)
    n = gen.fresh("bnb")
    lines = gen.lines
    differs = emit.flags("i32", ids, active, first)
    any_differs = emit.fold("or", differs, "false")
    some = emit.fold("or", active, "false")
    prev = "poison"
    for j, a in enumerate(active):
        lines.append(f"  {n}.v{j} = insertelement <{S} x i1> {prev}, i1 {a}, i64 {j}")
        prev = f"{n}.v{j}"
    lines += [f"  {n}.act = bitcast <{S} x i1> {prev} to i{S}",
              f"  {n}.w = zext i32 {first} to i64",
              f"  {n}.in = icmp ult i64 {n}.w, {S}",
              f"  {n}.at = select i1 {n}.in, i64 {n}.w, i64 {S - 1}",
              f"  {n}.atn = {'trunc' if S < 64 else 'zext' if S > 64 else 'bitcast'} i64 {n}.at to i{S}",
              f"  {n}.sh = lshr i{S} {n}.act, {n}.atn",
              f"  {n}.on = trunc i{S} {n}.sh to i1",
              f"  {n}.ok = and i1 {n}.in, {n}.on",
              f"  {n}.nok = xor i1 {n}.ok, true",
              f"  {n}.bad0 = and i1 {some}, {n}.nok",
              f"  {n}.bad = or i1 {n}.bad0, {any_differs}",
              f"  call void @__clcoop_fault_if(ptr %__ctx, i1 {n}.bad, i32 {site_of()}, i32 {FAULT_UNREACHABLE})"]
    return lanes_table(T, xs)(f"{n}.at")

