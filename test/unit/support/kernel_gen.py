"""Random valid OpenCL C kernels with independently computed expected results (issue 5
item 3, "the interpreter too"). Shared by test/unit/interp/test_fuzz_interp.py and
scripts/fuzz_interp.py.

Two generators, both deterministic in a numpy Generator:
- `scalar_case(rng, ...)`: `out[gid] = <statements over random typed expressions>` over
  int/uint/long/ulong/float inputs, with a Python reference implementing C/OpenCL C rules
  (usual arithmetic conversions C99 6.3.1.8, wrapping, shifts masked by the bit width
  (OpenCL C 6.3.j), abs -> unsigned, integer built-ins of OpenCL C 6.15.3), plus a
  work-item id buffer checked against the NDRange/subgroup numbering of docs/design.md.
- `coop_case(rng, ...)`: one cooperative-matrix tile per subgroup, random shapes, component
  types, layouts, strides and operators, with a NumPy reference.
"""
from dataclasses import dataclass, field

import numpy as np

# ------------------------------------------------------------------ scalar C semantics

INT_TYPES = {"int": (32, True), "uint": (32, False), "long": (64, True), "ulong": (64, False)}
DTYPES = {"int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
          "float": np.float32}
UNSIGNED_OF = {"int": "uint", "uint": "uint", "long": "ulong", "ulong": "ulong"}
CONST_SUFFIX = {"int": "", "uint": "u", "long": "L", "ulong": "UL"}


class UndefinedBehavior(Exception):
    """The reference hit C undefined behaviour (signed overflow, bad shift of a signed
    value, out-of-range float->int). clang -O2 may exploit it, so cases that cross-check
    against clang must be free of it."""


def is_int(t):
    return t in INT_TYPES


def wrap(value, t):
    """Reduce a Python int modulo 2^bits into the range of integer type t."""
    bits, signed = INT_TYPES[t]
    value &= (1 << bits) - 1
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def fits(value, t):
    return wrap(value, t) == value


def common_type(a, b):
    """Usual arithmetic conversions (C99 6.3.1.8); every type here has rank >= int."""
    if a == "float" or b == "float":
        return "float"
    if a == b:
        return a
    (bits_a, signed_a), (bits_b, signed_b) = INT_TYPES[a], INT_TYPES[b]
    if signed_a == signed_b:
        return a if bits_a > bits_b else b
    unsigned, signed = (a, b) if not signed_a else (b, a)
    if INT_TYPES[unsigned][0] >= INT_TYPES[signed][0]:
        return unsigned
    return signed  # long can represent every uint


def convert(value, src, dst, strict):
    """C conversion of a value of type src to type dst (C99 6.3.1)."""
    if dst == "float":
        if src == "float":
            return value
        return np.array(value, dtype=DTYPES[src]).astype(np.float32)[()]
    if src == "float":
        if np.isnan(value) or not fits(int(np.trunc(np.float64(value))), dst):
            raise UndefinedBehavior(f"float {value} does not fit {dst}")
        return int(np.trunc(np.float64(value)))
    return wrap(int(value), dst)


def signed_result(value, t, strict):
    """Result of a signed + - * or <<: exact if it fits, else UB (wraps when not strict)."""
    if not fits(value, t) and INT_TYPES[t][1] and strict:
        raise UndefinedBehavior(f"signed overflow {value} in {t}")
    return wrap(value, t)


def truth(value):
    return bool(value != 0)


def c_div(a, b):
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


# ------------------------------------------------------------------ expression nodes

@dataclass
class Var:
    name: str
    type: str

    def c(self):
        return self.name

    def eval(self, env, strict):
        return env[self.name]


@dataclass
class Const:
    value: object
    type: str

    def c(self):
        if self.type == "float":
            text = f"{abs(float(self.value))!r}f"
            return f"(-{text})" if self.value < 0 else text
        text = f"{abs(self.value)}{CONST_SUFFIX[self.type]}"
        return f"(-{text})" if self.value < 0 else text

    def eval(self, env, strict):
        return np.float32(self.value) if self.type == "float" else self.value


ARITH_OPS = ("+", "-", "*", "/")
INT_ONLY_OPS = ("%", "<<", ">>", "&", "|", "^")
COMPARE_OPS = ("<", ">", "<=", ">=", "==", "!=")
LOGIC_OPS = ("&&", "||")


@dataclass
class Bin:
    op: str
    left: object
    right: object
    type: str = field(init=False)

    def __post_init__(self):
        if self.op in COMPARE_OPS or self.op in LOGIC_OPS:
            self.type = "int"
        elif self.op in ("<<", ">>"):
            self.type = self.left.type  # no promotion needed: every type has rank >= int
        else:
            self.type = common_type(self.left.type, self.right.type)

    def c(self):
        return f"({self.left.c()} {self.op} {self.right.c()})"

    def eval(self, env, strict):
        op = self.op
        if op in LOGIC_OPS:
            lhs = truth(self.left.eval(env, strict))
            if op == "&&" and not lhs or op == "||" and lhs:
                return int(lhs)
            return int(truth(self.right.eval(env, strict)))
        lv, rv = self.left.eval(env, strict), self.right.eval(env, strict)
        if op in ("<<", ">>"):
            return self._shift(lv, rv, strict)
        ct = common_type(self.left.type, self.right.type)
        lv = convert(lv, self.left.type, ct, strict)
        rv = convert(rv, self.right.type, ct, strict)
        if op in COMPARE_OPS:
            return int(bool({"<": lv < rv, ">": lv > rv, "<=": lv <= rv, ">=": lv >= rv,
                             "==": lv == rv, "!=": lv != rv}[op]))
        if ct == "float":
            with np.errstate(all="ignore"):
                return np.float32({"+": lambda: lv + rv, "-": lambda: lv - rv,
                                   "*": lambda: lv * rv, "/": lambda: lv / rv}[op]())
        if op in ("+", "-", "*"):
            exact = {"+": lv + rv, "-": lv - rv, "*": lv * rv}[op]
            return signed_result(exact, ct, strict)
        if op in ("/", "%"):
            assert rv != 0, "generator guards divisors"
            quotient = c_div(lv, rv)
            if op == "/":
                return signed_result(quotient, ct, strict)  # INT_MIN / -1 overflows
            return wrap(lv - quotient * rv, ct)
        return wrap({"&": lv & rv, "|": lv | rv, "^": lv ^ rv}[op], ct)

    def _shift(self, lv, rv, strict):
        # OpenCL C 6.3.j: the shift count is masked to the bit width of the left operand.
        bits, signed = INT_TYPES[self.type]
        count = rv & (bits - 1)
        if self.op == ">>":
            return lv >> count  # arithmetic for signed (clang's implementation choice)
        if signed and strict and (lv < 0 or not fits(lv << count, self.type)):
            raise UndefinedBehavior("signed left shift overflow")
        return wrap(lv << count, self.type)


@dataclass
class Unary:
    op: str
    operand: object
    type: str = field(init=False)

    def __post_init__(self):
        self.type = "int" if self.op == "!" else self.operand.type

    def c(self):
        return f"({self.op} {self.operand.c()})"

    def eval(self, env, strict):
        v = self.operand.eval(env, strict)
        if self.op == "!":
            return int(not truth(v))
        if self.type == "float":
            return np.float32(-v)
        if self.op == "-":
            return signed_result(-v, self.type, strict)
        return wrap(~v, self.type)


@dataclass
class Ternary:
    # OpenCL C 6.5.15: the condition of ?: may not be a floating-point scalar.
    cond: object
    then: object
    other: object
    type: str = field(init=False)

    def __post_init__(self):
        self.type = common_type(self.then.type, self.other.type)

    def c(self):
        return f"({self.cond.c()} ? {self.then.c()} : {self.other.c()})"

    def eval(self, env, strict):
        chosen = self.then if truth(self.cond.eval(env, strict)) else self.other
        return convert(chosen.eval(env, strict), chosen.type, self.type, strict)


@dataclass
class Cast:
    type: str
    operand: object

    def c(self):
        return f"(({self.type}){self.operand.c()})"

    def eval(self, env, strict):
        return convert(self.operand.eval(env, strict), self.operand.type, self.type, strict)


def _clz(v, bits):
    return bits - (v & ((1 << bits) - 1)).bit_length()


def _builtin_value(name, t, args):
    """OpenCL C 6.15.3 integer and 6.15.2 fmin/fmax, arguments already of type t."""
    bits, signed = INT_TYPES.get(t, (32, True))
    if name in ("fmin", "fmax"):
        return np.float32((np.fmin if name == "fmin" else np.fmax)(args[0], args[1]))
    if name == "min":
        return min(args)
    if name == "max":
        return max(args)
    if name == "clamp":
        return min(max(args[0], args[1]), args[2])
    if name == "abs":
        return abs(args[0])
    if name == "popcount":
        return bin(args[0] & ((1 << bits) - 1)).count("1")
    if name == "clz":
        return _clz(args[0], bits)
    if name == "rotate":
        count = args[1] & (bits - 1)
        raw = args[0] & ((1 << bits) - 1)
        return wrap((raw << count | raw >> (bits - count)), t)
    if name == "mul_hi":
        return (args[0] * args[1]) >> bits
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if name == "add_sat":
        return min(max(args[0] + args[1], lo), hi)
    if name == "sub_sat":
        return min(max(args[0] - args[1], lo), hi)
    if name == "mad_sat":
        return min(max(args[0] * args[1] + args[2], lo), hi)
    if name == "mad_hi":
        return ((args[0] * args[1]) >> bits) + args[2]   # wraps in the caller
    if name == "hadd":
        return (args[0] + args[1]) >> 1
    if name == "rhadd":
        return (args[0] + args[1] + 1) >> 1
    if name == "abs_diff":
        return abs(args[0] - args[1])
    if name == "ctz":
        raw = args[0] & ((1 << bits) - 1)
        return bits if raw == 0 else (raw & -raw).bit_length() - 1
    raise ValueError(name)


@dataclass
class Call:
    name: str
    args: list
    arg_type: str
    type: str = field(init=False)

    def __post_init__(self):
        self.type = UNSIGNED_OF[self.arg_type] if self.name in ("abs", "abs_diff") else self.arg_type

    def c(self):
        # Every argument is cast to arg_type so exactly one overload matches.
        args = ", ".join(f"(({self.arg_type}){a.c()})" for a in self.args)
        return f"{self.name}({args})"

    def eval(self, env, strict):
        values = [convert(a.eval(env, strict), a.type, self.arg_type, strict) for a in self.args]
        result = _builtin_value(self.name, self.arg_type, values)
        return result if self.type == "float" else wrap(result, self.type)


# ------------------------------------------------------------------ random expressions

INPUTS = [("x0", "int", "ia"), ("x1", "uint", "ua"), ("x2", "long", "la"),
          ("x3", "ulong", "ula"), ("x4", "float", "fa")]
# (builtin, argument type) pairs with known, reported bugs that the generators avoid
# unless told otherwise. None open; fixed findings (test_fuzz_interp.py test_finding_*):
# 64-bit mul_hi with a uniform first argument, 64-bit add_sat, mad_sat.
KNOWN_BUGS = set()
INT_BUILTINS = ("min", "max", "clamp", "abs", "popcount", "clz", "rotate", "mul_hi",
                "add_sat", "sub_sat", "hadd", "rhadd", "abs_diff", "mad_hi", "mad_sat", "ctz")
THREE_ARG_BUILTINS = ("mad_hi", "mad_sat")


class ExprGen:
    def __init__(self, rng, variables, avoid=KNOWN_BUGS):
        self.rng = rng
        self.variables = variables  # list of Var
        self.avoid = avoid          # (builtin, argument type) pairs not to generate

    def choice(self, items):
        return items[int(self.rng.integers(len(items)))]

    def const(self, t):
        if t == "float":
            return Const(float(self.rng.integers(-64, 64)) / 4, "float")
        bits, signed = INT_TYPES[t]
        if self.rng.random() < 0.15:
            lo = -(1 << (bits - 1)) if signed else 0
            hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
            value = self.choice([lo + 1, hi, hi - 1, 0 if signed else hi // 2])
        else:
            value = int(self.rng.integers(-20 if signed else 0, 40))
        return Const(value, t)

    def leaf(self, kind):
        candidates = [v for v in self.variables if kind == "any" or (v.type == "float") == (kind == "float")]
        if candidates and self.rng.random() < 0.75:
            return self.choice(candidates)
        t = "float" if kind == "float" else self.choice(list(INT_TYPES) if kind == "int" else list(DTYPES))
        return self.const(t)

    def expr(self, kind, depth):
        """A random expression of kind 'int' (any integer type), 'float' or 'any'."""
        if depth <= 0 or self.rng.random() < 0.15:
            return self.leaf(kind)
        if kind == "any":
            kind = "float" if self.rng.random() < 0.3 else "int"
        return self.float_expr(depth) if kind == "float" else self.int_expr(depth)

    def int_expr(self, depth):
        d = depth - 1
        form = self.choice(["arith", "arith", "divmod", "shift", "bitwise", "compare", "logic",
                            "unary", "ternary", "cast", "cast_float", "builtin", "builtin"])
        if form == "arith":
            return Bin(self.choice(["+", "-", "*"]), self.expr("int", d), self.expr("int", d))
        if form == "divmod":
            return Bin(self.choice(["/", "%"]), self.expr("int", d), self.divisor(d))
        if form == "shift":
            return Bin(self.choice(["<<", ">>"]), self.expr("int", d), self.expr("int", d))
        if form == "bitwise":
            return Bin(self.choice(["&", "|", "^"]), self.expr("int", d), self.expr("int", d))
        if form == "compare":
            return Bin(self.choice(COMPARE_OPS), self.expr("any", d), self.expr("any", d))
        if form == "logic":
            return Bin(self.choice(LOGIC_OPS), self.expr("any", d), self.expr("any", d))
        if form == "unary":
            return Unary(self.choice(["-", "~", "!"]), self.expr("int", d))
        if form == "ternary":
            return Ternary(self.expr("int", d), self.expr("int", d), self.expr("int", d))
        if form == "cast":
            return Cast(self.choice(list(INT_TYPES)), self.expr("int", d))
        if form == "cast_float":
            # float -> integer only from the bounded float input: anything else may be
            # out of range (undefined, C99 6.3.1.4).
            return Cast(self.choice(["int", "long"]), Var("x4", "float"))
        return self.int_builtin(d)

    def divisor(self, depth):
        """(e & 15) + 1: never zero, never -1, so / and % are always defined."""
        return Bin("+", Bin("&", self.expr("int", depth), Const(15, "int")), Const(1, "int"))

    def int_builtin(self, d):
        name = self.choice(INT_BUILTINS)
        first = self.expr("int", d)
        if name in ("abs", "popcount", "clz", "ctz"):
            return Call(name, [first], first.type)
        second = self.expr("int", d)
        t = common_type(first.type, second.type)
        if (name, t) in self.avoid:
            name = "max"
        if name == "clamp":
            lo, hi = sorted([self.const(t).value, self.const(t).value])
            return Call(name, [first, Const(lo, t), Const(hi, t)], t)
        if name in THREE_ARG_BUILTINS:
            return Call(name, [first, second, self.expr("int", d)], t)
        return Call(name, [first, second], t)

    def float_expr(self, depth):
        d = depth - 1
        form = self.choice(["arith", "arith", "mixed", "unary", "ternary", "cast", "fminmax"])
        if form == "arith":
            return Bin(self.choice(ARITH_OPS), self.expr("float", d), self.expr("float", d))
        if form == "mixed":
            return Bin(self.choice(ARITH_OPS), self.expr("float", d), self.expr("int", d))
        if form == "unary":
            return Unary("-", self.expr("float", d))
        if form == "ternary":
            return Ternary(self.expr("int", d), self.expr("float", d), self.expr("float", d))
        if form == "cast":
            return Cast("float", self.expr("int", d))
        return Call(self.choice(["fmin", "fmax"]), [self.expr("float", d), self.expr("float", d)], "float")


# ------------------------------------------------------------------ scalar kernels

@dataclass
class ScalarCase:
    source: str
    result_type: str
    body: dict                 # the statement trees, for the reference
    inputs: dict               # buffer name -> numpy array
    global_size: tuple
    local_size: tuple
    subgroup_size: int

    @property
    def total(self):
        return int(np.prod(self.global_size))

    @property
    def wg_size(self):
        return int(np.prod(self.local_size))


COLL_FIELDS = 6  # sub-group reduce add/max, scan incl. add/excl. min, broadcast 0, work-group add
ID_FIELDS = 6  # local linear id (computed), get_local_linear_id, group linear, sg local id, sg id, sg size


def random_launch(rng, max_items=384):
    """1-3D global/local sizes, local dividing global, at most max_items work-items."""
    while True:
        dims = int(rng.integers(1, 4))
        local = tuple(int(rng.choice([1, 2, 3, 4, 5, 8, 16])) for _ in range(dims))
        groups = tuple(int(rng.integers(1, 4)) for _ in range(dims))
        glob = tuple(l * g for l, g in zip(local, groups))
        if np.prod(local) <= 128 and np.prod(glob) <= max_items:
            return glob, local


def random_inputs(rng, n, extremes):
    """Input buffers; `extremes` mixes in INT_MIN/INT_MAX-like values."""
    data = {}
    for name, t, buf in INPUTS:
        if t == "float":
            data[buf] = (rng.integers(-4000, 4000, n) / 4).astype(np.float32)
            continue
        info = np.iinfo(DTYPES[t])
        small = rng.integers(max(info.min, -1000), 1000, n, dtype=np.int64)
        values = small.astype(DTYPES[t]) if info.min < 0 else (small & 0x7FF).astype(DTYPES[t])
        if extremes:
            special = np.array([info.min, info.max, info.max - 1, 0, 1,
                                info.min + 1 if info.min else info.max // 2], dtype=DTYPES[t])
            pick = rng.random(n) < 0.3
            values = np.where(pick, special[rng.integers(len(special), size=n)], values)
        data[buf] = values.astype(DTYPES[t])
    return data


def scalar_case(rng, depth=4, extremes=True, max_items=384, avoid=KNOWN_BUGS):
    result_type = str(rng.choice(list(DTYPES)))
    base_vars = [Var(n, t) for n, t, _ in INPUTS] + [Var("g", "int")]
    acc = Var("acc", result_type)
    kind = "any" if result_type == "float" else "int"
    gen = ExprGen(rng, base_vars, avoid)
    e0 = gen.expr(kind, depth)
    gen.variables = base_vars + [acc]
    c1 = gen.expr("any", depth - 1)
    e1 = gen.expr(kind, depth)
    op2 = str(rng.choice(["+", "-", "*"] if result_type == "float" else ["+", "-", "^", "|", "*"]))
    e2 = Bin(op2, acc, gen.expr(kind, depth - 1))
    trip_var = gen.choice([v for v in base_vars if is_int(v.type)])
    trip = Cast("int", Bin("&", trip_var, Const(int(rng.integers(1, 8)), "int")))
    gen.variables = base_vars + [acc, Var("i", "int")]
    c2 = gen.expr("any", depth - 2)
    op3 = str(rng.choice(["+", "-"] if result_type == "float" else ["+", "-", "^", "*"]))
    e3 = Bin(op3, acc, gen.expr(kind, depth - 1))
    body = {"e0": e0, "c1": c1, "e1": e1, "e2": e2, "trip": trip, "c2": c2, "e3": e3}
    body.update(_tail_statements(rng, gen, base_vars, acc, kind, depth))
    gen.variables = base_vars
    body["vec"] = _vector_statements(rng, gen, depth)
    glob, local = random_launch(rng, max_items)
    subgroup = int(rng.choice([8, 16, 32]))
    inputs = random_inputs(rng, int(np.prod(glob)), extremes)
    source = scalar_source(result_type, body, len(glob), int(np.prod(local)))
    return ScalarCase(source, result_type, body, inputs,
                      glob, local, subgroup)


def _tail_statements(rng, gen, base_vars, acc, kind, depth):
    """Trees of the second half of the kernel: a private array filled in a loop and read
    at a data-dependent index, a switch with a fall-through, a static helper function and
    a while loop with a data-dependent break."""
    int_inputs = [v for v in base_vars if is_int(v.type)]
    rt = acc.type
    gen.variables = base_vars + [Var("j", "int")]
    arr = gen.expr("int", depth - 2)
    gen.variables = base_vars + [acc]
    tail = {"arr": arr, "idx": gen.choice(int_inputs), "sel": gen.expr("int", depth - 2),
            "e4": gen.expr(kind, depth - 1),
            "e5": Bin(str(rng.choice(["+", "-", "*"])), acc, gen.expr(kind, depth - 2)),
            "e6": gen.expr(kind, depth - 1),
            "mix": Bin(str(rng.choice(["+", "-", "*"] if rt == "float" else ["+", "-", "*", "^", "&"])),
                       Var("a", rt), Var("b", rt)),
            "wvar": gen.choice(int_inputs)}
    gen.variables = base_vars + [acc, Var("w", "int")]
    tail["e7"] = Bin(str(rng.choice(["+", "-"])), acc, gen.expr(kind, depth - 2))
    tail["c3"] = gen.expr("any", depth - 2)
    return tail


VECTOR_TYPES = ("int", "uint", "long", "ulong", "float")
MASK_TYPE = {"int": "int", "uint": "int", "float": "int", "long": "long", "ulong": "long"}
SWIZZLES = ("wzyx", "yxwz", "zwxy", "xxyy", "s3120", "s0000")


def _vector_statements(rng, gen, depth):
    """A 4-component vector built from scalar expressions, then a random sequence of
    vector-vector and vector-scalar operators, swizzles, negation and a relational +
    select (OpenCL C 6.3: relational results are -1/0 per component, select tests the MSB)."""
    vt = str(rng.choice(VECTOR_TYPES))
    kind = "any" if vt == "float" else "int"
    comps = [gen.expr(kind, depth - 2) for _ in range(4)]
    other = [gen.const(vt).value for _ in range(4)]
    scalar = gen.expr(kind, depth - 2)
    ops = []
    for _ in range(int(rng.integers(1, 5))):
        step = str(rng.choice(["vv", "vs", "swizzle", "negate", "select"]))
        if step in ("vv", "vs"):
            choices = ["+", "-", "*"] + ([] if vt == "float" else ["&", "|", "^", "<<", ">>"])
            ops.append((step, str(rng.choice(choices))))
        elif step == "swizzle":
            ops.append((step, str(rng.choice(SWIZZLES))))
        elif step == "select":
            ops.append((step, str(rng.choice(COMPARE_OPS))))
        else:
            ops.append((step, "-"))
    return {"type": vt, "comps": comps, "other": other, "scalar": scalar, "ops": ops}


def _vector_source(vec):
    if not vec:
        return ""
    vt = vec["type"]
    v4, m4 = f"{vt}4", f"{MASK_TYPE[vt]}4"
    comps = ", ".join(f"({vt}){c.c()}" for c in vec["comps"])
    other = ", ".join(Const(v, vt).c() for v in vec["other"])
    lines = [f"{v4} va = ({v4})({comps});", f"{v4} vb = ({v4})({other});",
             f"{vt} vs = ({vt}){vec['scalar'].c()};"]
    for step, op in vec["ops"]:
        if step == "vv":
            lines.append(f"va = va {op} vb;")
        elif step == "vs":
            lines.append(f"va = va {op} vs;")
        elif step == "swizzle":
            lines.append(f"va = va.{op};")
        elif step == "negate":
            lines.append("va = -va;")
        else:
            lines.append(f"{{ {m4} m = va {op} vb; va = select(vb, va, m); }}")
    lines.append("vstore4(va, gid, vout);")
    return "\n    " + "\n    ".join(lines)


def _swizzle_indices(text):
    if text.startswith("s"):
        return [int(ch) for ch in text[1:]]
    return ["xyzw".index(ch) for ch in text]


def vector_reference_lane(vec, env, strict):
    """The 4 components vout[gid] must hold; scalar C semantics per component."""
    vt = vec["type"]
    va = [convert(c.eval(env, strict), c.type, vt, strict) for c in vec["comps"]]
    vb = [Const(v, vt).eval(env, strict) for v in vec["other"]]
    vs = convert(vec["scalar"].eval(env, strict), vec["scalar"].type, vt, strict)

    def per_component(op, left, right):
        return [Bin(op, Const(a, vt), Const(b, vt)).eval(env, strict) for a, b in zip(left, right)]

    for step, op in vec["ops"]:
        if step == "vv":
            va = per_component(op, va, vb)
        elif step == "vs":
            va = per_component(op, va, [vs] * 4)
        elif step == "swizzle":
            va = [va[i] for i in _swizzle_indices(op)]
        elif step == "negate":
            va = [Unary("-", Const(a, vt)).eval(env, strict) for a in va]
        else:
            truth_values = per_component(op, va, vb)   # 1/0 here; -1/0 in the vector,
            va = [a if t else b for a, b, t in zip(va, vb, truth_values)]  # MSB set iff true
    return va


def _tail_source(rt, body):
    if "sel" not in body:
        return ""
    rc = f"({rt})"
    return f"""
    int arr[8];
    for (int j = 0; j < 8; ++j)
        arr[j] = (int){body['arr'].c()};
    switch ((int)({body['sel'].c()} & 3)) {{
    case 0:
        acc = {rc}{body['e4'].c()};
        break;
    case 1:
        acc = {rc}{body['e5'].c()};
        /* fall through */
    case 2:
        acc = {rc}(acc + arr[(int)({body['idx'].c()} & 7)]);
        break;
    default:
        acc = mix(acc, {rc}{body['e6'].c()});
    }}
    int w = (int)({body['wvar'].c()} & 3);
    while (w-- > 0) {{
        acc = {rc}{body['e7'].c()};
        if ({body['c3'].c()})
            break;
    }}"""


def _tail_reference(body, env, rt, strict):
    """Runs the _tail_source statements on env (C semantics as in the expression nodes)."""
    if "sel" not in body:
        return

    def assign(node):
        return convert(node.eval(env, strict), node.type, rt, strict)

    arr = []
    for j in range(8):
        env["j"] = j
        arr.append(convert(body["arr"].eval(env, strict), body["arr"].type, "int", strict))
    selector = body["sel"].eval(env, strict) & 3
    if selector == 0:
        env["acc"] = assign(body["e4"])
    if selector in (1, 2):
        if selector == 1:
            env["acc"] = assign(body["e5"])
        index = body["idx"].eval(env, strict) & 7
        env["acc"] = assign(Bin("+", Var("acc", rt), Const(arr[index], "int")))
    if selector == 3:
        b = assign(body["e6"])
        mixed = body["mix"].eval({"a": env["acc"], "b": b}, strict)
        env["acc"] = convert(mixed, body["mix"].type, rt, strict)
    w = body["wvar"].eval(env, strict) & 3
    while True:
        running = w > 0
        w -= 1
        if not running:
            break
        env["w"] = w
        env["acc"] = assign(body["e7"])
        if truth(body["c3"].eval(env, strict)):
            break


EXTENT_OF = {"get_local_id": "get_local_size", "get_global_id": "get_global_size",
             "get_group_id": "get_num_groups"}


def _linear(fn, dims):
    """C text of the linearized id: id(0) + id(1) * extent(0) + id(2) * extent(0) * extent(1)."""
    terms, scale = [], []
    for d in range(dims):
        terms.append(" * ".join([f"{fn}({d})"] + scale))
        scale.append(f"{EXTENT_OF[fn]}({d})")
    return " + ".join(f"({t})" for t in terms)


def scalar_source(rt, body, dims, wg_size):
    rt_cast = f"({rt})"
    helper = "" if "mix" not in body else \
        f"static {rt} mix({rt} a, {rt} b)\n{{\n    return ({rt}){body['mix'].c()};\n}}\n\n"
    return helper + f"""\
__kernel void fuzz(__global const int *ia, __global const uint *ua, __global const long *la,
                   __global const ulong *ula, __global const float *fa,
                   __global {rt} *out, __global uint *ids, __global int *coll,
                   __global int *mem, volatile __global int *counters,
                   __global {body['vec']['type'] if body.get('vec') else 'int'} *vout)
{{
    size_t gid = {_linear('get_global_id', dims)};
    int x0 = ia[gid];
    uint x1 = ua[gid];
    long x2 = la[gid];
    ulong x3 = ula[gid];
    float x4 = fa[gid];
    int g = (int)gid;
    {rt} acc = {rt_cast}{body['e0'].c()};
    if ({body['c1'].c()}) {{
        acc = {rt_cast}{body['e1'].c()};
    }} else {{
        acc = {rt_cast}{body['e2'].c()};
    }}
    for (int i = 0; i < {body['trip'].c()}; ++i) {{
        if ({body['c2'].c()})
            continue;
        acc = {rt_cast}{body['e3'].c()};
    }}{_tail_source(rt, body)}{_vector_source(body.get('vec'))}
    out[gid] = acc;
    ids[gid * {ID_FIELDS} + 0] = (uint)({_linear('get_local_id', dims)});
    ids[gid * {ID_FIELDS} + 1] = (uint)get_local_linear_id();
    ids[gid * {ID_FIELDS} + 2] = (uint)({_linear('get_group_id', dims)});
    ids[gid * {ID_FIELDS} + 3] = get_sub_group_local_id();
    ids[gid * {ID_FIELDS} + 4] = get_sub_group_id();
    ids[gid * {ID_FIELDS} + 5] = get_sub_group_size();
    // Collectives, in uniform control flow, of a value that depends on the lane's result
    // (as_int: the bits of a float result, exact).
    int v = {'as_int(acc)' if rt == 'float' else '(int)acc'};
    coll[gid * {COLL_FIELDS} + 0] = sub_group_reduce_add(v);
    coll[gid * {COLL_FIELDS} + 1] = sub_group_reduce_max(v);
    coll[gid * {COLL_FIELDS} + 2] = sub_group_scan_inclusive_add(v);
    coll[gid * {COLL_FIELDS} + 3] = sub_group_scan_exclusive_min(v);
    coll[gid * {COLL_FIELDS} + 4] = sub_group_broadcast(v, 0);
    coll[gid * {COLL_FIELDS} + 5] = work_group_reduce_add(v);
    // Local memory across a barrier (the mirrored work-item's value) and global atomics
    // per work-group.
    __local int mirror[{wg_size}];
    uint lid = get_local_linear_id();
    mirror[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    mem[gid] = mirror[{wg_size - 1} - lid];
    size_t group = {_linear('get_group_id', dims)};
    atomic_add(&counters[group * 3 + 0], v);
    atomic_xor(&counters[group * 3 + 1], v);
    atomic_min(&counters[group * 3 + 2], v);
}}
"""


def scalar_reference_lane(case, gid, strict):
    """The value out[gid] must hold (raises UndefinedBehavior when strict)."""
    env = lane_env(case, gid)
    rt, body = case.result_type, case.body

    def assign(node):
        return convert(node.eval(env, strict), node.type, rt, strict)

    env["acc"] = assign(body["e0"])
    if truth(body["c1"].eval(env, strict)):
        env["acc"] = assign(body["e1"])
    else:
        env["acc"] = assign(body["e2"])
    for i in range(body["trip"].eval(env, strict)):
        env["i"] = i
        if truth(body["c2"].eval(env, strict)):
            continue
        env["acc"] = assign(body["e3"])
    _tail_reference(body, env, rt, strict)
    return env["acc"]


def lane_env(case, gid):
    env = {name: case.inputs[buf][gid].item() for name, _, buf in INPUTS}
    env["x4"] = np.float32(case.inputs["fa"][gid])
    env["g"] = gid
    return env


def _lanes(case, lane_fn, dtype, width, strict):
    """(values, defined): lane_fn(gid, strict) for every lane. A lane whose evaluation hits
    undefined behaviour is not defined (C99 3.4.3: any result is allowed there, and
    clcoop's own folding does exploit nsw); its value is the wrapping one, for messages.
    With strict=True, undefined behaviour raises instead."""
    values = np.zeros((case.total, width), dtype)
    defined = np.ones(case.total, bool)
    for gid in range(case.total):
        try:
            values[gid] = lane_fn(gid, True)
        except UndefinedBehavior:
            if strict:
                raise
            defined[gid] = False
            values[gid] = lane_fn(gid, False)
    return values.reshape(-1) if width > 1 else values[:, 0], defined


def scalar_expectation(case, strict=False):
    """(out, defined) the kernel must produce; see _lanes."""
    out, defined = _lanes(case, lambda gid, st: scalar_reference_lane(case, gid, st),
                          DTYPES[case.result_type], 1, strict)
    vec = case.body.get("vec")
    if vec and strict:
        vector_expectation(case, strict)    # a UB-free case is UB-free in its vector part too
    return out, defined


def scalar_reference(case, strict=False):
    return scalar_expectation(case, strict)[0]


def vector_expectation(case, strict=False):
    """(vout, defined per lane) the kernel must produce, or (None, None) without a vector part."""
    vec = case.body.get("vec")
    if not vec:
        return None, None
    return _lanes(case, lambda gid, st: vector_reference_lane(vec, lane_env(case, gid), st),
                  DTYPES[vec["type"]], 4, strict)


def ids_reference(case):
    """Work-item numbering: subgroups are consecutive runs of S work-items in the linear
    local id order (docs/design.md, interpreter value model)."""
    glob, local, s = case.global_size, case.local_size, case.subgroup_size
    dims = len(glob)
    wg_size = int(np.prod(local))
    ids = np.zeros((case.total, ID_FIELDS), np.uint32)
    for gid in range(case.total):
        coord, rest = [], gid
        for d in range(dims):
            coord.append(rest % glob[d])
            rest //= glob[d]
        lid = [coord[d] % local[d] for d in range(dims)]
        grp = [coord[d] // local[d] for d in range(dims)]
        ngroups = [glob[d] // local[d] for d in range(dims)]
        llid = sum(lid[d] * int(np.prod(local[:d])) for d in range(dims))
        glin = sum(grp[d] * int(np.prod(ngroups[:d])) for d in range(dims))
        sg = llid // s
        ids[gid] = [llid, llid, glin, llid % s, sg, min(s, wg_size - sg * s)]
    return ids.reshape(-1)


def lane_ints(case, out):
    """v of the kernel: the lane's result as int (float: its bits)."""
    if case.result_type == "float":
        return out.view(np.int32).astype(np.int64)
    return np.array([wrap(int(x), "int") for x in out], np.int64)


def memory_reference(case, out):
    """mem[gid] = v of the mirrored work-item of the same work-group (linear local id
    wg-1-lid); counters[group] = wrapped sum, xor and min of the group's v."""
    ids = ids_reference(case).reshape(-1, ID_FIELDS)
    v = lane_ints(case, out)
    by_slot = {(int(ids[g, 2]), int(ids[g, 0])): g for g in range(case.total)}
    mem = np.array([v[by_slot[(int(ids[g, 2]), case.wg_size - 1 - int(ids[g, 0]))]]
                    for g in range(case.total)], np.int64).astype(np.int32)
    counters = np.zeros((case.total // case.wg_size, 3), np.int64)
    counters[:, 2] = 2**31 - 1
    for g in range(case.total):
        group = int(ids[g, 2])
        counters[group, 0] += v[g]
        counters[group, 1] ^= v[g]
        counters[group, 2] = min(counters[group, 2], v[g])
    return mem, np.array([wrap(int(x), "int") for x in counters.reshape(-1)], np.int32)


def collectives_reference(case, out):
    """Sub-group and work-group collectives (OpenCL C 6.15.16/6.15.19) of v = the lane's
    result as int, over the subgroups of ids_reference; int additions wrap."""
    ids = ids_reference(case).reshape(-1, ID_FIELDS)
    v = lane_ints(case, out)
    coll = np.zeros((case.total, COLL_FIELDS), np.int64)
    groups = {}
    for gid in range(case.total):
        groups.setdefault((int(ids[gid, 2]), int(ids[gid, 4])), []).append(gid)
    work_groups = {}
    for gid in range(case.total):
        work_groups.setdefault(int(ids[gid, 2]), []).append(gid)
    for members in groups.values():
        members.sort(key=lambda g: ids[g, 3])
        values = [int(v[g]) for g in members]
        running_add, running_min = 0, 2**31 - 1     # identities of add and min
        for g, value in zip(members, values):
            coll[g, 3] = running_min
            running_add += value
            running_min = min(running_min, value)
            coll[g, 0] = sum(values)
            coll[g, 1] = max(values)
            coll[g, 2] = running_add
            coll[g, 4] = values[0]
    for members in work_groups.values():
        total = sum(int(v[g]) for g in members)
        for g in members:
            coll[g, 5] = total
    return np.array([wrap(int(x), "int") for x in coll.reshape(-1)], np.int32)


def scalar_buffers(case):
    """Fresh argument arrays in kernel parameter order (outputs filled with a sentinel)."""
    out = np.full(case.total, 0x5A, DTYPES[case.result_type])
    ids = np.full(case.total * ID_FIELDS, 0xDEADBEEF, np.uint32)
    coll = np.full(case.total * COLL_FIELDS, 0x5A5A5A5A, np.int32)
    mem = np.full(case.total, 0x5A5A5A5A, np.int32)
    counters = np.tile(np.array([0, 0, 2**31 - 1], np.int32), case.total // case.wg_size)
    vec = case.body.get("vec")
    vout = np.full(case.total * 4, 0x5A, DTYPES[vec["type"] if vec else "int"])
    args = [case.inputs[buf].copy() for _, _, buf in INPUTS] + [out, ids, coll, mem, counters, vout]
    return args, out, ids, coll, mem, counters, vout


# ------------------------------------------------------------------ running cases

CLANG_FLAGS = ["-cc1", "-triple", "spir64-unknown-unknown", "-cl-std=CL3.0",
               "-finclude-default-header", "-emit-llvm"]


def clang_ir(clang, source, opt):
    """LLVM IR of `source` by clang-22 at -O0 (no LLVM passes) or -O2 (full pipeline)."""
    import subprocess
    # No contraction into fmuladd: a fused float result could legitimately flip an
    # integer comparison, and the references compute unfused.
    cmd = [clang] + CLANG_FLAGS + [f"-O{opt}", "-ffp-contract=off"]
    if opt == 0:
        cmd.append("-disable-llvm-passes")
    cmd += ["-x", "cl", "-", "-o", "-"]
    return subprocess.run(cmd, input=source, check=True, capture_output=True, text=True).stdout


def build_program(source, producer, clang=None):
    """A clcoop.Program from clcoop ('clcoop' = -O0, 'clcoop-O2': its LLVM pipeline, the
    Program.build default) or clang-22 ('clang-O0' / 'clang-O2')."""
    import clcoop
    if producer == "clcoop":
        return clcoop.Program(source).build(["-O0"])
    if producer == "clcoop-O2":
        return clcoop.Program(source).build(["-O2"])
    return clcoop.Program.from_ir(clang_ir(clang, source, int(producer[-1])))


def run_scalar(case, producer, clang=None):
    """Runs the case; returns (out, ids, coll, mem, counters, vout) as the interpreter left them."""
    prog = build_program(case.source, producer, clang)
    args, *outputs = scalar_buffers(case)
    prog.run("fuzz", case.global_size, case.local_size, *args, subgroup_size=case.subgroup_size)
    return tuple(outputs)


def scalar_mismatches(case, out, expected):
    """Indices where out differs from expected (floats: bit-exact, NaN equal to NaN)."""
    if case.result_type == "float":
        same = (out.view(np.uint32) == expected.view(np.uint32)) | (np.isnan(out) & np.isnan(expected))
    else:
        same = out == expected
    return np.flatnonzero(~same)


def scalar_problem(case, got, expected, defined=None):
    """None, or what differs: got = run_scalar's buffers, expected = the reference out,
    defined = the lanes free of undefined behaviour (default: all)."""
    out, ids, coll, mem, counters, vout = got
    if defined is None:
        defined = np.ones(case.total, bool)
    bad = [i for i in scalar_mismatches(case, out, expected) if defined[i]]
    if len(bad):
        return describe_scalar(case, out, expected, bad)
    launch = f"global {case.global_size} local {case.local_size} S={case.subgroup_size}"
    want_ids = ids_reference(case)
    if not (ids == want_ids).all():
        gid = int(np.flatnonzero(ids != want_ids)[0]) // ID_FIELDS
        return (f"work-item ids of gid {gid}: got {ids[gid * ID_FIELDS:(gid + 1) * ID_FIELDS]}, "
                f"expected {want_ids[gid * ID_FIELDS:(gid + 1) * ID_FIELDS]}; {launch}")
    # Collectives, memory and atomics use each lane's own result where it is undefined.
    expected = np.where(defined, expected, out)
    want_coll = collectives_reference(case, expected)
    if not (coll == want_coll).all():
        first = int(np.flatnonzero(coll != want_coll)[0])
        gid, which = divmod(first, COLL_FIELDS)
        return (f"collective #{which} of gid {gid}: got {coll[first]}, expected "
                f"{want_coll[first]}; {launch}\n{case.source}")
    want_mem, want_counters = memory_reference(case, expected)
    if not (mem == want_mem).all():
        gid = int(np.flatnonzero(mem != want_mem)[0])
        return f"local memory mirror of gid {gid}: got {mem[gid]}, expected {want_mem[gid]}; {launch}"
    if not (counters == want_counters).all():
        first = int(np.flatnonzero(counters != want_counters)[0])
        return (f"atomic counter {first % 3} of group {first // 3}: got {counters[first]}, "
                f"expected {want_counters[first]}; {launch}")
    want_vout, vec_defined = vector_expectation(case)
    if want_vout is not None:
        same = vout.view(f"u{vout.dtype.itemsize}") == want_vout.view(f"u{vout.dtype.itemsize}")
        if case.body["vec"]["type"] == "float":
            same |= np.isnan(vout) & np.isnan(want_vout)
        same |= ~np.repeat(vec_defined, 4)
        if not same.all():
            first = int(np.flatnonzero(~same)[0])
            return (f"vector component {first % 4} of gid {first // 4}: got {vout[first]!r}, "
                    f"expected {want_vout[first]!r}; {launch}\n{case.source}")
    return None


def describe_scalar(case, out, expected, bad):
    first = int(bad[0])
    inputs = {buf: case.inputs[buf][first].item() for _, _, buf in INPUTS}
    return (f"{len(bad)} mismatches, first gid {first}: got {out[first]!r}, expected "
            f"{expected[first]!r}; inputs {inputs}; global {case.global_size} local "
            f"{case.local_size} S={case.subgroup_size}\n{case.source}")


def ub_free_scalar_case(rng, depth=4, max_items=128, attempts=50):
    """A scalar case whose reference hits no undefined behaviour on its data, so clang -O2
    (which may exploit UB, e.g. nsw adds) must agree bit for bit with -O0 and clcoop."""
    for _ in range(attempts):
        case = scalar_case(rng, depth=depth, extremes=False, max_items=max_items)
        if case.result_type == "float":
            continue  # only integer results are compared bit for bit across producers
        try:
            expected = scalar_reference(case, strict=True)   # the vector part too
        except UndefinedBehavior:
            continue
        return case, expected
    raise RuntimeError("no UB-free case found; lower the depth")


# ------------------------------------------------------------------ cooperative matrices

COOP_DTYPES = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
               "int": np.int32, "uint": np.uint32, "half": np.float16, "float": np.float32}
USES = {"a": "CLK_COOPERATIVE_MATRIX_A", "b": "CLK_COOPERATIVE_MATRIX_B",
        "acc": "CLK_COOPERATIVE_MATRIX_ACCUMULATOR"}
LAYOUTS = {"row": "CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR",
           "col": "CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR"}
OPERAND_FLAGS = {"a": "CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED",
                 "b": "CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED",
                 "c": "CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED",
                 "result": "CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED"}
POW2_ROWS = (1, 2, 4, 8, 16)


def is_float_component(t):
    return t in ("half", "float")


@dataclass
class Operand:
    """One matrix in memory: its buffer holds one tile per subgroup."""
    name: str
    type: str
    rows: int
    cols: int
    layout: str
    stride: int

    @property
    def tile_elems(self):
        major, minor = (self.rows, self.cols) if self.layout == "row" else (self.cols, self.rows)
        return (major - 1) * self.stride + minor

    def offsets(self):
        """Flat offsets in a tile of element (r, c), as a rows x cols array
        (SPV_KHR_cooperative_matrix OpCooperativeMatrixLoadKHR: row-major puts row r at
        r * stride, column-major puts column c at c * stride)."""
        r, c = np.meshgrid(np.arange(self.rows), np.arange(self.cols), indexing="ij")
        return r * self.stride + c if self.layout == "row" else c * self.stride + r

    def read(self, buf, tile):
        return buf[tile * self.tile_elems + self.offsets()]

    def write(self, buf, tile, mat):
        buf[tile * self.tile_elems + self.offsets()] = mat


def random_operand(rng, name, t, rows, cols, load=False):
    """Row- or column-major with a random stride >= the minimum; a load may also use
    stride 0 (every row/column reads the same memory, as the OpenCL CTS stride0 test)."""
    layout = str(rng.choice(["row", "col"]))
    minimum = cols if layout == "row" else rows
    if load and rng.random() < 0.1:
        return Operand(name, t, rows, cols, layout, 0)
    return Operand(name, t, rows, cols, layout, minimum + int(rng.integers(0, 4)))


def coop_data(rng, t, n, nonzero=False):
    """Small integer-valued data: every float sum and product stays exact."""
    if is_float_component(t):
        values = rng.integers(-8, 9, n)
    elif np.iinfo(COOP_DTYPES[t]).min < 0:
        values = rng.integers(-128 if t != "char" else -128, 128, n)
    else:
        values = rng.integers(0, 256, n)
    if nonzero:
        values = np.where(values == 0, 3, values)
    return values.astype(COOP_DTYPES[t])


@dataclass
class CoopCase:
    source: str
    kind: str
    operands: list            # Operand per buffer argument, in parameter order
    inputs: dict              # name -> numpy array (inputs only)
    output: Operand
    extra_outputs: list       # further stored Operands
    scalar: object            # the scalar argument (alpha), or None
    tiles: int
    global_size: tuple
    local_size: tuple
    subgroup_size: int
    reference: object         # callable (tile) -> {output name: matrix}


def coop_launch(rng):
    s = int(rng.choice([8, 16, 32]))
    per_group, groups = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    return s, per_group, groups, (s * per_group, groups), (s * per_group, 1)


def _typedef(name, t, rows, cols, use):
    return (f"typedef {t} {name} __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, "
            f"{rows}, {cols}, {USES[use]})));")


def _load(op):
    return f"coop_mat_load({op.name} + tile * {op.tile_elems}, {LAYOUTS[op.layout]}, {op.stride})"


def _store(op, value):
    return f"coop_mat_store({op.name} + tile * {op.tile_elems}, {value}, {LAYOUTS[op.layout]}, {op.stride});"


def _signed_view(values, signed):
    """SPV_KHR_cooperative_matrix: integer components are sign-extended when the operand's
    signed flag is set, zero-extended otherwise, whatever the OpenCL component type."""
    bits = values.dtype.itemsize * 8
    raw = values.astype(np.int64) & ((1 << bits) - 1)
    return np.where(signed & (raw >= 1 << (bits - 1)), raw - (1 << bits), raw)


def mul_add_case(rng):
    """D = mulAdd(A, B, C, flags) with random M (power of two), K (power of two: B's rows),
    N, component types, sign flags, layouts and strides."""
    m, k = int(rng.choice(POW2_ROWS)), int(rng.choice(POW2_ROWS + (32,)))
    n = int(rng.integers(1, 41))
    if rng.random() < 0.4:
        ta, tc = str(rng.choice(["float", "half"])), "float"
        tb = ta
        flags = {}
    else:
        ta = str(rng.choice(["char", "uchar", "short"]))
        # A and B of one component type here (char x uchar is valid too: test_coop_convert_use);
        # the sign flags still choose how the bits extend.
        tb = ta
        tc = str(rng.choice(["int", "uint"]))
        flags = {f: bool(rng.random() < 0.5) for f in OPERAND_FLAGS}
    a = random_operand(rng, "A", ta, m, k, load=True)
    b = random_operand(rng, "B", tb, k, n, load=True)
    c = random_operand(rng, "C", tc, m, n, load=True)
    d = random_operand(rng, "D", tc, m, n)
    s, per_group, groups, glob, local = coop_launch(rng)
    tiles = per_group * groups
    inputs = {op.name: coop_data(rng, op.type, op.tile_elems * tiles) for op in (a, b, c)}
    flag_text = " | ".join(OPERAND_FLAGS[f] for f, on in flags.items() if on) or \
        "CLK_COOPERATIVE_MATRIX_OPERAND_NONE"
    # Variations: C from coop_mat_init instead of memory, the product accumulated twice
    # (d = A*B + (A*B + C)), the result scaled by a kernel argument.
    init_value = int(rng.integers(-5, 6)) if rng.random() < 0.3 else None
    twice = bool(rng.random() < 0.3)
    alpha = int(rng.integers(-3, 4)) or 2
    scale = bool(rng.random() < 0.3)
    if tc == "uint":
        alpha = abs(alpha)
    c_text = _load(c) if init_value is None else f"coop_mat_init(({tc}){init_value})"
    extra = ("\n    d = coop_mat_mulAdd(a, b, d, " + flag_text + ");" if twice else "") + \
        ("\n    d = d * alpha;" if scale else "")
    fp16 = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" if "half" in (ta, tb) else ""
    source = f"""{fp16}{_typedef('mat_a', ta, m, k, 'a')}
{_typedef('mat_b', tb, k, n, 'b')}
{_typedef('mat_c', tc, m, n, 'acc')}

__kernel void fuzz(__global const {ta} *A, __global const {tb} *B, __global const {tc} *C,
                   __global {tc} *D, {tc} alpha)
{{
    size_t tile = get_group_id(1) * get_num_sub_groups() + get_sub_group_id();
    mat_a a = {_load(a)};
    mat_b b = {_load(b)};
    mat_c c = {c_text};
    mat_c d = coop_mat_mulAdd(a, b, c, {flag_text});{extra}
    {_store(d, 'd')}
}}
"""

    def reference(tile):
        ma, mb = a.read(inputs["A"], tile), b.read(inputs["B"], tile)
        mc = c.read(inputs["C"], tile) if init_value is None else \
            np.full((m, n), init_value, np.int64).astype(COOP_DTYPES[tc])
        if is_float_component(ta):
            prod = ma.astype(np.float64) @ mb.astype(np.float64)
            total = prod + mc + (prod if twice else 0)
            return {"D": (total * (alpha if scale else 1)).astype(np.float32)}
        wa, wb = _signed_view(ma, flags["a"]), _signed_view(mb, flags["b"])
        prod = wa @ wb
        total = prod + mc.astype(np.int64) + (prod if twice else 0)
        total = total * (alpha if scale else 1)
        return {"D": (total & 0xFFFFFFFF).astype(np.uint32).view(COOP_DTYPES[tc])}

    return CoopCase(source, "mul_add", [a, b, c, d], inputs, d, [],
                    np.array(alpha).astype(COOP_DTYPES[tc])[()], tiles, glob, local, s, reference)


def wrap32_to(values, dtype):
    """int64 values -> an integer component dtype of at most 32 bits, modulo 2^bits."""
    return (np.asarray(values) & 0xFFFFFFFF).astype(np.uint32).astype(dtype)


def _element_op(t):
    """The body of the element-access loop, applied to every component (index-free so
    the result does not depend on the layout)."""
    if t == "float":
        return "m[i] * 2.0f + 1.0f", lambda x: (x * np.float32(2) + np.float32(1)).astype(np.float32)
    if t == "half":
        return "-m[i]", lambda x: -x
    dtype = COOP_DTYPES[t]
    # m[i] * 3 + 1 is computed in int (integer promotion) and converted back to the
    # component type on assignment (modulo 2^bits for the narrow types).
    return f"({t})(m[i] * 3 + 1)", lambda x: wrap32_to(x.astype(np.int64) * 3 + 1, dtype)


def components_per_work_item(rows, cols, s):
    """V = I*K*J/S of coopmatrix-layout.txt: I = min(M, S), K = M/I,
    J = ceil(I*N/S)*S/I (the layout's own formula, independent of clcoop.ir.layout)."""
    i = min(rows, s)
    j = -(-i * cols // s) * s // i
    return i * (rows // i) * j // s


def elementwise_case(rng):
    """X op Y, -X, X * alpha, element access, a conversion; all of one random matrix type."""
    rows, cols = int(rng.choice(POW2_ROWS)), int(rng.integers(1, 41))
    use = str(rng.choice(list(USES)))
    t = str(rng.choice(list(COOP_DTYPES)))
    t2 = str(rng.choice([u for u in COOP_DTYPES if u != t]))
    op = str(rng.choice(["+", "-", "*", "/"]))
    x = random_operand(rng, "X", t, rows, cols, load=True)
    y = random_operand(rng, "Y", t, rows, cols, load=True)
    out = random_operand(rng, "OUT", t, rows, cols)
    conv = random_operand(rng, "CONV", t2, rows, cols)
    s, per_group, groups, glob, local = coop_launch(rng)
    tiles = per_group * groups
    inputs = {"X": coop_data(rng, t, x.tile_elems * tiles),
              "Y": coop_data(rng, t, y.tile_elems * tiles, nonzero=(op == "/"))}
    if is_float_component(t2) or not is_float_component(t):
        pass
    else:
        # float -> integer conversion of a value the target cannot hold is undefined:
        # keep X inside every integer range (0..8 after the element op as well).
        inputs["X"] = np.abs(inputs["X"]).astype(COOP_DTYPES[t]) // 4
    alpha = int(rng.integers(-3, 4)) or 2
    ops = [str(v) for v in rng.permutation(["binary", "negate", "scalar", "element"])]
    ops = ops[:int(rng.integers(1, 5))]
    element_text, element_fn = _element_op(t)
    fp16 = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" if "half" in (t, t2) else ""
    alpha_text = f"({t}){alpha}"
    lines = []
    for step in ops:
        if step == "binary":
            lines.append(f"r = r {op} y;")
        elif step == "negate":
            lines.append("r = -r;")
        elif step == "scalar":
            lines.append(f"r = r * alpha;")
        else:
            lines.append("r = element_op(r);")
    body = "\n    ".join(lines)
    source = f"""{fp16}{_typedef('mat_t', t, rows, cols, use)}
{_typedef('mat_u', t2, rows, cols, use)}

static mat_t element_op(mat_t m)
{{
    for (uint i = 0; i < coop_mat_length(m); ++i)
        m[i] = {element_text};
    return m;
}}

__kernel void fuzz(__global const {t} *X, __global const {t} *Y, __global {t} *OUT,
                   __global {t2} *CONV, __global uint *LEN, {t} alpha)
{{
    size_t tile = get_group_id(1) * get_num_sub_groups() + get_sub_group_id();
    mat_t x = {_load(x)};
    mat_t y = {_load(y)};
    mat_t r = x;
    {body}
    {_store(out, 'r')}
    mat_u u = (mat_u)x;
    {_store(conv, 'u')}
    LEN[tile * {s} + get_sub_group_local_id()] = coop_mat_length(x);
}}
"""
    dtype = COOP_DTYPES[t]

    def apply(step, r, my):
        with np.errstate(all="ignore"):
            if step == "binary":
                if op == "/" and not is_float_component(t):
                    q = np.abs(r.astype(np.int64)) // np.abs(my.astype(np.int64))
                    q = np.where((r < 0) != (my < 0), -q, q)
                    return (q & 0xFFFFFFFF).astype(np.uint32).astype(dtype)
                wide = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[op]
                if is_float_component(t):
                    return wide(r, my).astype(dtype)
                return wrap32_to(wide(r.astype(np.int64), my.astype(np.int64)), dtype)
            if step == "negate":
                return (-r).astype(dtype) if is_float_component(t) else \
                    ((-r.astype(np.int64)) & 0xFFFFFFFF).astype(np.uint32).astype(dtype)
            if step == "scalar":
                if is_float_component(t):
                    return (r * dtype(alpha)).astype(dtype)
                # The scalar is converted to the component type first (C conversion).
                factor = np.int64(np.array(alpha).astype(dtype)) if t != "uint" else alpha & 0xFFFFFFFF
                return wrap32_to(r.astype(np.int64) * factor, dtype)
            return element_fn(r)

    def reference(tile):
        mx, my = x.read(inputs["X"], tile), y.read(inputs["Y"], tile)
        r = mx
        for step in ops:
            r = apply(step, r, my)
        if is_float_component(t) and not is_float_component(t2):
            converted = np.trunc(mx.astype(np.float64)).astype(np.int64).astype(COOP_DTYPES[t2])
        else:
            converted = mx.astype(COOP_DTYPES[t2])
        return {"OUT": r, "CONV": converted,
                "LEN": np.full((1, s), components_per_work_item(rows, cols, s), np.uint32)}

    lengths = Operand("LEN", "uint", 1, s, "row", s)
    return CoopCase(source, "elementwise", [x, y, out, conv, lengths], inputs, out, [conv, lengths],
                    np.array(alpha).astype(dtype)[()], tiles, glob, local, s, reference)


def coop_case(rng):
    return mul_add_case(rng) if rng.random() < 0.5 else elementwise_case(rng)


SENTINEL = 0x5B


CROSS_PRODUCERS = ("clcoop", "clcoop-O2", "clang-O0", "clang-O2")


def run_coop(case, producer="clcoop", clang=None, outputs=None):
    """Runs the case; returns {output name: buffer} (also filled into `outputs` if given,
    before the launch, so a caller sees the buffers even when the launch faults)."""
    prog = build_program(case.source, producer, clang)
    args, outputs = [], ({} if outputs is None else outputs)
    for op in case.operands:
        if op.name in case.inputs:
            args.append(case.inputs[op.name].copy())
        else:
            buf = np.full(op.tile_elems * case.tiles, SENTINEL, COOP_DTYPES[op.type])
            outputs[op.name] = buf
            args.append(buf)
    if case.scalar is not None:
        args.append(case.scalar)
    prog.run("fuzz", case.global_size, case.local_size, *args, subgroup_size=case.subgroup_size)
    return outputs


def coop_expected(case):
    """Expected output buffers: the reference matrices placed by layout and stride; every
    other element (stride padding) keeps the sentinel."""
    expected = {}
    for op in [case.output] + case.extra_outputs:
        expected[op.name] = np.full(op.tile_elems * case.tiles, SENTINEL, COOP_DTYPES[op.type])
    for tile in range(case.tiles):
        for name, mat in case.reference(tile).items():
            op = next(o for o in case.operands if o.name == name)
            op.write(expected[name], tile, mat)
    return expected


def coop_mismatch(case, got, expected):
    """None, or a description of the first output that differs (bit-exact compare)."""
    for name, want in expected.items():
        have = got[name]
        same = have.view(f"u{have.dtype.itemsize}") == want.view(f"u{want.dtype.itemsize}")
        if not same.all():
            first = int(np.flatnonzero(~same)[0])
            return (f"{name}: {int((~same).sum())} elements differ, first at {first}: got "
                    f"{have[first]!r}, expected {want[first]!r}; global {case.global_size} local "
                    f"{case.local_size} S={case.subgroup_size}\n{case.source}")
    return None


# ------------------------------------------------------------------ vector differential cases
# Random plain kernels over vectors of every width, compiled by clcoop and by clang-22
# (-ffp-contract=off), both run in the interpreter and compared bit for bit: clang's IR is
# the oracle, so no Python reference is needed. Some kernels spell their vector types as
# user typedefs (`typedef float v_float4 __attribute__((ext_vector_type(4)))`).

VEC_ELEMS = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float")
VEC_WIDTHS = (2, 3, 4, 8, 16)
ELEM_SIZE = {"char": 1, "uchar": 1, "short": 2, "ushort": 2, "int": 4, "uint": 4, "long": 8,
             "ulong": 8, "float": 4}
SAME_SIZE_ELEMS = {size: [e for e in VEC_ELEMS if ELEM_SIZE[e] == size] for size in (1, 2, 4, 8)}
INT_VEC_BUILTINS = ("min", "max", "rotate", "add_sat", "sub_sat", "hadd", "mul_hi", "clz",
                    "popcount", "clamp")
FLOAT_VEC_BUILTINS = ("fmin", "fmax", "fabs", "floor", "copysign", "clamp", "mix_select")
ROUNDINGS = ("", "_rte", "_rtz", "_rtp", "_rtn")


@dataclass
class VectorDiffCase:
    """One source of `len(kernels)` kernels `k<i>(ib, fb, ob)`, each work-item loading
    vectors from ib (random bits) / fb (floats), computing, and storing every variable to ob."""
    source: str
    kernels: list
    typedefs: bool              # vector types spelled as user ext_vector_type typedefs
    work_items: int
    ib: np.ndarray
    fb: np.ndarray
    out_bytes: int


class VectorExprGen:
    """Random expressions of a given vector type (elem, width) over the kernel's variables."""

    def __init__(self, rng, variables, spell):
        self.rng = rng
        self.variables = variables          # name -> (elem, width)
        self.spell = spell                  # (elem, width) -> the type's spelling

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def expr(self, elem, width, depth):
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            return self.leaf(elem, width)
        kind = self.pick(("binary", "binary", "unary", "ternary", "builtin", "convert", "as"))
        t = self.spell((elem, width))
        if kind == "unary":
            op = "-" if elem == "float" or rng.random() < 0.5 else "~"
            return f"({op}{self.expr(elem, width, depth - 1)})"
        if kind == "ternary":
            a, b = self.expr(elem, width, depth - 1), self.expr(elem, width, depth - 1)
            c, d = self.expr(elem, width, depth - 2), self.expr(elem, width, depth - 2)
            return f"(({a}) {self.pick(COMPARE_OPS)} ({b}) ? ({c}) : ({d}))"
        if kind == "builtin":
            return self.builtin(elem, width, depth)
        if kind == "convert":
            src = self.pick([e for e in VEC_ELEMS if e != elem])
            sat = "_sat" if elem != "float" and rng.random() < 0.5 else ""
            rounding = self.pick(ROUNDINGS)
            return f"convert_{elem}{width}{sat}{rounding}({self.expr(src, width, depth - 1)})"
        if kind == "as" and width != 3:
            src = self.pick([e for e in SAME_SIZE_ELEMS[ELEM_SIZE[elem]] if e != elem])
            return f"as_{elem}{width}({self.expr(src, width, depth - 1)})"
        return self.binary(elem, width, depth, t)

    def binary(self, elem, width, depth, t):
        a, b = self.expr(elem, width, depth - 1), self.expr(elem, width, depth - 1)
        ops = ["+", "-", "*"] + (["/"] if elem == "float" else
                                 ["/", "%", "&", "|", "^", "<<", ">>"])
        op = self.pick(ops)
        if op in ("/", "%") and elem != "float":
            # A divisor in 1..8: no division by zero, no INT_MIN / -1.
            return f"(({a}) {op} ((({b}) & ({t})7) + ({t})1))"
        if self.rng.random() < 0.3:
            return f"(({a}) {op} ({elem})({self.scalar(elem)}))"      # vector op scalar
        return f"(({a}) {op} ({b}))"

    def builtin(self, elem, width, depth):
        a, b = self.expr(elem, width, depth - 1), self.expr(elem, width, depth - 1)
        if elem == "float":
            name = self.pick(FLOAT_VEC_BUILTINS)
            if name in ("fabs", "floor"):
                return f"{name}({a})"
            if name == "clamp":
                return f"clamp({a}, -2.0f, 3.0f)"
            if name == "mix_select":
                mask = self.expr("int", width, depth - 2)
                return f"select({a}, {b}, {mask})"
            return f"{name}({a}, {b})"
        name = self.pick(INT_VEC_BUILTINS)
        if name in ("clz", "popcount"):
            return f"{name}({a})"
        if name == "clamp":
            lo, hi = sorted((self.scalar(elem), self.scalar(elem)))
            return f"clamp({a}, ({elem}){lo}, ({elem}){hi})"
        return f"{name}({a}, {b})"

    def scalar(self, elem):
        if elem == "float":
            return f"{float(self.rng.integers(-16, 17)) / 4}f"
        low = 0 if elem.startswith("u") else -9
        return str(int(self.rng.integers(low, 40)))

    def leaf(self, elem, width):
        rng = self.rng
        same = [n for n, vt in self.variables.items() if vt == (elem, width)]
        wider = [n for n, (e, w) in self.variables.items() if e == elem and w != width]
        r = rng.random()
        if same and r < 0.5:
            return self.pick(same)
        if wider and r < 0.8:
            return self.swizzle(self.pick(wider), width)
        t = self.spell((elem, width))
        if rng.random() < 0.5:
            return f"({t})({self.scalar(elem)})"
        return f"({t})({', '.join(self.scalar(elem) for _ in range(width))})"

    def swizzle(self, name, width):
        """A `width`-component swizzle of variable `name` (OpenCL C 6.3.7)."""
        src_width = self.variables[name][1]
        rng = self.rng
        if src_width == 2 * width and width != 3 and rng.random() < 0.4:
            return f"{name}.{self.pick(('lo', 'hi', 'even', 'odd'))}"
        indices = [int(i) for i in rng.integers(0, src_width, width)]
        if src_width <= 4 and rng.random() < 0.5:
            return f"{name}.{''.join('xyzw'[i] for i in indices)}"
        return f"{name}.s{''.join('0123456789abcdef'[i] for i in indices)}"


def _vector_kernel(rng, index, spell):
    """Source of kernel k<index>: variables of 2-4 random vector types, 3-6 statements."""
    variables = {}
    for j in range(int(rng.integers(2, 5))):
        variables[f"x{j}"] = (VEC_ELEMS[int(rng.integers(len(VEC_ELEMS)))],
                              VEC_WIDTHS[int(rng.integers(len(VEC_WIDTHS)))])
    gen = VectorExprGen(rng, variables, spell)
    lines = []
    for j, (name, (elem, width)) in enumerate(variables.items()):
        source = "fb" if elem == "float" else "ib"
        lines.append(f"{spell((elem, width))} {name} = vload{width}(g * 4 + {j}, "
                     f"(global const {elem} *){source});")
    names = list(variables)
    for _ in range(int(rng.integers(3, 7))):
        name = gen.pick(names)
        elem, width = variables[name]
        r = rng.random()
        if r < 0.2:
            comp = int(rng.integers(width))
            lines.append(f"{name}.s{'0123456789abcdef'[comp]} = "
                         f"({elem})({gen.expr(elem, 2, 2)}).y;")
        elif r < 0.35 and width in (4, 8, 16):
            lines.append(f"{name}.lo = {gen.expr(elem, width // 2, 3)};")
        else:
            op = gen.pick(("=", "+=", "*=") if elem == "float" else ("=", "+=", "^=", "-="))
            lines.append(f"{name} {op} {gen.expr(elem, width, 4)};")
    for j, (name, (elem, width)) in enumerate(variables.items()):
        lines.append(f"vstore{width}({name}, g * 4 + {j}, (global {elem} *)ob);")
    body = "\n    ".join(lines)
    return (f"kernel void k{index}(global const long *ib, global const float *fb, "
            f"global ulong *ob)\n{{\n    size_t g = get_global_id(0);\n    {body}\n}}\n")


def vector_diff_case(rng, kernels=6, work_items=8, typedefs=None):
    """A VectorDiffCase; typedefs None: chosen at random (a fifth of the cases)."""
    if typedefs is None:
        typedefs = bool(rng.random() < 0.2)
    used = set()

    def spell(vt):
        elem, width = vt
        used.add(vt)
        return f"v_{elem}{width}" if typedefs else f"{elem}{width}"

    bodies = [_vector_kernel(rng, i, spell) for i in range(kernels)]
    # Both compilers keep a * b + c unfused (clang also gets -ffp-contract=off).
    header = "#pragma OPENCL FP_CONTRACT OFF\n"
    if typedefs:
        header += "".join(f"typedef {e} v_{e}{w} __attribute__((ext_vector_type({w})));\n"
                          for e, w in sorted(used))
    # Inputs: room for vload16 at index g*4+3 of 8-byte elements.
    slots = (work_items * 4 + 4) * 16
    ib = rng.integers(-2**63, 2**63, slots, dtype=np.int64)
    small = rng.random(slots) < 0.5       # small values make sums and products interesting
    ib[small] = rng.integers(-300, 300, int(small.sum()))
    fb = (rng.integers(-64, 65, slots * 2) / 8).astype(np.float32)
    return VectorDiffCase(header + "\n".join(bodies), [f"k{i}" for i in range(kernels)],
                          typedefs, work_items, ib, fb, slots * 8)


def run_vector_diff(case, producer, clang=None):
    """{kernel name: output bytes} of every kernel of the case built by `producer`."""
    prog = build_program(case.source, producer, clang)
    outputs = {}
    for name in case.kernels:
        ob = np.zeros(case.out_bytes // 8, np.uint64)
        prog.run(name, (case.work_items,), (case.work_items,), case.ib.copy(), case.fb.copy(), ob)
        outputs[name] = ob.view(np.uint8)
    return outputs


def vector_diff_problem(case, clang):
    """None, or which kernels' outputs differ between clcoop -O0 and clang-22 -O0."""
    ours = run_vector_diff(case, "clcoop")
    theirs = run_vector_diff(case, "clang-O0", clang)
    bad = [name for name in case.kernels if not np.array_equal(ours[name], theirs[name])]
    if not bad:
        return None
    first = bad[0]
    at = int(np.flatnonzero(ours[first] != theirs[first])[0])
    return (f"kernels {bad} differ from clang-22's (first: {first}, byte {at}: "
            f"{ours[first][at]} vs {theirs[first][at]})\n{case.source}")
