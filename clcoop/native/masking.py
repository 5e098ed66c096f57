"""Branches whose condition may differ between the lanes of a subgroup, on the subgroup
fast path (subgroup.py; docs/native.md, "The subgroup-wide fast path").

Taken for if-then and if-then-else shapes ("hammocks"): a block B ending in a conditional
branch on a lane-varying condition, one or two side blocks entered only from B, each
ending in an unconditional branch to the join J, which is entered only from them (and from
B for if-then), all in layout order B < sides < J (no edge of the shape is a loop's back
edge, so the instruction limit's counting is not involved). At run time B's branch is:
- the same in every lane: the original blocks run, unmasked (vector accesses and all);
- different: a masked copy of the side blocks runs once for the subgroup. Every lane
  computes every side's values (they are only used through the join's selects); a load
  or store of a lane that did not take the side is masked: its check is the region's first
  byte with size 0 (it cannot fail) and its access goes to the scratch area, so a masked-
  off lane neither touches memory nor faults. Instructions of uniform operands run once:
  at least one lane takes each side here, and they would give that lane the same result.
  At J, each phi (varying now: Masking.forced) takes per lane the value of the side the
  lane took.
Anything else about a varying branch keeps the kernel on the per-work-item path, with the
reason. A fault in the masked copy (a real one, of a lane that took the side, or a
division by zero of a masked-off lane) makes the runtime run the launch again on the
per-work-item path, like every fault of the fast path.
"""
import re

from clcoop.ir.demangle import demangle
from clcoop.native.context import CTX, FAULT_READ, FAULT_WRITE, REGION_LO, REGION_ROW_WORDS
from clcoop.native import fixed_ir
from clcoop.native.collectives import collective_of, non_uniform
from clcoop.native.builtin_ir import _CONVERT_RE, _INTEGER_BUILTINS, _RELATIONAL, _TO_INT_RE, store_size, type_suffix
from clcoop.ir import cfg
from clcoop.native.text_rewrite import clean_ir, quote
from clcoop.native.support import EXACT_MATH, WORKITEM_FUNCTIONS, Unsupported

BRANCH = re.compile(r'br i1 (.+?), label %("[^"]*"|[-\w.$]+), label %("[^"]*"|[-\w.$]+)')


# The masked copy's checks are calls of one out-of-line copy of the check (ll/check_cold.ll
# says why).
CHECK_COLD_IR = fixed_ir.load("check_cold.ll", {})


class Hammock:
    """B's varying branch: cond (its operand), sides [(block name, taken when the
    condition is false)], join, and for each phi edge of the join the condition value
    under which a lane arrives by it (true_edge, false_edge: block names)."""

    def __init__(self, branch, cond, sides, join, true_edge, false_edge):
        self.branch, self.cond, self.sides, self.join = branch, cond, sides, join
        self.true_edge, self.false_edge = true_edge, false_edge


def find_hammocks(blocks, varying_branch):
    """({branch block name: Hammock}, [names of the other blocks]) for the blocks whose
    terminator varying_branch(ins) says may differ between lanes (the others go to
    regions.py)."""
    order = {b.name: i for i, b in enumerate(blocks)}
    by_name = {b.name: b for b in blocks}
    preds = {n: set(p) for n, p in cfg.predecessors(cfg.block_graph(blocks)).items()}
    out, others = {}, []
    for b in blocks:
        term = list(b.instructions)[-1]
        if not varying_branch(term):
            continue
        m = BRANCH.fullmatch(clean_ir(str(term)).split(", !")[0])
        if m is None:
            raise Unsupported("a switch whose value may differ between the lanes of a subgroup")
        t, f = m.group(2).strip('"'), m.group(3).strip('"')
        h = _shape(b.name, list(term.operands)[0], t, f, by_name, preds, order)
        if h is None:
            others.append(b.name)
        else:
            out[b.name] = h
    return out, others


def _only_branch_to(block, target):
    return cfg.block_successors(block) == [target] and clean_ir(str(list(block.instructions)[-1])).startswith("br label")


def _shape(B, cond, t, f, by_name, preds, order):
    def side_ok(s, join):
        return s != B and preds[s] == {B} and _only_branch_to(by_name[s], join) and \
            order[B] < order[s] < order[join] and not any(i.opcode == "phi" for i in by_name[s].instructions)
    if t != f and side_ok(t, f) and preds[f] == {B, t}:                 # if-then
        return Hammock(B, cond, [(t, False)], f, t, B)
    if t != f and side_ok(f, t) and preds[t] == {B, f}:                 # if (!c) then
        return Hammock(B, cond, [(f, True)], t, B, f)
    succ = cfg.block_successors(by_name[t]) if t in by_name else []
    if t != f and len(succ) == 1 and side_ok(t, succ[0]) and side_ok(f, succ[0]) and \
            preds[succ[0]] == {t, f}:                                    # if-then-else
        return Hammock(B, cond, [(t, False), (f, True)], succ[0], t, f)
    return None


# What Masking uses of the subgroup generator (subgroup._SubgroupGen), and nothing else
# (test_native_subgroup_parts checks it): the lane count S, the lines being emitted (a
# masked copy swaps them for its own), fresh names, lane j's value of an operand, fault
# sites, the varying values, the generator's own emission of an instruction (a side's
# instructions, masked through it again), the current mask (masked_preds: per lane,
# block_any: whether any lane runs a region's block), and for an access its type, origin,
# region-table slot and whether its lanes are consecutive.
GENERATOR_USES = ("S", "lines", "fresh", "lane", "site", "varying", "operand_varying", "instruction",
                  "masked_preds", "block_any", "blocks", "mg", "layout", "ty", "base_of", "global_slot",
                  "consecutive")


class Masking:
    """The subgroup generator's part for hammocks: finds them (hammocks: branch block ->
    Hammock), checks what their sides hold, and emits the branch, the masked copy and the
    join's phis; also every masked access (regions.py's blocks too)."""

    def __init__(self, gen):
        self.gen = gen
        self.hammocks = {}         # branch block -> Hammock (a lane-varying if)

    def find(self, varying_branch):
        """Hammocks of the blocks whose terminator varying_branch(ins) says may differ
        between lanes; the names of the other such blocks (regions.py's)."""
        self.hammocks, others = find_hammocks(self.gen.blocks, varying_branch)
        return others

    def drop(self, blocks):
        """Forget the hammocks branching in `blocks` (a region holds them)."""
        self.hammocks = {b: h for b, h in self.hammocks.items() if b not in blocks}

    def check_sides(self):
        """What a side block of a hammock may hold (check_block)."""
        sides = {s: h for h in self.hammocks.values() for s, _ in h.sides}
        for b in self.gen.blocks:
            if b.name in sides:
                self.check_block(b, collectives_taken=True)

    @staticmethod
    def check_block(b, collectives_taken=False):
        """What a block run under a mask may hold: no matrices, calls only of work-item
        queries, LLVM intrinsics and built-ins without memory access or fault (no side
        effects to mask); in a hammock's side, sub-group collectives (they fault in the
        masked copy: collectives.Collectives.emit); anywhere, the non-uniform ballot
        built-ins (only the active lanes take part: ballot_ir.py)."""
        for ins in b.instructions:
            if ins.opcode == "call":
                name = list(ins.operands)[-1].name
                base = demangle(name)[0]
                if not (name.startswith("llvm.") or base in WORKITEM_FUNCTIONS or _pure_builtin(base)
                        or collectives_taken and collective_of(base) is not None or non_uniform(base)):
                    raise Unsupported(f"a call ({demangle(name)[0]}) under a branch that may differ "
                                      f"between the lanes of a subgroup")
            if "coopmat" in str(ins).lower() or "CooperativeMatrix" in str(ins):
                raise Unsupported("a matrix under a branch that may differ between the lanes of a subgroup")

    def forced(self):
        """The join's phis of a hammock: one value per lane (each lane took its side)."""
        by_name = {b.name: b for b in self.gen.blocks}
        return {ins.name for h in self.hammocks.values() for ins in by_name[h.join].instructions
                if ins.opcode == "phi"}

    def hammock_of_join(self, label):
        return next(h for h in self.hammocks.values() if h.join == label)

    # ------------------------------------------------------------ emission
    def all_any(self, bits):
        """(all, any) of the i1 values `bits`, one per lane."""
        gen = self.gen
        n = gen.fresh("la")
        all_, any_ = bits[0], bits[0]
        for j in range(1, len(bits)):
            gen.lines += [f"  {n}.all{j} = and i1 {all_}, {bits[j]}", f"  {n}.any{j} = or i1 {any_}, {bits[j]}"]
            all_, any_ = f"{n}.all{j}", f"{n}.any{j}"
        return all_, any_

    def branch(self, h):
        """B's terminator: all lanes true -> the true side, all false -> the false side,
        else the masked copy."""
        gen = self.gen
        all_, any_ = self.all_any([gen.lane(h.cond, j) for j in range(gen.S)])
        n = gen.fresh("hm")
        t = h.sides[0][0] if not h.sides[0][1] else h.join
        f = h.sides[-1][0] if h.sides[-1][1] else h.join
        h.copy_label = f"__masked.{n[1:]}"
        gen.lines += [f"  {n}.mix = select i1 {any_}, i32 2, i32 1",
                      f"  {n}.sel = select i1 {all_}, i32 0, i32 {n}.mix",
                      f"  switch i32 {n}.sel, label %{h.copy_label} [ i32 0, label {quote(t)} "
                      f"i32 1, label {quote(f)} ]"]

    def join_phi(self, ins, h):
        """A phi of the join: per lane, its incoming values, and from the masked copy the
        select made there (masked_copy)."""
        gen = self.gen
        t = str(ins.type)
        incoming = phi_incoming(ins)
        for j in range(gen.S):
            arms = ", ".join(f"[ {gen.lane(v, j)}, {quote(lab)} ]" for v, lab in incoming)
            gen.lines.append(f"  {quote(f'{ins.name}.l{j}')} = phi {t} {arms}, "
                             f"[ {quote(f'{ins.name}.msel.l{j}')}, %{h.copy_label} ]")

    def masked_copy(self, h):
        """(label, lines) of the masked copy of h's sides, ending with the join's selects."""
        gen = self.gen
        by_name = {b.name: b for b in gen.blocks}
        saved = gen.lines
        gen.lines = []
        defined = set()
        for side, negated in h.sides:
            preds = []
            for j in range(gen.S):
                c = gen.lane(h.cond, j)
                if negated:
                    p = gen.fresh("nc")
                    gen.lines.append(f"  {p} = xor i1 {c}, true")
                    c = p
                preds.append(c)
            gen.masked_preds = preds
            for ins in list(by_name[side].instructions)[:-1]:
                if ins.name:
                    defined.add(ins.name)
                gen.instruction(ins, side)
            gen.masked_preds = None
        for ins in by_name[h.join].instructions:
            if ins.opcode != "phi":
                continue
            values = dict((lab, v) for v, lab in phi_incoming(ins))
            for j in range(gen.S):
                gen.lines.append(f"  {quote(f'{ins.name}.msel.l{j}')} = select i1 {gen.lane(h.cond, j)}, "
                                 f"{ins.type} {gen.lane(values[h.true_edge], j)}, "
                                 f"{ins.type} {gen.lane(values[h.false_edge], j)}")
        gen.lines.append(f"  br label {quote(h.join)}")
        lines, gen.lines = gen.lines, saved

        def rename(m):
            name = m.group(1).strip('"')
            lane = re.fullmatch(r"(.+)\.l(\d+)", name)
            if name in defined:
                return quote(f"{name}.m")
            if lane and lane.group(1) in defined:
                return quote(f"{lane.group(1)}.m.l{lane.group(2)}")
            return m.group(0)
        return h.copy_label, [re.sub(r'%("[^"]*"|[-\w.$]+)', rename, line) for line in lines]

    def access(self, ins, ops):
        """A load or store of lane-varying pointer or value in a masked copy: per lane, a
        lane that did not take the side checks the region's first byte for 0 bytes and
        accesses the scratch area."""
        gen = self.gen
        store = ins.opcode == "store"
        pointer = ops[1] if store else ops[0]
        t = str(ops[0].type) if store else str(ins.type)
        esz = store_size(gen.ty(t), gen.layout)
        base = gen.base_of(pointer)
        if base is None or base[0] not in ("arg", "global"):
            raise Unsupported("an access through a pointer of unknown origin under a branch that may "
                              "differ between the lanes of a subgroup")
        slot = len(gen.mg.global_index) + base[1] if base[0] == "arg" else gen.global_slot(base[1])
        gen.mg.builtin_defs.setdefault("__chk_cold", CHECK_COLD_IR)
        site = gen.site(ins, "write" if store else "read", esz)
        kind = FAULT_WRITE if store else FAULT_READ
        if gen.consecutive(pointer, t):
            return self._vector_access(ins, ops, pointer, t, esz, slot, site, kind)
        gen.mg.out.scratch_bytes = max(gen.mg.out.scratch_bytes, esz)
        n = gen.fresh("mk")
        pty = str(pointer.type)
        cast = (lambda v, out: f"  {out} = getelementptr i8, ptr {v}, i64 0") if pty == "ptr" else \
            (lambda v, out: f"  {out} = addrspacecast {pty} {v} to ptr")
        # The region's first byte, from this thread's table (a __local variable's copy is
        # the thread's own, local_memory.py).
        gen.lines += [*self._region_first_byte(slot, n),
                      f"  {n}.scp = getelementptr i64, ptr %__ctx, i64 {CTX['scratch']}",
                      f"  {n}.sc = load ptr, ptr {n}.scp"]
        # A uniform access in a region (regions.py) is done once, by the lanes' "any".
        uniform = ins.name not in gen.varying if not store else \
            not any(gen.operand_varying(o, gen.varying) for o in ops[:2])
        lanes = [None] if uniform and gen.block_any is not None else range(gen.S)
        for j in lanes:
            p = gen.block_any if j is None else gen.masked_preds[j]
            name = quote(ins.name) if j is None else quote(f"{ins.name}.l{j}")
            once, j = j is None, j or 0
            gen.lines += [cast(gen.lane(pointer, j), f"{n}.p{j}"),
                          f"  {n}.q{j} = select i1 {p}, ptr {n}.p{j}, ptr {n}.rfirst",
                          f"  {n}.n{j} = select i1 {p}, i64 {esz}, i64 0",
                          f"  {n}.c{j} = call ptr {self._masked_check(once)}(ptr %__ctx, ptr {n}.q{j}, i64 {n}.n{j}, "
                          f"i64 {esz}, i32 {site}, i32 {kind}, i64 {slot}, i1 {'true' if store else 'false'})",
                          f"  {n}.a{j} = select i1 {p}, ptr {n}.c{j}, ptr {n}.sc"]
            if store:
                gen.lines.append(f"  store {t} {gen.lane(ops[0], j)}, ptr {n}.a{j}, align 1")
            else:
                gen.lines.append(f"  {name} = load {t}, ptr {n}.a{j}, align 1")

    def _vector_access(self, ins, ops, pointer, t, esz, slot, site, kind):
        """A masked load or store whose lanes are consecutive elements: one check of the
        span from the first to the last lane that took the side, one masked vector access
        (masked-off lanes touch no memory and read 0)."""
        gen = self.gen
        S, store = gen.S, ins.opcode == "store"
        vec, it = f"<{S} x {t}>", f"i{S}"
        gen.mg.out.scratch_bytes = max(gen.mg.out.scratch_bytes, S * esz)
        n = gen.fresh("mv")
        prev = "poison"
        for j in range(S):
            gen.lines.append(f"  {n}.k{j} = insertelement <{S} x i1> {prev}, i1 {gen.masked_preds[j]}, i64 {j}")
            prev = f"{n}.k{j}"
        mask = prev
        # (a lane index as i64: i128 at 128 lanes narrows)
        cast = "bitcast" if S == 64 else "trunc" if S > 64 else "zext"
        widen = lambda v, out: f"  {out} = {cast} {it} {v} to i64"      # noqa: E731
        pty = str(pointer.type)
        p0 = gen.lane(pointer, 0)
        gen.lines += [f"  {n}.bits = bitcast <{S} x i1> {mask} to {it}",
                      # No lane at all (a region's block no lane reached, regions.py): a
                      # check of 0 bytes at the region's first byte, which cannot fail.
                      f"  {n}.nz = icmp ne {it} {n}.bits, 0",
                      f"  {n}.ft = call {it} @llvm.cttz.{it}({it} {n}.bits, i1 false)",
                      f"  {n}.lt = call {it} @llvm.ctlz.{it}({it} {n}.bits, i1 false)",
                      widen(f"{n}.ft", f"{n}.first"), widen(f"{n}.lt", f"{n}.lead"),
                      f"  {n}.end = sub i64 {S}, {n}.lead",
                      f"  {n}.cnt = sub i64 {n}.end, {n}.first",
                      f"  {n}.mul = mul i64 {n}.cnt, {esz}",
                      f"  {n}.bytes = select i1 {n}.nz, i64 {n}.mul, i64 0",
                      f"  {n}.off = mul i64 {n}.first, {esz}",
                      f"  {n}.pc = getelementptr i8, ptr {p0}, i64 0" if pty == "ptr" else
                      f"  {n}.pc = addrspacecast {pty} {p0} to ptr",
                      # A masked-off lane 0's pointer may be poison (its values are not
                      # used): frozen, an arbitrary address no lane accesses.
                      f"  {n}.p0 = freeze ptr {n}.pc",
                      f"  {n}.at = getelementptr i8, ptr {n}.p0, i64 {n}.off",
                      *self._region_first_byte(slot, n),
                      f"  {n}.lo = select i1 {n}.nz, ptr {n}.at, ptr {n}.rfirst",
                      f"  {n}.c = call ptr {self._masked_check(True)}(ptr %__ctx, ptr {n}.lo, i64 {n}.bytes, i64 {esz}, "
                      f"i32 {site}, i32 {kind}, i64 {slot}, i1 {'true' if store else 'false'})",
                      f"  {n}.neg = sub i64 0, {n}.off",
                      f"  {n}.base = getelementptr i8, ptr {n}.c, i64 {n}.neg"]
        suffix = f"v{S}{type_suffix(t)}"
        if store:
            prev = "poison"
            for j in range(S):
                gen.lines.append(f"  {n}.v{j} = insertelement {vec} {prev}, {t} {gen.lane(ops[0], j)}, i64 {j}")
                prev = f"{n}.v{j}"
            gen.lines.append(f"  call void @llvm.masked.store.{suffix}.p0({vec} {prev}, ptr align {esz} "
                             f"{n}.base, <{S} x i1> {mask})")
            return
        gen.lines.append(f"  {n}.ld = call {vec} @llvm.masked.load.{suffix}.p0(ptr align {esz} {n}.base, "
                         f"<{S} x i1> {mask}, {vec} zeroinitializer)")
        for j in range(S):
            gen.lines.append(f"  {quote(f'{ins.name}.l{j}')} = extractelement {vec} {n}.ld, i64 {j}")

    def _masked_check(self, once):
        """The check of a masked access: inline for an access checked once for the lanes (a
        vector or uniform one) in a region's block (a loop's body: the hot path), out of
        line for one check per lane and in a hammock's copy (which runs only where the lanes
        differ): inlined, they multiplied the compile time (the stencil's took seconds)."""
        return "@__clcoop_chk" if once and self.gen.block_any is not None else "@__clcoop_chk_cold"

    def _region_first_byte(self, slot, n):
        """Lines setting {n}.rfirst to the first byte of the region table's row slot (this
        thread's table: a __local variable's copy is the thread's own, local_memory.py)."""
        return [f"  {n}.tp = getelementptr i64, ptr %__ctx, i64 {CTX['table']}",
                f"  {n}.t = load ptr, ptr {n}.tp",
                f"  {n}.rp = getelementptr i64, ptr {n}.t, i64 {REGION_ROW_WORDS * slot + REGION_LO}",
                f"  {n}.rlo = load i64, ptr {n}.rp",
                f"  {n}.rfirst = inttoptr i64 {n}.rlo to ptr"]

    def needs_mask(self, ins, ops):
        if self.gen.block_any is not None:
            return ins.opcode in ("load", "store")      # a region's block: every access
        if ins.opcode == "load":
            return self.gen.operand_varying(ops[0], self.gen.varying)
        return ins.opcode == "store" and any(self.gen.operand_varying(o, self.gen.varying) for o in ops[:2])


def _pure_builtin(base):
    """Whether the built-in `base`, where compiled natively (builtin_ir.py, support.py),
    neither accesses memory nor faults: a masked-off lane may call it."""
    return base in EXACT_MATH or base in _INTEGER_BUILTINS or base in _RELATIONAL or \
        _CONVERT_RE.fullmatch(base) is not None or _TO_INT_RE.fullmatch(base) is not None or \
        base in ("min", "max", "clamp", "abs", "select", "fmin", "fmax", "mad")


def phi_incoming(ins):
    """[(value operand, block name)] of a phi."""
    blocks = re.findall(r'\[\s*[^,\]]+,\s*%("[^"]*"|[-\w.$]+)\s*\]', clean_ir(str(ins)))
    return list(zip(list(ins.operands), [b.strip('"') for b in blocks]))
