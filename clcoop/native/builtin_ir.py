"""Native definitions of OpenCL built-ins (docs/native.md, "Built-ins compiled natively"):
each computes the interpreter's result bit for bit; work-item functions read the context."""
import math
import re
import struct

from clcoop.ir.demangle import demangle
from clcoop.native.context import CTX
from clcoop.native.integer_dot_ir import integer_dot_definition
from clcoop.native import math_ir
from clcoop.ir.text import split_top_level
from clcoop.native.text_rewrite import gquote
from clcoop.native.support import Unsupported

def params_of(name):
    return demangle(name)[1]


_CONVERT_RE = re.compile(r"convert_(u?char|u?short|u?int|u?long|float|double|half)(\d*)")


def exact_builtin(name, base, mparams, ret, params):
    """Definitions of the integer min/max/clamp/abs and the default-rounding conversions
    whose LLVM instruction gives the interpreter's NumPy result bit for bit; None for
    everything else."""
    if mparams is None or not mparams:
        return None
    dot = integer_dot_definition(name, base, mparams, ret, params) or math_ir.definition(name, base, ret, params)
    if dot is not None:
        return dot
    first = mparams[0]
    scalar = first[2] if first[0] == "vec" else first
    args = ", ".join(f"{t} %a{i}" for i, t in enumerate(params))
    head = f"define internal {ret} {gquote(name)}(ptr %c, {args}) alwaysinline {{"
    if base in ("min", "max", "clamp", "abs") and scalar[0] == "int":
        # max(int4, int), clamp(int4, int, int): the scalar operands are splat.
        if any(p not in (first, scalar) for p in mparams) or params[0] != ret or \
                any(t not in (ret, _element(ret)) for t in params):
            return None
        sign = "s" if scalar[2] else "u"
        suffix = intrinsic_suffix(params[0])
        if base == "abs":
            if not scalar[2]:
                return f"{head}\n  ret {ret} %a0\n}}"
            return (f"{head}\n  %r = call {ret} @llvm.abs.{suffix}({ret} %a0, i1 false)\n"
                    f"  ret {ret} %r\n}}")
        lines, a = _splat_operands(ret, params)
        if base == "clamp":
            lines += [f"  %m = call {ret} @llvm.{sign}max.{suffix}({ret} {a[0]}, {ret} {a[1]})",
                      f"  %r = call {ret} @llvm.{sign}min.{suffix}({ret} %m, {ret} {a[2]})"]
        else:
            lines.append(f"  %r = call {ret} @llvm.{sign}{base}.{suffix}({ret} {a[0]}, {ret} {a[1]})")
        return "\n".join([head] + lines + [f"  ret {ret} %r", "}"])
    if base == "select" and len(params) == 3 and params[0] == params[1] == ret:
        # OpenCL C 6.15.6: scalar c != 0, vector: the most significant bit of each c.
        c_vec = params[2].startswith("<")
        zero = "zeroinitializer"
        cond = f"icmp slt {params[2]} %a2, {zero}" if c_vec else f"icmp ne {params[2]} %a2, {zero}"
        return f"{head}\n  %cond = {cond}\n  %r = select {bool_type(params[2])} %cond, {ret} %a1, {ret} %a0\n  ret {ret} %r\n}}"
    if base == "fma" and scalar[0] == "float" and len(params) == 3 and all(t == ret for t in params) \
            and _element(ret) in ("float", "double"):
        # OpenCL C 3.0 6.15.2: rounded once, as the interpreter (interp/fused.py); LLVM's
        # llvm.fma is the host's FMA instruction (or libm's fma/fmaf).
        return (f"{head}\n  %r = call {ret} @llvm.fma.{type_suffix(ret)}({ret} %a0, {ret} %a1, {ret} %a2)\n"
                f"  ret {ret} %r\n}}")
    if base in _FLOAT_ORDER and scalar[0] == "float" and len(params) == _FLOAT_ORDER[base] and \
            params[0] == ret and all(t in (ret, _element(ret)) for t in params):
        return f"{head}\n{_float_order_body(base, ret, params)}\n}}"
    if base in _RELATIONAL and scalar[0] == "float" and len(params) == _RELATIONAL[base][1] and \
            all(t == params[0] for t in params):
        return f"{head}\n{_relational_body(base, params[0], ret, scalar[1])}\n}}"
    if base in _INTEGER_BUILTINS and scalar[0] == "int" and all(p == first for p in mparams) \
            and all(t == params[0] for t in params) and len(params) == _INTEGER_BUILTINS[base]:
        return f"{head}\n{_integer_builtin_body(base, ret, scalar[1], scalar[2])}\n}}"
    c = _TO_INT_RE.fullmatch(base)
    if c and len(params) == 1 and (c.group(3) or scalar[0] == "float"):
        unsigned = c.group(1).startswith("u")
        return f"{head}\n{_to_int_body(params[0], ret, scalar, unsigned, bool(c.group(3)), c.group(4))}\n}}"
    m = _CONVERT_RE.fullmatch(base)
    if m and len(params) == 1:
        src, dst = params[0], ret
        src_float = scalar[0] == "float"
        dst_float = m.group(1) in ("float", "double", "half")
        sbits, dbits = type_bits(src), type_bits(dst)
        if src_float and dst_float:
            op = "fpext" if dbits > sbits else "fptrunc" if dbits < sbits else None
        elif dst_float:
            op = "sitofp" if scalar[2] else "uitofp"
        else:
            op = "trunc" if dbits < sbits else ("sext" if scalar[2] else "zext") if dbits > sbits else None
        body = f"  %r = {op} {src} %a0 to {dst}\n  ret {dst} %r" if op else f"  ret {dst} %a0"
        return f"{head}\n{body}\n}}"
    return None


# Float built-ins computed with interp/float_order.py's selects (-0.0 < +0.0; fmax/fmin/
# max/min: a NaN operand loses) or, for mad, as the interpreter's a * b + c: name -> arity.
# A scalar operand of a vector overload (max(float4, float)) is splat.
_FLOAT_ORDER = {"fmax": 2, "fmin": 2, "max": 2, "min": 2, "clamp": 3, "mad": 3}


def _element(t):
    return re.sub(r"<\d+ x (\w+)>", r"\1", t)


def _int_of_width(t):
    """The integer type as wide as the float type t: float -> i32, <4 x half> -> <4 x i16>."""
    return re.sub(r"half|float|double", lambda m: f"i{type_bits(m.group())}", t)


def _double_hex(x):
    """x as LLVM's hexadecimal double constant, which also spells a half or float constant
    of the same value when that type holds it exactly."""
    return f"0x{struct.unpack('<Q', struct.pack('<d', x))[0]:016X}"


def float_order_lines(kind, t, a, b, out):
    """IR lines out = fmax(a, b) ("max") or fmin(a, b) ("min") of type t, as
    interp/float_order.py: the first operand when it is larger (smaller), when both are
    equal and it is +0.0 (-0.0) or anything not a zero, or when the second is a NaN."""
    b1 = bool_type(t)
    it = _int_of_width(t)
    true = "splat (i1 true)" if t.startswith("<") else "true"
    order = "ogt" if kind == "max" else "olt"
    lines = [f"  {out}.wins = fcmp {order} {t} {a}, {b}", f"  {out}.eq = fcmp oeq {t} {a}, {b}",
             f"  {out}.bits = bitcast {t} {a} to {it}", f"  {out}.neg = icmp slt {it} {out}.bits, zeroinitializer"]
    if kind == "max":
        lines.append(f"  {out}.sign = xor {b1} {out}.neg, {true}")
    else:
        lines.append(f"  {out}.sign = or {b1} {out}.neg, {out}.neg")
    return lines + [f"  {out}.tie = and {b1} {out}.eq, {out}.sign", f"  {out}.nan = fcmp uno {t} {b}, {b}",
                    f"  {out}.k = or {b1} {out}.wins, {out}.tie", f"  {out}.keep = or {b1} {out}.k, {out}.nan",
                    f"  {out} = select {b1} {out}.keep, {t} {a}, {t} {b}"]


def _splat_operands(t, params):
    """(IR lines, operand names) of a built-in's arguments %a0.. as values of type t: a
    scalar argument of a vector overload is splat."""
    lines, args = [], []
    for i, p in enumerate(params):
        if p == t:
            args.append(f"%a{i}")
            continue
        n = re.match(r"<(\d+) x", t).group(1)
        lines += [f"  %s{i}.0 = insertelement {t} poison, {p} %a{i}, i64 0",
                  f"  %s{i} = shufflevector {t} %s{i}.0, {t} poison, <{n} x i32> zeroinitializer"]
        args.append(f"%s{i}")
    return lines, args


def _float_order_body(base, t, params):
    lines, args = _splat_operands(t, params)
    if base == "mad":
        lines += [f"  %ab = fmul {t} {args[0]}, {args[1]}", f"  %r = fadd {t} %ab, {args[2]}"]
    elif base == "clamp":     # OpenCL C 3.0 6.15.4: fmin(fmax(x, minval), maxval)
        lines += float_order_lines("max", t, args[0], args[1], "%lo") + float_order_lines("min", t, "%lo", args[2], "%r")
    else:
        lines += float_order_lines(base.removeprefix("f"), t, args[0], args[1], "%r")
    return "\n".join(lines + [f"  ret {t} %r"])


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


def _relational_body(base, t, ret, bits):
    """IR body (arguments %a0, %a1, result type ret) of a relational built-in: a scalar
    returns 1 for true, a vector -1 in each true element (OpenCL C 6.15.6)."""
    test = _RELATIONAL[base][0]
    vector = t.startswith("<")
    elem = _element(t)

    def const(x):
        return f"splat ({elem} {_double_hex(x)})" if vector else _double_hex(x)
    b = bool_type(t)
    if test == "sign":
        it = _int_of_width(t)
        lines = [f"  %i = bitcast {t} %a0 to {it}", f"  %holds = icmp slt {it} %i, zeroinitializer"]
    elif test == "inf":
        lines = [f"  %p = fcmp oeq {t} %a0, {const(math.inf)}", f"  %n = fcmp oeq {t} %a0, {const(-math.inf)}",
                 f"  %holds = or {b} %p, %n"]
    elif test in ("finite", "normal"):
        finite = "%holds" if test == "finite" else "%f"
        lines = [f"  %p = fcmp one {t} %a0, {const(math.inf)}", f"  %n = fcmp one {t} %a0, {const(-math.inf)}",
                 f"  {finite} = and {b} %p, %n"]
        if test == "normal":
            tiny = _TINY[bits]
            lines += [f"  %big = fcmp oge {t} %a0, {const(tiny)}", f"  %neg = fcmp ole {t} %a0, {const(-tiny)}",
                      f"  %m = or {b} %big, %neg", f"  %holds = and {b} %f, %m"]
    else:
        second = "%a1" if _RELATIONAL[base][1] == 2 else "%a0"
        lines = [f"  %holds = fcmp {test} {t} %a0, {second}"]
    widen = "sext" if vector else "zext"
    return "\n".join(lines + [f"  %r = {widen} {b} %holds to {ret}", f"  ret {ret} %r"])


# Conversions to an integer type with saturation or a rounding mode (OpenCL C 3.0 6.4.3),
# and every float -> integer one.
_TO_INT_RE = re.compile(r"convert_(u?char|u?short|u?int|u?long)(\d*)(_sat)?(_rte|_rtz|_rtp|_rtn)?")


def _to_int_body(src, dst, scalar, unsigned, sat, rounding):
    """IR body (argument %a0) of convert_<dst>[_sat][_rounding](src) as the interpreter
    computes it (interp/ocl_builtins.py, _convert): integers saturate by clamping in 128
    bits; floats are rounded (default: toward zero), then converted saturating, NaN -> 0
    (LLVM's fpto[su]i.sat), with or without _sat (interp/scalars.float_to_int)."""
    n = re.match(r"<(\d+) x", dst)
    vec = (lambda e: f"<{n.group(1)} x {e}>") if n else (lambda e: e)
    const = (lambda e, v: f"splat ({e} {v})") if n else (lambda e, v: v)
    dbits = type_bits(dst)
    lo, hi = (0, (1 << dbits) - 1) if unsigned else (-(1 << (dbits - 1)), (1 << (dbits - 1)) - 1)
    if scalar[0] == "int":
        if not sat:
            sbits = type_bits(src)
            op = "trunc" if dbits < sbits else ("sext" if scalar[2] else "zext") if dbits > sbits else None
            return f"  %r = {op} {src} %a0 to {dst}\n  ret {dst} %r" if op else f"  ret {dst} %a0"
        w = vec("i128")
        sfx = intrinsic_suffix(w)
        return "\n".join([f"  %w = {'sext' if scalar[2] else 'zext'} {src} %a0 to {w}",
                          f"  %m = call {w} @llvm.smax.{sfx}({w} %w, {w} {const('i128', lo)})",
                          f"  %c = call {w} @llvm.smin.{sfx}({w} %m, {w} {const('i128', hi)})",
                          f"  %r = trunc {w} %c to {dst}", f"  ret {dst} %r"])
    rnd = {"_rte": "roundeven", "_rtp": "ceil", "_rtn": "floor"}.get(rounding, "trunc")
    lines = [f"  %x = call {src} @llvm.{rnd}.{type_suffix(src)}({src} %a0)"]
    # With or without _sat: saturating, NaN -> 0 (interp/scalars.float_to_int).
    u = "u" if unsigned else "s"
    return "\n".join(lines + [f"  %r = call {dst} @llvm.fpto{u}i.sat.{intrinsic_suffix(dst)}.{type_suffix(src)}({src} %x)",
                              f"  ret {dst} %r"])


# OpenCL C 3.0 6.15.3 integer functions with an exact LLVM form: name -> arity.
_INTEGER_BUILTINS = {"popcount": 1, "clz": 1, "ctz": 1, "rotate": 2, "add_sat": 2, "sub_sat": 2,
                     "hadd": 2, "rhadd": 2, "abs_diff": 2, "mul_hi": 2, "mad_hi": 3, "mad_sat": 3}


def _integer_builtin_body(base, t, bits, signed):
    """IR body (arguments %a0.., result type t) of an integer built-in; results that need
    more bits are computed in a type twice as wide, then narrowed."""
    sfx = intrinsic_suffix(t)
    wide = re.sub(r"i\d+", f"i{2 * bits}", t)
    wsfx = intrinsic_suffix(wide)
    ext = "sext" if signed else "zext"
    shr = "ashr" if signed else "lshr"
    sg = "s" if signed else "u"

    def splat(ty, v):
        m = re.fullmatch(r"<(\d+) x (\w+)>", ty)
        return f"<{', '.join(f'{m.group(2)} {v}' for _ in range(int(m.group(1))))}>" if m else str(v)
    widen = [f"  %w0 = {ext} {t} %a0 to {wide}", f"  %w1 = {ext} {t} %a1 to {wide}"]
    if base == "popcount":
        lines = [f"  %r = call {t} @llvm.ctpop.{sfx}({t} %a0)"]
    elif base in ("clz", "ctz"):
        intr = "ctlz" if base == "clz" else "cttz"
        lines = [f"  %r = call {t} @llvm.{intr}.{sfx}({t} %a0, i1 false)"]
    elif base == "rotate":
        lines = [f"  %r = call {t} @llvm.fshl.{sfx}({t} %a0, {t} %a0, {t} %a1)"]
    elif base in ("add_sat", "sub_sat"):
        lines = [f"  %r = call {t} @llvm.{sg}{base[:3]}.sat.{sfx}({t} %a0, {t} %a1)"]
    elif base in ("hadd", "rhadd"):
        lines = widen + [f"  %s = add {wide} %w0, %w1"]
        if base == "rhadd":
            lines.append(f"  %s1 = add {wide} %s, {splat(wide, 1)}")
        lines += [f"  %h = {shr} {wide} {'%s1' if base == 'rhadd' else '%s'}, {splat(wide, 1)}",
                  f"  %r = trunc {wide} %h to {t}"]
    elif base == "abs_diff":
        lines = widen + [f"  %d = sub {wide} %w0, %w1",
                         f"  %ad = call {wide} @llvm.abs.{wsfx}({wide} %d, i1 false)",
                         f"  %r = trunc {wide} %ad to {t}"]
    elif base in ("mul_hi", "mad_hi"):
        lines = widen + [f"  %p = mul {wide} %w0, %w1", f"  %h = lshr {wide} %p, {splat(wide, bits)}",
                         f"  %hi = trunc {wide} %h to {t}"]
        lines.append(f"  %r = add {t} %hi, %a2" if base == "mad_hi" else f"  %r = add {t} %hi, {splat(t, 0)}")
    else:   # mad_sat: a*b+c exactly in twice the bits, then saturated
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        lines = widen + [f"  %w2 = {ext} {t} %a2 to {wide}", f"  %p = mul {wide} %w0, %w1",
                         f"  %s = add {wide} %p, %w2"]
        if signed:
            lines.append(f"  %c0 = call {wide} @llvm.smax.{wsfx}({wide} %s, {wide} {splat(wide, lo)})")
        else:
            lines.append(f"  %c0 = add {wide} %s, {splat(wide, 0)}")
        lines += [f"  %c1 = call {wide} @llvm.{sg}min.{wsfx}({wide} %c0, {wide} {splat(wide, hi)})",
                  f"  %r = trunc {wide} %c1 to {t}"]
    return "\n".join(lines + [f"  ret {t} %r"])


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
    pname = f", {params[0]} %d" if params else ""
    lines = [f"define internal {ret} {gquote(name)}(ptr %c{pname}) alwaysinline {{"]

    def slot(field):
        lines.append(f"  %p.{field} = getelementptr i64, ptr %c, i64 {CTX[field]}")
        lines.append(f"  %{field} = load i64, ptr %p.{field}")
        return f"%{field}"

    def per_dim(prefix, default):
        """Value of the slots prefix0..2 at dimension %d; default outside 0..2."""
        d = "%dd"
        lines.append(f"  {d} = zext {params[0]} %d to i64")
        vals = [slot(f"{prefix}{i}") for i in range(3)]
        lines.append(f"  %is0 = icmp eq i64 {d}, 0")
        lines.append(f"  %is1 = icmp eq i64 {d}, 1")
        lines.append(f"  %is2 = icmp eq i64 {d}, 2")
        lines.append(f"  %s2 = select i1 %is2, i64 {vals[2]}, i64 {default}")
        lines.append(f"  %s1 = select i1 %is1, i64 {vals[1]}, i64 %s2")
        lines.append(f"  %v.{prefix} = select i1 %is0, i64 {vals[0]}, i64 %s1")
        return f"%v.{prefix}"

    if kind in ("global_id",):
        g = per_dim("grp", 0)
        ls = per_dim_fresh(lines, "lsize", 1)
        li = per_dim_fresh(lines, "lid", 0)
        of = per_dim_fresh(lines, "off", 0)
        lines += [f"  %m = mul i64 {g}, {ls}", f"  %a = add i64 %m, {li}", f"  %v = add i64 %a, {of}"]
        v = "%v"
    elif kind == "local_id":
        v = per_dim("lid", 0)
    elif kind == "group_id":
        v = per_dim("grp", 0)
    elif kind == "global_size":
        v = per_dim("gsize", 1)
    elif kind in ("local_size", "enqueued_local_size"):
        v = per_dim("lsize", 1)
    elif kind == "num_groups":
        v = per_dim("ngrp", 1)
    elif kind == "global_offset":
        v = per_dim("off", 0)
    elif kind == "work_dim":
        v = slot("work_dim")
    elif kind == "local_linear_id":
        v = slot("llid")
    elif kind == "global_linear_id":
        # (gid0 - off0) + (gid1 - off1) * gs0 + (gid2 - off2) * gs0 * gs1, gid - off = grp * ls + lid
        ids = []
        for i in range(3):
            g, ls, li = slot(f"grp{i}"), slot(f"lsize{i}"), slot(f"lid{i}")
            lines += [f"  %gm{i} = mul i64 {g}, {ls}", f"  %id{i} = add i64 %gm{i}, {li}"]
            ids.append(f"%id{i}")
        gs0, gs1 = slot("gsize0"), slot("gsize1")
        lines += ["  %t1 = mul i64 %id1, " + gs0, f"  %gs01 = mul i64 {gs0}, {gs1}",
                  "  %t2 = mul i64 %id2, %gs01", "  %u = add i64 %id0, %t1", "  %v = add i64 %u, %t2"]
        v = "%v"
    elif kind == "sub_group_size":
        S, wg, llid = slot("sg_size"), slot("wg_size"), slot("llid")
        lines += [f"  %sg = udiv i64 {llid}, {S}", f"  %first = mul i64 %sg, {S}",
                  f"  %left = sub i64 {wg}, %first", f"  %lt = icmp ult i64 %left, {S}",
                  f"  %v = select i1 %lt, i64 %left, i64 {S}"]
        v = "%v"
    elif kind == "max_sub_group_size":
        S, wg = slot("sg_size"), slot("wg_size")
        lines += [f"  %lt = icmp ult i64 {wg}, {S}", f"  %v = select i1 %lt, i64 {wg}, i64 {S}"]
        v = "%v"
    elif kind in ("num_sub_groups", "enqueued_num_sub_groups"):
        S, wg = slot("sg_size"), slot("wg_size")
        lines += [f"  %sm1 = sub i64 {S}, 1", f"  %w = add i64 {wg}, %sm1", f"  %v = udiv i64 %w, {S}"]
        v = "%v"
    elif kind == "sub_group_id":
        S, llid = slot("sg_size"), slot("llid")
        lines.append(f"  %v = udiv i64 {llid}, {S}")
        v = "%v"
    elif kind == "sub_group_local_id":
        S, llid = slot("sg_size"), slot("llid")
        lines.append(f"  %v = urem i64 {llid}, {S}")
        v = "%v"
    else:
        raise Unsupported(f"the built-in '{base}'")
    if ret == "i64":
        lines.append(f"  ret i64 {v}")
    else:
        lines.append(f"  %r = trunc i64 {v} to {ret}")
        lines.append(f"  ret {ret} %r")
    lines.append("}")
    return "\n".join(lines)


def per_dim_fresh(lines, prefix, default):
    """Like per_dim in workitem_definition, for a second field once %dd and %is0..2 exist."""
    vals = []
    for i in range(3):
        lines.append(f"  %p.{prefix}{i} = getelementptr i64, ptr %c, i64 {CTX[prefix + str(i)]}")
        lines.append(f"  %{prefix}{i} = load i64, ptr %p.{prefix}{i}")
        vals.append(f"%{prefix}{i}")
    lines.append(f"  %{prefix}.s2 = select i1 %is2, i64 {vals[2]}, i64 {default}")
    lines.append(f"  %{prefix}.s1 = select i1 %is1, i64 {vals[1]}, i64 %{prefix}.s2")
    lines.append(f"  %v.{prefix} = select i1 %is0, i64 {vals[0]}, i64 %{prefix}.s1")
    return f"%v.{prefix}"
