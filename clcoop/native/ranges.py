"""A launch-time proof that a native launch cannot fault (docs/native.md, "In-place launches").

A launch proven fault-free runs on the caller's arrays: no private copies, nothing to copy
back (native/engine.py). The proof has two parts.

Once per kernel (KernelRanges), its LLVM function is read. Refused, with a reason: loops
(a back edge), calls other than work-item queries and math built-ins, divisions by
anything but a constant that cannot fault, allocas, atomics, memory intrinsics,
'unreachable', global variables, __local memory, and any access whose address is not a
kernel buffer parameter plus an integer expression the proof models (functions of the
work-item ids, the scalar arguments, the ND-range's sizes and constants).

At each launch (KernelRanges.proves), with the sizes and scalar arguments known: the ids
range over a box (global, local and group id per dimension: a superset of the ids that
occur). Blocks are visited in topological order; a conditional branch narrows the box of
its successors where the condition compares an expression monotone in one id with a
uniform value (the ids satisfying it are an interval, found by bisection); a block no id
reaches has nothing to check. Expressions are bounded by interval arithmetic on exact
Python integers, with their monotonicity per id and their residue (for alignment). Every
expression must lie in the window of its type wherever its value is interpreted (sext,
zext, signed/unsigned compares, nsw/nuw, GEP indices): then no wrap, poison or
interpretation difference happens in between. Each load and store must then lie inside
its buffer, aligned to its element, and a store's buffer must be writable.
"""
import math
import re

from clcoop.ir import cfg
from clcoop.ir.demangle import demangle
from clcoop.ir.loader import value_kind, parse_type_text
from clcoop.native import local_memory
from clcoop.native.builtin_ir import elem_size, store_size
from clcoop.ir.text import split_top_level
from clcoop.native.text_rewrite import clean_ir, value_id
from clcoop.native.support import WORKITEM_FUNCTIONS


class Refused(Exception):
    """The kernel is never proven: why."""


class NotProven(Exception):
    """This launch is not proven: why."""


class _Unknown(Exception):
    """A value the proof does not model (data): no information about it."""


# The id variables of the box: (kind, dimension) for the global, local and group ids.
ID_KINDS = {"get_global_id": 0, "get_local_id": 1, "get_group_id": 2}
VARS = 9
UNIFORM_QUERIES = ("get_global_size", "get_local_size", "get_enqueued_local_size", "get_num_groups",
                   "get_global_offset", "get_work_dim")
# Intrinsics and built-ins that compute a value and cannot fault (the interpreter faults
# only on memory, division by zero, barriers and collectives, atomics, printf, matrices).
SAFE_INTRINSICS = ("llvm.fmuladd.", "llvm.fma.", "llvm.fabs.", "llvm.sqrt.", "llvm.minnum.", "llvm.maxnum.",
                   "llvm.minimum.", "llvm.maximum.", "llvm.copysign.", "llvm.floor.", "llvm.ceil.",
                   "llvm.trunc.", "llvm.rint.", "llvm.nearbyint.", "llvm.round.", "llvm.roundeven.",
                   "llvm.exp.", "llvm.exp2.", "llvm.log.", "llvm.log2.", "llvm.log10.", "llvm.sin.",
                   "llvm.cos.", "llvm.pow.", "llvm.powi.", "llvm.smin.", "llvm.smax.", "llvm.umin.",
                   "llvm.umax.", "llvm.abs.", "llvm.ctpop.", "llvm.ctlz.", "llvm.cttz.", "llvm.bswap.",
                   "llvm.bitreverse.", "llvm.fshl.", "llvm.fshr.", "llvm.experimental.noalias.scope.decl",
                   "llvm.dbg.")
SAFE_BUILTINS = set("""
acos acosh acospi asin asinh asinpi atan atan2 atanh atanpi atan2pi cbrt ceil copysign cos cosh
cospi erfc erf exp exp2 exp10 expm1 fabs fdim floor fma fmax fmin fmod hypot ilogb ldexp lgamma
log log2 log10 log1p logb mad maxmag minmag nan nextafter pow pown powr remainder rint rootn round
rsqrt sin sinh sinpi sqrt tan tanh tanpi tgamma trunc abs abs_diff add_sat hadd rhadd clamp clz ctz
mad_hi mad_sat max min mul_hi rotate sub_sat upsample popcount mad24 mul24 degrees radians mix step
smoothstep sign cross dot distance length normalize fast_distance fast_length fast_normalize isequal
isnotequal isgreater isgreaterequal isless islessequal islessgreater isfinite isinf isnan isnormal
isordered isunordered signbit any all bitselect select""".split())
_SAFE_PREFIXES = ("native_", "half_", "convert_", "as_")
_PLAIN_OPS = {"fadd", "fsub", "fmul", "fdiv", "frem", "fneg", "add", "sub", "mul", "shl", "lshr", "ashr",
              "and", "or", "xor", "icmp", "fcmp", "select", "phi", "trunc", "zext", "sext", "fptrunc",
              "fpext", "fptoui", "fptosi", "uitofp", "sitofp", "bitcast", "freeze", "getelementptr",
              "extractvalue", "insertvalue", "shufflevector", "br", "switch", "ret", "load", "store",
              "call", "sdiv", "udiv", "srem", "urem", "extractelement", "insertelement"}
_SIGNED = {"sgt", "sge", "slt", "sle"}
_SWAP = {"sgt": "slt", "sge": "sle", "slt": "sgt", "sle": "sge", "ugt": "ult", "uge": "ule", "ult": "ugt",
         "ule": "uge", "eq": "eq", "ne": "ne"}
_NOT = {"sgt": "sle", "sge": "slt", "slt": "sge", "sle": "sgt", "ugt": "ule", "uge": "ult", "ult": "uge",
        "ule": "ugt", "eq": "ne", "ne": "eq"}
_CMP = {"sgt": lambda a, b: a > b, "ugt": lambda a, b: a > b, "sge": lambda a, b: a >= b,
        "uge": lambda a, b: a >= b, "slt": lambda a, b: a < b, "ult": lambda a, b: a < b,
        "sle": lambda a, b: a <= b, "ule": lambda a, b: a <= b, "eq": lambda a, b: a == b,
        "ne": lambda a, b: a != b}
_OPAQUE = ("opaque",)
_LABEL = r'%("[^"]*"|[-\w.$]+)'


def _int_bits(ty):
    m = re.fullmatch(r"i(\d+)", str(ty).strip())
    return int(m.group(1)) if m else None


def _flags(text):
    return set(re.findall(r"\b(nsw|nuw|exact|disjoint|nneg|inbounds|nusw)\b", text.split("=", 1)[-1]))


# ============================================================================ the kernel

class Block:
    def __init__(self, name):
        self.name = name
        self.accesses = []       # [(pointer node, size, element size, write, text)]
        self.term = ("ret",)     # ("br", cond node, true, false) | ("goto", [names]) | ("ret",)
        self.preds = []


class KernelRanges:
    """The static part of the proof for one kernel; `reason` is None when launches may be
    proven (proves), else why they never are."""

    def __init__(self, fn, info, layout, structs, defined):
        self.info = info
        self.defined = defined   # names of the module's defined functions
        self.layout = layout
        self.structs = structs
        self.nodes = {}
        self.blocks = []
        self.instructions = 0
        self.decisions = {}      # launch key -> True / NotProven reason (proves)
        try:
            self._read(fn)
            self.reason = None
        except Refused as exc:
            self.reason = str(exc)
        except RecursionError:
            self.reason = "an expression too deep to analyse"
        except Exception as exc:     # IR this reader does not know: never proven
            self.reason = f"internal: {type(exc).__name__}: {exc}"

    # ------------------------------------------------------------ static part
    def _read(self, fn):
        if self.info.byval:
            raise Refused("a struct argument passed by value")
        self.args = {}
        for i, (arg, (_, ptype)) in enumerate(zip(fn.arguments, self.info.params)):
            if ptype.kind == "ptr" and ptype.addrspace not in (1, 2):
                raise Refused(f"a pointer parameter in address space {ptype.addrspace} (only __global "
                              f"and __constant buffers are modeled)")
            self.args[value_id(arg)] = i
        blocks = {b.name: b for b in fn.blocks}
        # Operands are references: their instructions (and blocks) by identity.
        self.defs = {value_id(ins): (ins, b.name) for b in fn.blocks for ins in b.instructions}
        order = _topological(fn)
        for name in order:
            block = Block(name)
            self.blocks.append(block)
            for ins in blocks[name].instructions:
                self.instructions += 1
                self._instruction(block, ins)
        preds = cfg.predecessors({b.name: _successors(b.term) for b in self.blocks})
        for b in self.blocks:
            b.preds = preds[b.name]

    def _instruction(self, block, ins):
        op = ins.opcode
        text = clean_ir(str(ins))
        if op not in _PLAIN_OPS:
            raise Refused(f"'{op}' ({text})")
        for o in ins.operands:
            if value_kind(o) in ("global_variable", "global_alias"):
                raise Refused(f"a global variable ({text})")
        if op in ("sdiv", "udiv", "srem", "urem"):
            divisor = _constant(list(ins.operands)[1])
            if divisor is None or divisor == 0 or (op[0] == "s" and divisor == -1):
                raise Refused(f"a division that may fault ({text})")
        elif op in ("extractelement", "insertelement"):
            if not list(ins.operands)[-1].is_constant:
                raise Refused(f"a vector element at a variable index ({text})")
        elif op == "call":
            self._call(ins, text)
        elif op in ("load", "store"):
            self._access(block, ins, op, text)
        elif op == "br":
            self._branch(block, ins, text)
        elif op == "switch":
            block.term = ("goto", [_unquote(n) for n in re.findall(r"label " + _LABEL, text)])
        elif op == "ret":
            block.term = ("ret",)
        elif op == "bitcast" and str(ins.type).startswith("ptr"):
            raise Refused(f"a pointer cast ({text})")

    def _call(self, ins, text):
        callee = list(ins.operands)[-1]
        name = callee.name
        if value_kind(callee) != "function":
            raise Refused(f"an indirect call ({text})")
        if name in self.defined:
            raise Refused(f"a call of the defined function @{name}")
        if local_memory.global_of(name) is not None:     # a __local variable (local_memory.py)
            raise Refused(f"__local memory (@{local_memory.global_of(name)})")
        if any(str(o.type).startswith("ptr") for o in list(ins.operands)[:-1]):
            raise Refused(f"a call with a pointer argument ({text})")
        if name.startswith("llvm."):
            if not name.startswith(SAFE_INTRINSICS):
                raise Refused(f"the intrinsic @{name}")
            return
        base = demangle(name)[0]
        if base in WORKITEM_FUNCTIONS or base in SAFE_BUILTINS or base.startswith(_SAFE_PREFIXES):
            return
        raise Refused(f"a call of '{base}'")

    def _access(self, block, ins, op, text):
        ops = list(ins.operands)
        if " atomic " in text:
            raise Refused(f"an atomic access ({text})")
        ptr = ops[0] if op == "load" else ops[1]
        ty = ins.type if op == "load" else ops[0].type
        scalar = r"i\d+|half|bfloat|float|double"
        if not re.fullmatch(rf"{scalar}|<\d+ x (?:{scalar})>", str(ty).strip()):
            raise Refused(f"an access of type {ty} ({text})")
        t = parse_type_text(str(ty), self.structs)
        node = self.node(ptr)
        why = _opaque_in(node)
        if why is not None:
            raise Refused(f"an address the proof does not model ({text}: {why})")
        block.accesses.append((node, store_size(t, self.layout), elem_size(t, self.layout), op == "store", text))

    def _branch(self, block, ins, text):
        m = re.fullmatch(r"br i1 (.+?), label " + _LABEL + ", label " + _LABEL, text)
        if m:
            block.term = ("br", self.node(list(ins.operands)[0]), _unquote(m.group(2)), _unquote(m.group(3)))
        else:
            block.term = ("goto", [_unquote(n) for n in re.findall(r"label " + _LABEL, text)])

    def node(self, v):
        key = value_id(v)
        node = self.nodes.get(key)
        if node is None:
            node = self._make(v)
            self.nodes[key] = node
        return node

    def _make(self, v):
        kind = value_kind(v)
        bits = _int_bits(v.type)
        if kind == "argument":
            i = self.args[value_id(v)]
            if self.info.params[i][1].kind == "ptr":
                return ("param", i)
            return ("arg", bits, i) if bits else _OPAQUE
        if v.is_constant:
            c = _constant(v)
            return ("const", bits, c) if c is not None else ("opaque", f"the constant {str(v).strip()}")
        if kind != "instruction" or value_id(v) not in self.defs:
            return ("opaque", f"a {kind}")
        v, block = self.defs[value_id(v)]
        op = v.opcode
        ops = list(v.operands)
        text = clean_ir(str(v))
        if op == "getelementptr":
            return self._gep(v, ops, text)
        if op == "freeze":
            return self.node(ops[0])
        if bits is None:
            return ("opaque", f"'{op}' of type {v.type}")
        if op == "call":
            return self._query(ops, bits)
        if bits == 1:
            return self._bool(op, ops, text)
        if op in ("add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor", "sdiv", "udiv", "srem",
                  "urem"):
            return ("bin", bits, op, self.node(ops[0]), self.node(ops[1]), frozenset(_flags(text)))
        if op in ("trunc", "zext", "sext"):
            src = _int_bits(ops[0].type)
            if src is None or src == 1:
                return ("opaque", f"'{op}' of {ops[0].type}")
            return ("cast", bits, op, self.node(ops[0]), src, frozenset(_flags(text)))
        if op == "select":
            return ("select", bits, self.node(ops[0]), self.node(ops[1]), self.node(ops[2]))
        if op == "phi":
            preds = [_unquote(n) for n in re.findall(r",\s*" + _LABEL + r"\s*\]", text)]
            return ("phi", bits, block, tuple(zip(preds, (self.node(o) for o in ops))))
        return ("opaque", f"'{op}'")

    def _query(self, ops, bits):
        name = ops[-1].name
        base = demangle(name)[0] if not name.startswith("llvm.") else name
        for minmax in ("smin", "smax", "umin", "umax"):
            if base.startswith(f"llvm.{minmax}.i"):
                return ("bin", bits, minmax, self.node(ops[0]), self.node(ops[1]), frozenset())
        if base in ("min", "max") and len(ops) == 3:
            params = demangle(name)[1] or []
            if len(params) == 2 and all(t[0] == "int" for t in params):
                sign = "s" if params[0][2] else "u"
                return ("bin", bits, sign + base, self.node(ops[0]), self.node(ops[1]), frozenset())
        if base == "get_work_dim":
            return ("query", bits, base, 0)
        dim = _constant(ops[0]) if len(ops) == 2 else None
        if dim is None or not 0 <= dim < 3:
            return ("opaque", f"a call of '{base}'")
        if base in ID_KINDS:
            return ("id", bits, ID_KINDS[base] * 3 + dim)
        if base in UNIFORM_QUERIES:
            return ("query", bits, base, dim)
        return ("opaque", f"a call of '{base}'")

    def _bool(self, op, ops, text):
        if op == "icmp":
            m = re.search(r"icmp (samesign )?(\w+) ", text)
            if _int_bits(ops[0].type) in (None, 1):
                return ("opaque", f"a comparison of {ops[0].type}")
            return ("icmp", m.group(2), self.node(ops[0]), self.node(ops[1]), bool(m.group(1)))
        if op in ("and", "or"):
            return (op + "1", self.node(ops[0]), self.node(ops[1]), True)
        if op == "xor" and _constant(ops[1]) == -1:
            return ("not1", self.node(ops[0]))
        if op == "select":
            a, b = _constant(ops[1]), _constant(ops[2])
            if b == 0:      # c ? x : false, the logical and of -O2
                return ("and1", self.node(ops[0]), self.node(ops[1]), False)
            if a == -1:     # c ? true : x
                return ("or1", self.node(ops[0]), self.node(ops[2]), False)
        return ("opaque", f"a condition '{op}'")

    def _gep(self, v, ops, text):
        parts = split_top_level(re.sub(r"^.*?getelementptr\s+", "", text))
        words = parts[0].split()
        flags = {w for w in words if w in ("inbounds", "nuw", "nusw")}
        src = " ".join(w for w in words if w not in ("inbounds", "nuw", "nusw"))
        if str(v.type).startswith("<") or re.match(r"inrange", src):
            return ("opaque", "a vector or inrange getelementptr")
        t = parse_type_text(src, self.structs)
        terms, const = [], 0
        for k, idx in enumerate(ops[1:]):
            c = _constant(idx)
            if k == 0:
                scale = self.layout.size(t)
            elif t.kind == "struct":
                if c is None:
                    return ("opaque", "a struct field at a variable index")
                offsets, _ = self.layout.struct_layout(t)
                const += offsets[c]
                t = t.fields[c]
                continue
            elif t.kind in ("array", "vec"):
                t = t.elem
                scale = self.layout.size(t)
            else:
                return ("opaque", f"a getelementptr into {t}")
            ibits = _int_bits(idx.type)
            if ibits is None:
                return ("opaque", "a vector getelementptr index")
            terms.append((self.node(idx), scale, ibits))
        return ("gep", self.node(ops[0]), tuple(terms), const, frozenset(flags))

    # ------------------------------------------------------------ launch part
    def proves(self, nd, scalars, buffers, instruction_limit):
        """True when no work-item of the launch can fault, else the reason (a string).
        scalars: {param: int} of the integer scalar arguments; buffers: {param: (nbytes,
        writable)} of the buffer arguments."""
        if self.reason is not None:
            return self.reason
        key = (nd.global_size, nd.local_size, nd.offset, nd.dims, tuple(sorted(scalars.items())),
               tuple(sorted(buffers.items())), instruction_limit)
        decision = self.decisions.get(key)
        if decision is None:
            try:
                decision = self._prove(nd, scalars, buffers, instruction_limit)
            except NotProven as exc:
                decision = str(exc)
            except RecursionError:
                decision = "an expression too deep to analyse"
            except Exception as exc:     # a case this proof does not know: not proven
                decision = f"internal: {type(exc).__name__}: {exc}"
            if len(self.decisions) > 256:
                self.decisions.clear()
            self.decisions[key] = decision
        return decision

    def _prove(self, nd, scalars, buffers, instruction_limit):
        # A loop-free function runs each of its instructions at most once per work-item.
        if self.instructions > instruction_limit:
            raise NotProven(f"{self.instructions} instructions may exceed the instruction limit")
        ev = _Evaluator(nd, scalars)
        box = ev.full_box()
        boxes = {self.blocks[0].name: box}
        for block in self.blocks:
            box = _hull_all([ev.edges.get((p, block.name)) for p in block.preds]) if block.preds \
                else boxes[block.name]
            if box is None:
                continue            # no work-item reaches the block
            for node, size, elem, write, text in block.accesses:
                ev.check_access(node, size, elem, write, text, box, buffers)
            term = block.term
            if term[0] == "br" and term[2] == term[3]:
                ev.edges[(block.name, term[2])] = box
            elif term[0] == "br":
                ev.edges[(block.name, term[2])] = ev.narrow(term[1], True, box)
                ev.edges[(block.name, term[3])] = ev.narrow(term[1], False, box)
            elif term[0] == "goto":
                for succ in term[1]:
                    ev.edges[(block.name, succ)] = box
        return True


def _topological(fn):
    """Block names in topological order of the CFG reachable from the entry; Refused at
    a back edge (a loop)."""
    order, back = cfg.topological_order(cfg.block_graph(fn.blocks))
    if back is not None:
        raise Refused(f"a loop (the branch from %{back[0]} back to %{back[1]})")
    return order


def _successors(term):
    if term[0] == "br":
        return [term[2], term[3]]
    if term[0] == "goto":
        return term[1]
    return []


def _unquote(name):
    return name[1:-1] if name.startswith('"') else name


def _constant(v):
    """The integer value of a constant operand (i1 true is -1), else None."""
    if not v.is_constant:
        return None
    text = str(v).strip()
    m = re.fullmatch(r"i\d+ (-?\d+)", text)
    if m:
        return int(m.group(1))
    return {"i1 true": -1, "i1 false": 0}.get(text)


def _opaque_in(node, seen=None):
    """Why an address expression is not modeled (its first opaque part), else None."""
    seen = set() if seen is None else seen
    if id(node) in seen:
        return None
    seen.add(id(node))
    if node[0] == "opaque":
        return node[1] if len(node) > 1 else "a value the proof does not model"
    for child in _operands(node):
        why = _opaque_in(child, seen)
        if why is not None:
            return why
    return None


def _operands(node):
    """The operand nodes an address's value depends on (a select's condition only picks
    between its values: not needed)."""
    tag = node[0]
    if tag == "bin":
        return node[3:5]
    if tag == "cast":
        return (node[3],)
    if tag == "select":
        return node[3:5]
    if tag == "phi":
        return tuple(v for _, v in node[3])
    if tag == "gep":
        return (node[1],) + tuple(t[0] for t in node[2])
    return ()


# ============================================================================ ranges

class Range:
    """A value's bounds over a box (exact Python ints), its direction per id variable (0
    constant, 1 non-decreasing, -1 non-increasing, 2 unknown) and residue: every value is
    res modulo mod (mod 0: exactly res)."""
    __slots__ = ("lo", "hi", "dirs", "mod", "res")

    def __init__(self, lo, hi, dirs, mod, res):
        self.lo, self.hi, self.dirs, self.mod, self.res = lo, hi, dirs, mod, res

    @property
    def exact(self):
        return self.lo == self.hi


_ZERO = (0,) * VARS
_UNKNOWN = (2,) * VARS


def _point(v):
    return Range(v, v, _ZERO, 0, v)


def _join_dirs(a, b):
    return tuple(x if y == 0 else y if x == 0 else x if x == y else 2 for x, y in zip(a, b))


def _scale_dirs(a, k):
    return _ZERO if k == 0 else a if k > 0 else tuple(-x if x != 2 else 2 for x in a)


def _varying(dirs):
    return tuple(0 if x == 0 else 2 for x in dirs)


def _residue(m, r):
    return (m, r % m) if m else (0, r)


def _window(bits, signed):
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def _fits(r, bits, signed):
    lo, hi = _window(bits, signed)
    return lo <= r.lo and r.hi <= hi


def _need(r, bits, signed, what):
    if not _fits(r, bits, signed):
        raise NotProven(f"{what}: a value in [{r.lo}, {r.hi}] does not fit i{bits} as "
                        f"{'signed' if signed else 'unsigned'}")


def _tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


class _Evaluator:
    """Bounds of the kernel's expressions over boxes of ids, for one launch."""

    def __init__(self, nd, scalars):
        self.nd = nd
        self.scalars = scalars
        self.edges = {}          # (block, successor) -> box of the ids taking the edge
        self.memo = {}

    def full_box(self):
        nd = self.nd
        box = [None] * VARS
        for d in range(3):
            box[d] = (nd.offset[d], nd.offset[d] + nd.global_size[d] - 1)
            box[3 + d] = (0, nd.local_size[d] - 1)
            box[6 + d] = (0, nd.num_groups[d] - 1)
        return tuple(box)

    # ------------------------------------------------------------ accesses
    def check_access(self, node, size, elem, write, text, box, buffers):
        try:
            param, off = self.pointer(node, box, buffers)
        except (_Unknown, NotProven) as exc:
            raise NotProven(f"{text}: {exc}") from None
        nbytes, writable = buffers[param]
        if off.lo < 0 or off.hi + size > nbytes:
            raise NotProven(f"{text}: bytes [{off.lo}, {off.hi + size}) of a buffer of {nbytes}")
        if elem > 1 and (off.mod % elem or off.res % elem):
            raise NotProven(f"{text}: may be misaligned")
        if write and not writable:
            raise NotProven(f"{text}: a store to a read-only buffer")

    def pointer(self, node, box, buffers):
        if node[0] == "param":
            if node[1] not in buffers:
                raise _Unknown("not a buffer argument")
            return node[1], _point(0)
        if node[0] != "gep":
            raise _Unknown("an address the proof does not model")
        _, base, terms, const, flags = node
        param, off = self.pointer(base, box, buffers)
        lo, hi, dirs, mod, res = off.lo + const, off.hi + const, off.dirs, off.mod, off.res + const
        for idx_node, scale, ibits in terms:
            idx = self.value(idx_node, box)
            _need(idx, ibits, True, "a getelementptr index")
            if "nuw" in flags and idx.lo < 0:
                raise NotProven("a negative index of a getelementptr nuw")
            a, b = idx.lo * scale, idx.hi * scale
            lo, hi = lo + min(a, b), hi + max(a, b)
            dirs = _join_dirs(dirs, _scale_dirs(idx.dirs, scale))
            mod = math.gcd(mod, idx.mod * scale)
            res += idx.res * scale
        out = Range(lo, hi, dirs, *_residue(mod, res))
        if flags and (out.lo < 0 or out.hi > buffers[param][0]):
            # inbounds/nuw/nusw: poison outside the buffer (one past its end is inside).
            raise NotProven(f"a getelementptr {' '.join(sorted(flags))} to byte offsets [{out.lo}, {out.hi}] "
                            f"of a buffer of {buffers[param][0]}")
        return param, out

    # ------------------------------------------------------------ integers
    def value(self, node, box):
        key = (id(node), box)
        r = self.memo.get(key)
        if r is None:
            r = self._value(node, box)
            self.memo[key] = r
        return r

    def _value(self, node, box):
        tag = node[0]
        if tag == "const":
            return _point(node[2])
        if tag == "arg":
            if node[2] not in self.scalars:
                raise _Unknown("a scalar argument")
            return _point(self.scalars[node[2]])
        if tag == "query":
            return _point(self._query(node[2], node[3]))
        if tag == "id":
            lo, hi = box[node[2]]
            if lo == hi:
                return _point(lo)
            dirs = tuple(1 if k == node[2] else 0 for k in range(VARS))
            return Range(lo, hi, dirs, 1, 0)
        if tag == "bin":
            return self._binary(node, box)
        if tag == "cast":
            _, bits, op, a, src, flags = node
            r = self.value(a, box)
            if op == "sext":
                _need(r, src, True, "sext")
            elif op == "zext":
                _need(r, src, False, "zext")
                if "nneg" in flags:
                    _need(r, src, True, "zext nneg")
            else:
                # trunc nuw/nsw: poison when the value does not fit the narrower type.
                for flag, signed in (("nuw", False), ("nsw", True)):
                    if flag in flags:
                        _need(r, src, signed, f"trunc {flag}")
                        _need(r, bits, signed, f"trunc {flag}")
            return r
        if tag == "select":
            c = self.truth(node[2], box)
            if c is not None:
                return self.value(node[3] if c else node[4], box)
            a, b = self.value(node[3], box), self.value(node[4], box)
            return Range(min(a.lo, b.lo), max(a.hi, b.hi), _UNKNOWN, *_residue(
                math.gcd(a.mod, b.mod, a.res - b.res), a.res))
        if tag == "phi":
            return self._phi(node, box)
        raise _Unknown(node[1] if len(node) > 1 else "a value the proof does not model")

    def _query(self, name, d):
        nd = self.nd
        return {"get_global_size": nd.global_size[d], "get_local_size": nd.local_size[d],
                "get_enqueued_local_size": nd.local_size[d], "get_num_groups": nd.num_groups[d],
                "get_global_offset": nd.offset[d], "get_work_dim": nd.dims}[name]

    def _phi(self, node, box):
        _, bits, block, incoming = node
        out = None
        for pred, value in incoming:
            # The ids of `box` that took the edge from `pred` into the phi's block.
            sub = _meet(self.edges.get((pred, block)), box)
            if sub is None:
                continue
            r = self.value(value, sub)
            out = r if out is None else Range(min(out.lo, r.lo), max(out.hi, r.hi), _UNKNOWN, *_residue(
                math.gcd(out.mod, r.mod, out.res - r.res), out.res))
        if out is None:
            raise _Unknown("a phi no work-item reaches")
        return out

    def _binary(self, node, box):
        _, bits, op, an, bn, flags = node
        a, b = self.value(an, box), self.value(bn, box)
        if "nsw" in flags:
            _need(a, bits, True, op)
            _need(b, bits, True, op)
        if "nuw" in flags:
            _need(a, bits, False, op)
            _need(b, bits, False, op)
        r = self._arith(op, bits, a, b, flags)
        if "nsw" in flags:
            _need(r, bits, True, f"{op} nsw")
        if "nuw" in flags:
            _need(r, bits, False, f"{op} nuw")
        return r

    def _arith(self, op, bits, a, b, flags):
        if a.exact and b.exact and op in ("and", "or", "xor"):
            v = {"and": a.lo & b.lo, "or": a.lo | b.lo, "xor": a.lo ^ b.lo}[op]
            return _point(v)
        if op == "add":
            return Range(a.lo + b.lo, a.hi + b.hi, _join_dirs(a.dirs, b.dirs),
                         *_residue(math.gcd(a.mod, b.mod), a.res + b.res))
        if op == "sub":
            return Range(a.lo - b.hi, a.hi - b.lo, _join_dirs(a.dirs, _scale_dirs(b.dirs, -1)),
                         *_residue(math.gcd(a.mod, b.mod), a.res - b.res))
        if op == "mul":
            return _mul(a, b)
        if op == "shl":
            if not b.exact or not 0 <= b.lo < bits:
                raise _Unknown("a shift by a variable amount")
            return _mul(a, _point(1 << b.lo))
        if op in ("lshr", "ashr", "sdiv", "udiv"):
            return self._divide(op, bits, a, b, flags)
        if op in ("srem", "urem"):
            return self._remainder(op, bits, a, b)
        if op in ("smin", "smax", "umin", "umax"):
            _need(a, bits, op[0] == "s", op)
            _need(b, bits, op[0] == "s", op)
            pick = min if op.endswith("min") else max
            return Range(pick(a.lo, b.lo), pick(a.hi, b.hi), _join_dirs(a.dirs, b.dirs),
                         *_residue(math.gcd(a.mod, b.mod, a.res - b.res), a.res))
        if op == "and" and b.exact and b.lo >= 0:
            k = b.lo
            if a.lo >= 0 and a.hi <= k and (k + 1) & k == 0:
                return a            # a low-bit mask that keeps every value (clang's index masks)
            return Range(0, min(a.hi, k) if a.lo >= 0 else k, _varying(a.dirs), 1, 0)
        if op == "or" and "disjoint" in flags and b.exact and b.lo >= 0:
            # Disjoint when b's bits lie below a's known alignment: then a | b == a + b.
            align = a.mod if a.mod else 1 << 62
            if b.lo < (align & -align) and a.res % (align & -align) == 0 and a.mod:
                return Range(a.lo + b.lo, a.hi + b.lo, a.dirs, *_residue(a.mod, a.res + b.lo))
        raise _Unknown(f"'{op}' of values that vary")

    def _divide(self, op, bits, a, b, flags):
        if not b.exact:
            raise _Unknown(f"'{op}' by a variable amount")
        k = b.lo
        if op in ("lshr", "ashr"):
            if not 0 <= k < bits:
                raise _Unknown("a shift out of range")
            _need(a, bits, op == "ashr", op)
            lo, hi, dirs = a.lo >> k, a.hi >> k, a.dirs
        else:
            _need(a, bits, op == "sdiv", op)
            if op == "udiv" and k <= 0:
                raise _Unknown("an unsigned division by a large constant")
            lo, hi = sorted((_tdiv(a.lo, k), _tdiv(a.hi, k)))
            dirs = _scale_dirs(a.dirs, k)
        if "exact" in flags:
            step = (1 << k) if op in ("lshr", "ashr") else abs(k)
            if a.mod % step or a.res % step:
                raise NotProven(f"'{op} exact' of a value that may not be a multiple")
            q = _tdiv(a.res, k) if op in ("sdiv", "udiv") else a.res >> k
            return Range(lo, hi, dirs, *_residue(a.mod // step, q))
        return Range(lo, hi, dirs, *((0, lo) if lo == hi else (1, 0)))

    def _remainder(self, op, bits, a, b):
        if op == "urem" and b.lo <= 0:
            raise _Unknown("an unsigned remainder by a large constant")
        k = abs(b.lo)
        _need(a, bits, op == "srem", op)
        if a.exact:
            return _point(a.lo - _tdiv(a.lo, b.lo) * b.lo)
        if a.lo >= 0 and a.hi < k:
            return a
        lo = 0 if a.lo >= 0 else -(k - 1)
        return Range(lo, k - 1, _varying(a.dirs), 1, 0)

    # ------------------------------------------------------------ conditions
    def truth(self, node, box):
        """True/False when the condition has one value over the box, else None."""
        tag = node[0]
        if tag == "const":
            return node[2] != 0
        if tag == "not1":
            t = self.truth(node[1], box)
            return None if t is None else not t
        if tag in ("and1", "or1"):
            a = self.truth(node[1], box)
            if tag == "and1" and a is False or tag == "or1" and a is True:
                return a
            b = self.truth(node[2], box)
            if a is not None and b is not None:
                return b
            if tag == "and1" and b is False or tag == "or1" and b is True:
                return b
            return None
        if tag != "icmp":
            return None
        pred = node[1]
        try:
            a, b = self._compared(node, box)
        except _Unknown:
            return None
        if _CMP[pred](a.lo, b.lo) == _CMP[pred](a.hi, b.hi) and a.exact and b.exact:
            return _CMP[pred](a.lo, b.lo)
        if pred in ("sgt", "ugt") and a.lo > b.hi or pred in ("sge", "uge") and a.lo >= b.hi:
            return True
        if pred in ("slt", "ult") and a.hi < b.lo or pred in ("sle", "ule") and a.hi <= b.lo:
            return True
        if pred in ("sgt", "ugt") and a.hi <= b.lo or pred in ("sge", "uge") and a.hi < b.lo:
            return False
        if pred in ("slt", "ult") and a.lo >= b.hi or pred in ("sle", "ule") and a.lo > b.hi:
            return False
        if pred == "ne" and (a.hi < b.lo or b.hi < a.lo):
            return True
        if pred == "eq" and (a.hi < b.lo or b.hi < a.lo):
            return False
        return None

    def _compared(self, node, box):
        """Both sides of a comparison, in the window its predicate reads them in."""
        pred, an, bn = node[1], node[2], node[3]
        a, b = self.value(an, box), self.value(bn, box)
        bits = an[1] if an[0] not in ("opaque",) else bn[1]
        if pred in _SIGNED:
            signed = True
        elif pred in ("eq", "ne"):
            signed = _fits(a, bits, True) and _fits(b, bits, True)
        else:
            signed = False
        _need(a, bits, signed, "a comparison")
        _need(b, bits, signed, "a comparison")
        if node[4]:
            # samesign: poison unless both have the same sign bit (both kept >= 0 here).
            _need(a, bits, not signed, "icmp samesign")
            _need(b, bits, not signed, "icmp samesign")
        return a, b

    def narrow(self, node, truth, box):
        """The box of the ids of `box` for which the condition is `truth` may hold (None:
        no id)."""
        if box is None:
            return None
        tag = node[0]
        if tag == "const":
            return box if (node[2] != 0) == truth else None
        if tag == "not1":
            return self.narrow(node[1], not truth, box)
        if tag in ("and1", "or1"):
            if node[3]:
                self.truth(node[2], box)    # bitwise: poison of either side reaches the branch
            both = truth if tag == "and1" else not truth
            if both:
                return self.narrow(node[2], truth, self.narrow(node[1], truth, box))
            return _hull(self.narrow(node[1], truth, box), self.narrow(node[2], truth, box))
        if tag != "icmp":
            return box
        pred = node[1] if truth else _NOT[node[1]]
        try:
            a, b = self._compared(node, box)
        except _Unknown:
            return box
        t = self.truth(node, box)
        if t is not None:
            return box if t == truth else None
        an, bn = node[2], node[3]
        if a.exact and not b.exact:
            an, bn, a, b, pred = bn, an, b, a, _SWAP[pred]
        if not b.exact:
            return box
        try:
            if pred in ("eq", "ne"):
                signed = _fits(a, an[1], True) and _fits(b, an[1], True)
                equal = self._interval(an, b.lo, "sge" if signed else "uge", box, a)
                if equal is not None:
                    equal = self._interval(an, b.lo, "sle" if signed else "ule", equal, self.value(an, equal))
                return equal if pred == "eq" else _outside(box, equal)
            return self._interval(an, b.lo, pred, box, a)
        except _Unknown:
            return box

    def _interval(self, an, c, pred, box, a):
        """The box narrowed, in the one id `an` is monotone in, to where `an pred c` holds
        (None: nowhere); _Unknown when `an` is not such a function."""
        moving = [k for k, d in enumerate(a.dirs) if d != 0]
        if len(moving) != 1 or a.dirs[moving[0]] == 2:
            raise _Unknown("not monotone in one id")
        var = moving[0]
        lo, hi = box[var]

        def holds(x):
            r = self.value(an, box[:var] + ((x, x),) + box[var + 1:])
            if not r.exact:
                raise _Unknown("not a function of one id")
            return _CMP[pred](r.lo, c)
        first, last = holds(lo), holds(hi)
        if first == last:
            return box if first else None
        # The predicate is monotone in x: find where it changes.
        good, bad = (lo, hi) if first else (hi, lo)
        while abs(good - bad) > 1:
            mid = (good + bad) // 2
            if holds(mid):
                good = mid
            else:
                bad = mid
        span = (lo, good) if first else (good, hi)
        return box[:var] + (span,) + box[var + 1:]


def _mul(a, b):
    if b.exact or a.exact:
        a, b = (a, b) if b.exact else (b, a)
        k = b.lo
        lo, hi = sorted((a.lo * k, a.hi * k))
        return Range(lo, hi, _scale_dirs(a.dirs, k), *_residue(a.mod * abs(k), a.res * k))
    ends = (a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi)
    dirs = _join_dirs(_varying(a.dirs), _varying(b.dirs))
    return Range(min(ends), max(ends), dirs, *_residue(
        math.gcd(a.mod * b.mod, a.mod * b.res, b.mod * a.res), a.res * b.res))


def _outside(box, inner):
    """A box holding the ids of `box` not in `inner` (a sub-box narrowed in at most one id)."""
    if inner is None:
        return box
    changed = [k for k in range(VARS) if inner[k] != box[k]]
    if not changed:
        return None
    if len(changed) > 1:
        return box
    k = changed[0]
    (lo, hi), (ilo, ihi) = box[k], inner[k]
    if ilo == lo:
        return box[:k] + ((ihi + 1, hi),) + box[k + 1:]
    if ihi == hi:
        return box[:k] + ((lo, ilo - 1),) + box[k + 1:]
    return box


def _hull(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return tuple((min(x[0], y[0]), max(x[1], y[1])) for x, y in zip(a, b))


def _hull_all(boxes):
    out = None
    for b in boxes:
        out = _hull(out, b)
    return out


def _meet(a, b):
    if a is None or b is None:
        return None
    out = tuple((max(x[0], y[0]), min(x[1], y[1])) for x, y in zip(a, b))
    return None if any(lo > hi for lo, hi in out) else out


# ============================================================================ the module

class NeverProven:
    """A kernel whose launches are never proven, and why."""

    def __init__(self, reason):
        self.reason = reason
        self.decisions = {}

    def proves(self, *launch):
        return self.reason


class ModuleRanges:
    """The static part of the proof for every kernel of a loaded module, made on demand from
    the module codegen.generate compiled (`named`: its named_ir.NamedModule, None when it
    compiled nothing): the proof reads the functions that run, by the names they have there."""

    def __init__(self, module, named):
        self.module = module
        self.named = named
        self._kernels = {}
        self._defined = named.defined() if named is not None else set()

    def kernel(self, name):
        kr = self._kernels.get(name)
        if kr is None:
            try:
                kr = self._analyse(name)
            except Exception as exc:     # IR this reader does not know: never proven
                kr = NeverProven(f"internal: {type(exc).__name__}: {exc}")
            self._kernels[name] = kr
        return kr

    def _analyse(self, name):
        if self.named is None:
            return NeverProven("not compiled natively")
        return KernelRanges(self.named.mod.get_function(name), self.module.kernels[name], self.module.layout,
                            self.named.structs, self._defined)
