"""The subgroup-wide fast path of cooperative-matrix kernels (docs/native.md, "Execution
model"): the kernel body runs once per subgroup, with its S lanes in lockstep.

Taken for kernels without barriers whose branches are subgroup-uniform (a value is uniform
when it derives only from kernel arguments, constants, uniform work-item queries and
matrices); everything else keeps the per-work-item coroutine path (the fallback). In the
fast path:
- a uniform value is computed once; a varying one (it depends on a lane's ids) is computed
  once per lane: S copies of the instruction, operands renamed %v.l0 .. %v.l<S-1>, each
  work-item query reading its lane's context;
- a matrix is one logical row-major tile <R*C x T> per subgroup (matrices are always
  uniform here; matrix_tiles.py): loads and stores copy whole rows (columns for
  column-major), the mul-add calls the routine of coop_ir directly, element-wise
  operations are vector instructions;
- pointer and stride of a load or store may be varying: they must be equal in every lane,
  the span inside one region, the stride legal, as the rendezvous path checks;
- lane-varying branches (masking.py, regions.py) and sub-group collectives
  (collectives.py, ballot_ir.py) are the generator's parts.
The fast path never reports a fault itself: any failed check (bounds, uniformity, stride,
division by zero, the instruction limit) records a fault in lane 0's context, accesses go
to the scratch area (a matrix access's failed check returns at once where it may:
may_leave_block), and the launch is run again from the caller's arrays on the
per-work-item path (runtime.py), which reports the fault exactly as before.
Not taken (the reason is kept in KernelPlan.subgroup_reason): non-matrix stores, atomics
and memory intrinsics (their order between lanes would differ from per-work-item
execution), private variables, calls of defined functions, divergent branches,
matrices built from varying scalars.
"""
import re

import llvmlite.ir as ir

from clcoop import coopmat_spec
from clcoop.coop_names import SCALAR_MUL, SPLAT, STORE
from clcoop.ir.demangle import demangle
from clcoop.ir.loader import value_kind
from clcoop.native import coop_routines, irbuild
from clcoop.native.builtin_ir import store_size
from clcoop.native.codegen import safe_divisor
from clcoop.native.collectives import Collectives
from clcoop.native.context import ATOMIC_FUNCTIONS, CTX_SLOTS
from clcoop.native.drivers import LAUNCH_PARAMS, VOID, coroutine_driver, group_head, group_ids, load_arguments, \
    next_local_id, one_dim, zero_locals
from clcoop.native.irbuild import I64, PTR, load_slot
from clcoop.native.lane_kinds import LaneKinds, operand_varying, varying_names
from clcoop.native.masking import Masking
from clcoop.native.matrix_tiles import MatrixTiles, logical_vector
from clcoop.native.regions import DIVISIONS, MAX_MASKED_LINES, Regions
from clcoop.native.runtime_ir import CORO_EPILOGUE, CORO_PROLOGUE
from clcoop.native.support import MEMORY_INTRINSICS, WORKITEM_FUNCTIONS, Unsupported
from clcoop.native.text_rewrite import clean_ir, gquote, quote, ref

# Names the emitter's fresh makes (codegen._FunctionGen.fresh) (%__<stem><n>, maybe with a suffix): renamed per
# lane when made while emitting the instruction (n in the counter range of it).
_FRESH = re.compile(r"__[a-z0-9]*?(\d+)(\.[\w.]*)?")
# Lanes in lockstep for kernels that observe no subgroup (no sub-group query, no matrix).
WIDE_LANES = 64
# Largest fast-path function (lines of IR) worth compiling.
MAX_LINES = 20000
# Largest function with lane-varying ifs compiled at WIDE_LANES (generate).
MAX_WIDE_MASKED_LINES = 12000
# Work-groups per band of the cache-aware order (subgroup_driver). 4: a GEMM's B strips of a
# band (4 x K x 64 bytes for 8 x 16 tiles) stay in a 1 MiB L2 with A's rows; one thread,
# examples/gemm_f32.cl with packed loads: 2048^3 193-197 ms at 4 against 210 at 8 and 213-218
# at 16, 512^3 3.2-3.5 ms against 3.6-3.9 (1024^3 the same).
BAND = 4


def function_name(kernel):
    return f"{kernel}.sg"


def driver_name(kernel):
    return f"__clcoop_sg.{kernel}"


def generate(mg, plan, max_lanes=None):
    """(function text, driver text) of the subgroup-wide variant of kernel plan.name, or
    Unsupported with the reason it is not taken. max_lanes: at most that many lanes for a
    kernel that does not observe the subgroup (a launch whose rows are narrower)."""
    f = mg.functions[plan.name]
    lanes = mg.subgroup_size
    if not coopmat_spec.mentions_matrix_type(str(f)) and "sub_group" not in _callees_text(f):
        # Nothing observes the subgroup: run WIDE_LANES work-items in lockstep (more
        # independent vector chains, fewer calls per work-item).
        plan.lanes_free = True
        lanes = min(WIDE_LANES, max_lanes or WIDE_LANES)
    gen = _SubgroupGen(mg.function_emitter(plan.name, True))
    function = gen.emit_subgroup(lanes)
    # Lane-varying loops (regions.py): the subgroup's lanes. A masked loop runs as long as
    # its slowest lane: trip counts equal within 16 lanes but not 64 made the 64-lane build
    # 6x slower (4 -> 23 ms per launch; random ones, the bench's, 11 -> 8 ms).
    # Lane-varying ifs (masking.py): wide while the function is at most
    # MAX_WIDE_MASKED_LINES long. LLVM -O3 takes about 0.05 ms per line of them (19020
    # lines: 0.9 s), and the wide build runs faster (one thread, 2^20 work-items, the builds
    # interleaved: the bench's stencil, 3938 lines, compile 0.19 -> 0.33 s, run 2.1 -> 0.8
    # ms; four ifs, 11067 lines, 0.38 -> 0.56 s, 4.6 -> 1.4 ms; an if uniform within 16
    # lanes, not 64: 1.25 -> 1.05 ms). With barriers they stay wide at any length: a
    # coroutine switch per subgroup and barrier costs more than the compile time (the
    # __local reduction: 1.6 -> 0.8 ms per launch at 64 lanes).
    lines = function.count("\n")
    masked_cost = gen.masked_regions.regions or \
        (gen.masking.hammocks and not gen.coroutine and lines > MAX_WIDE_MASKED_LINES)
    if (lines > MAX_LINES or masked_cost) and lanes > mg.subgroup_size:
        lanes = mg.subgroup_size
        gen = _SubgroupGen(mg.function_emitter(plan.name, True))
        function = gen.emit_subgroup(lanes)
    if gen.masked_regions.regions and function.count("\n") > MAX_MASKED_LINES:
        # Masked regions' per-lane selects and checks: about 0.4 ms of LLVM -O3 per line.
        raise Unsupported(f"too many per-lane instructions under lane-varying branches "
                          f"({function.count(chr(10))} lines at {lanes} lanes)")
    if function.count("\n") > MAX_LINES:
        # Each varying instruction is copied per lane: a long kernel would cost more to
        # compile than the fast path saves.
        raise Unsupported(f"too many per-lane instructions ({function.count(chr(10))} lines at {lanes} lanes)")
    plan.subgroup_lanes = lanes
    plan.subgroup_driver = driver_name(plan.name)
    plan.packed_loads = gen.matrices.packs
    if gen.coroutine:
        return function, coroutine_driver(plan, function_name(plan.name), lanes, plan.subgroup_driver,
                                          gen.lane_contexts)
    return function, subgroup_driver(plan, lanes, gen.lane_contexts)


def _callees_text(f):
    """Demangled names of the functions f calls, one text."""
    names = []
    for b in f.blocks:
        for ins in b.instructions:
            if ins.opcode == "call":
                names.append(demangle(list(ins.operands)[-1].name)[0])
    return " ".join(names)


# What _SubgroupGen uses of its per-work-item emitter (codegen._FunctionGen), and nothing
# else (test_native_subgroup_parts): the function and its blocks, the per-work-item code
# of one instruction, checks and fault sites, the lines being emitted and the fresh-name
# counter, the block being emitted, and whether the function is a coroutine.
WORK_ITEM_USES = ("f", "mg", "layout", "blocks", "defs", "block_index", "block_cost", "ty", "fresh", "site",
                  "check", "base_of", "global_slot", "instruction", "has_barrier", "fix_phis", "lines", "n",
                  "cur_block", "coroutine", "renames")


class _SubgroupGen:
    """Re-emits a kernel for a whole subgroup: its emitter's per-work-item code of each
    instruction (emitter: codegen._FunctionGen of the kernel), once for uniform
    instructions, once per lane for varying ones. Which values vary is
    lane_kinds.LaneKinds' analysis (plain data: it takes the lane count and a type size,
    not the generator). What is not a plain instruction goes to the parts it composes,
    built with it as the generator they emit through: masking.Masking (lane-varying ifs,
    masked accesses), regions.Regions (lane-varying loops, nested ifs),
    collectives.Collectives (sub-group collectives and ballots, ballot_ir.emit_fast) and
    matrix_tiles.MatrixTiles (cooperative-matrix operations). Each part uses only the names
    of this class its module lists in GENERATOR_USES (the lines emitted, fresh names, lane
    values, entry allocas, the current mask masked_preds/block_any that instruction()
    reads, ...), and of another part only what its constructor is handed; this class uses
    only the names of the emitter WORK_ITEM_USES lists (test_native_subgroup_parts)."""

    def __init__(self, emitter):
        self.emitter = emitter
        # The emitter's function, its module and blocks, and what the parts call of it
        # (their GENERATOR_USES), handed on as they are.
        self.f, self.mg, self.layout = emitter.f, emitter.mg, emitter.layout
        self.blocks, self.defs = emitter.blocks, emitter.defs
        self.block_index, self.block_cost = emitter.block_index, emitter.block_cost
        self.ty, self.fresh, self.site = emitter.ty, emitter.fresh, emitter.site
        self.base_of, self.global_slot = emitter.base_of, emitter.global_slot

    # The lines being emitted are the emitter's: what it emits for an instruction lands
    # among the parts' lines (a part may set a new list, as masking's masked copy does).
    @property
    def lines(self):
        return self.emitter.lines

    @lines.setter
    def lines(self, lines):
        self.emitter.lines = lines

    @property
    def cur_block(self):
        """Index of the block being emitted (the emitter's: a barrier splits it)."""
        return self.emitter.cur_block

    def emit_subgroup(self, lanes):
        f = self.f
        self.S = lanes
        # Barriers: the subgroup function is a coroutine suspended at each barrier, and
        # the driver advances the work-group's subgroups barrier by barrier
        # (drivers.coroutine_driver with lanes=S). The emitter's barrier and ret read it.
        self.coroutine = self.emitter.has_barrier()
        self.emitter.coroutine = self.coroutine
        self.entry_allocas = []
        self.lane_contexts = False  # whether lanes other than 0 read their ids
        self.masking = Masking(self)  # lane-varying ifs (hammocks)
        self.forced = set()        # values per lane whatever their operands (the parts' forced())
        self.masked_preds = None   # per-lane predicates while emitting a masked copy
        self.masked_regions = Regions(self, self.masking)  # lane-varying loops and nested ifs
        self.block_any = None      # in a region's block: whether any lane runs it
        self.collectives = Collectives(self, self.masking)  # sub-group collectives, ballots
        self.matrices = MatrixTiles(self)  # cooperative-matrix operations
        self._check_taken()
        self.varying = self._varying_values()
        self.masked_regions.setup()
        self._check_uniform_control()
        params = ["ptr noalias %__ctx"] + [f"{a.type} {quote(a.name)}" for a in f.arguments]
        # Matrix kernels: noinline (one call per subgroup costs nothing; inlining their
        # tiles into the driver's loops multiplied the compile time).
        attrs = " noinline" if coopmat_spec.mentions_matrix_type(str(f)) else ""
        ret = "ptr" if self.coroutine else "void"
        attrs += " presplitcoroutine" if self.coroutine else ""
        text = [f"define internal {ret} {gquote(function_name(f.name))}({', '.join(params)}){attrs} {{"]
        body = []
        for bi, b in enumerate(self.blocks):
            if b.name in self.masked_regions.interior:
                continue           # emitted with its region's start (regions.py)
            self.emitter.cur_block = bi
            self.lines = []
            for ins in b.instructions:
                self.instruction(ins, b.name)
            body.append((b.name, self.lines))
        for h in self.masking.hammocks.values():
            at = [label for label, _ in body].index(h.join)
            body.insert(at, self.masking.masked_copy(h))
        lanes = [f"  %__ctx.l{j} = getelementptr i8, ptr %__ctx, i64 {j * CTX_SLOTS * 8}" for j in range(self.S)]
        prologue = CORO_PROLOGUE if self.coroutine else []
        body[0] = (body[0][0], self.entry_allocas + prologue + lanes + body[0][1])
        for label, lines in body:
            text.append(f"{quote(label)[1:]}:")
            text.extend(self.emitter.fix_phis(line) for line in lines)
        text.append("__abort:")
        text += ["  br label %__coro.final"] + CORO_EPILOGUE if self.coroutine else ["  ret void"]
        text.append("}")
        return coopmat_spec.replace_matrix_types("\n".join(text), logical_vector)

    # ------------------------------------------------------------ what is taken
    def _check_taken(self):
        for b in self.blocks:
            for ins in b.instructions:
                op = ins.opcode
                if op == "alloca":
                    raise Unsupported("private variables")
                if op in ("atomicrmw", "cmpxchg", "fence") or op == "store" and " atomic " in str(ins):
                    raise Unsupported(f"the instruction '{op}' (lane order)")
                if op != "call":
                    continue
                callee = list(ins.operands)[-1]
                name = callee.name
                g = self.mg.functions.get(name)
                if g is not None and not g.is_declaration:
                    raise Unsupported(f"a call of the defined function @{name}")
                base = demangle(name)[0]
                if name.startswith(MEMORY_INTRINSICS) or base in ATOMIC_FUNCTIONS or \
                        re.fullmatch(r"vstore\d+", base):
                    raise Unsupported(f"a store or atomic ({base})")

    def _varying_values(self):
        """Names of the values computed per lane (lane_kinds.py); the joins' phis of
        lane-varying ifs and regions (masking.py, regions.py) are varying too."""
        while True:
            varying = self._varying_fixpoint()
            others = self.masking.find(lambda t: t.opcode in ("br", "switch") and any(
                self.operand_varying(o, varying) for o in t.operands))
            self.masked_regions.find(others)
            self.masking.drop(self.masked_regions.branch_blocks())
            forced = self.masking.forced() | self.masked_regions.forced()
            if forced <= self.forced:
                return varying
            self.forced |= forced

    def _varying_fixpoint(self):
        self.kinds = LaneKinds(self.S, self._scalar_size, self.forced).of(self.blocks)
        return varying_names(self.kinds)

    def _scalar_size(self, type_text):
        """Store size of an int or float scalar type (LaneKinds' pointer kinds), else None."""
        t = self.ty(type_text)
        return store_size(t, self.layout) if t is not None and t.kind in ("int", "float") else None

    # The parts' test of an operand against the varying values (lane_kinds.py).
    operand_varying = staticmethod(operand_varying)

    def _check_uniform_control(self):
        self.masking.check_sides()
        self.masked_regions.check()
        for b in self.blocks:
            for ins in b.instructions:
                ops = list(ins.operands)
                if ins.opcode in ("br", "switch") and any(self.operand_varying(o, self.varying) for o in ops) \
                        and b.name not in self.masking.hammocks and b.name not in self.masked_regions.start \
                        and b.name not in self.masked_regions.interior:
                    raise Unsupported("a branch that may differ between the lanes of a subgroup")
                if ins.name in self.varying and coopmat_spec.mentions_matrix_type(str(ins.type)):
                    raise Unsupported("a matrix that may differ between lanes")
                if ins.opcode == "call":
                    callee = coop_routines.callee_of(ops[-1].name)
                    if callee is not None and callee.base in (SPLAT, SCALAR_MUL) and \
                            any(self.operand_varying(o, self.varying) for o in ops[:-1]):
                        raise Unsupported("a matrix built from a value that may differ between lanes")

    # ------------------------------------------------------------ instructions
    def instruction(self, ins, label):
        ops = list(ins.operands)
        if ins.opcode == "br" and label in self.masked_regions.start:
            return self.masked_regions.emit(ins, label)
        if ins.opcode == "phi" and label in self.masked_regions.joins:
            return None            # per-lane selects at the end of its region
        if self.collectives.takes(ins, ops):
            return self.collectives.emit(ins, ops)
        if self.block_any is not None and ins.opcode in DIVISIONS and not safe_divisor(ops[1]):
            return self.masked_regions.division(ins, ops)
        if self.block_any is not None and ins.opcode == "call" and ops[-1].name == "llvm.assume":
            return None            # a masked-off lane's assumption may be false
        if self.masked_preds is not None and self.masking.needs_mask(ins, ops):
            return self.masking.access(ins, ops)
        if ins.opcode == "br" and label in self.masking.hammocks:
            return self.masking.branch(self.masking.hammocks[label])
        if ins.opcode == "phi" and ins.name in self.forced:
            return self.masking.join_phi(ins, self.masking.hammock_of_join(label))
        callee = coop_routines.callee_of(ops[-1].name) if ins.opcode == "call" else None
        if ins.opcode == "store" or callee is not None and callee.base == STORE:
            self.matrices.saw_store()
        if callee is not None:
            self.matrices.emit(ins, ops, callee)
            return None
        kind = self.kinds.get(ins.name, "u")
        if ins.opcode in ("load", "store"):
            pointer = ops[0] if ins.opcode == "load" else ops[1]
            value_type = str(ins.type) if ins.opcode == "load" else str(ops[0].type)
            if self.consecutive(pointer, value_type):
                return self._vector_access(ins, ops, pointer, value_type)
        if (kind in ("al", "ao") or kind.startswith("pal")) and ins.opcode != "phi":
            # Lane j = lane 0 + j (times the element size for pointers), exactly
            # (_kind): LLVM sees consecutive lanes. Lane 0's value without the flags that
            # make it poison where lane 0 itself would be (a masked-off lane's i - lo < 0
            # under `zext nneg`, `getelementptr inbounds nuw`): the other lanes follow it.
            at = len(self.lines)
            self._per_lane(ins, label, ops, [0])
            self.lines[at:] = [_without_poison_flags(line) for line in self.lines[at:]]
            t = str(ins.type)
            for j in range(1, self.S):
                lane = quote(f"{ins.name}.l{j}")
                first = quote(f"{ins.name}.l0")
                if kind in ("al", "ao"):
                    self.lines.append(f"  {lane} = add {t} {first}, {j}")
                else:
                    self.lines.append(f"  {lane} = getelementptr i8, {t} {first}, i64 {j * int(kind[4:])}")
            return None
        if ins.name in self.varying or not ins.name and any(self.operand_varying(o, self.varying) for o in ops):
            # (An instruction without a result with per-lane operands, a store: every lane.)
            return self._per_lane(ins, label, ops, range(self.S))
        if any(self.operand_varying(o, self.varying) for o in ops):
            # Uniform from per-lane operands (x / S of a multiple of S plus the lane):
            # computed once, from lane 0.
            return self._per_lane(ins, label, ops, [0])
        return self.emitter.instruction(ins, label)

    def _per_lane(self, ins, label, ops, lanes):
        saved, self.lines = self.lines, []
        self.fresh_from = self.emitter.n
        if self.emitter.instruction(ins, label) is not None:
            raise Unsupported(f"internal: a varying instruction splits its block ({clean_ir(str(ins))})")
        lines, self.lines = self.lines, saved
        query = ins.opcode == "call" and demangle(ops[-1].name)[0] in WORKITEM_FUNCTIONS
        self.lane_contexts |= query and len(lanes) > 1
        for j in lanes:
            for line in lines:
                self.lines.append(self._lane_text(line, j, query))
        return None

    def consecutive(self, pointer, value_type):
        kind = self.kinds.get(pointer.name, "u") if value_kind(pointer) == "instruction" else "u"
        t = self.ty(value_type)
        return kind.startswith("pal") and t.kind in ("int", "float") and \
            int(kind[4:]) == store_size(t, self.layout)

    def _vector_access(self, ins, ops, pointer, value_type):
        """A load or store whose lanes are consecutive elements: one check of the S
        elements from lane 0's address, one vector access."""
        T = value_type
        esz = store_size(self.ty(T), self.layout)
        vec = f"<{self.S} x {T}>"
        store = ins.opcode == "store"
        saved, self.lines = self.lines, []
        self.fresh_from = self.emitter.n
        checked = self.emitter.check(ins, pointer, self.S * esz, esz, "write" if store else "read", store)
        lines, self.lines = self.lines, saved
        self.lines += [self._lane_text(line, 0, False) for line in lines]
        checked = self._lane_text(checked, 0, False)
        v = self.fresh("vec")
        if not store:
            self.lines.append(f"  {v} = load {vec}, {checked}, align {esz}")
            for j in range(self.S):
                self.lines.append(f"  {quote(f'{ins.name}.l{j}')} = extractelement {vec} {v}, i64 {j}")
            return None
        prev = "poison"
        for j in range(self.S):
            cur = f"{v}.{j}"
            self.lines.append(f"  {cur} = insertelement {vec} {prev}, {T} {self.lane(ops[0], j)}, i64 {j}")
            prev = cur
        self.lines.append(f"  store {vec} {prev}, {checked}, align {esz}")
        return None

    def _lane_text(self, line, j, query):
        def rename(m):
            name = m.group(1).strip('"')
            if name == "__ctx":
                return f"%__ctx.l{j}" if query else m.group(0)
            fresh = _FRESH.fullmatch(name)
            if name in self.varying or fresh and int(fresh.group(1)) > self.fresh_from:
                return quote(f"{name}.l{j}")
            return m.group(0)
        return re.sub(r'%("[^"]*"|[-\w.$]+)', rename, line)

    def lane(self, v, j):
        """Lane j's value of operand v (text without its type)."""
        if self.operand_varying(v, self.varying):
            return quote(f"{v.name}.l{j}")
        return ref(v)

    def may_leave_block(self):
        """Whether a part may end the block being emitted with a branch to %__abort and go
        on in a new block (continue_in): not in a coroutine (its suspensions split blocks
        too) nor in a masked copy or region (masking.py, regions.py name their blocks)."""
        return not self.coroutine and self.masked_preds is None and self.block_any is None

    def continue_in(self, label):
        """The block being emitted goes on in the new block `label` (its successors' phis
        name it: the emitter's renames; a later split, a poll, renames it again)."""
        self.emitter.renames[self.blocks[self.cur_block].name] = label

    def entry_line(self, line):
        """An instruction at the start of the function's entry block, after the allocas and
        lines made so far (loop-invariant reads of the launch's tables: matrix_tiles.py)."""
        self.entry_allocas.append(line)

    def entry_alloca(self, ty):
        """The name of a new alloca of type ty in the function's entry block (the parts'
        tiles and tables)."""
        name = self.fresh("tile")
        self.entry_allocas.append(f"  {name} = alloca {ty}, align 64")
        return name



def _without_poison_flags(line):
    """An instruction without nsw/nuw/nneg/inbounds/nusw: defined where they would make it
    poison; a non-negative zext as the sext it equals where defined."""
    line = re.sub(r"= zext nneg ", "= sext ", line)
    return re.sub(r" (?:nsw|nuw|nneg|inbounds|nusw)(?= )", "", line)



def subgroup_driver(plan, S, lane_contexts=True):
    """void driver(args, tmpl, first, count, arena, fault out): work-groups from the atomic
    counter; in each, the subgroups in order, the kernel's subgroup function called once per
    subgroup with S lane contexts (ids of each lane). A fault stops everything and is
    reported as fout[0] != 0: runtime.py then runs the launch on the per-work-item path.
    Built with llvmlite.ir from the drivers' pieces (drivers.py: the argument loads, the
    work-group counter, the group ids, the __local zeroing, the next local ids)."""
    fn, b = irbuild.define(driver_name(plan.name), VOID, list(LAUNCH_PARAMS), inline=False)
    fn.linkage = ""
    args, tmpl, first, count, priv, fout = fn.args
    # The lanes' contexts: lane 0's only when no other lane reads its own (the subgroup
    # function then never dereferences the others).
    contexts = S if lane_contexts else 1
    ctx = irbuild.alloca(b, ir.ArrayType(I64, contexts * CTX_SLOTS), 16, "ctx")
    with irbuild.for_range(b, 0, contexts, "ij") as (ij, _):
        lane = irbuild.context_at(b, ctx, ij, "ij.c")
        irbuild.call(b, "llvm.memcpy.p0.p0.i64", VOID,
                     [lane, tmpl, ir.Constant(I64, CTX_SLOTS * 8), ir.Constant(irbuild.I1, 0)])
        b.store(priv, irbuild.context_slot(b, lane, "priv", "ij.priv"))
    call_args = [ctx] + load_arguments(b, plan, args)
    t = {f: load_slot(b, ctx, f, f"t.{f}") for f in ("wg_size", "ngrp0", "ngrp1", "ngrp2", "lsize0", "lsize1",
                                                       "table")}
    abp = b.load(irbuild.context_slot(b, ctx, "abort", "abp"), name="abp", typ=PTR)
    nextp = b.load(irbuild.context_slot(b, ctx, "next_group", "nextp"), name="nextp", typ=PTR)
    tab = b.inttoptr(t["table"], PTR, name="tab")
    steps = irbuild.context_slot(b, ctx, "steps")
    faultp = irbuild.context_slot(b, ctx, "fault")
    oned = one_dim(b, t["ngrp1"], t["ngrp2"])
    done, ids = irbuild.new_block(b, "done"), irbuild.new_block(b, "group.ids")
    group, g = group_head(b, first, count, tmpl, nextp, abp, done, ids)
    irbuild.place(b, ids)
    gx, gy, gz = group_ids(b, oned, g, _banded_ids(g, t["ngrp0"], t["ngrp1"]), "group.ids")
    with irbuild.for_range(b, 0, contexts, "gj") as (gj, _):
        lane = irbuild.context_at(b, ctx, gj, "gj.c")
        for slot, v in (("grp0", gx), ("grp1", gy), ("grp2", gz)):
            b.store(v, irbuild.context_slot(b, lane, slot, f"gj.{slot}"))
    zero_locals(b, tab, plan.local_rows, "gz")
    zdone = b.block
    sg, lanes_pre, ok, fault = (irbuild.new_block(b, n) for n in ("sg", "lanes.pre", "sg.ok", "fault"))
    b.branch(sg)
    irbuild.place(b, sg)
    # Lane j: local ids of lane 0 plus j in dimension 0 (the launch condition: the
    # subgroup lies in one row, lsize0 a multiple of S). Only lane 0's when no other lane
    # reads them. Counted up: divisions per subgroup cost more than a small body.
    s, x0, y, z = (b.phi(I64, name=n) for n in ("s", "x0", "y", "z"))
    for phi in (s, x0, y, z):
        phi.add_incoming(ir.Constant(I64, 0), zdone)
    b.cbranch(irbuild.icmp(b, "ult", s, t["wg_size"], "s.more"), lanes_pre, group)
    irbuild.place(b, lanes_pre)
    with irbuild.for_range(b, 0, contexts, "lj") as (lj, _):
        ids = (("llid", b.add(s, lj, name="l")), ("lid0", b.add(x0, lj, name="x")), ("lid1", y), ("lid2", z))
        lane = irbuild.context_at(b, ctx, lj, "lj.c")
        for slot, v in ids:
            b.store(v, irbuild.context_slot(b, lane, slot, f"lj.{slot}"))
    b.store(ir.Constant(I64, 0), steps)
    irbuild.call(b, function_name(plan.name), VOID, call_args)
    fv = b.load(faultp, name="fv", typ=I64)
    b.cbranch(irbuild.icmp(b, "ne", fv, ir.Constant(I64, 0), "faulted"), fault, ok)
    irbuild.place(b, ok)
    nexts = (b.add(s, ir.Constant(I64, S), name="s.next"),
             *next_local_id(b, x0, y, z, t["lsize0"], t["lsize1"], step=S))
    for phi, v in zip((s, x0, y, z), nexts):
        phi.add_incoming(v, ok)
    b.branch(sg)
    irbuild.place(b, fault)
    b.store(ir.Constant(I64, 1), fout)
    irbuild.store_atomic(b, ir.Constant(I64, 1), abp, "monotonic", 8)
    b.ret_void()
    irbuild.place(b, done)
    b.ret_void()
    return irbuild.function_text(fn)


def _banded_ids(g, ngrp0, ngrp1):
    """drivers.group_ids' compute in the cache-aware order: work-groups in bands of BAND
    groups along dimension 0, each band walked row by row (a GEMM's B strips of a band stay
    in cache while all of A passes once per band). Work-groups are independent (OpenCL C 3.0
    3.2.2), and a fault re-runs the launch in the usual order."""
    def compute(b):
        band_size = ir.Constant(I64, BAND)
        gxy = b.mul(ngrp0, ngrp1, name="gxy")
        gz = b.udiv(g, gxy, name="gz.n")
        gr = b.urem(g, gxy, name="gr")
        bsize = b.mul(ngrp1, band_size, name="bsize")
        band = b.udiv(gr, bsize, name="band")
        brem = b.urem(gr, bsize, name="brem")
        bx0 = b.mul(band, band_size, name="bx0")
        bleft = b.sub(ngrp0, bx0, name="bleft")
        bw = b.select(irbuild.icmp(b, "ult", bleft, band_size, "bshort"), bleft, band_size, name="bw")
        gy = b.udiv(brem, bw, name="gy.n")
        gx = b.add(bx0, b.urem(brem, bw, name="gxo"), name="gx.n")
        return gx, gy, gz
    return compute
