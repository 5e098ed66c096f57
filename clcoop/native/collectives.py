"""Sub-group collectives on the subgroup-wide fast path (subgroup.py; docs/native.md,
"Sub-group collectives"): OpenCL C 3.0 "Sub-Group Functions" (cl_khr_subgroups: all, any, broadcast,
reduce/scan_inclusive/scan_exclusive of add, min, max), cl_khr_subgroup_non_uniform_arithmetic
(mul, and, or, xor and the sub_group_non_uniform_* names), cl_khr_subgroup_shuffle(_relative)
and the intel_ aliases, as the interpreter defines them (interp/ocl_builtins.py,
_sub_group_collective).

Each is plain IR over the S lanes' values, bit for bit as the interpreter's NumPy:
- reductions fold the lanes in order (np.min/np.max/np.prod over a row, and integer ones,
  which wrap); a float add is NumPy's pairwise summation (np.sum: 0.0 + pairwise(row), eight
  partial sums for rows of 8 to 128 elements, _pairwise);
- scans are ufunc.accumulate: lane j's value op(lane j-1's, x_j); the exclusive scan shifts
  it by one lane behind the operation's identity;
- float min/max are np.minimum/np.maximum: a NaN first operand wins, then a NaN second
  one, and of two equal values (-0.0, +0.0) the second;
- unsigned operands (the built-in's mangled parameter) compare unsigned;
- broadcast reads lane (index mod S), a shuffle lane clip(index, 0, S-1) of the index the
  variant computes from the lane and its (sign-extended) argument; being copies, they take
  every scalar type and vectors (Emitter.lanes_table).
The per-work-item path cannot see the other lanes: a kernel with a collective runs natively
only on the fast path (KernelPlan.work_item_reason), except sub_group_all/any, which that
path computes by a rendezvous of the sub-group (votes.py; codegen routes them there first). The ballot built-ins
(cl_khr_subgroup_ballot, cl_khr_subgroup_non_uniform_vote) are collectives of kinds
"vote", "bits" and "mask" here, emitted by ballot_ir.py; only the votes need the other
lanes (needs_other_lanes).
Emitter writes the IR over given lane values; Collectives is the subgroup generator's part
that takes a collective call, reads its operands per lane (the generator's GENERATOR_USES
below) and names its result."""
import re

import llvmlite.ir as ir

from clcoop.ir.demangle import demangle, signed_param
from clcoop.ir.loader import value_kind
from clcoop.native import ballot_ir, irbuild
from clcoop.native.context import FAULT_UNREACHABLE
from clcoop.native.support import Unsupported
from clcoop.native.text_rewrite import quote

# (kind, op) of each built-in, as interp/ocl_builtins.py's table names them.
_SHUFFLES = {"sub_group_shuffle": "idx", "intel_sub_group_shuffle": "idx", "sub_group_shuffle_xor": "xor",
             "intel_sub_group_shuffle_xor": "xor", "sub_group_shuffle_up": "up",
             "sub_group_shuffle_down": "down"}
_ARITHMETIC = re.compile(r"sub_group_(?:non_uniform_)?(reduce|scan_inclusive|scan_exclusive)_"
                         r"(add|mul|min|max|and|or|xor)")
INT_TYPES = ("i8", "i16", "i32", "i64")
FLOAT_TYPES = ("float", "double")
_FLOAT_BITS = {"float": 32, "double": 64}


def collective_of(base):
    """(kind, op) of the sub-group collective named base (demangled), else None."""
    if base == "sub_group_broadcast":
        return "broadcast", None
    if base in ("sub_group_all", "sub_group_any"):
        return base[len("sub_group_"):], None
    if base in _SHUFFLES:
        return "shuffle", _SHUFFLES[base]
    m = _ARITHMETIC.fullmatch(base)
    return (m.group(1), m.group(2)) if m else ballot_ir.kind_of(base)


def needs_other_lanes(base):
    """Whether the built-in `base` is a collective that reads other work-items' values
    (the per-work-item path cannot compute it)."""
    found = collective_of(base)
    return found is not None and found[0] not in ("bits", "mask")


def non_uniform(base):
    """Whether `base` is a ballot built-in (ballot_ir.py): only the active lanes take part,
    so it may run under a mask (masking.py, regions.py)."""
    return ballot_ir.kind_of(base) is not None


def lane_kind(kind, operand_kinds, op=None):
    """The lane kind (lane_kinds.py) of a collective's result from its operands' kinds:
    'u' the same in every lane, 'v' per lane, None not known yet."""
    uniform = [k in ("u", "S") if k is not None else None for k in operand_kinds]
    if kind in ("vote", "bits", "mask"):
        return ballot_ir.lane_kind(kind, op, uniform)
    if kind in ("all", "any", "reduce"):
        return "u"
    if kind == "broadcast":
        if True in uniform:
            return "u"            # one lane read by all, or all lanes equal
        return None if None in uniform else "v"
    if kind == "shuffle":
        # Every lane reads some lane: a uniform value stays uniform.
        return None if uniform[0] is None else ("u" if uniform[0] else "v")
    return "v"                    # scans


def unsupported_type(kind, op, T):
    """Why the collective cannot run natively on values of the IR type T, else None."""
    if kind in ("all", "any"):
        return None if T in INT_TYPES else f"on {T}"
    if kind in ("broadcast", "shuffle"):
        # Copies of a lane's value: exact for every scalar and vector type.
        m = re.fullmatch(r"<\d+ x (.+)>", T)
        return None if (m.group(1) if m else T) in INT_TYPES + FLOAT_TYPES + ("half",) else f"on {T} values"
    if T in ("half", "bfloat"):
        return f"on {T} values (NumPy accumulates float16 differently)"
    if T not in INT_TYPES + FLOAT_TYPES:
        return f"on {T} values (scalars only)"
    if T in FLOAT_TYPES and kind != "shuffle" and op in ("and", "or", "xor"):
        return f"on {T}"
    return None


def combine(b, op, signed, x, y, name):
    """op(x, y) built at b as NumPy computes it for the interpreter's dtype (the one spelling
    of the rule: Emitter.combine splices it, workgroup_collectives builds with it):
    np.minimum(x, y) = x if x < y or x is NaN, else y (np.maximum with >); integer min/max
    signed or unsigned; the rest LLVM's wrapping or IEEE operation."""
    is_float = not isinstance(x.type, ir.IntType)
    if op in ("min", "max"):
        if is_float:
            less = irbuild.fcmp(b, "olt" if op == "min" else "ogt", x, y, f"{name}.c")
            keep = b.or_(less, irbuild.fcmp(b, "uno", x, ir.Constant(x.type, 0.0), f"{name}.n"), name=f"{name}.k")
        else:
            keep = irbuild.icmp(b, ("s" if signed else "u") + ("lt" if op == "min" else "gt"), x, y, f"{name}.c")
        return b.select(keep, x, y, name=name)
    if is_float:
        return {"add": b.fadd, "mul": b.fmul}[op](x, y, name=name)
    return {"add": b.add, "mul": b.mul, "and": b.and_, "or": b.or_, "xor": b.xor}[op](x, y, name=name)


class Emitter:
    """IR lines of collectives over the lanes' values (texts), with fresh names from
    fresh(stem); alloca(type text): the name of a new alloca in the function's entry (for
    lanes_table of vectors)."""

    def __init__(self, fresh, lines, alloca=None):
        self.fresh = fresh
        self.lines = lines
        self.alloca = alloca

    def combine(self, op, T, signed, a, b):
        """op(a, b) as NumPy computes it for the interpreter's dtype: combine's rule,
        spliced in place (irbuild.splice)."""
        out = self.fresh("sgc")
        self.lines += irbuild.splice(lambda bld, x, y: combine(bld, op, signed, x, y, "v"), [(T, a), (T, b)], out,
                                     out)
        return out

    def fold(self, op, T, signed, xs):
        acc = xs[0]
        for x in xs[1:]:
            acc = self.combine(op, T, signed, acc, x)
        return acc

    def reduce(self, op, T, signed, xs):
        if T in FLOAT_TYPES and op == "add":
            # np.sum(table, axis=1): the identity 0.0 plus the row's pairwise sum.
            return self.combine("add", T, signed, "0.0", self._pairwise(T, xs))
        return self.fold(op, T, signed, xs)

    def _pairwise(self, T, xs):
        """NumPy's pairwise_sum (numpy/_core/src/umath/loops_utils.h.src): fewer than 8
        values in order; up to 128 in 8 interleaved partial sums combined
        ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the rest in order; more: two halves."""
        n = len(xs)
        add = lambda a, b: self.combine("add", T, True, a, b)  # noqa: E731
        if n < 8:
            acc = "-0.0"
            for x in xs:
                acc = add(acc, x)
            return acc
        if n <= 128:
            r = list(xs[:8])
            i = 8
            while i < n - n % 8:
                r = [add(r[k], xs[i + k]) for k in range(8)]
                i += 8
            acc = add(add(add(r[0], r[1]), add(r[2], r[3])), add(add(r[4], r[5]), add(r[6], r[7])))
            for x in xs[i:]:
                acc = add(acc, x)
            return acc
        half = n // 2
        half -= half % 8
        return add(self._pairwise(T, xs[:half]), self._pairwise(T, xs[half:]))

    def scan(self, op, T, signed, xs, exclusive):
        """Per lane: ufunc.accumulate of the lanes up to it (exclusive: up to the one
        before, lane 0 the identity)."""
        out = [xs[0]]
        for x in xs[1:]:
            out.append(self.combine(op, T, signed, out[-1], x))
        if exclusive:
            out = [identity(op, T, signed)] + out[:-1]
        return out

    def truth(self, kind, T, xs):
        """sub_group_all / sub_group_any: whether every (some) lane's value is not 0, as i1."""
        bits = []
        for x in xs:
            b = self.fresh("sgt")
            self.lines.append(f"  {b} = icmp ne {T} {x}, 0")
            bits.append(b)
        acc = bits[0]
        for b in bits[1:]:
            out = self.fresh("sgt")
            self.lines.append(f"  {out} = {'and' if kind == 'all' else 'or'} i1 {acc}, {b}")
            acc = out
        return acc

    def vector(self, T, xs):
        """<S x T> of the lanes' values."""
        v = self.fresh("sgv")
        prev = "poison"
        for j, x in enumerate(xs):
            self.lines.append(f"  {v}.{j} = insertelement <{len(xs)} x {T}> {prev}, {T} {x}, i64 {j}")
            prev = f"{v}.{j}"
        return prev

    def lanes_table(self, T, xs):
        """read(index) -> the value of lane `index` (an i64 in [0, S)) of the lanes' values
        xs: a <S x T> vector for scalars, an [S x T] array on the stack for vectors (no
        vector of vectors)."""
        S = len(xs)
        if not T.startswith("<"):
            vec = self.vector(T, xs)

            def read(at):
                v = self.fresh("sgx")
                self.lines.append(f"  {v} = extractelement <{S} x {T}> {vec}, i64 {at}")
                return v
            return read
        table = self.alloca(f"[{S} x {T}]")
        for j, x in enumerate(xs):
            p = self.fresh("sgp")
            self.lines += [f"  {p} = getelementptr [{S} x {T}], ptr {table}, i64 0, i64 {j}",
                           f"  store {T} {x}, ptr {p}"]

        def read(at):
            p, v = self.fresh("sgp"), self.fresh("sgx")
            self.lines += [f"  {p} = getelementptr [{S} x {T}], ptr {table}, i64 0, i64 {at}",
                           f"  {v} = load {T}, ptr {p}"]
            return v
        return read

    def lane_index(self, kind, op, IT, index, j, S):
        """The lane (i64) lane j reads: broadcast index mod S; a shuffle's clipped to
        [0, S-1] (the interpreter's np.clip of the int64 index)."""
        n = self.fresh("sgi")
        widen = f"  {n}.w = sext {IT} {index} to i64" if IT != "i64" else f"  {n}.w = add i64 {index}, 0"
        self.lines.append(widen)
        if kind == "broadcast":
            # (Python's floor modulo of the signed index by a power of two: its low bits.)
            self.lines.append(f"  {n} = and i64 {n}.w, {S - 1}")
            return n
        code = {"idx": None, "xor": "xor", "up": "sub", "down": "add"}[op]
        at = f"{n}.w"
        if code is not None:
            # j - index (up), j + index (down): no wrap in i64 for a 32-bit index.
            a, b = (str(j), f"{n}.w")
            self.lines.append(f"  {n}.r = {code} i64 {a}, {b}")
            at = f"{n}.r"
        self.lines += [f"  {n}.lo = icmp slt i64 {at}, 0",
                       f"  {n}.c0 = select i1 {n}.lo, i64 0, i64 {at}",
                       f"  {n}.hi = icmp sgt i64 {n}.c0, {S - 1}",
                       f"  {n} = select i1 {n}.hi, i64 {S - 1}, i64 {n}.c0"]
        return n


def identity(op, T, signed):
    """The interpreter's identity of op (ocl_builtins._identity) as an IR constant."""
    if T in FLOAT_TYPES:
        return {"add": "0.0", "mul": "1.0", "min": "0x7FF0000000000000", "max": "0xFFF0000000000000"}[op]
    bits = int(T[1:])
    return str({"add": 0, "mul": 1, "and": -1, "or": 0, "xor": 0,
                "min": (1 << bits - 1) - 1 if signed else -1,
                "max": -(1 << bits - 1) if signed else 0}[op])


# What Collectives uses of the subgroup generator (subgroup._SubgroupGen), and nothing else
# (test_native_subgroup_parts checks it): the lane count S, the lines being emitted, fresh
# names, entry allocas (a table of vector lanes), lane j's value of an operand, the
# varying values, fault sites, the current mask (masked_preds: per lane in a hammock's
# masked copy, block_any: in a region's block) and the module's functions (whether a
# callee is a declaration). ballot_ir.emit_fast uses its own list, a subset of these.
GENERATOR_USES = ("S", "lines", "fresh", "entry_alloca", "lane", "varying", "operand_varying", "site",
                  "masked_preds", "block_any", "mg")


class Collectives:
    """The subgroup generator's part for sub-group collectives (this module's Emitter) and
    ballot built-ins (ballot_ir.emit_fast) over the lanes' values; masking: the masking
    part (its all_any, for the fault of a collective in a masked copy)."""

    def __init__(self, gen, masking):
        self.gen, self.masking = gen, masking

    def takes(self, ins, ops):
        """Whether ins is a call of a declared collective built-in (emit takes it)."""
        if ins.opcode != "call":
            return False
        callee = ops[-1]
        g = self.gen.mg.functions.get(callee.name)
        return value_kind(callee) == "function" and g is not None and g.is_declaration and \
            collective_of(demangle(callee.name)[0]) is not None

    def emit(self, ins, ops):
        """A sub-group collective over the lanes' values. In the masked copy of a
        lane-varying if (masking.py: it runs only where the lanes differ) not every
        work-item of the sub-group reaches it, which the interpreter reports as a fault
        (OpenCL C 3.0 "Sub-Group Functions": all work-items of the sub-group must encounter
        it): a fault here, and the launch is run again where it is reported. In a region (a
        loop or nested if whose control flow may differ between lanes): not taken."""
        gen = self.gen
        base, params = demangle(ops[-1].name)
        kind, op = collective_of(base)
        if non_uniform(base):
            # Only the active lanes take part (ballot_ir.py): also under a mask.
            site = lambda: gen.site(ins, "sub-group collective", 0)     # noqa: E731
            return self._name_result(ins, ballot_ir.emit_fast(gen, ins, ops, kind, op, site, self._lanes_table))
        if gen.block_any is not None:
            raise Unsupported(f"the sub-group collective '{base}' in a loop or nested branch that may "
                              f"differ between the lanes of a subgroup")
        args = ops[:-1]
        T = str(args[0].type)
        why = unsupported_type(kind, op, T)
        if why is not None:
            raise Unsupported(f"the sub-group collective '{base}' {why}")
        S = gen.S
        emit = Emitter(gen.fresh, gen.lines, gen.entry_alloca)
        if gen.masked_preds is not None:
            every, some = self.masking.all_any(gen.masked_preds)
            part = gen.fresh("sgpart")
            site = gen.site(ins, "sub-group collective", 0)
            gen.lines += [f"  {part}.n = xor i1 {every}, true",
                          f"  {part} = and i1 {some}, {part}.n",
                          f"  call void @__clcoop_fault_if(ptr %__ctx, i1 {part}, i32 {site}, i32 {FAULT_UNREACHABLE})"]
        signed = signed_param(params, 0)
        xs = [gen.lane(args[0], j) for j in range(S)]
        varying = ins.name in gen.varying
        if kind in ("all", "any"):
            out = gen.fresh("sgb")
            gen.lines.append(f"  {out} = zext i1 {emit.truth(kind, T, xs)} to {ins.type}")
            values = out
        elif kind == "reduce":
            values = emit.reduce(op, T, signed, xs)
        elif kind in ("scan_inclusive", "scan_exclusive"):
            values = emit.scan(op, T, signed, xs, kind == "scan_exclusive")
        elif not gen.operand_varying(args[0], gen.varying):
            values = xs[0]          # every lane holds the value read
        else:
            read = emit.lanes_table(T, xs)
            values = []
            for j in range(S if varying else 1):
                values.append(read(emit.lane_index(kind, op, str(args[1].type), gen.lane(args[1], j), j, S)))
            values = values if varying else values[0]
        self._name_result(ins, values)

    def _lanes_table(self, T, xs):
        """Emitter.lanes_table over the lines being emitted now (ballot_ir's broadcast)."""
        gen = self.gen
        return Emitter(gen.fresh, gen.lines, gen.entry_alloca).lanes_table(T, xs)

    def _name_result(self, ins, values):
        """The collective's result under its own name: one value (uniform), or one per lane
        (a list, or one value for every lane)."""
        gen = self.gen
        T = str(ins.type)
        if ins.name not in gen.varying:
            gen.lines.append(f"  {quote(ins.name)} = bitcast {T} {values} to {T}")
            return
        for j in range(gen.S):
            v = values[j] if isinstance(values, list) else values
            gen.lines.append(f"  {quote(f'{ins.name}.l{j}')} = bitcast {T} {v} to {T}")
