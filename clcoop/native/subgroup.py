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
  uniform here): loads and stores copy whole rows (columns for column-major), the mul-add
  calls the routine of coop_ir directly, element-wise operations are vector instructions;
- pointer and stride of a load or store may be varying: they must be equal in every lane,
  the span inside one region, the stride legal, as the rendezvous path checks.
The fast path never reports a fault itself: any failed check (bounds, uniformity, stride,
division by zero, the instruction limit) records a fault in lane 0's context, accesses go
to the scratch area, and the launch is run again from the caller's arrays on the
per-work-item path (runtime.py), which reports the fault exactly as before.
Not taken (the reason is kept in KernelPlan.subgroup_reason): non-matrix stores, atomics
and memory intrinsics (their order between lanes would differ from per-work-item
execution), private variables, calls of defined functions, divergent branches,
matrices built from varying scalars.
"""
import re

from clcoop import coopmat_spec
from clcoop.coop_names import BINARY, LENGTH, LOAD, MUL_ADD, NEGATE, SCALAR_MUL, SPLAT, STORE
from clcoop.ir.demangle import demangle, signed_param
from clcoop.native import ballot_ir, bfloat_ir, collectives, coop_routines, coop_ir
from clcoop.native.codegen import _FunctionGen, safe_divisor
from clcoop.native.masking import Masking
from clcoop.native.regions import DIVISIONS, MAX_MASKED_LINES, Regions
from clcoop.native.context import (ATOMIC_FUNCTIONS, CTX, CTX_SLOTS, FAULT_COOP, FAULT_UNREACHABLE, REGION_FLAGS,
                                   REGION_HI, REGION_LO, REGION_ROW_WORDS)
from clcoop.native.drivers import argument_lines, coroutine_driver, group_head_lines, group_id_lines, one_dim_lines, \
    zero_local_lines
from clcoop.native.runtime_ir import CORO_EPILOGUE, CORO_PROLOGUE
from clcoop.native.builtin_ir import store_size
from clcoop.native.text_rewrite import clean_ir, gquote, quote, ref
from clcoop.native.support import MEMORY_INTRINSICS, WORKITEM_FUNCTIONS, Unsupported
from clcoop.ir.loader import value_kind

# Work-item queries with one value per subgroup when the work-group size is a multiple of
# the subgroup size (the fast path is only launched then).
UNIFORM_QUERIES = {"get_group_id", "get_global_size", "get_local_size", "get_enqueued_local_size",
                   "get_num_groups", "get_global_offset", "get_work_dim", "get_sub_group_size",
                   "get_max_sub_group_size", "get_num_sub_groups", "get_enqueued_num_sub_groups",
                   "get_sub_group_id"}
# Names codegen._FunctionGen.fresh makes (%__<stem><n>, maybe with a suffix): renamed per
# lane when made while emitting the instruction (n in the counter range of it).
_FRESH = re.compile(r"__[a-z0-9]*?(\d+)(\.[\w.]*)?")
# Lanes in lockstep for kernels that observe no subgroup (no sub-group query, no matrix).
WIDE_LANES = 64
# Largest fast-path function (lines of IR) worth compiling.
MAX_LINES = 20000
# Largest function with lane-varying ifs compiled at WIDE_LANES (generate).
MAX_WIDE_MASKED_LINES = 12000
# Work-groups per band of the cache-aware order (subgroup_driver).
BAND = 8
# Strides above this could overflow the span computation: such launches take the fallback.
MAX_STRIDE = 1 << 32

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
    gen = _SubgroupGen(mg, f, True)
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
        gen = _SubgroupGen(mg, f, True)
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


class _SubgroupGen(_FunctionGen):
    """Re-emits a kernel for a whole subgroup (the base class's per-instruction code, once
    for uniform instructions, once per lane for varying ones). Lane-varying branches go to
    its parts, built with it as the generator they emit through: masking.Masking (ifs,
    masked accesses) and regions.Regions (loops, nested ifs); each uses only the names of
    this class its module lists in GENERATOR_USES (the lines emitted, fresh names, lane
    values, the current mask masked_preds/block_any that instruction() reads, ...)."""

    def emit_subgroup(self, lanes):
        f = self.f
        self.S = lanes
        # Barriers: the subgroup function is a coroutine suspended at each barrier, and
        # the driver advances the work-group's subgroups barrier by barrier
        # (drivers.coroutine_driver with lanes=S).
        self.coroutine = self._has_barrier()
        self.entry_allocas = []
        self.tiles = {}            # load result -> (the tile it was copied into, stride, by columns)
        self.lane_contexts = False  # whether lanes other than 0 read their ids
        self.in_memory = {}        # load result -> (rows pointer, stride, by columns, block, stores)
        self.stores = 0            # stores emitted so far (a load's rows may be stale after one)
        self.masking = Masking(self)  # lane-varying ifs (hammocks)
        self.forced = set()        # values per lane whatever their operands (the parts' forced())
        self.masked_preds = None   # per-lane predicates while emitting a masked copy
        self.masked_regions = Regions(self, self.masking)  # lane-varying loops and nested ifs
        self.block_any = None      # in a region's block: whether any lane runs it
        self._check_taken()
        # The lane rules of _kind hold for subgroups within one row of dimension 0; the
        # runtime takes the fast path only then (runtime.subgroups_in_rows).
        self.aligned_lanes = self.S & (self.S - 1) == 0
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
            self.cur_block = bi
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
            text.extend(self._fix_phis(line) for line in lines)
        text.append("__abort:")
        text += ["  br label %__coro.final"] + CORO_EPILOGUE if self.coroutine else ["  ret void"]
        text.append("}")
        return coopmat_spec.replace_matrix_types("\n".join(text), _logical_vector)

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
        """Names of the values computed per lane: the kinds (_kind) 'al' and 'v'; the
        joins' phis of lane-varying ifs (masking.py) are varying too."""
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
        kinds = {}
        changed = True
        while changed:
            changed = False
            for b in self.blocks:
                for ins in b.instructions:
                    if not ins.name:
                        continue
                    new = _join(kinds.get(ins.name), self._kind(ins, kinds))
                    if new != kinds.get(ins.name):
                        kinds[ins.name] = new
                        changed = True
        self.kinds = kinds
        return {name for name, kind in kinds.items() if kind not in ("u", "S")}

    @staticmethod
    def operand_varying(o, varying):
        return value_kind(o) == "instruction" and o.name in varying

    def _operand_kind(self, o, kinds):
        if value_kind(o) == "instruction":
            return kinds.get(o.name)
        if o.is_constant and re.fullmatch(r"i\d+ " + str(self.S), str(o).strip()):
            return "S"
        return "u"

    def _kind(self, ins, kinds):
        """The lane dependence of a value, under the launch conditions of the fast path
        (local size 0 and global offset 0 multiples of S, S a power of two, so a subgroup's
        lanes share every id but the lowest bits of dimension 0):
        'S' the subgroup size, 'u' uniform, 'al' a multiple of S plus the lane, 'ao' lane
        0's value plus the lane (_lane_offset), 'v' other.
        None: not known yet (operands not visited)."""
        ops = list(ins.operands)
        op = ins.opcode
        if ins.name in self.forced:
            return "v"
        if op == "call":
            name = ops[-1].name
            if coop_routines.callee_of(name) is not None:
                return "u"             # matrices are uniform; their operands are checked
            base = demangle(name)[0]
            if base in ("get_sub_group_size", "get_max_sub_group_size"):
                return "S"
            if base in UNIFORM_QUERIES:
                return "u"
            if base in ("get_global_id", "get_local_id"):
                dim = str(ops[0]).strip() if ops[0].is_constant else ""
                if dim.endswith(" 0"):
                    return "al" if self.aligned_lanes else "v"
                return "u" if re.fullmatch(r"i\d+ [12]", dim) else "v"
            if base in ("get_sub_group_local_id", "get_local_linear_id"):
                return "al" if self.aligned_lanes else "v"
            if base in WORKITEM_FUNCTIONS:
                return "v"
            found = collectives.collective_of(base)
            if found is not None:
                return collectives.lane_kind(found[0], [self._operand_kind(o, kinds) for o in ops[:-1]], found[1])
            ops = ops[:-1]
        kinds_in = [self._operand_kind(o, kinds) for o in ops]
        known = [k for k in kinds_in if k is not None]
        if op in ("zext", "sext", "trunc"):
            bits = re.fullmatch(r"i(\d+)", str(ins.type))
            if known == ["al"]:
                return "al" if bits and (1 << int(bits.group(1)) - 1) >= self.S else "v"
            if known == ["ao"]:
                # x_j = x_0 + j without wrapping (_lane_offset): sext keeps it, and zext
                # when no lane is negative (nneg); a trunc may wrap.
                text = clean_ir(str(ins))
                return "ao" if op == "sext" or op == "zext" and " nneg " in text else "v"
            return known[0] if known else None
        if op == "getelementptr":
            return self._pointer_kind(ins, kinds_in)
        if op == "udiv" and kinds_in == ["al", "S"]:
            return "u"
        if op == "lshr" and kinds_in[0] == "al" and re.fullmatch(rf"i\d+ {self.S.bit_length() - 1}", str(ops[1]).strip()):
            return "u"
        if op in ("add", "sub") and self._lane_offset(ins, op, kinds_in):
            return "ao"
        if op == "and" and kinds_in[0] == "al" and self._low_bits_set(ops[1]):
            # (multiple of S + lane) & m, m's low bits all ones: (multiple of S) & m + lane
            # (clang's -O2 index of a[i - 1] is `and i64 gid, 2147483647`).
            return "al"
        if op == "phi":
            return _join_all(known)
        if op == "select" and kinds_in[0] in ("u", "S"):
            return _join_all(known[1:])
        if any(k not in ("u", "S") for k in known):
            return "v"
        return "u" if known or not ops else None

    @staticmethod
    def _lane_offset(ins, op, kinds_in):
        """Whether ins is (lane 0's value + j) plus or minus a uniform value, without
        wrapping (nsw or nuw: a wrapped lane would be poison): kind 'ao', lane j's value
        lane 0's plus j, though lane 0's is no multiple of S."""
        lane, uniform = ("al", "ao"), ("u", "S")
        if len(kinds_in) != 2 or not re.match(r"\s*%\S+ = (?:add|sub)(?: nuw| nsw)+ ", clean_ir(str(ins))):
            return False
        a, b = kinds_in
        return a in lane and b in uniform or op == "add" and a in uniform and b in lane

    def _low_bits_set(self, o):
        """Whether the constant o has its log2(S) low bits all set."""
        m = re.fullmatch(r"i\d+ (-?\d+)", str(o).strip()) if o.is_constant else None
        return m is not None and int(m.group(1)) & (self.S - 1) == self.S - 1

    def _pointer_kind(self, ins, kinds_in):
        """'pal:<bytes>' for lane j's pointer = lane 0's + j * bytes: a uniform base indexed
        by 'al' (one index, a scalar element), or such a pointer offset uniformly."""
        if None in kinds_in:
            return None
        if all(k in ("u", "S") for k in kinds_in):
            return "u"
        rest = kinds_in[1:]
        if kinds_in[0].startswith("pal") and all(k in ("u", "S") for k in rest):
            return kinds_in[0]
        if kinds_in[0] in ("u", "S") and rest in (["al"], ["ao"]):
            m = re.search(r"getelementptr (?:(?:inbounds|nuw|nusw) )*(.+?), ptr", clean_ir(str(ins)))
            t = self.ty(m.group(1)) if m else None
            if t is not None and t.kind in ("int", "float"):
                return f"pal:{store_size(t, self.layout)}"
        return "v"

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
        if ins.opcode == "call" and self._is_declared(ops[-1]) and \
                collectives.collective_of(demangle(ops[-1].name)[0]) is not None:
            return self._collective(ins, ops)
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
            self.stores += 1
        if callee is not None:
            self._matrix_call(ins, ops, callee)
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
        return super().instruction(ins, label)

    def _per_lane(self, ins, label, ops, lanes):
        saved, self.lines = self.lines, []
        self.fresh_from = self.n
        if super().instruction(ins, label) is not None:
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
        self.fresh_from = self.n
        checked = self.check(ins, pointer, self.S * esz, esz, "write" if store else "read", store)
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

    # ------------------------------------------------------------ sub-group collectives
    def _is_declared(self, callee):
        g = self.mg.functions.get(callee.name)
        return value_kind(callee) == "function" and g is not None and g.is_declaration

    def _collective(self, ins, ops):
        """A sub-group collective (collectives.py) over the lanes' values. In the masked copy
        of a lane-varying if (masking.py: it runs only where the lanes differ) not every
        work-item of the sub-group reaches it, which the interpreter reports as a fault
        (OpenCL C 3.0 "Sub-Group Functions": all work-items of the sub-group must encounter it): a fault
        here, and the launch is run again where it is reported. In a region (a loop or
        nested if whose control flow may differ between lanes): not taken."""
        base, params = demangle(ops[-1].name)
        kind, op = collectives.collective_of(base)
        if collectives.non_uniform(base):
            # Only the active lanes take part (ballot_ir.py): also under a mask.
            site = lambda: self.site(ins, "sub-group collective", 0)     # noqa: E731
            return self._name_result(ins, ballot_ir.emit_fast(self, ins, ops, kind, op, site))
        if self.block_any is not None:
            raise Unsupported(f"the sub-group collective '{base}' in a loop or nested branch that may "
                              f"differ between the lanes of a subgroup")
        args = ops[:-1]
        T = str(args[0].type)
        why = collectives.unsupported_type(kind, op, T)
        if why is not None:
            raise Unsupported(f"the sub-group collective '{base}' {why}")
        S = self.S
        emit = collectives.Emitter(self.fresh, self.lines)
        if self.masked_preds is not None:
            every, some = self.masking.all_any(self.masked_preds)
            part = self.fresh("sgpart")
            site = self.site(ins, "sub-group collective", 0)
            self.lines += [f"  {part}.n = xor i1 {every}, true",
                           f"  {part} = and i1 {some}, {part}.n",
                           f"  call void @__clcoop_fault_if(ptr %__ctx, i1 {part}, i32 {site}, i32 {FAULT_UNREACHABLE})"]
        signed = signed_param(params, 0)
        xs = [self.lane(args[0], j) for j in range(S)]
        varying = ins.name in self.varying
        if kind in ("all", "any"):
            out = self.fresh("sgb")
            self.lines.append(f"  {out} = zext i1 {emit.truth(kind, T, xs)} to {ins.type}")
            values = out
        elif kind == "reduce":
            values = emit.reduce(op, T, signed, xs)
        elif kind in ("scan_inclusive", "scan_exclusive"):
            values = emit.scan(op, T, signed, xs, kind == "scan_exclusive")
        elif not self.operand_varying(args[0], self.varying):
            values = xs[0]          # every lane holds the value read
        else:
            read = self._lanes_table(T, xs)
            values = []
            for j in range(S if varying else 1):
                values.append(read(emit.lane_index(kind, op, str(args[1].type), self.lane(args[1], j), j, S)))
            values = values if varying else values[0]
        self._name_result(ins, values)

    def _lanes_table(self, T, xs):
        """read(index) -> the value of lane `index` (an i64 in [0, S)): a <S x T> vector for
        scalars, an [S x T] array on the stack for vectors (no vector of vectors)."""
        S = self.S
        if not T.startswith("<"):
            vec = collectives.Emitter(self.fresh, self.lines).vector(T, xs)

            def read(at):
                v = self.fresh("sgx")
                self.lines.append(f"  {v} = extractelement <{S} x {T}> {vec}, i64 {at}")
                return v
            return read
        table = self._entry_alloca(f"[{S} x {T}]")
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

    def _name_result(self, ins, values):
        """The collective's result under its own name: one value (uniform), or one per lane
        (a list, or one value for every lane)."""
        T = str(ins.type)
        if ins.name not in self.varying:
            self.lines.append(f"  {quote(ins.name)} = bitcast {T} {values} to {T}")
            return
        for j in range(self.S):
            v = values[j] if isinstance(values, list) else values
            self.lines.append(f"  {quote(f'{ins.name}.l{j}')} = bitcast {T} {v} to {T}")

    # ------------------------------------------------------------ matrices
    def _matrix_call(self, ins, ops, callee):
        base = callee.base
        lhs = f"{quote(ins.name)} = " if str(ins.type) != "void" else ""
        if base == SPLAT:
            mt = _matrix(str(ins.type))
            tmp = self.fresh("splat")
            self.lines += [f"  {tmp} = insertelement {mt} poison, {ops[0].type} {ref(ops[0])}, i64 0",
                           f"  {lhs}shufflevector {mt} {tmp}, {mt} poison, <{_count(mt)} x i32> zeroinitializer"]
        elif base == LENGTH:
            mt = coop_routines._matrix_of_callee(callee, self.S)
            self.lines.append(f"  {lhs}add {ins.type} 0, {mt.length}")
        elif base == NEGATE or base in coop_routines.ELEMENTWISE:
            self._elementwise(ins, ops, base, lhs)
        elif base == SCALAR_MUL:
            mt = _matrix(str(ins.type))
            elem = _elem(mt)
            tmp, tmp2 = self.fresh("smul"), self.fresh("smuls")
            op = "fmul" if elem in coop_ir.FLOAT_TYPES else "mul"
            self.lines += [f"  {tmp} = insertelement {mt} poison, {elem} {ref(ops[1])}, i64 0",
                           f"  {tmp2} = shufflevector {mt} {tmp}, {mt} poison, <{_count(mt)} x i32> zeroinitializer"]
            if elem == "bfloat":
                self.lines += bfloat_ir.arithmetic(self.fresh, "fmul", mt, ref(ops[0]), tmp2, quote(ins.name))
            else:
                self.lines.append(f"  {lhs}{op} {mt} {ref(ops[0])}, {tmp2}")
        elif base == LOAD:
            self._memory(ins, ops, callee, lhs, load=True)
        elif base == STORE:
            self._memory(ins, ops, callee, lhs, load=False)
        elif base == MUL_ADD:
            self._mul_add(ins, ops, lhs)
        else:
            raise Unsupported(f"the cooperative-matrix operation {base}")

    def _elementwise(self, ins, ops, base, lhs):
        mt = _matrix(str(ins.type))
        floating = _elem(mt) in coop_ir.FLOAT_TYPES
        if _elem(mt) == "bfloat":      # in float32, rounded once (bfloat_ir)
            code = "fneg" if base == NEGATE else coop_routines.ELEMENTWISE[base][0]
            self.lines += bfloat_ir.arithmetic(self.fresh, code, mt, ref(ops[0]),
                                               None if base == NEGATE else ref(ops[1]), quote(ins.name))
            return
        if base == NEGATE:
            op = f"fneg {mt} {ref(ops[0])}" if floating else f"sub {mt} zeroinitializer, {ref(ops[0])}"
        else:
            code = coop_routines.ELEMENTWISE[base][0 if floating else 1]
            if code is None or base == BINARY["div"] and not floating:
                raise Unsupported("an integer cooperative-matrix division")
            op = f"{code} {mt} {ref(ops[0])}, {ref(ops[1])}"
        self.lines.append(f"  {lhs}{op}")

    def _uniform_i64(self, v, site_bad):
        """Lane 0's value of an integer or pointer operand as i64; ORs 'differs in a lane'
        into the list site_bad."""
        ty = str(v.type)
        ptr = ty.startswith("ptr")
        out = []
        for j in range(self.S if self.operand_varying(v, self.varying) else 1):
            x = self.fresh("u")
            if ptr:
                self.lines.append(f"  {x} = ptrtoint {ty} {self.lane(v, j)} to i64")
            elif ty == "i64":
                self.lines.append(f"  {x} = add i64 {self.lane(v, j)}, 0")
            else:
                self.lines.append(f"  {x} = sext {ty} {self.lane(v, j)} to i64")
            out.append(x)
        for x in out[1:]:
            d = self.fresh("ud")
            self.lines.append(f"  {d} = icmp ne i64 {x}, {out[0]}")
            site_bad.append(d)
        return out[0]

    def _memory(self, ins, ops, callee, lhs, load):
        mtext = str(ins.type) if load else str(ops[1].type)
        per_lane = coop_routines.matrix_type(mtext, self.S)
        layout, stride_op = coop_routines._memory_operands(ops, 1 if load else 2, callee, per_lane)
        T, R, C = per_lane.elem, per_lane.rows, per_lane.cols
        esz = coop_routines.ELEMENT_BYTES[T]
        site = self.site(ins, "cooperative-matrix operation", 0)
        coop_routines.element_site(self.mg.out.sites[site], per_lane)
        bad = []
        p = self._uniform_i64(ops[0], bad)
        stride = self._uniform_i64(stride_op, bad)
        majors, minor = (R, C) if layout == 0 else (C, R)
        n = self.fresh("m")
        # The stride rules of coopmat (loads >= 0, stores > 0), and stores whose rows do not
        # overlap (the rendezvous path stores those element by element).
        lowest = 0 if load else minor
        self.lines += [f"  {n}.slo = icmp slt i64 {stride}, {lowest}",
                       f"  {n}.shi = icmp ugt i64 {stride}, {MAX_STRIDE}",
                       f"  {n}.maj = mul i64 {stride}, {majors - 1}",
                       f"  {n}.last = add i64 {n}.maj, {minor}",
                       f"  {n}.bytes = mul i64 {n}.last, {esz}",
                       f"  {n}.hi = add i64 {p}, {n}.bytes",
                       *self._span_check(ops[0], p, f"{n}.hi", esz, not load, f"{n}.span"),
                       f"  {n}.nospan = xor i1 {n}.span, true"]
        bad += [f"{n}.slo", f"{n}.shi", f"{n}.nospan"]
        acc = bad[0]
        for i, b in enumerate(bad[1:]):
            self.lines.append(f"  {n}.bad{i} = or i1 {acc}, {b}")
            acc = f"{n}.bad{i}"
        self.lines += [f"  call void @__clcoop_fault_if(ptr %__ctx, i1 {acc}, i32 {site}, i32 {FAULT_COOP})",
                       # A failed check reads or writes the scratch area, one row at stride 0.
                       f"  {n}.scp = getelementptr i64, ptr %__ctx, i64 {CTX['scratch']}",
                       f"  {n}.sc = load i64, ptr {n}.scp",
                       f"  {n}.base = select i1 {acc}, i64 {n}.sc, i64 {p}",
                       f"  {n}.st = select i1 {acc}, i64 0, i64 {stride}",
                       f"  {n}.stb = mul i64 {n}.st, {esz}"]
        logical = f"<{R * C} x {T}>"
        tmp = self._entry_alloca(f"[{R * C} x {T}]")
        row_t = f"<{minor} x {T}>"
        # Column-major: the columns go through a transposed tile (C x R), shuffled.
        transpose = [c * R + r for r in range(R) for c in range(C)]       # logical <- transposed
        inverse = [r * C + c for c in range(C) for r in range(R)]         # transposed <- logical
        if not load:
            value = ref(ops[1])
            if layout == 1:
                t = self.fresh("tr")
                self.lines.append(f"  {t} = shufflevector {logical} {value}, {logical} poison, {_mask(inverse)}")
                value = t
            self.lines.append(f"  store {logical} {value}, ptr {tmp}, align {esz}")
        for k in range(majors):
            a, q, s = f"{n}.a{k}", f"{n}.q{k}", f"{n}.s{k}"
            self.lines += [f"  {a}.o = mul i64 {n}.stb, {k}",
                           f"  {a} = add i64 {n}.base, {a}.o",
                           f"  {q} = inttoptr i64 {a} to ptr",
                           f"  {s} = getelementptr {T}, ptr {tmp}, i64 {k * minor}"]
            if load:
                self.lines += [f"  {n}.v{k} = load {row_t}, ptr {q}, align {esz}",
                               f"  store {row_t} {n}.v{k}, ptr {s}, align {esz}"]
            else:
                self.lines += [f"  {n}.v{k} = load {row_t}, ptr {s}, align {esz}",
                               f"  store {row_t} {n}.v{k}, ptr {q}, align {esz}"]
        if load:
            if layout == 1:
                self.lines += [f"  {n}.t = load {logical}, ptr {tmp}, align {esz}",
                               f"  {lhs}shufflevector {logical} {n}.t, {logical} poison, {_mask(transpose)}"]
            else:
                self.lines.append(f"  {lhs}load {logical}, ptr {tmp}, align {esz}")
            # The tile holds this value (by columns when column-major) wherever it is used
            # (a non-phi use of an SSA value sees the latest execution of its definition,
            # and only this load writes the tile): a mul-add reads its operand there (no
            # copy; a column-major operand is not transposed: LLVM drops the shuffle above
            # when nothing else uses the value).
            by_columns = layout == 1
            self.tiles[ins.name] = (tmp, minor * esz, by_columns)
            # Where the rows (columns) are in memory (after the checks: the scratch area at
            # stride 0 when one failed), for a mul-add in the same block with no store in
            # between (it reads them there: no copy at all).
            self.lines.append(f"  {n}.bp = inttoptr i64 {n}.base to ptr")
            self.in_memory[ins.name] = (f"{n}.bp", f"{n}.stb", by_columns, self.cur_block, self.stores)

    def _span_check(self, pointer, lo, hi, esz, write, out):
        """IR setting `out` when [lo, hi) lies in one region, aligned to esz from its start,
        writable if written. A pointer from a kernel argument is compared with that
        argument's row of the region table (no search; LLVM hoists the row's loads out of
        loops); any other with every row (__clcoop_span_ok)."""
        base = self.base_of(pointer)
        if base is None or base[0] != "arg":
            return [f"  {out} = call i1 @__clcoop_span_ok(ptr %__ctx, i64 {lo}, i64 {hi}, i64 {esz}, "
                    f"i1 {'true' if write else 'false'})"]
        row = REGION_ROW_WORDS * (len(self.mg.global_index) + base[1])
        lines = [f"  {out}.tp = getelementptr i64, ptr %__ctx, i64 {CTX['table']}",
                 f"  {out}.t = load ptr, ptr {out}.tp"]
        for field, k in (("rlo", REGION_LO), ("rhi", REGION_HI), ("rw", REGION_FLAGS)):
            lines += [f"  {out}.{field}p = getelementptr i64, ptr {out}.t, i64 {row + k}",
                      f"  {out}.{field} = load i64, ptr {out}.{field}p"]
        lines += [f"  {out}.nw = icmp ule i64 {lo}, {hi}",
                  f"  {out}.ge = icmp uge i64 {lo}, {out}.rlo",
                  f"  {out}.le = icmp ule i64 {hi}, {out}.rhi",
                  f"  {out}.rel = sub i64 {lo}, {out}.rlo",
                  f"  {out}.mis = urem i64 {out}.rel, {esz}",
                  f"  {out}.al = icmp eq i64 {out}.mis, 0",
                  f"  {out}.c0 = and i1 {out}.nw, {out}.ge",
                  f"  {out}.c1 = and i1 {out}.c0, {out}.le",
                  f"  {out}.c2 = and i1 {out}.c1, {out}.al"]
        if write:
            lines += [f"  {out}.w = icmp ne i64 {out}.rw, 0",
                      f"  {out} = and i1 {out}.c2, {out}.w"]
        else:
            lines.append(f"  {out} = add i1 {out}.c2, false")
        return lines

    def _mul_add(self, ins, ops, lhs):
        S = self.S
        a, b, c = (coop_routines.matrix_type(str(o.type), S) for o in ops[:3])
        r = coop_routines.matrix_type(str(ins.type), S)
        operands = coop_routines.mul_add_operands(ops, (a, b, c, r))
        args, columns = [], []
        for mt, o in zip((a, b), ops[:2]):
            pointer, stride, by_columns = self._operand_rows(mt, o)
            args.append(f"ptr {pointer}, i64 {stride}")
            columns.append(by_columns)
        slot = self.tiles.get(_instruction_name(ops[2]), (None,))[0]
        if slot is None or self.tiles[ops[2].name][2]:
            slot = self._spill(c, ops[2])
        args.append(f"ptr {slot}")
        mad = self.mg.coop.mul_add_routine(a.rows, b.cols, a.cols,
                                           tuple(coop_routines.routine_type(mt) for mt in (a, b, c, r)), operands,
                                           strided=True, columns=tuple(columns))
        out = self._entry_alloca(f"[{r.rows * r.cols} x {r.elem}]")
        self.lines += [f"  call void @{mad}({', '.join(args)}, ptr {out})",
                       f"  {lhs}load <{r.rows * r.cols} x {r.elem}>, ptr {out}, align 64"]

    def _operand_rows(self, mt, o):
        """(pointer, stride in bytes, by columns) of a mul-add's a or b operand: where a load
        in the same block found it when no store came in between, else the tile a load left,
        else a copy of the value (row-major)."""
        name = _instruction_name(o)
        where = self.in_memory.get(name)
        if where is not None and where[3:] == (self.cur_block, self.stores):
            return where[:3]
        if name in self.tiles:
            return self.tiles[name]
        return self._spill(mt, o), mt.cols * coop_routines.ELEMENT_BYTES[mt.elem], False

    def _spill(self, mt, o):
        slot = self._entry_alloca(f"[{mt.rows * mt.cols} x {mt.elem}]")
        self.lines.append(f"  store <{mt.rows * mt.cols} x {mt.elem}> {ref(o)}, ptr {slot}, align 64")
        return slot

    def _entry_alloca(self, ty):
        name = self.fresh("tile")
        self.entry_allocas.append(f"  {name} = alloca {ty}, align 64")
        return name


def _without_poison_flags(line):
    """An instruction without nsw/nuw/nneg/inbounds/nusw: defined where they would make it
    poison; a non-negative zext as the sext it equals where defined."""
    line = re.sub(r"= zext nneg ", "= sext ", line)
    return re.sub(r" (?:nsw|nuw|nneg|inbounds|nusw)(?= )", "", line)


def _instruction_name(o):
    return o.name if value_kind(o) == "instruction" else None


def _join(a, b):
    """Join of two lane kinds (None: unknown yet)."""
    if a is None or b is None:
        return a or b
    if a == b:
        return a
    if a in ("u", "S") and b in ("u", "S"):
        return "u"
    if {a, b} == {"al", "ao"}:
        return "ao"          # both: lane j's value is lane 0's plus j
    return "v"


def _join_all(kinds):
    out = None
    for k in kinds:
        out = _join(out, k)
    return out


def _logical_vector(type_text):
    fields = coopmat_spec.first_matrix_type_fields(type_text)
    elem, scope, rows, cols, _ = fields
    if scope == coopmat_spec.Scope.WORKGROUP:
        # One tile per subgroup does not hold it: the per-work-item path runs it.
        raise Unsupported("a workgroup-scope matrix")
    return f"<{rows * cols} x {elem}>"


def _matrix(type_text):
    return _logical_vector(type_text) if coopmat_spec.mentions_matrix_type(type_text) else type_text


def _count(vector):
    return int(re.match(r"<(\d+) x", vector).group(1))


def _elem(vector):
    return re.match(r"<\d+ x (.+)>", vector).group(1)


def _mask(indices):
    return f"<{len(indices)} x i32> <{', '.join(f'i32 {i}' for i in indices)}>"


# ------------------------------------------------------------------ driver

def subgroup_driver(plan, S, lane_contexts=True):
    """void driver(args, tmpl, first, count, arena, fault out): work-groups from the atomic
    counter; in each, the subgroups in order, the kernel's subgroup function called once per
    subgroup with S lane contexts (ids of each lane). A fault stops everything and is
    reported as fout[0] != 0: runtime.py then runs the launch on the per-work-item path."""
    slot = CTX_SLOTS * 8
    # The lanes' contexts: lane 0's only when no other lane reads its own (the subgroup
    # function then never dereferences the others).
    contexts = S if lane_contexts else 1
    L = [f"define void {gquote(driver_name(plan.name))}(ptr %args, ptr %tmpl, i64 %first, i64 %count, "
         f"ptr %priv, ptr %fout) {{",
         "entry:",
         f"  %ctx = alloca [{contexts * CTX_SLOTS} x i64], align 16",
         "  br label %init",
         "init:",
         "  %ij = phi i64 [ 0, %entry ], [ %ij.next, %init.body ]",
         f"  %ij.more = icmp ult i64 %ij, {contexts}",
         "  br i1 %ij.more, label %init.body, label %init.done",
         "init.body:",
         f"  %ij.off = mul i64 %ij, {slot}",
         "  %ij.c = getelementptr i8, ptr %ctx, i64 %ij.off",
         f"  call void @llvm.memcpy.p0.p0.i64(ptr %ij.c, ptr %tmpl, i64 {slot}, i1 false)",
         f"  %ij.pp = getelementptr i64, ptr %ij.c, i64 {CTX['priv']}",
         "  store ptr %priv, ptr %ij.pp",
         "  %ij.next = add i64 %ij, 1",
         "  br label %init",
         "init.done:"]
    arg_lines, call_args = argument_lines(plan)
    L += arg_lines
    for field in ("wg_size", "ngrp0", "ngrp1", "ngrp2", "lsize0", "lsize1", "table"):
        L += [f"  %t.{field}.p = getelementptr i64, ptr %ctx, i64 {CTX[field]}",
              f"  %t.{field} = load i64, ptr %t.{field}.p"]
    L += [f"  %abp.p = getelementptr i64, ptr %ctx, i64 {CTX['abort']}",
          "  %abp = load ptr, ptr %abp.p",
          f"  %nextp.p = getelementptr i64, ptr %ctx, i64 {CTX['next_group']}",
          "  %nextp = load ptr, ptr %nextp.p",
          "  %tab = inttoptr i64 %t.table to ptr",
          f"  %steps = getelementptr i64, ptr %ctx, i64 {CTX['steps']}",
          "  %faultp = getelementptr i64, ptr %ctx, i64 0",
          *one_dim_lines("%t.ngrp1", "%t.ngrp2")] + group_head_lines("group.ids") + group_id_lines("group.ids", [
          # Cache-aware order: work-groups in bands of BAND groups along dimension 0, each
          # band walked row by row (a GEMM's B strips of a band stay in cache while all of
          # A passes once per band). Work-groups are independent (OpenCL C 3.0 3.2.2), and a
          # fault re-runs the launch in the usual order.
          "  %gxy = mul i64 %t.ngrp0, %t.ngrp1",
          "  %gz.n = udiv i64 %g, %gxy",
          "  %gr = urem i64 %g, %gxy",
          f"  %bsize = mul i64 %t.ngrp1, {BAND}",
          "  %band = udiv i64 %gr, %bsize",
          "  %brem = urem i64 %gr, %bsize",
          f"  %bx0 = mul i64 %band, {BAND}",
          "  %bleft = sub i64 %t.ngrp0, %bx0",
          f"  %bshort = icmp ult i64 %bleft, {BAND}",
          f"  %bw = select i1 %bshort, i64 %bleft, i64 {BAND}",
          "  %gy.n = udiv i64 %brem, %bw",
          "  %gxo = urem i64 %brem, %bw",
          "  %gx.n = add i64 %bx0, %gxo"]) + [
          "  br label %gl",
          "gl:",
          "  %gj = phi i64 [ 0, %group.ids.done ], [ %gj.next, %gl.body ]",
          f"  %gj.more = icmp ult i64 %gj, {contexts}",
          "  br i1 %gj.more, label %gl.body, label %gz.pre",
          "gl.body:",
          f"  %gj.off = mul i64 %gj, {slot}",
          "  %gj.c = getelementptr i8, ptr %ctx, i64 %gj.off"]
    for field, v in (("grp0", "%gx"), ("grp1", "%gy"), ("grp2", "%gz")):
        L += [f"  %gj.{field} = getelementptr i64, ptr %gj.c, i64 {CTX[field]}", f"  store i64 {v}, ptr %gj.{field}"]
    L += ["  %gj.next = add i64 %gj, 1",
          "  br label %gl",
          "gz.pre:"] + zero_local_lines("%tab", plan.local_rows, "gz") + [
          "  br label %sg",
          "sg:",
          "  %s = phi i64 [ 0, %gz.zdone ], [ %s.next, %sg.ok ]",
          # Lane j: local ids of lane 0 plus j in dimension 0 (the launch condition: the
          # subgroup lies in one row, lsize0 a multiple of S). Only lane 0's when no other
          # lane reads them. Counted up: divisions per subgroup cost more than a small body.
          "  %x0 = phi i64 [ 0, %gz.zdone ], [ %x0.next, %sg.ok ]",
          "  %y = phi i64 [ 0, %gz.zdone ], [ %y.next, %sg.ok ]",
          "  %z = phi i64 [ 0, %gz.zdone ], [ %z.next, %sg.ok ]",
          "  %s.more = icmp ult i64 %s, %t.wg_size",
          "  br i1 %s.more, label %lanes.pre, label %group",
          "lanes.pre:",
          "  br label %lanes",
          "lanes:",
          "  %lj = phi i64 [ 0, %lanes.pre ], [ %lj.next, %lanes.body ]",
          f"  %lj.more = icmp ult i64 %lj, {contexts}",
          "  br i1 %lj.more, label %lanes.body, label %sg.call",
          "lanes.body:",
          "  %l = add i64 %s, %lj",
          "  %x = add i64 %x0, %lj",
          f"  %lj.off = mul i64 %lj, {slot}",
          "  %lj.c = getelementptr i8, ptr %ctx, i64 %lj.off"]
    for field, v in (("llid", "%l"), ("lid0", "%x"), ("lid1", "%y"), ("lid2", "%z")):
        L += [f"  %lj.{field} = getelementptr i64, ptr %lj.c, i64 {CTX[field]}", f"  store i64 {v}, ptr %lj.{field}"]
    L += ["  %lj.next = add i64 %lj, 1",
          "  br label %lanes",
          "sg.call:",
          "  store i64 0, ptr %steps",
          f"  call void {gquote(function_name(plan.name))}({', '.join(['ptr %ctx'] + call_args)})",
          "  %fv = load i64, ptr %faultp",
          "  %faulted = icmp ne i64 %fv, 0",
          "  br i1 %faulted, label %fault, label %sg.ok",
          "sg.ok:",
          f"  %s.next = add i64 %s, {S}",
          f"  %x1 = add i64 %x0, {S}",
          "  %xwrap = icmp eq i64 %x1, %t.lsize0",
          "  %x0.next = select i1 %xwrap, i64 0, i64 %x1",
          "  %y1 = add i64 %y, 1",
          "  %yinc = select i1 %xwrap, i64 %y1, i64 %y",
          "  %ywrap = icmp eq i64 %yinc, %t.lsize1",
          "  %y.next = select i1 %ywrap, i64 0, i64 %yinc",
          "  %z1 = add i64 %z, 1",
          "  %z.next = select i1 %ywrap, i64 %z1, i64 %z",
          "  br label %sg",
          "fault:",
          "  store i64 1, ptr %fout",
          "  store atomic i64 1, ptr %abp monotonic, align 8",
          "  ret void",
          "done:",
          "  ret void",
          "}"]
    return "\n".join(L)
