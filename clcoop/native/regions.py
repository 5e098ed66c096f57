"""Lane-varying loops and nested branches on the subgroup fast path: masked regions
(subgroup.py, masking.py; docs/native.md, "The subgroup-wide fast path").

A varying branch that is no if-then(-else) hammock (masking.py) is taken when it lies in a
*region*: a range of blocks [s, J) contiguous in a loop-aware reverse post-order, entered
only through s's terminator and left only to J, all edges forward except the back edges
of loops inside it, each loop with one header H and one latch T (blocks H..T contiguous,
entered only at H; loops nested in it likewise). A varying branch inside a loop makes
the region start before the loop's header (widened backwards over a uniform guard), so
the region holds the whole loop.

The region is run linearized, the way whole-function vectorizers do it: every lane
carries a mask (i1), each block of the region runs once for the subgroup under the mask
of the lanes that reach it (the OR of its incoming edges' masks; an edge's mask is the
source's mask and the lane's branch condition), with its loads, stores and divisions
masked (masking.py: a masked-off lane neither touches memory nor faults), and a phi
becomes, per lane, the value of the edge the lane came by. A loop runs while any lane is
still in it: the header's mask is the entry mask the first time and the back edge's mask
after; each exit edge's mask is accumulated over the iterations, and each value used
after the loop (an escaping value, varying after the loop: Regions.forced) keeps, per
lane, its value from the iteration the lane left in. The back edge counts the loop's
instructions per iteration (__clcoop_poll, as the per-work-item path counts them), so the
subgroup's count is at least every lane's: a lane over the instruction limit stops the
fast path and the launch runs again on the per-work-item path, which reports it. Lanes
that left the loop keep computing (masked): a branch never sees their values (edge masks
are selects on the lane's mask), and every access of theirs goes to the scratch area.
A loop nested in a masked loop is masked the same way inside it (its exits' masks and
values accumulated over its iterations, then used by the outer loop's iteration).
Not taken (the reason is kept): a region with a `switch`, a return or `unreachable`
inside, loops with several latches or overlapping, calls other than work-item queries,
LLVM intrinsics and pure built-ins, matrices, barriers; a fast path longer than
MAX_MASKED_LINES (compile time).
"""
import re

from clcoop.native.context import FAULT_DIVZERO
from clcoop.ir import cfg
from clcoop.native.text_rewrite import clean_ir, quote, ref
from clcoop.native.masking import BRANCH, phi_incoming
from clcoop.native.support import Unsupported
from clcoop.ir.loader import value_kind

_OUTSIDE = ("a branch that may differ between the lanes of a subgroup, other than if-then(-else) "
            "without loops and loops or nested ifs in a single-entry single-exit region")
DIVISIONS = ("sdiv", "udiv", "srem", "urem")
# Largest fast-path function with masked regions (lines of IR) worth compiling: LLVM -O3
# takes about 2 s on one this long (a kernel with half a dozen loops and a dozen ifs).
MAX_MASKED_LINES = 6000


class Loop:
    """An innermost loop of a region: header, latch, blocks (layout order, header first,
    latch last)."""

    def __init__(self, header, latch, blocks):
        self.header, self.latch, self.blocks = header, latch, blocks
        self.escaping = []         # names of values defined in the loop and used after it


class Region:
    """Blocks [start, join) in layout order: start's terminator enters the region, the
    interior (start, join) runs masked, every lane leaves to join."""

    def __init__(self, start, join, interior, loops):
        self.start, self.join, self.interior, self.loops = start, join, interior, loops


class _Cfg:
    """The control-flow graph in a loop-nested reverse post-order (cfg.loop_nested_order:
    an innermost loop's blocks are together, after everything that leads to them), as
    indices into it."""

    def __init__(self, blocks):
        self.succ = cfg.block_graph(blocks)
        self.names = cfg.loop_nested_order(self.succ)
        self.order = {n: i for i, n in enumerate(self.names)}
        self.preds = {n: set(p) for n, p in cfg.predecessors(self.succ).items()}
        # Back edges (source index, header index): a branch to a block not after it.
        self.back = [(self.order[n], self.order[t]) for n, t in cfg.back_edges(self.names, self.succ)]

    def scan(self, s):
        """The join of the region entered by block s's terminator, or None."""
        return cfg.region_join(self.names, self.succ, self.back, s)


def find_regions(blocks, branch_blocks):
    """The regions holding the varying branches of branch_blocks (block names), nested ones
    merged into the outermost; Unsupported when one is not in a region."""
    graph = _Cfg(blocks)
    by_name = {b.name: b for b in blocks}
    blocks = [by_name[n] for n in graph.names]
    spans = []
    for b in branch_blocks:
        spans.append(_span(graph, graph.order[b]))
    spans = sorted(set(spans), key=lambda sj: (sj[0], -sj[1]))
    out = []
    for s, j in spans:
        if out and s < out[-1][1]:
            if j <= out[-1][1]:
                continue               # nested in the previous region
            raise Unsupported(_OUTSIDE)
        out.append((s, j))
    return [_region(graph, blocks, s, j) for s, j in out]


def _span(graph, i):
    """(start, join) of the smallest region holding the varying branch of block i: from
    i itself (an if), else from before the innermost loop holding i (or before i),
    widened backwards until every edge into the region comes through its start (a
    uniform guard of the loop joins the region)."""
    j = graph.scan(i)
    if j is not None and cfg.entered_only_from(graph.names, graph.preds, i, j):
        return i, j
    loops = [(h, src) for src, h in graph.back if h <= i <= src]
    for s in range((max(loops)[0] if loops else i) - 1, -1, -1):
        j = graph.scan(s)
        if j is not None and j > i and cfg.entered_only_from(graph.names, graph.preds, s, j):
            return s, j
    raise Unsupported(_OUTSIDE)


def _region(graph, blocks, s, j):
    names = graph.names
    for k in range(s, j):
        term = list(blocks[k].instructions)[-1]
        if term.opcode != "br":
            raise Unsupported(f"a {term.opcode} inside a region of lane-varying branches")
    loops = {}
    back = sorted((h, src) for src, h in graph.back if s < h <= src < j)
    spans = []
    for h, src in back:
        if names[h] in loops:
            raise Unsupported("a loop with several back edges under a lane-varying branch")
        if any(h0 < h <= src0 < src for h0, src0 in spans):
            raise Unsupported("loops overlapping under a lane-varying branch")
        spans.append((h, src))
        body = set(names[h:src + 1])
        if any(not graph.preds[n] <= body for n in names[h + 1:src + 1]):
            raise Unsupported("a loop entered other than at its header under a lane-varying branch")
        loops[names[h]] = Loop(names[h], names[src], names[h:src + 1])
    region = Region(names[s], names[j], names[s + 1:j], loops)
    for lp in loops.values():
        lp.escaping = _escaping(blocks, lp)
    return region


def _items(names, loops):
    """names (layout of a region or a loop body) as blocks and the loops directly in it."""
    out, skip = [], set()
    for name in names:
        if name in skip:
            continue
        lp = loops.get(name)
        if lp is not None:
            out.append(lp)
            skip |= set(lp.blocks)
        else:
            out.append(name)
    return out


def _escaping(blocks, loop):
    body = set(loop.blocks)
    defined = {ins.name for b in blocks if b.name in body for ins in b.instructions if ins.name}
    used = []
    for b in blocks:
        if b.name in body:
            continue
        for ins in b.instructions:
            for o in ins.operands:
                if value_kind(o) == "instruction" and o.name in defined and o.name not in used:
                    used.append(o.name)
    return used


# What Regions uses of the subgroup generator (subgroup._SubgroupGen), and nothing else
# (test_native_subgroup_parts checks it): the lane count S, the lines being emitted, fresh
# names, lane j's value of an operand, fault sites, the varying values and the definitions
# by name, the blocks in layout order with their indices and instruction counts (the
# per-work-item path's polls), the generator's own emission of an instruction (a block's
# instructions, masked through it again), and the current mask it sets for them
# (masked_preds: per lane, block_any: whether any lane runs the block).
GENERATOR_USES = ("S", "lines", "fresh", "lane", "site", "varying", "defs", "blocks", "block_index",
                  "block_cost", "instruction", "masked_preds", "block_any")


class Regions:
    """The subgroup generator's part for regions: finds them (regions: [Region]), checks
    what their blocks hold (as the masking part checks a hammock's sides), and emits each
    linearized under per-lane masks when the generator reaches its start's terminator."""

    def __init__(self, gen, masking):
        self.gen, self.masking = gen, masking
        self.regions = []          # Region: lane-varying loops and nested ifs
        self.cfg_preds = None      # block -> its predecessors
        self.by_name = {}
        self.start = {}            # start block -> its Region
        self.joins = set()         # join blocks: their phis are the region's selects
        self.interior = set()      # blocks emitted with their region's start
        # While a region is emitted: (block, successor) -> per lane, whether the lane takes
        # the edge; the label the lines go to now; the loops of the region.
        self.edges = None
        self.cur_label = None
        self.loops = {}

    def find(self, branch_blocks):
        """The regions of the varying branches of branch_blocks (find_regions)."""
        self.regions = find_regions(self.gen.blocks, branch_blocks) if branch_blocks else []

    def branch_blocks(self):
        """The blocks whose varying branches the regions take (a start and its interior)."""
        return {n for r in self.regions for n in [r.start] + r.interior}

    def forced(self):
        """Values that are per lane whatever their operands: the phis of a region's blocks
        (each lane came by its own edge; a loop header's only when it has several entry
        edges) and the values a loop leaves (each lane's from its own last iteration)."""
        by_name = {b.name: b for b in self.gen.blocks}
        out = set()
        for r in self.regions:
            for name in r.interior + [r.join]:
                lp = r.loops.get(name)
                if lp is not None and len(self._forward_preds(lp)) == 1:
                    continue
                out |= {i.name for i in by_name[name].instructions if i.opcode == "phi"}
            for lp in r.loops.values():
                out |= set(lp.escaping)
        return out

    def _forward_preds(self, loop):
        return sorted(self._preds(loop.header) - {loop.latch}, key=self.gen.block_index.get)

    def _preds(self, name):
        if self.cfg_preds is None:
            self.cfg_preds = {n: set(p) for n, p in cfg.predecessors(cfg.block_graph(self.gen.blocks)).items()}
        return self.cfg_preds[name]

    def check(self):
        """What a region's blocks may hold: what a hammock's sides may (masking.py)."""
        for r in self.regions:
            for name in r.interior:
                self.masking.check_block(self.by_name[name])

    def setup(self):
        """The tables emission reads, once the regions are final."""
        self.by_name = {b.name: b for b in self.gen.blocks}
        self.start = {r.start: r for r in self.regions}
        self.joins = {r.join for r in self.regions}
        self.interior = {n for r in self.regions for n in r.interior}

    # ------------------------------------------------------------ emission
    def emit(self, term, label):
        """The region entered by `term` (its start's terminator): the interior blocks
        linearized under masks, then the join's phis as per-lane selects (they dominate
        the join, now entered only from here)."""
        r = self.start[label]
        self.edges = {}
        self.cur_label = label
        self._edge_masks(term, label, ["true"] * self.gen.S)
        self.loops = r.loops
        for item in _items(r.interior, r.loops):
            if isinstance(item, Loop):
                self._emit_loop(item)
            else:
                self._emit_block(item, self._in_mask(item))
                self._poll(item)
        for ins in self.by_name[r.join].instructions:
            if ins.opcode == "phi":
                self._phi_selects(ins, r.join, lambda j: quote(f"{ins.name}.l{j}"))
        self.gen.lines.append(f"  br label {quote(r.join)}")
        self.edges = None

    def _in_mask(self, name, exclude=None):
        masks = [self.edges[(p, name)] for p in sorted(self._preds(name), key=self.gen.block_index.get)
                 if p != exclude]
        return self._or_lanes(masks)

    def _or_lanes(self, masks):
        gen = self.gen
        out = masks[0]
        for m in masks[1:]:
            n = gen.fresh("mo")
            gen.lines += [f"  {n}.l{j} = or i1 {out[j]}, {m[j]}" for j in range(gen.S)]
            out = [f"{n}.l{j}" for j in range(gen.S)]
        return out

    def _any(self, mask):
        gen = self.gen
        n = gen.fresh("ma")
        acc = mask[0]
        for j in range(1, gen.S):
            gen.lines.append(f"  {n}.{j} = or i1 {acc}, {mask[j]}")
            acc = f"{n}.{j}"
        return acc

    def _edge_masks(self, term, label, mask):
        """edges[(label, target)]: per lane, whether the lane leaves label to target."""
        gen = self.gen
        ops = list(term.operands)
        targets = [o.name for o in ops if value_kind(o) == "basic_block"]
        if len(ops) == 1 or targets[0] == targets[1]:
            self._add_edge(label, targets[0], mask)
            return
        m = BRANCH.fullmatch(clean_ir(str(term)).split(", !")[0])
        cond, t, f = ops[0], m.group(2).strip('"'), m.group(3).strip('"')
        n = gen.fresh("em")
        taken = [f"{n}.t{j}" for j in range(gen.S)]
        other = [f"{n}.f{j}" for j in range(gen.S)]
        for j in range(gen.S):
            gen.lines += [f"  {taken[j]} = select i1 {mask[j]}, i1 {gen.lane(cond, j)}, i1 false",
                          f"  {other[j]} = xor i1 {mask[j]}, {taken[j]}"]
        self._add_edge(label, t, taken)
        self._add_edge(label, f, other)

    def _add_edge(self, a, b, mask):
        old = self.edges.get((a, b))
        self.edges[(a, b)] = mask if old is None else self._or_lanes([old, mask])

    def _phi_selects(self, ins, label, out_name, exclude=None):
        """A phi of a block under masks: per lane, the incoming value of the edge the lane
        came by (the first edge's value where no edge is taken: a masked-off lane); a loop
        header's entry value when exclude is its latch."""
        gen = self.gen
        incoming = [(v, lab) for v, lab in phi_incoming(ins) if lab != exclude]
        t = str(ins.type)
        for j in range(gen.S):
            cur = gen.lane(incoming[0][0], j)
            for k, (v, lab) in enumerate(incoming[1:]):
                n = gen.fresh("ps")
                last = k == len(incoming) - 2
                name = out_name(j) if last else n
                gen.lines.append(f"  {name} = select i1 {self.edges[(lab, label)][j]}, {t} {gen.lane(v, j)}, "
                                 f"{t} {cur}")
                cur = name
            if len(incoming) == 1:
                gen.lines.append(f"  {out_name(j)} = select i1 true, {t} {cur}, {t} {cur}")

    def _emit_block(self, name, mask, header=False):
        """A block of a region under the lanes' mask: phis as selects (not a loop header's),
        instructions masked, the terminator's edge masks."""
        gen = self.gen
        b = self.by_name[name]
        instructions = list(b.instructions)
        if not header:
            for ins in instructions:
                if ins.opcode == "phi":
                    self._phi_selects(ins, name, lambda j, ins=ins: quote(f"{ins.name}.l{j}"))
        # A loop's header runs only while some lane is in the loop: "any" is true there
        # (its uniform accesses are plain checked accesses).
        gen.masked_preds, gen.block_any = mask, "true" if header else self._any(mask)
        for ins in instructions[:-1]:
            if ins.opcode != "phi":
                gen.instruction(ins, name)
        gen.masked_preds = gen.block_any = None
        self._edge_masks(instructions[-1], name, mask)

    def _emit_loop(self, lp):
        """A loop of a region: runs while any lane is in it (see the module's comment)."""
        gen = self.gen
        S = gen.S
        n = gen.fresh("lp")[1:]
        head, cont, done = f"{n}.head", f"{n}.cont", f"{n}.done"
        pre = self.cur_label
        fwd = self._forward_preds(lp)
        entry = self._or_lanes([self.edges[(p, lp.header)] for p in fwd])
        header_phis = [i for i in self.by_name[lp.header].instructions if i.opcode == "phi"]
        entry_values = {}
        for phi in header_phis:
            if phi.name in gen.varying:
                values = [f"%{n}.e{len(entry_values)}.l{j}" for j in range(S)]
                self._phi_selects(phi, lp.header, lambda j, values=values: values[j], exclude=lp.latch)
            else:
                values = [ref(next(v for v, lab in phi_incoming(phi) if lab != lp.latch))] * S
            entry_values[phi.name] = values
        any_in = self._any(entry)
        gen.lines += [f"  br i1 {any_in}, label %{head}, label %{done}", f"{head}:"]
        start = len(gen.lines)
        mask = [f"%{n}.m.l{j}" for j in range(S)]
        exits = list(dict.fromkeys((b, t) for b in lp.blocks for t in self._succ(b) if t not in lp.blocks))
        acc = {e: [f"%{n}.a{k}.l{j}" for j in range(S)] for k, e in enumerate(exits)}
        types = {name: str(gen.defs[name].type) for name in lp.escaping}
        keep = {v: [f"%{n}.x{k}.l{j}" for j in range(S)] for k, v in enumerate(lp.escaping)}
        acc_cur, keep_cur = dict(acc), dict(keep)
        defined_at = {}
        for k, item in enumerate([lp.header] + _items(lp.blocks[1:], self.loops)):
            for b in item.blocks if isinstance(item, Loop) else [item]:
                defined_at.update((ins.name, k) for ins in self.by_name[b].instructions if ins.name)
        self.cur_label = head
        items = _items(lp.blocks[1:], self.loops)
        for at, item in enumerate([lp.header] + items):
            if isinstance(item, Loop):
                self._emit_loop(item)
                sources = set(item.blocks)
            else:
                self._emit_block(item, mask if item == lp.header else self._in_mask(item), header=item == lp.header)
                sources = {item}
            for e in exits:
                if e[0] not in sources:
                    continue
                m = self.edges[e]
                acc_cur[e] = self._or_lanes([acc_cur[e], m])
                for v in lp.escaping:
                    if defined_at[v] > at:
                        continue       # not defined yet where the lane leaves: it never uses it
                    x = gen.fresh("xk")
                    gen.lines += [f"  {x}.l{j} = select i1 {m[j]}, {types[v]} {quote(f'{v}.l{j}')}, "
                                  f"{types[v]} {keep_cur[v][j]}" for j in range(S)]
                    keep_cur[v] = [f"{x}.l{j}" for j in range(S)]
        back = self.edges[(lp.latch, lp.header)]
        any_back = self._any(back)
        term = list(self.by_name[lp.latch].instructions)[-1]
        # At least what the per-work-item path counts in one iteration: it polls at each
        # branch to a block laid out before it (codegen.branch), each at most once.
        inner = {b for item in items if isinstance(item, Loop) for b in item.blocks}
        cost = max(1, sum(self._poll_cost(b) for b in lp.blocks if b not in inner))
        stop = gen.fresh("stop")
        gen.lines += [f"  {stop} = call i1 @__clcoop_poll(ptr %__ctx, i64 {cost}, i32 {gen.site(term, 'loop', 0)})",
                      f"  br i1 {stop}, label %__abort, label %{cont}",
                      f"{cont}:",
                      f"  br i1 {any_back}, label %{head}, label %{done}"]
        phis = [f"  {mask[j]} = phi i1 [ {entry[j]}, {quote(pre)} ], [ {back[j]}, %{cont} ]" for j in range(S)]
        for e in exits:
            phis += [f"  {acc[e][j]} = phi i1 [ false, {quote(pre)} ], [ {acc_cur[e][j]}, %{cont} ]" for j in range(S)]
        for v in lp.escaping:
            phis += [f"  {keep[v][j]} = phi {types[v]} [ zeroinitializer, {quote(pre)} ], "
                     f"[ {keep_cur[v][j]}, %{cont} ]" for j in range(S)]
        for phi in header_phis:
            back_value = next(v for v, lab in phi_incoming(phi) if lab == lp.latch)
            lanes = range(S) if phi.name in gen.varying else [None]
            for j in lanes:
                name = quote(phi.name) if j is None else quote(f"{phi.name}.l{j}")
                phis.append(f"  {name} = phi {phi.type} [ {entry_values[phi.name][j or 0]}, {quote(pre)} ], "
                            f"[ {gen.lane(back_value, j or 0)}, %{cont} ]")
        gen.lines[start:start] = phis
        # Inside the loop, a value it leaves has its in-loop name; after it, its own name
        # is each lane's value from the iteration the lane left in.
        escaping = set(lp.escaping)

        def rename(m):
            name = m.group(1).strip('"')
            lane = re.fullmatch(r"(.+)\.l(\d+)", name)
            if lane and lane.group(1) in escaping:
                return quote(f"{lane.group(1)}.{n}.l{lane.group(2)}")
            return m.group(0)
        gen.lines[start:] = [re.sub(r'%("[^"]*"|[-\w.$]+)', rename, line) for line in gen.lines[start:]]
        gen.lines.append(f"{done}:")
        for k, e in enumerate(exits):
            out = [f"%{n}.af{k}.l{j}" for j in range(S)]
            gen.lines += [f"  {out[j]} = phi i1 [ false, {quote(pre)} ], [ {acc_cur[e][j]}, %{cont} ]"
                          for j in range(S)]
            self.edges[e] = out
        for v in lp.escaping:
            gen.lines += [f"  {quote(f'{v}.l{j}')} = phi {types[v]} [ zeroinitializer, {quote(pre)} ], "
                          f"[ {keep_cur[v][j]}, %{cont} ]" for j in range(S)]
        self.cur_label = done

    def _poll_cost(self, name):
        """What the per-work-item path counts at block name's terminator (codegen.branch:
        a branch to a block laid out before it counts the blocks in between), or 0."""
        gen = self.gen
        here = gen.block_index[name]
        back = [gen.block_index[t] for t in self._succ(name) if gen.block_index[t] <= here]
        return sum(gen.block_cost[min(back):here + 1]) if back else 0

    def _poll(self, name):
        """A region's block outside its loops that the per-work-item path counts at (a
        layout where the code after a loop comes before it): counted here too."""
        gen = self.gen
        cost = self._poll_cost(name)
        if not cost:
            return
        stop = gen.fresh("stop")
        cont = f"{stop[1:]}.cont"
        site = gen.site(list(self.by_name[name].instructions)[-1], "loop", 0)
        gen.lines += [f"  {stop} = call i1 @__clcoop_poll(ptr %__ctx, i64 {cost}, i32 {site})",
                      f"  br i1 {stop}, label %__abort, label %{cont}", f"{cont}:"]
        self.cur_label = cont

    def _succ(self, name):
        return cfg.block_successors(self.by_name[name])

    def division(self, ins, ops):
        """A division under a mask: a masked-off lane divides by 1 (no fault), an active
        lane as on the per-work-item path (codegen.division: zero faults, INT_MIN / -1
        wraps)."""
        gen = self.gen
        t = str(ops[1].type)
        if not re.fullmatch(r"i\d+", t):
            raise Unsupported("a vector division under a lane-varying branch")
        bits = int(t[1:])
        site = gen.site(ins, "division", 0)
        exact = " exact" if " exact " in str(ins) else ""
        lanes = range(gen.S) if ins.name in gen.varying else [None]
        for j in lanes:
            pred = gen.block_any if j is None else gen.masked_preds[j]
            out = quote(ins.name) if j is None else quote(f"{ins.name}.l{j}")
            a, b = gen.lane(ops[0], j or 0), gen.lane(ops[1], j or 0)
            n = gen.fresh("md")
            gen.lines += [f"  {n}.b = select i1 {pred}, {t} {b}, {t} 1",
                          f"  {n}.z = icmp eq {t} {n}.b, 0",
                          f"  call void @__clcoop_fault_if(ptr %__ctx, i1 {n}.z, i32 {site}, i32 {FAULT_DIVZERO})"]
            safe = f"{n}.z"
            if ins.opcode in ("sdiv", "srem"):
                gen.lines += [f"  {n}.ma = icmp eq {t} {a}, {-(1 << (bits - 1))}",
                              f"  {n}.mb = icmp eq {t} {n}.b, -1",
                              f"  {n}.mab = and i1 {n}.ma, {n}.mb",
                              f"  {n}.sc = or i1 {n}.z, {n}.mab"]
                safe = f"{n}.sc"
            gen.lines += [f"  {n}.d = select i1 {safe}, {t} 1, {t} {n}.b",
                          f"  {out} = {ins.opcode}{exact} {t} {a}, {n}.d"]
