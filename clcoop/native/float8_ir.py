"""Native definitions of the scalar fp8 conversions (clcoop/float8.py's
`__builtin_spirv_[Clamp]Convert<S>To<D>EXT/INTEL` calls), bit for bit as the interpreter's
clcoop/interp/float8.py (docs/coopmat2-semantics.md "fp8").

Every value passes through a double, which holds each source exactly (integers beyond 2**53
are out of every fp8 range either way) and each fp8 value:

- decode: the significand (with its implicit bit) times a power of two, both exact; the E5M2
  infinities and NaNs, the E4M3 NaN, the sign (NaNs keep theirs).
- encode: the quantum q = 2**(max(exponent, emin) - mantissa bits), n = roundeven(|x| / q)
  (both steps exact but the one rounding, ties to even), the pattern (e - emin) * 2**m + n
  (a carry of n into the next binade gives the next exponent's pattern by itself); past the
  largest finite value or infinite: NaN (E4M3), infinity (E5M2), or with saturation the
  largest finite; NaN stays NaN; the sign last.
- to integers: llvm.fpto[su]i.sat, the engines' one float -> int rule.
"""
import re

from clcoop import float8
from clcoop.native import bfloat_ir
from clcoop.native.text_rewrite import gquote
from clcoop.native.support import Unsupported

_FLOAT_TYPES = {"FP16": "half", "FP32": "float", "FP64": "double"}


def _to_double(lines, token, value):
    """Lines computing %d, the exact double of `value` (of the IR type of `token`)."""
    if token in float8.BY_TOKEN:
        lines += _decode(float8.BY_TOKEN[token], value)
    elif token == "BF16":           # exact (bfloat_ir.widen)
        lines += bfloat_ir.widen(value, None, "%d", "double", "%bf")
    elif token == "FP64":
        lines.append(f"  %d = fadd double {value}, -0.0")
    elif token in _FLOAT_TYPES:
        lines.append(f"  %d = fpext {_FLOAT_TYPES[token]} {value} to double")
    else:
        op = "sitofp" if token[0] == "I" else "uitofp"
        lines.append(f"  %d = {op} i{token[1:]} {value} to double")


def _decode(fmt, value):
    m, bias = fmt.mantissa_bits, fmt.bias
    top = (1 << fmt.exponent_bits) - 1
    lines = [f"  %u = zext i8 {value} to i32",
             f"  %e = lshr i32 %u, {m}", f"  %e.f = and i32 %e, {top}",
             f"  %f = and i32 %u, {(1 << m) - 1}",
             "  %normal = icmp ne i32 %e.f, 0",
             f"  %lead = select i1 %normal, i32 {1 << m}, i32 0",
             "  %sig = or i32 %f, %lead",
             "  %ee = select i1 %normal, i32 %e.f, i32 1",
             f"  %pe = add i32 %ee, {1023 - bias - m}",
             "  %pe.w = zext i32 %pe to i64", "  %pe.s = shl i64 %pe.w, 52",
             "  %scale = bitcast i64 %pe.s to double",
             "  %sigd = uitofp i32 %sig to double",
             "  %mag = fmul double %sigd, %scale",
             f"  %top = icmp eq i32 %e.f, {top}",
             "  %f.zero = icmp eq i32 %f, 0"]
    if fmt.has_infinity:            # E5M2: IEEE 754 specials
        lines += ["  %isinf = and i1 %top, %f.zero",
                  "  %f.nz = xor i1 %f.zero, true", "  %isnan = and i1 %top, %f.nz",
                  "  %m1 = select i1 %isinf, double 0x7FF0000000000000, double %mag"]
    else:                           # E4M3: only S.1111.111 is NaN
        lines += [f"  %f.all = icmp eq i32 %f, {(1 << m) - 1}", "  %isnan = and i1 %top, %f.all",
                  "  %m1 = fadd double %mag, 0.0"]
    lines += ["  %m2 = select i1 %isnan, double 0x7FF8000000000000, double %m1",
              "  %neg = icmp uge i32 %u, 128", "  %negm = fneg double %m2",
              "  %d = select i1 %neg, double %negm, double %m2"]
    return lines


def _encode(fmt, saturate):
    """Lines from %d (a double) to %r8 (the fp8 pattern, i8)."""
    m, emin = fmt.mantissa_bits, fmt.min_exponent
    overflow = fmt.max_bits if saturate else (fmt.nan_bits if not fmt.has_infinity else 0x7C)
    return ["  %x.b = bitcast double %d to i64",
            "  %x.neg = icmp slt i64 %x.b, 0",
            "  %sign = select i1 %x.neg, i8 -128, i8 0",
            "  %a = call double @llvm.fabs.f64(double %d)",
            "  %isnan.x = fcmp uno double %d, 0.0",
            "  %a.b = bitcast double %a to i64",
            "  %biased = lshr i64 %a.b, 52",
            "  %e0 = sub i64 %biased, 1023",
            f"  %small = icmp slt i64 %e0, {emin}",
            f"  %ex = select i1 %small, i64 {emin}, i64 %e0",
            f"  %qe = add i64 %ex, {1023 - m}",
            "  %q.b = shl i64 %qe, 52",
            "  %q = bitcast i64 %q.b to double",
            "  %scaled = fdiv double %a, %q",
            "  %n = call double @llvm.roundeven.f64(double %scaled)",
            "  %r = fmul double %n, %q",
            "  %isinf.x = fcmp oeq double %a, 0x7FF0000000000000",
            f"  %big = fcmp ogt double %r, {float(fmt.max_finite)!r}",
            "  %over = or i1 %isinf.x, %big",
            "  %ni = call i64 @llvm.fptoui.sat.i64.f64(double %n)",
            f"  %eoff = sub i64 %ex, {emin}",
            f"  %eoff.s = shl i64 %eoff, {m}",
            "  %enc = add i64 %eoff.s, %ni",
            "  %enc8 = trunc i64 %enc to i8",
            f"  %o = select i1 %over, i8 {overflow}, i8 %enc8",
            f"  %o2 = select i1 %isnan.x, i8 {fmt.nan_bits}, i8 %o",
            "  %r8 = or i8 %o2, %sign"]


def _from_double(lines, token, ret):
    """Lines from %d to the `ret` value %res (the exact value rounded once: exact for every
    float type, which holds each fp8 value; integers saturate, NaN -> 0)."""
    if token == "FP64":
        lines.append("  %res = fadd double %d, -0.0")
    elif token == "BF16":           # exact: bf16 holds every fp8 value
        lines += bfloat_ir.round_double("%d", None, "%res", "%bf")
    elif token in _FLOAT_TYPES:
        lines.append(f"  %res = fptrunc double %d to {ret}")
    else:
        sign = "s" if token[0] == "I" else "u"
        lines.append(f"  %res = call {ret} @llvm.fpto{sign}i.sat.{ret}.f64(double %d)")


def conversion_lines(source, target, ret, value, saturate=False):
    """(lines, result): the IR converting `value` from the type of token `source` to that of
    `target` (float8.BY_TOKEN's or FP16/FP32/FP64/BF16/I../U..) as a scalar conversion;
    result names the converted value (i8 bits for an fp8 target)."""
    lines = []
    _to_double(lines, source, value)
    if target in float8.BY_TOKEN:
        return lines + _encode(float8.BY_TOKEN[target], saturate), "%r8"
    _from_double(lines, target, ret)
    return lines, "%res"


_MATRIX_PEERS = {"half": "FP16", "float": "FP32", "double": "FP64"}


def matrix_cast(op, m, r, name):
    """The element cast of a conversion of fp8 matrices m -> r (coop_routines.MatrixType),
    as a function (value, result name) -> lines: FConvert to or from half, float, double or
    the other fp8 format, each element as the scalar conversion `(T)x` without saturation
    (docs/coopmat2-semantics.md "fp8": a matrix cast does not saturate); anything else is
    left to the interpreter, with the reason."""
    tokens = [t.fp8.token if t.fp8 is not None else _MATRIX_PEERS.get(t.elem) for t in (m, r)]
    if op != "FConvert" or None in tokens:
        raise Unsupported(f"the fp8 cooperative-matrix conversion {name} from {m.elem} to {r.elem}")
    lines, result = conversion_lines(tokens[0], tokens[1], r.elem, "%__X__")

    def cast(x, y):
        def rename(text):       # each name of the conversion's under the result's
            return re.sub(r"%(?!__X__)([A-Za-z_][\w.]*)", lambda k: f"{y}.{k.group(1)}", text).replace("%__X__", x)
        return [rename(line) for line in lines] + [f"  {y} = freeze {r.elem} {rename(result)}"]
    return cast


def definition(name, conversion, ret, params):
    """The `define internal` of one conversion callee: a scalar, or a vector converted
    element by element (the SPIRV-LLVM-Translator's <N x T> forms, as the interpreter)."""
    if len(params) != 1:
        raise Unsupported(f"the fp8 conversion '{name}' of {len(params)} operands")
    vector = params[0].startswith("<")
    if vector != ret.startswith("<"):
        raise Unsupported(f"the fp8 conversion '{name}' from {params[0]} to {ret}")
    lines = [f"define internal {ret} {gquote(name)}(ptr %c, {params[0]} %a0) alwaysinline {{"]
    if not vector:
        body, result = conversion_lines(conversion.source, conversion.target, ret, "%a0", conversion.saturate)
        return "\n".join(lines + body + [f"  ret {ret} {result}", "}"])
    count, element = (part.strip() for part in params[0][1:-1].split(" x "))
    ret_count, ret_element = (part.strip() for part in ret[1:-1].split(" x "))
    if count != ret_count:
        raise Unsupported(f"the fp8 conversion '{name}' from {params[0]} to {ret}")
    body, result = conversion_lines(conversion.source, conversion.target, ret_element, "%x", conversion.saturate)
    previous = "poison"
    for k in range(int(count)):
        def lane(text, k=k):        # each element's names under its own prefix
            return re.sub(r"%([A-Za-z_][\w.]*)", lambda m: f"%e{k}.{m.group(1)}", text)
        lines.append(f"  %e{k}.x = extractelement {params[0]} %a0, i64 {k}")
        lines += [lane(line) for line in body]
        lines.append(f"  %v{k} = insertelement {ret} {previous}, {ret_element} {lane(result)}, i64 {k}")
        previous = f"%v{k}"
    return "\n".join(lines + [f"  ret {ret} {previous}", "}"])
