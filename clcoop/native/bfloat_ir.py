"""__bf16 (SPV_KHR_bfloat16) in native kernels, bit for bit as the interpreter
(docs/native.md, "bf16").

The interpreter computes with ml_dtypes: an operation on bf16 values is done in float32
and rounded once to bf16 (nearest-even; a NaN becomes the quiet NaN 0x7FC0 with the sign
kept), and a double or an integer is rounded once from its exact value
(clcoop/ir/rounding.py to_bfloat16: round-to-odd to float32 first). LLVM lowers most bf16
arithmetic on x86 to runtime library calls the process does not have (__truncsfbf2), so
every operation that makes or reads a bf16 value is written here as integer and float
code:
- widen: the bf16 bits are float's upper half (exact);
- round_float: float -> bf16 nearest-even by the carry trick (bits + 0x7FFF + lsb) >> 16,
  correct for subnormals and overflow to infinity;
- round_double: double -> float with round-to-odd (inexact results get an odd last bit,
  16 spare bits make the second rounding exact), then round_float;
- integers: the magnitude rounded to odd into 53 bits, exactly scaled to a double, then
  round_double: one rounding of the exact integer (clcoop/interp/coopmat2.py).
Loads, stores, phis, selects, bitcasts and vector moves of bf16 stay as they are.
"""
import re

from clcoop.native.builtin_ir import intrinsic_suffix, type_suffix
from clcoop.native.text_rewrite import quote, ref, typed
from clcoop.native.support import Unsupported
from clcoop.ir.loader import value_kind

_VECTOR = re.compile(r"<(\d+) x (\w+)>")


def _count(t):
    """Lane count of a vector type text, None for a scalar."""
    m = _VECTOR.fullmatch(t)
    return int(m.group(1)) if m else None


def _elem(t):
    m = _VECTOR.fullmatch(t)
    return m.group(2) if m else t


def shape(n, t):
    return f"<{n} x {t}>" if n else t


def splat(n, t, v):
    return f"<{', '.join([f'{t} {v}'] * n)}>" if n else str(v)


def widen(value, n, out, to="float", p=None):
    """Lines: `out` = the bf16 `value` (n lanes, None: scalar) as float (or double), exact;
    temporaries named `p`.* (default `out`.*: give a fresh name where `out` is the IR's)."""
    p = p or out
    i16, i32, f = shape(n, "i16"), shape(n, "i32"), shape(n, "float")
    lines = [f"  {p}.h = bitcast {shape(n, 'bfloat')} {value} to {i16}",
             f"  {p}.w = zext {i16} {p}.h to {i32}",
             f"  {p}.s = shl {i32} {p}.w, {splat(n, 'i32', 16)}"]
    if to == "float":
        return lines + [f"  {out} = bitcast {i32} {p}.s to {f}"]
    return lines + [f"  {p}.f = bitcast {i32} {p}.s to {f}",
                    f"  {out} = fpext {f} {p}.f to {shape(n, 'double')}"]


def round_float(value, n, out, p=None):
    """Lines: `out` (bfloat) = the float `value` rounded to nearest-even (ml_dtypes'
    rounding; a NaN -> sign | 0x7FC0)."""
    p = p or out
    i32, b1 = shape(n, "i32"), shape(n, "i1")
    return [f"  {p}.b = bitcast {shape(n, 'float')} {value} to {i32}",
            f"  {p}.hi = lshr {i32} {p}.b, {splat(n, 'i32', 16)}",
            f"  {p}.lsb = and {i32} {p}.hi, {splat(n, 'i32', 1)}",
            f"  {p}.bias = add {i32} {p}.lsb, {splat(n, 'i32', 0x7FFF)}",
            f"  {p}.r = add {i32} {p}.b, {p}.bias",
            f"  {p}.t = lshr {i32} {p}.r, {splat(n, 'i32', 16)}",
            f"  {p}.sg = and {i32} {p}.hi, {splat(n, 'i32', 0x8000)}",
            f"  {p}.q = or {i32} {p}.sg, {splat(n, 'i32', 0x7FC0)}",
            f"  {p}.nan = fcmp uno {shape(n, 'float')} {value}, zeroinitializer",
            f"  {p}.sel = select {b1} {p}.nan, {i32} {p}.q, {i32} {p}.t",
            f"  {p}.k = trunc {i32} {p}.sel to {shape(n, 'i16')}",
            f"  {out} = bitcast {shape(n, 'i16')} {p}.k to {shape(n, 'bfloat')}"]


def round_to_odd_float(value, n, out, p=None):
    """Lines: `out` (float) = the double `value` rounded to float with round-to-odd
    (rounding.py _float64_to_float32_round_to_odd: toward zero, the last bit set when
    inexact; a NaN stays a NaN)."""
    p = p or out
    d, f, i32, b1 = shape(n, "double"), shape(n, "float"), shape(n, "i32"), shape(n, "i1")
    return [f"  {p}.t = fptrunc {d} {value} to {f}",
            f"  {p}.back = fpext {f} {p}.t to {d}",
            f"  {p}.exact = fcmp ueq {d} {p}.back, {value}",
            f"  {p}.gt = fcmp ogt {d} {p}.back, {value}",
            f"  {p}.lt = fcmp olt {d} {p}.back, {value}",
            f"  {p}.neg = fcmp olt {d} {value}, zeroinitializer",
            f"  {p}.away = select {b1} {p}.neg, {b1} {p}.lt, {b1} {p}.gt",
            f"  {p}.bits = bitcast {f} {p}.t to {i32}",
            f"  {p}.dec = sub {i32} {p}.bits, {splat(n, 'i32', 1)}",
            f"  {p}.tz = select {b1} {p}.away, {i32} {p}.dec, {i32} {p}.bits",
            f"  {p}.odd = or {i32} {p}.tz, {splat(n, 'i32', 1)}",
            f"  {p}.fin = select {b1} {p}.exact, {i32} {p}.bits, {i32} {p}.odd",
            f"  {out} = bitcast {i32} {p}.fin to {f}"]


def sum_to_odd(x, y, n, out):
    """Lines: `out` = the doubles x + y rounded to odd (interp/fused.py _sum_to_odd: TwoSum
    gives the rounded sum's exact error; when inexact and the sum's last bit is even, the
    neighbour toward the exact sum, which is odd)."""
    d, i64, b1 = shape(n, "double"), shape(n, "i64"), shape(n, "i1")
    p = out + ".so"
    return [f"  {p}.s = fadd {d} {x}, {y}",
            f"  {p}.bb = fsub {d} {p}.s, {x}",
            f"  {p}.sb = fsub {d} {p}.s, {p}.bb",
            f"  {p}.ex = fsub {d} {x}, {p}.sb",
            f"  {p}.ey = fsub {d} {y}, {p}.bb",
            f"  {p}.e = fadd {d} {p}.ex, {p}.ey",
            f"  {p}.inexact0 = fcmp one {d} {p}.e, zeroinitializer",
            f"  {p}.abs = call {d} @llvm.fabs.{type_suffix(d)}({d} {p}.s)",
            f"  {p}.finite = fcmp one {d} {p}.abs, {splat(n, 'double', '0x7FF0000000000000')}",
            f"  {p}.inexact = and {b1} {p}.inexact0, {p}.finite",
            f"  {p}.bits = bitcast {d} {p}.s to {i64}",
            f"  {p}.low = and {i64} {p}.bits, {splat(n, 'i64', 1)}",
            f"  {p}.even = icmp eq {i64} {p}.low, zeroinitializer",
            f"  {p}.move = and {b1} {p}.inexact, {p}.even",
            # Toward the exact sum: away from zero when the error has the sum's sign.
            f"  {p}.es = fcmp olt {d} {p}.e, zeroinitializer",
            f"  {p}.ss = icmp slt {i64} {p}.bits, zeroinitializer",
            f"  {p}.away = icmp eq {b1} {p}.es, {p}.ss",
            f"  {p}.step = select {b1} {p}.away, {i64} {splat(n, 'i64', 1)}, {i64} {splat(n, 'i64', -1)}",
            f"  {p}.moved = add {i64} {p}.bits, {p}.step",
            f"  {p}.fin = select {b1} {p}.move, {i64} {p}.moved, {i64} {p}.bits",
            f"  {out} = bitcast {i64} {p}.fin to {d}"]


def round_double(value, n, out, p=None):
    """Lines: `out` (bfloat) = the double `value` rounded once to bf16."""
    p = p or out
    return round_to_odd_float(value, n, f"{p}.o") + round_float(f"{p}.o", n, out, f"{p}.r")


def round_from(src, value, n, out, p=None):
    """Lines: `out` (bfloat) = a half, float or double `value` rounded once to bf16."""
    p = p or out
    if src == "double":
        return round_double(value, n, out, p)
    if src == "half":       # exact in float (F16C)
        return [f"  {p}.f = fpext {shape(n, 'half')} {value} to {shape(n, 'float')}",
                *round_float(f"{p}.f", n, out, p)]
    if src == "float":
        return round_float(value, n, out, p)
    raise Unsupported(f"a conversion from {src} to __bf16")


def int_to_bfloat(fg, src, value, signed, out, p):
    """Lines: `out` (bfloat) = the scalar integer `value` of type `src` rounded once
    (coopmat2.convert_bfloat16: the exact integer; a 64-bit one through a round-to-odd
    double, which keeps the next rounding single)."""
    if fg is not None:      # (a module's rendezvous functions: LLVM's parser declares it)
        fg.mg.needed_intrinsic("llvm.ctlz.i64", "declare i64 @llvm.ctlz.i64(i64, i1)")
    ext = "sext" if signed else "zext"
    lines = [f"  {p}.x = {ext} {src} {value} to i64" if src != "i64" else f"  {p}.x = add i64 {value}, 0"]
    if signed:
        lines += [f"  {p}.neg = icmp slt i64 {p}.x, 0",
                  f"  {p}.nx = sub i64 0, {p}.x",
                  f"  {p}.u = select i1 {p}.neg, i64 {p}.nx, i64 {p}.x"]
    else:
        lines += [f"  {p}.neg = add i1 false, false", f"  {p}.u = add i64 {p}.x, 0"]
    # Bits beyond 53 dropped to odd: shift = max(0, 11 - leading zeros).
    lines += [f"  {p}.lz = call i64 @llvm.ctlz.i64(i64 {p}.u, i1 false)",
              f"  {p}.sh0 = sub i64 11, {p}.lz",
              f"  {p}.big = icmp sgt i64 {p}.sh0, 0",
              f"  {p}.sh = select i1 {p}.big, i64 {p}.sh0, i64 0",
              f"  {p}.t = lshr i64 {p}.u, {p}.sh",
              f"  {p}.m1 = shl i64 1, {p}.sh",
              f"  {p}.m = sub i64 {p}.m1, 1",
              f"  {p}.low = and i64 {p}.u, {p}.m",
              f"  {p}.st = icmp ne i64 {p}.low, 0",
              f"  {p}.stz = zext i1 {p}.st to i64",
              f"  {p}.to = or i64 {p}.t, {p}.stz",
              f"  {p}.d0 = uitofp i64 {p}.to to double",
              f"  {p}.e = add i64 {p}.sh, 1023",
              f"  {p}.eb = shl i64 {p}.e, 52",
              f"  {p}.sc = bitcast i64 {p}.eb to double",
              f"  {p}.d1 = fmul double {p}.d0, {p}.sc",
              f"  {p}.dn = fneg double {p}.d1",
              f"  {p}.d = select i1 {p}.neg, double {p}.dn, double {p}.d1"]
    return lines + round_double(f"{p}.d", None, out, f"{p}.rd")


_BFLOAT_CONSTANT = re.compile(r"(?<![%@\w.\"])bfloat 0xR([0-9A-Fa-f]{4})\b")
_BFLOAT_TYPE = re.compile(r"(?<![%@\w.\"])bfloat\b")


def as_bits(module_text):
    """The module with every bf16 value an i16 of its bits (constants `bfloat 0xRhhhh` ->
    `i16 u0xhhhh`): once the computations are this module's integer code, bf16 values are
    only moved, and LLVM must not move them as floats: x86 selects and blends of bf16
    vectors went through float and back with VCVTNEPS2BF16 (AVX512-BF16), which flushes
    subnormals to zero."""
    if "bfloat" not in module_text:
        return module_text
    return _BFLOAT_TYPE.sub("i16", _BFLOAT_CONSTANT.sub(r"i16 u0x\1", module_text))


def mentions(text):
    return re.search(r"\bbfloat\b", text) is not None


_ARITHMETIC = ("fadd", "fsub", "fmul", "fdiv", "frem")
# Instructions that move bf16 values without computing on them: kept as written.
_MOVES = ("load", "store", "phi", "select", "bitcast", "extractelement", "insertelement",
          "shufflevector", "alloca", "ret", "freeze", "getelementptr", "br", "switch",
          "extractvalue", "insertvalue")


def instruction(fg, ins, text, ops):
    """Emit `ins` (an instruction of codegen._FunctionGen `fg` that mentions bfloat) when
    it computes on bf16 values; False when codegen keeps it as it is (a move)."""
    op = ins.opcode
    out = quote(ins.name) if ins.name else None
    t = str(ins.type)
    if op in _MOVES:
        return False
    if op == "call":
        return _intrinsic(fg, ins, ops, out)
    if op in _ARITHMETIC or op == "fneg":
        fg.lines += arithmetic(fg.fresh, op, t, ref(ops[0]), ref(ops[1]) if op != "fneg" else None, out)
        return True
    if op == "fcmp":
        n = _count(str(ops[0].type))
        pred = text.split("fcmp", 1)[1].split()
        pred = [p for p in pred if p not in ("nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc", "fast")][0]
        a, b = fg.fresh("bfa"), fg.fresh("bfb")
        fg.lines += widen(ref(ops[0]), n, a) + widen(ref(ops[1]), n, b)
        fg.lines.append(f"  {out} = fcmp {pred} {shape(n, 'float')} {a}, {b}")
        return True
    src = str(ops[0].type) if ops else ""
    if op == "fpext" and _elem(src) == "bfloat":
        fg.lines += widen(ref(ops[0]), _count(src), out, _elem(t), fg.fresh("bfx"))
        return True
    if op == "fptrunc" and _elem(t) == "bfloat":
        fg.lines += round_from(_elem(src), ref(ops[0]), _count(t), out, fg.fresh("bfr"))
        return True
    if op in ("fptosi", "fptoui") and _elem(src) == "bfloat":
        n = _count(src)
        w = fg.fresh("bfw")
        fg.lines += widen(ref(ops[0]), n, w)
        if _elem(t) == "i1":
            fg.lines.append(f"  {out} = fcmp une {shape(n, 'float')} {w}, zeroinitializer")
            return True
        fl = shape(n, "float")
        intr = f"llvm.{op}.sat.{intrinsic_suffix(t)}.{type_suffix(fl)}"
        fg.mg.needed_intrinsic(intr, f"declare {t} @{intr}({fl})")
        fg.lines.append(f"  {out} = call {t} @{intr}({fl} {w})")
        return True
    if op in ("sitofp", "uitofp") and _elem(t) == "bfloat":
        if _count(t):
            raise Unsupported(f"a vector integer -> __bf16 conversion: {text}")
        fg.lines += int_to_bfloat(fg, src, ref(ops[0]), op == "sitofp", out, fg.fresh("bfi"))
        return True
    raise Unsupported(f"the __bf16 instruction '{op}' is not compiled natively yet: {text}")


def _intrinsic(fg, ins, ops, out):
    name = ops[-1].name if value_kind(ops[-1]) == "function" else ""
    if not name.startswith("llvm.") or not name.endswith("bf16"):
        return False        # a defined function taking or returning bf16: a plain call
    t = str(ins.type)
    n = _count(t)
    base = name[len("llvm."):].split(".")[0]
    if base == "fmuladd":
        # The product rounded to bf16, then the sum (interp/intrinsics.py _fmuladd:
        # NumPy multiply then add on bf16 arrays, each in float32 and rounded).
        a, b, c, p, pw, s = (fg.fresh(x) for x in ("bfa", "bfb", "bfc", "bfp", "bfpw", "bfs"))
        fg.lines += widen(ref(ops[0]), n, a) + widen(ref(ops[1]), n, b) + widen(ref(ops[2]), n, c)
        fg.lines.append(f"  {p}.f = fmul {shape(n, 'float')} {a}, {b}")
        fg.lines += round_float(f"{p}.f", n, p) + widen(p, n, pw)
        fg.lines.append(f"  {s} = fadd {shape(n, 'float')} {pw}, {c}")
        fg.lines += round_float(s, n, out, s + ".r")
        return True
    if base == "fma":
        # Rounded once (interp/fused.py): the exact product in double plus c, rounded to
        # odd in double, then to bf16 (round-to-odd float32 first, as every double).
        a, b, c, s = (fg.fresh(x) for x in ("bfa", "bfb", "bfc", "bfs"))
        fg.lines += (widen(ref(ops[0]), n, a, "double") + widen(ref(ops[1]), n, b, "double")
                     + widen(ref(ops[2]), n, c, "double"))
        fg.lines += [f"  {s}.p = fmul {shape(n, 'double')} {a}, {b}"]
        fg.lines += sum_to_odd(f"{s}.p", c, n, s)
        fg.lines += round_double(s, n, out, s + ".r")
        return True
    if base == "fabs":
        h = fg.fresh("bfn")
        fg.lines += [f"  {h} = bitcast {typed(ops[0])} to {shape(n, 'i16')}",
                     f"  {h}.x = and {shape(n, 'i16')} {h}, {splat(n, 'i16', 0x7FFF)}",
                     f"  {out} = bitcast {shape(n, 'i16')} {h}.x to {t}"]
        return True
    raise Unsupported(f"the __bf16 intrinsic @{name} is not compiled natively yet")


def arithmetic(fresh, op, t, a, b, out):
    """Lines: `out` = a `op` b (fadd/fsub/fmul/fdiv/frem, or fneg with b None) of bf16
    values of type `t` (bfloat or <n x bfloat>: a cooperative matrix's components), as the
    interpreter's NumPy on bf16 arrays: in float32, rounded once."""
    n = _count(t)
    if op == "fneg":
        h = fresh("bfn")
        return [f"  {h} = bitcast {t} {a} to {shape(n, 'i16')}",
                f"  {h}.x = xor {shape(n, 'i16')} {h}, {splat(n, 'i16', -32768)}",
                f"  {out} = bitcast {shape(n, 'i16')} {h}.x to {t}"]
    x, y, w = fresh("bfa"), fresh("bfb"), fresh("bfw")
    return (widen(a, n, x) + widen(b, n, y) + [f"  {w} = {op} {shape(n, 'float')} {x}, {y}"]
            + round_float(w, n, out, w + ".r"))
