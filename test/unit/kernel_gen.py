"""Random valid OpenCL C kernels with independently computed expected results (issue 5
item 3, "the interpreter too"). Shared by test/unit/test_fuzz_interp.py and
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
    if name == "add_sat":
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        return min(max(args[0] + args[1], lo), hi)
    if name == "hadd":
        return (args[0] + args[1]) >> 1
    raise ValueError(name)


@dataclass
class Call:
    name: str
    args: list
    arg_type: str
    type: str = field(init=False)

    def __post_init__(self):
        self.type = UNSIGNED_OF[self.arg_type] if self.name == "abs" else self.arg_type

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
# Interpreter bugs the fuzzer found (reported, see test_fuzz_interp.py's xfail tests):
# 64-bit mul_hi with a uniform first argument raises ValueError; 64-bit add_sat wraps
# instead of saturating. The generators avoid them unless told otherwise.
KNOWN_BUGS = {("mul_hi", 64), ("add_sat", 64)}
INT_BUILTINS = ("min", "max", "clamp", "abs", "popcount", "clz", "rotate", "mul_hi",
                "add_sat", "hadd")


class ExprGen:
    def __init__(self, rng, variables, avoid=KNOWN_BUGS):
        self.rng = rng
        self.variables = variables  # list of Var
        self.avoid = avoid          # (builtin, bits) pairs not to generate

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
        if name in ("abs", "popcount", "clz"):
            return Call(name, [first], first.type)
        second = self.expr("int", d)
        t = common_type(first.type, second.type)
        if (name, INT_TYPES[t][0]) in self.avoid:
            name = "max"
        if name == "clamp":
            lo, hi = sorted([self.const(t).value, self.const(t).value])
            return Call(name, [first, Const(lo, t), Const(hi, t)], t)
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
    glob, local = random_launch(rng, max_items)
    subgroup = int(rng.choice([8, 16, 32]))
    inputs = random_inputs(rng, int(np.prod(glob)), extremes)
    return ScalarCase(scalar_source(result_type, body, len(glob)), result_type, body, inputs,
                      glob, local, subgroup)


def _linear(fn, dims):
    terms, scale = [], []
    for d in range(dims):
        terms.append(" * ".join([f"{fn}({d})"] + scale))
        scale.append(f"{'get_local_size' if fn == 'get_local_id' else 'get_global_size' if fn == 'get_global_id' else 'get_num_groups'}({d})")
    return " + ".join(f"({t})" for t in terms)


def scalar_source(rt, body, dims):
    rt_cast = f"({rt})"
    return f"""\
__kernel void fuzz(__global const int *ia, __global const uint *ua, __global const long *la,
                   __global const ulong *ula, __global const float *fa,
                   __global {rt} *out, __global uint *ids)
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
    }}
    out[gid] = acc;
    ids[gid * {ID_FIELDS} + 0] = (uint)({_linear('get_local_id', dims)});
    ids[gid * {ID_FIELDS} + 1] = (uint)get_local_linear_id();
    ids[gid * {ID_FIELDS} + 2] = (uint)({_linear('get_group_id', dims)});
    ids[gid * {ID_FIELDS} + 3] = get_sub_group_local_id();
    ids[gid * {ID_FIELDS} + 4] = get_sub_group_id();
    ids[gid * {ID_FIELDS} + 5] = get_sub_group_size();
}}
"""


def scalar_reference_lane(case, gid, strict):
    """The value out[gid] must hold (raises UndefinedBehavior when strict)."""
    env = {name: case.inputs[buf][gid].item() for name, _, buf in INPUTS}
    env["x4"] = np.float32(case.inputs["fa"][gid])
    env["g"] = gid
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
    return env["acc"]


def scalar_reference(case, strict=False):
    out = np.zeros(case.total, DTYPES[case.result_type])
    for gid in range(case.total):
        out[gid] = scalar_reference_lane(case, gid, strict)
    return out


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


def scalar_buffers(case):
    """Fresh argument arrays in kernel parameter order (outputs filled with a sentinel)."""
    out = np.full(case.total, 0x5A, DTYPES[case.result_type])
    ids = np.full(case.total * ID_FIELDS, 0xDEADBEEF, np.uint32)
    args = [case.inputs[buf].copy() for _, _, buf in INPUTS] + [out, ids]
    return args, out, ids


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
    """A clcoop.Program from clcoop ('clcoop') or clang-22 ('clang-O0' / 'clang-O2')."""
    import clcoop
    if producer == "clcoop":
        return clcoop.Program(source).build()
    return clcoop.Program.from_ir(clang_ir(clang, source, int(producer[-1])))


def run_scalar(case, producer, clang=None):
    """Runs the case; returns (out, ids) as the interpreter left them."""
    prog = build_program(case.source, producer, clang)
    args, out, ids = scalar_buffers(case)
    prog.run("fuzz", case.global_size, case.local_size, *args, subgroup_size=case.subgroup_size)
    return out, ids


def scalar_mismatches(case, out, expected):
    """Indices where out differs from expected (floats: bit-exact, NaN equal to NaN)."""
    if case.result_type == "float":
        same = (out.view(np.uint32) == expected.view(np.uint32)) | (np.isnan(out) & np.isnan(expected))
    else:
        same = out == expected
    return np.flatnonzero(~same)


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
            expected = scalar_reference(case, strict=True)
        except UndefinedBehavior:
            continue
        return case, expected
    raise RuntimeError("no UB-free case found; lower the depth")
