"""Which values of a kernel differ between the lanes of a subgroup, on the subgroup-wide
fast path (subgroup.py; docs/native.md, "The subgroup-wide fast path").

A value's lane kind, under the launch conditions of the fast path (local size 0 and global
offset 0 multiples of S, S a power of two, so a subgroup's lanes share every id but the
lowest bits of dimension 0):
- 'S' the subgroup size, 'u' uniform (kernel arguments, constants, uniform work-item
  queries, matrices);
- 'al' a multiple of S plus the lane (get_global_id(0) and the like);
- 'ao' lane 0's value plus the lane, though lane 0's is no multiple of S;
- 'pal:<bytes>' a pointer, lane j's = lane 0's + j * bytes;
- 'v' anything else that depends on the lane (computed once per lane).
The kinds are a fixpoint over the blocks (phis see their operands' kinds once known). A
value in `forced` is 'v' whatever its operands (the joins' phis of lane-varying branches,
masking.py and regions.py). Plain data in, a dict out: nothing here emits IR.
"""
import re

from clcoop.ir.demangle import demangle
from clcoop.ir.loader import value_kind
from clcoop.native import coop_routines
from clcoop.native.collectives import collective_of, lane_kind as collective_lane_kind
from clcoop.native.support import WORKITEM_FUNCTIONS
from clcoop.native.text_rewrite import clean_ir

# Work-item queries with one value per subgroup when the work-group size is a multiple of
# the subgroup size (the fast path is only launched then).
UNIFORM_QUERIES = {"get_group_id", "get_global_size", "get_local_size", "get_enqueued_local_size",
                   "get_num_groups", "get_global_offset", "get_work_dim", "get_sub_group_size",
                   "get_max_sub_group_size", "get_num_sub_groups", "get_enqueued_num_sub_groups",
                   "get_sub_group_id"}
UNIFORM_KINDS = ("u", "S")


def operand_varying(o, varying):
    """Whether operand o is a value of the set `varying` (names of per-lane values)."""
    return value_kind(o) == "instruction" and o.name in varying


def varying_names(kinds):
    """Names of the values computed per lane (every kind but 'u' and 'S')."""
    return {name for name, kind in kinds.items() if kind not in UNIFORM_KINDS}


class LaneKinds:
    """The lane kinds of a function's values for S lanes. scalar_size(type text): the store
    size in bytes of an int or float scalar type, None for any other (a pointer's 'pal'
    kind needs its element's size); forced: names of values that are 'v' whatever their
    operands."""

    def __init__(self, lanes, scalar_size, forced=frozenset()):
        self.S = lanes
        self.scalar_size = scalar_size
        self.forced = forced
        # The lane rules of kind() hold for subgroups within one row of dimension 0; the
        # runtime takes the fast path only then (runtime.subgroups_in_rows).
        self.aligned_lanes = lanes & (lanes - 1) == 0

    def of(self, blocks):
        """{value name: lane kind} of every named instruction of blocks, at the fixpoint."""
        kinds = {}
        changed = True
        while changed:
            changed = False
            for b in blocks:
                for ins in b.instructions:
                    if not ins.name:
                        continue
                    new = join(kinds.get(ins.name), self.kind(ins, kinds))
                    if new != kinds.get(ins.name):
                        kinds[ins.name] = new
                        changed = True
        return kinds

    def operand_kind(self, o, kinds):
        if value_kind(o) == "instruction":
            return kinds.get(o.name)
        if o.is_constant and re.fullmatch(r"i\d+ " + str(self.S), str(o).strip()):
            return "S"
        return "u"

    def kind(self, ins, kinds):
        """The lane kind of ins given those known (kinds); None: not known yet (operands
        not visited)."""
        ops = list(ins.operands)
        op = ins.opcode
        if ins.name in self.forced:
            return "v"
        if op == "call":
            decided, found = self._call_kind(ins, ops, kinds)
            if decided:
                return found
            ops = ops[:-1]
        kinds_in = [self.operand_kind(o, kinds) for o in ops]
        known = [k for k in kinds_in if k is not None]
        if op in ("zext", "sext", "trunc"):
            return self._cast_kind(ins, op, known)
        if op == "getelementptr":
            return self._pointer_kind(ins, kinds_in)
        if op == "udiv" and kinds_in == ["al", "S"]:
            return "u"
        if op == "lshr" and kinds_in[0] == "al" and re.fullmatch(rf"i\d+ {self.S.bit_length() - 1}", str(ops[1]).strip()):
            return "u"
        if op in ("add", "sub") and _lane_offset(ins, op, kinds_in):
            return "ao"
        if op == "and" and kinds_in[0] == "al" and self._low_bits_set(ops[1]):
            # (multiple of S + lane) & m, m's low bits all ones: (multiple of S) & m + lane
            # (clang's -O2 index of a[i - 1] is `and i64 gid, 2147483647`).
            return "al"
        if op == "phi":
            return join_all(known)
        if op == "select" and kinds_in[0] in UNIFORM_KINDS:
            return join_all(known[1:])
        if any(k not in UNIFORM_KINDS for k in known):
            return "v"
        return "u" if known or not ops else None

    def _call_kind(self, ins, ops, kinds):
        """(True, kind) for a call its callee decides (a matrix operation, a work-item
        query, a collective; kind None: not known yet), (False, None) for an ordinary call
        (its operands decide)."""
        name = ops[-1].name
        if coop_routines.callee_of(name) is not None:
            return True, "u"       # matrices are uniform; their operands are checked
        base = demangle(name)[0]
        if base in ("get_sub_group_size", "get_max_sub_group_size"):
            return True, "S"
        if base in UNIFORM_QUERIES:
            return True, "u"
        if base in ("get_global_id", "get_local_id"):
            dim = str(ops[0]).strip() if ops[0].is_constant else ""
            if dim.endswith(" 0"):
                return True, "al" if self.aligned_lanes else "v"
            return True, "u" if re.fullmatch(r"i\d+ [12]", dim) else "v"
        if base in ("get_sub_group_local_id", "get_local_linear_id"):
            return True, "al" if self.aligned_lanes else "v"
        if base in WORKITEM_FUNCTIONS:
            return True, "v"
        found = collective_of(base)
        if found is not None:
            return True, collective_lane_kind(found[0], [self.operand_kind(o, kinds) for o in ops[:-1]], found[1])
        return False, None

    def _cast_kind(self, ins, op, known):
        bits = re.fullmatch(r"i(\d+)", str(ins.type))
        if known == ["al"]:
            return "al" if bits and (1 << int(bits.group(1)) - 1) >= self.S else "v"
        if known == ["ao"]:
            # x_j = x_0 + j without wrapping (_lane_offset): sext keeps it, and zext when
            # no lane is negative (nneg); a trunc may wrap.
            text = clean_ir(str(ins))
            return "ao" if op == "sext" or op == "zext" and " nneg " in text else "v"
        return known[0] if known else None

    def _low_bits_set(self, o):
        """Whether the constant o has its log2(S) low bits all set."""
        m = re.fullmatch(r"i\d+ (-?\d+)", str(o).strip()) if o.is_constant else None
        return m is not None and int(m.group(1)) & (self.S - 1) == self.S - 1

    def _pointer_kind(self, ins, kinds_in):
        """'pal:<bytes>' for lane j's pointer = lane 0's + j * bytes: a uniform base indexed
        by 'al' (one index, a scalar element), or such a pointer offset uniformly."""
        if None in kinds_in:
            return None
        if all(k in UNIFORM_KINDS for k in kinds_in):
            return "u"
        rest = kinds_in[1:]
        if kinds_in[0].startswith("pal") and all(k in UNIFORM_KINDS for k in rest):
            return kinds_in[0]
        if kinds_in[0] in UNIFORM_KINDS and rest in (["al"], ["ao"]):
            m = re.search(r"getelementptr (?:(?:inbounds|nuw|nusw) )*(.+?), ptr", clean_ir(str(ins)))
            size = self.scalar_size(m.group(1)) if m else None
            if size is not None:
                return f"pal:{size}"
        return "v"


def _lane_offset(ins, op, kinds_in):
    """Whether ins is (lane 0's value + j) plus or minus a uniform value, without wrapping
    (nsw or nuw: a wrapped lane would be poison): kind 'ao', lane j's value lane 0's plus j,
    though lane 0's is no multiple of S."""
    lane = ("al", "ao")
    if len(kinds_in) != 2 or not re.match(r"\s*%\S+ = (?:add|sub)(?: nuw| nsw)+ ", clean_ir(str(ins))):
        return False
    a, b = kinds_in
    return a in lane and b in UNIFORM_KINDS or op == "add" and a in UNIFORM_KINDS and b in lane


def join(a, b):
    """Join of two lane kinds (None: unknown yet)."""
    if a is None or b is None:
        return a or b
    if a == b:
        return a
    if a in UNIFORM_KINDS and b in UNIFORM_KINDS:
        return "u"
    if {a, b} == {"al", "ao"}:
        return "ao"          # both: lane j's value is lane 0's plus j
    return "v"


def join_all(kinds):
    out = None
    for k in kinds:
        out = join(out, k)
    return out
