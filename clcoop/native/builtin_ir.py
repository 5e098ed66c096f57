"""Native definitions of OpenCL built-ins (docs/native.md, "Built-ins compiled natively"):
each computes the interpreter's result bit for bit; work-item functions read the context."""
import math
import re

import llvmlite.ir as ir

from clcoop.ir.demangle import demangle
from clcoop.native import irbuild, math_ir
from clcoop.native.integer_dot_ir import integer_dot_definition
from clcoop.ir.text import split_top_level
from clcoop.native import support
from clcoop.native.support import Unsupported

def params_of(name):
    return demangle(name)[1]


_CONVERT_RE = re.compile(r"convert_(u?char|u?short|u?int|u?long|float|double|half)(\d*)")


def exact_builtin(name, base, mparams, ret, params):
    """Definitions of the integer min/max/clamp/abs and the default-rounding conversions
    whose LLVM instruction gives the interpreter's NumPy result bit for bit, and of
    `prefetch` (no result: a hint); None for everything else."""
    if mparams is None or not mparams:
        return None
    if base == "prefetch":
        return prefetch_definition(name, mparams, params) if ret == "void" else None
    dot = integer_dot_definition(name, base, mparams, ret, params) or math_ir.definition(name, base, ret, params)
    if dot is not None:
        return dot
    first = mparams[0]
    scalar = first[2] if first[0] == "vec" else first
    body = _exact_body(base, mparams, first, scalar, ret, params)
    if body is None:
        return None
    fn, b = irbuild.builtin(name, ret, params)
    b.ret(body(b, list(fn.args[1:]), fn.return_value.type))
    return irbuild.function_text(fn)


def _exact_body(base, mparams, first, scalar, ret, params):
    """A function (builder, arguments, result type) -> result value computing the built-in
    `base` as the interpreter, or None when it is not one exact_builtin takes."""
    if base in ("min", "max", "clamp", "abs") and scalar[0] == "int":
        # max(int4, int), clamp(int4, int, int): the scalar operands are splat.
        if any(p not in (first, scalar) for p in mparams) or params[0] != ret or \
                any(t not in (ret, _element(ret)) for t in params):
            return None
        return lambda b, a, t: _integer_order(b, base, "s" if scalar[2] else "u", _splat_operands(b, t, a))
    if base == "select" and len(params) == 3 and params[0] == params[1] == ret:
        return _select
    if base == "fma" and scalar[0] == "float" and len(params) == 3 and all(t == ret for t in params) \
            and _element(ret) in ("float", "double"):
        # OpenCL C 3.0 6.15.2: rounded once, as the interpreter (interp/fused.py); LLVM's
        # llvm.fma is the host's FMA instruction (or libm's fma/fmaf).
        return lambda b, a, t: irbuild.intrinsic(b, "fma", a, "r")
    if base in _FLOAT_ORDER and scalar[0] == "float" and len(params) == _FLOAT_ORDER[base] and \
            params[0] == ret and all(t in (ret, _element(ret)) for t in params):
        return lambda b, a, t: _float_order_result(b, base, _splat_operands(b, t, a))
    if base in _RELATIONAL and scalar[0] == "float" and len(params) == _RELATIONAL[base][1] and \
            all(t == params[0] for t in params):
        return lambda b, a, t: _relational(b, base, a, t, scalar[1])
    if base in _INTEGER_BUILTINS and scalar[0] == "int" and all(p == first for p in mparams) \
            and all(t == params[0] for t in params) and len(params) == _INTEGER_BUILTINS[base]:
        return lambda b, a, t: _integer_builtin(b, base, a, scalar[1], scalar[2])
    c = _TO_INT_RE.fullmatch(base)
    if c and len(params) == 1 and (c.group(3) or scalar[0] == "float"):
        unsigned = c.group(1).startswith("u")
        return lambda b, a, t: _to_int(b, a[0], t, scalar, unsigned, bool(c.group(3)), c.group(4))
    m = _CONVERT_RE.fullmatch(base)
    if m and len(params) == 1:
        dst_float = m.group(1) in ("float", "double", "half")
        return lambda b, a, t: _convert(b, a[0], t, scalar, dst_float)
    return None


def _integer_order(b, base, sign, a):
    """min, max, clamp (smax then smin, or umax then umin) and abs of integers."""
    if base == "abs":
        if sign == "u":
            return a[0]
        return irbuild.intrinsic(b, "abs", [a[0], irbuild.const(irbuild.I1, 0)], "r")
    if base == "clamp":
        low = irbuild.intrinsic(b, f"{sign}max", [a[0], a[1]], "m")
        return irbuild.intrinsic(b, f"{sign}min", [low, a[2]], "r")
    return irbuild.intrinsic(b, f"{sign}{base}", [a[0], a[1]], "r")


def _select(b, a, t):
    """OpenCL C 6.15.6 select(a, b, c): scalar c != 0, vector: the most significant bit of
    each c picks b."""
    c = a[2]
    vector = irbuild.lanes(c.type) is not None
    cond = irbuild.icmp(b, "slt" if vector else "ne", c, irbuild.const(c.type, 0), "cond")
    return b.select(cond, a[1], a[0], name="r")


def _convert(b, x, dst, scalar, dst_float):
    """convert_<dst>(x) with the default rounding, one LLVM instruction (or none)."""
    sbits, dbits = irbuild.bits_of(x.type), irbuild.bits_of(dst)
    if scalar[0] == "float" and dst_float:
        op = b.fpext if dbits > sbits else b.fptrunc if dbits < sbits else None
    elif dst_float:
        op = b.sitofp if scalar[2] else b.uitofp
    else:
        op = b.trunc if dbits < sbits else (b.sext if scalar[2] else b.zext) if dbits > sbits else None
    return op(x, dst, name="r") if op else x


# Float built-ins computed with interp/float_order.py's selects (-0.0 < +0.0; fmax/fmin/
# max/min: a NaN operand loses) or, for mad, as the interpreter's a * b + c: name -> arity.
# A scalar operand of a vector overload (max(float4, float)) is splat.
_FLOAT_ORDER = {"fmax": 2, "fmin": 2, "max": 2, "min": 2, "clamp": 3, "mad": 3}


def _element(t):
    return re.sub(r"<\d+ x (\w+)>", r"\1", t)


def float_order(b, kind, a, c, name):
    """fmax(a, c) ("max") or fmin(a, c) ("min") as interp/float_order.py: the first operand
    when it is larger (smaller), when both are equal and it is +0.0 (-0.0) or anything not
    a zero, or when the second is a NaN."""
    t = a.type
    wins = irbuild.fcmp(b, "ogt" if kind == "max" else "olt", a, c, f"{name}.wins")
    equal = irbuild.fcmp(b, "oeq", a, c, f"{name}.eq")
    bits = b.bitcast(a, irbuild.int_of_width(t), name=f"{name}.bits")
    negative = irbuild.icmp(b, "slt", bits, irbuild.const(bits.type, 0), f"{name}.neg")
    sign = b.xor(negative, irbuild.const(negative.type, 1), name=f"{name}.sign") if kind == "max" else negative
    tie = b.and_(equal, sign, name=f"{name}.tie")
    nan = irbuild.fcmp(b, "uno", c, c, f"{name}.nan")
    keep = b.or_(b.or_(wins, tie, name=f"{name}.k"), nan, name=f"{name}.keep")
    return b.select(keep, a, c, name=name)


def _splat_operands(b, t, args):
    """The built-in's arguments as values of type t: a scalar argument of a vector
    overload is splat."""
    return [x if x.type == t else irbuild.splat(b, x, t, f"s{i}") for i, x in enumerate(args)]


def _float_order_result(b, base, a):
    if base == "mad":
        return b.fadd(b.fmul(a[0], a[1], name="ab"), a[2], name="r")
    if base == "clamp":     # OpenCL C 3.0 6.15.4: fmin(fmax(x, minval), maxval)
        return float_order(b, "min", float_order(b, "max", a[0], a[1], "lo"), a[2], "r")
    return float_order(b, base.removeprefix("f"), a[0], a[1], "r")


# OpenCL C 3.0 6.15.6 relational functions of floats: name -> (fcmp predicate, or the
# test's name, arity). NumPy's comparisons in the interpreter are IEEE's: a NaN operand makes
# every ordered predicate false and not_equal true ("une").
_RELATIONAL = {"isequal": ("oeq", 2), "isnotequal": ("une", 2), "isgreater": ("ogt", 2),
               "isgreaterequal": ("oge", 2), "isless": ("olt", 2), "islessequal": ("ole", 2),
               "isordered": ("ord", 2), "isunordered": ("uno", 2), "isnan": ("uno", 1),
               "isinf": ("inf", 1), "isfinite": ("finite", 1), "isnormal": ("normal", 1),
               "signbit": ("sign", 1)}

# Smallest normal magnitude (np.finfo(...).tiny), per float width.
_TINY = {16: 2.0 ** -14, 32: 2.0 ** -126, 64: 2.0 ** -1022}


def _relational(b, base, a, ret, bits):
    """A relational built-in of a[0] (and a[1]): a scalar returns 1 for true, a vector -1
    in each true element (OpenCL C 6.15.6)."""
    test = _RELATIONAL[base][0]
    x = a[0]
    t = x.type

    def compare(predicate, value, name):
        return irbuild.fcmp(b, predicate, x, irbuild.const(t, value), name)
    if test == "sign":
        bits_value = b.bitcast(x, irbuild.int_of_width(t), name="i")
        holds = irbuild.icmp(b, "slt", bits_value, irbuild.const(bits_value.type, 0), "holds")
    elif test == "inf":
        holds = b.or_(compare("oeq", math.inf, "p"), compare("oeq", -math.inf, "n"), name="holds")
    elif test in ("finite", "normal"):
        holds = b.and_(compare("one", math.inf, "p"), compare("one", -math.inf, "n"),
                       name="holds" if test == "finite" else "f")
        if test == "normal":
            tiny = _TINY[bits]
            big = b.or_(compare("oge", tiny, "big"), compare("ole", -tiny, "neg"), name="m")
            holds = b.and_(holds, big, name="holds")
    else:
        holds = irbuild.fcmp(b, test, x, a[1] if _RELATIONAL[base][1] == 2 else x, "holds")
    widen = b.sext if irbuild.lanes(t) is not None else b.zext
    return widen(holds, ret, name="r")


# Conversions to an integer type with saturation or a rounding mode (OpenCL C 3.0 6.4.3),
# and every float -> integer one.
_TO_INT_RE = re.compile(r"convert_(u?char|u?short|u?int|u?long)(\d*)(_sat)?(_rte|_rtz|_rtp|_rtn)?")


def _to_int(b, x, dst, scalar, unsigned, sat, rounding):
    """convert_<dst>[_sat][_rounding](x) as the interpreter computes it
    (interp/ocl_builtins.py, _convert): integers saturate by clamping in 128 bits; floats
    are rounded (default: toward zero), then converted saturating, NaN -> 0 (LLVM's
    fpto[su]i.sat), with or without _sat (interp/scalars.float_to_int)."""
    dbits = irbuild.bits_of(dst)
    lo, hi = (0, (1 << dbits) - 1) if unsigned else (-(1 << (dbits - 1)), (1 << (dbits - 1)) - 1)
    if scalar[0] == "int":
        if not sat:
            return _convert(b, x, dst, scalar, False)
        wide = irbuild.shaped(dst, ir.IntType(128))
        w = (b.sext if scalar[2] else b.zext)(x, wide, name="w")
        low = irbuild.intrinsic(b, "smax", [w, irbuild.const(wide, lo)], "m")
        return b.trunc(irbuild.intrinsic(b, "smin", [low, irbuild.const(wide, hi)], "c"), dst, name="r")
    rounded = irbuild.intrinsic(b, {"_rte": "roundeven", "_rtp": "ceil", "_rtn": "floor"}.get(rounding, "trunc"),
                                [x], "x")
    # With or without _sat: saturating, NaN -> 0 (interp/scalars.float_to_int).
    return irbuild.intrinsic(b, f"fpto{'u' if unsigned else 's'}i.sat", [rounded], "r", types=[dst, x.type],
                             ret=dst)


# OpenCL C 3.0 6.15.3 integer functions with an exact LLVM form: name -> arity.
_INTEGER_BUILTINS = {"popcount": 1, "clz": 1, "ctz": 1, "rotate": 2, "add_sat": 2, "sub_sat": 2,
                     "hadd": 2, "rhadd": 2, "abs_diff": 2, "mul_hi": 2, "mad_hi": 3, "mad_sat": 3}


def _integer_builtin(b, base, a, bits, signed):
    """An integer built-in of a; results that need more bits are computed in a type twice
    as wide, then narrowed."""
    t = a[0].type
    sg = "s" if signed else "u"
    if base == "popcount":
        return irbuild.intrinsic(b, "ctpop", [a[0]], "r")
    if base in ("clz", "ctz"):
        return irbuild.intrinsic(b, "ctlz" if base == "clz" else "cttz", [a[0], irbuild.const(irbuild.I1, 0)], "r")
    if base == "rotate":
        return irbuild.intrinsic(b, "fshl", [a[0], a[0], a[1]], "r")
    if base in ("add_sat", "sub_sat"):
        return irbuild.intrinsic(b, f"{sg}{base[:3]}.sat", [a[0], a[1]], "r")
    wide = irbuild.shaped(t, ir.IntType(2 * bits))
    extend = b.sext if signed else b.zext
    w = [extend(x, wide, name=f"w{i}") for i, x in enumerate(a)]
    if base in ("hadd", "rhadd"):
        total = b.add(w[0], w[1], name="s")
        if base == "rhadd":
            total = b.add(total, irbuild.const(wide, 1), name="s1")
        half = (b.ashr if signed else b.lshr)(total, irbuild.const(wide, 1), name="h")
        return b.trunc(half, t, name="r")
    if base == "abs_diff":
        difference = irbuild.intrinsic(b, "abs", [b.sub(w[0], w[1], name="d"), irbuild.const(irbuild.I1, 0)], "ad")
        return b.trunc(difference, t, name="r")
    product = b.mul(w[0], w[1], name="p")
    if base in ("mul_hi", "mad_hi"):
        high = b.trunc(b.lshr(product, irbuild.const(wide, bits), name="h"), t, name="hi")
        return b.add(high, a[2], name="r") if base == "mad_hi" else high
    # mad_sat: a*b+c exactly in twice the bits, then saturated
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    total = b.add(product, w[2], name="s")
    if signed:
        total = irbuild.intrinsic(b, "smax", [total, irbuild.const(wide, lo)], "c0")
    return b.trunc(irbuild.intrinsic(b, f"{sg}min", [total, irbuild.const(wide, hi)], "c1"), t, name="r")


def type_bits(t):
    elem = _element(t)
    return {"half": 16, "float": 32, "double": 64}.get(elem) or int(elem[1:])


def intrinsic_suffix(t):
    m = re.fullmatch(r"<(\d+) x (\w+)>", t)
    return f"v{m.group(1)}{m.group(2)}" if m else t


def bool_type(t):
    m = re.fullmatch(r"<(\d+) x \w+>", t)
    return f"<{m.group(1)} x i1>" if m else "i1"


def leading_type(typed_value):
    """'<4 x i32> %x' -> '<4 x i32>', 'i128 -5' -> 'i128'."""
    if typed_value.startswith("<"):
        return typed_value[:typed_value.index(">") + 1]
    return typed_value.split(" ", 1)[0]


def intrinsics_in(definition):
    """(name, declaration) of the llvm.* intrinsics and host functions (math_ir) a built-in
    definition calls."""
    out = []
    # A callee's name quoted or not (llvmlite.ir quotes every name: irbuild.function_text).
    for m in re.finditer(r'call (\S+|<[^>]+>) @"?(llvm\.[\w.]+|__clcoop_libm\.\w+|__clcoop_math_hard)"?\(([^)]*)\)',
                         definition):
        ret, name, args = m.groups()
        types = [leading_type(a.strip()) for a in split_top_level(args)]
        out.append((name, f"declare {ret} @{name}({', '.join(types)})"))
    return out


def ctx_slot(name):
    return f"%s.{name}"


def type_suffix(t):
    m = re.fullmatch(r"<(\d+) x (\w+)>", t)
    if m:
        return f"v{m.group(1)}{type_suffix(m.group(2))}"
    return {"float": "f32", "double": "f64", "half": "f16", "bfloat": "bf16"}.get(t, t)


def store_size(t, layout):
    if t.kind == "int":
        return max(1, (t.bits + 7) // 8)
    if t.kind == "float":
        return t.bits // 8
    if t.kind == "ptr":
        return 8
    if t.kind == "vec":
        return t.n * store_size(t.elem, layout)
    if t.kind in ("struct", "array"):
        return layout.size(t)
    raise Unsupported(f"values of type {t}")


def elem_size(t, layout):
    if t.kind == "vec":
        return store_size(t.elem, layout)
    if t.kind in ("int", "float", "ptr"):
        return store_size(t, layout)
    return 1


def workitem_definition(name, base, ret, params):
    """A work-item function reading the context (ids as the interpreter's _LaneIds)."""
    kind = base[len("get_"):]
    fn, b = irbuild.builtin(name, ret, params)
    ctx = fn.args[0]

    def slot(field):
        return irbuild.load_slot(b, ctx, field)
    dimension = []

    def per_dim(prefix, default):
        """Value of the slots prefix0..2 at the dimension argument; default outside 0..2."""
        if not dimension:
            d = fn.args[1]
            d = b.zext(d, irbuild.I64, name="dd") if d.type.width < 64 else d
            dimension.extend(irbuild.icmp(b, "eq", d, irbuild.const(irbuild.I64, i), f"is{i}") for i in range(3))
        values = [slot(f"{prefix}{i}") for i in range(3)]
        chosen = irbuild.const(irbuild.I64, default)
        for i in (2, 1, 0):
            chosen = b.select(dimension[i], values[i], chosen, name=f"{prefix}.s{i}" if i else f"v.{prefix}")
        return chosen

    if kind in ("global_id",):
        g, ls, li, of = per_dim("grp", 0), per_dim("lsize", 1), per_dim("lid", 0), per_dim("off", 0)
        v = b.add(b.add(b.mul(g, ls, name="m"), li, name="a"), of, name="v")
    elif kind in _PER_DIMENSION:
        v = per_dim(*_PER_DIMENSION[kind])
    elif kind in ("work_dim", "local_linear_id"):
        v = slot("work_dim" if kind == "work_dim" else "llid")
    elif kind == "global_linear_id":
        # (gid0 - off0) + (gid1 - off1) * gs0 + (gid2 - off2) * gs0 * gs1, gid - off = grp * ls + lid
        ids = [b.add(b.mul(slot(f"grp{i}"), slot(f"lsize{i}"), name=f"gm{i}"), slot(f"lid{i}"), name=f"id{i}")
               for i in range(3)]
        gs0, gs1 = slot("gsize0"), slot("gsize1")
        t1 = b.mul(ids[1], gs0, name="t1")
        t2 = b.mul(ids[2], b.mul(gs0, gs1, name="gs01"), name="t2")
        v = b.add(b.add(ids[0], t1, name="u"), t2, name="v")
    elif kind in _SUB_GROUP_QUERIES:
        v = _SUB_GROUP_QUERIES[kind](b, slot)
    else:
        raise Unsupported(f"the built-in '{base}'")
    b.ret(v if ret == "i64" else b.trunc(v, irbuild.parse_type(ret), name="r"))
    return irbuild.function_text(fn)


# get_<kind>(d): the context slots <prefix>0..2 and the value outside dimensions 0..2.
_PER_DIMENSION = {"local_id": ("lid", 0), "group_id": ("grp", 0), "global_size": ("gsize", 1),
                  "local_size": ("lsize", 1), "enqueued_local_size": ("lsize", 1), "num_groups": ("ngrp", 1),
                  "global_offset": ("off", 0)}


def _sub_group_size(b, slot):
    S, wg, llid = slot("sg_size"), slot("wg_size"), slot("llid")
    left = b.sub(wg, b.mul(b.udiv(llid, S, name="sg"), S, name="first"), name="left")
    return b.select(irbuild.icmp(b, "ult", left, S, "lt"), left, S, name="v")


def _max_sub_group_size(b, slot):
    S, wg = slot("sg_size"), slot("wg_size")
    return b.select(irbuild.icmp(b, "ult", wg, S, "lt"), wg, S, name="v")


def _num_sub_groups(b, slot):
    S, wg = slot("sg_size"), slot("wg_size")
    return b.udiv(b.add(wg, b.sub(S, irbuild.const(irbuild.I64, 1), name="sm1"), name="w"), S, name="v")


# Sub-group queries from the context's sub-group size, work-group size and linear id.
_SUB_GROUP_QUERIES = {
    "sub_group_size": _sub_group_size, "max_sub_group_size": _max_sub_group_size,
    "num_sub_groups": _num_sub_groups, "enqueued_num_sub_groups": _num_sub_groups,
    "sub_group_id": lambda b, slot: b.udiv(slot("llid"), slot("sg_size"), name="v"),
    "sub_group_local_id": lambda b, slot: b.urem(slot("llid"), slot("sg_size"), name="v"),
}


def no_op_definition(name, params):
    """The definition of a built-in that does nothing natively (support.NO_OP_FUNCTIONS:
    the fences), built with irbuild: the context, the call's parameters, ret void."""
    fn, b = irbuild.builtin(name, "void", params)
    b.ret_void()
    return irbuild.function_text(fn)


# prefetch() hints at most this many 64-byte lines (4 KiB): it changes no result (OpenCL C
# 3.0 6.15.13), and a length from the caller, or from untrusted IR, must not turn the hint
# into a long loop.
PREFETCH_MAX_LINES = 64
PREFETCH_LINE = 64


def prefetch_definition(name, mparams, params):
    """`prefetch(const __global gentype *p, size_t n)` as `llvm.prefetch` of the 64-byte
    lines of its n gentypes (read, keep in every cache level), PREFETCH_MAX_LINES at most.
    A prefetch never faults and writes nothing, so it is safe on any address; the
    interpreter does nothing (a hint). None when the declaration is not (pointer to a
    gentype, an integer): the call is then refused like any unknown built-in."""
    if mparams is None or len(mparams) != 2 or mparams[0][0] != "ptr" or mparams[1][0] != "int" or \
            len(params) != 2 or not params[0].startswith("ptr") or params[1] != "i64":
        return None
    size = _gentype_bytes(mparams[0][2])
    if size is None:
        return None
    fn, b = irbuild.builtin(name, "void", params)
    p, count = fn.args[1], fn.args[2]
    i64 = irbuild.I64
    # At most 2^20 gentypes of at most 128 bytes: no overflow.
    count = irbuild.intrinsic(b, "umin", [count, irbuild.const(i64, 1 << 20)], "n")
    nbytes = b.mul(count, irbuild.const(i64, size), name="bytes")
    lines = b.udiv(b.add(nbytes, irbuild.const(i64, PREFETCH_LINE - 1), name="up"), irbuild.const(i64, PREFETCH_LINE),
                   name="l")
    lines = irbuild.intrinsic(b, "umin", [lines, irbuild.const(i64, PREFETCH_MAX_LINES)], "lines")
    i32 = ir.IntType(32)
    with irbuild.for_range(b, 0, lines, "line") as (i, _next):
        at = b.gep(p, [b.mul(i, irbuild.const(i64, PREFETCH_LINE), name="off")], source_etype=irbuild.I8, name="at")
        if at.type != irbuild.PTR:
            at = b.addrspacecast(at, irbuild.PTR, name="at0")     # (llvm.prefetch.p1 is refused)
        irbuild.intrinsic(b, "prefetch", [at, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)],
                          ret=ir.VoidType())
    b.ret_void()
    return irbuild.function_text(fn)


def _gentype_bytes(t):
    """sizeof of a demangled OpenCL C gentype (a 3-vector as 4 elements), or None."""
    if t[0] in ("int", "float") and t[1] in (8, 16, 32, 64):
        return t[1] // 8
    if t[0] == "vec" and t[1] in (2, 3, 4, 8, 16):
        element = _gentype_bytes(t[2])
        return None if element is None else element * (4 if t[1] == 3 else t[1])
    return None


def exact_math_definition(name, base, ret):
    """The definition of the built-in `base` of support.EXACT_MATH on one value of type
    ret (scalar or vector), built with irbuild: its LLVM intrinsic, which rounds as the
    interpreter's NumPy ufunc (IEEE operations correctly rounded on both sides)."""
    fn, b = irbuild.builtin(name, ret, [ret])
    b.ret(irbuild.intrinsic(b, support.EXACT_MATH[base], [fn.args[1]], "r"))
    return irbuild.function_text(fn)
