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

import llvmlite.ir as ir

from clcoop.native import irbuild
from clcoop.native.builtin_ir import intrinsic_suffix, type_suffix
from clcoop.native.text_rewrite import quote, ref
from clcoop.native.support import Unsupported
from clcoop.ir.loader import value_kind

_VECTOR = re.compile(r"<(\d+) x (\w+)>")
I1, I16, I32, I64 = irbuild.I1, irbuild.I16, irbuild.I32, irbuild.I64
FLOAT, DOUBLE = irbuild.FLOAT, irbuild.DOUBLE


def _count(t):
    """Lane count of a vector type text, None for a scalar."""
    m = _VECTOR.fullmatch(t)
    return int(m.group(1)) if m else None


def _elem(t):
    m = _VECTOR.fullmatch(t)
    return m.group(2) if m else t


def shape(n, t):
    return f"<{n} x {t}>" if n else t


# ---------------------------------------------------------------- the computations (builders)
# Each takes values of the builder's function and returns the new value; `of(x, T)` is the
# type T with the lanes of x.

def _of(x, elem):
    return irbuild.shaped(x.type, elem)


def widen_value(b, x, to="float"):
    """The bf16 value x (bits as bfloat) as float (or double), exact: float's upper half."""
    wide = b.shl(b.zext(b.bitcast(x, _of(x, I16), name="h"), _of(x, I32), name="w"),
                 irbuild.const(_of(x, I32), 16), name="s")
    single = b.bitcast(wide, _of(x, FLOAT), name="f" if to != "float" else "r")
    return single if to == "float" else b.fpext(single, _of(x, DOUBLE), name="r")


def round_float_value(b, x):
    """The float x rounded to bf16 nearest-even (ml_dtypes' rounding; a NaN -> sign | 0x7FC0)
    by the carry trick (bits + 0x7FFF + lsb) >> 16, right for subnormals and overflow."""
    i32 = _of(x, I32)
    bits = b.bitcast(x, i32, name="b")
    high = b.lshr(bits, irbuild.const(i32, 16), name="hi")
    bias = b.add(b.and_(high, irbuild.const(i32, 1), name="lsb"), irbuild.const(i32, 0x7FFF), name="bias")
    rounded = b.lshr(b.add(bits, bias, name="rn"), irbuild.const(i32, 16), name="t")
    quiet = b.or_(b.and_(high, irbuild.const(i32, 0x8000), name="sg"), irbuild.const(i32, 0x7FC0), name="q")
    nan = irbuild.fcmp(b, "uno", x, irbuild.const(x.type, 0), "nan")
    kept = b.trunc(b.select(nan, quiet, rounded, name="sel"), _of(x, I16), name="k")
    return b.bitcast(kept, _of(x, irbuild.BFLOAT), name="r")


def round_to_odd_value(b, d):
    """The double d rounded to float with round-to-odd (rounding.py
    _float64_to_float32_round_to_odd: toward zero, the last bit set when inexact; a NaN
    stays a NaN)."""
    i32 = _of(d, I32)
    t = b.fptrunc(d, _of(d, FLOAT), name="t")
    back = b.fpext(t, d.type, name="back")
    exact = irbuild.fcmp(b, "ueq", back, d, "exact")
    above = irbuild.fcmp(b, "ogt", back, d, "gt")
    below = irbuild.fcmp(b, "olt", back, d, "lt")
    negative = irbuild.fcmp(b, "olt", d, irbuild.const(d.type, 0), "neg")
    away = b.select(negative, below, above, name="away")
    bits = b.bitcast(t, i32, name="bits")
    toward_zero = b.select(away, b.sub(bits, irbuild.const(i32, 1), name="dec"), bits, name="tz")
    odd = b.or_(toward_zero, irbuild.const(i32, 1), name="odd")
    return b.bitcast(b.select(exact, bits, odd, name="fin"), t.type, name="o")


def sum_to_odd_value(b, x, y):
    """The doubles x + y rounded to odd (interp/fused.py _sum_to_odd: TwoSum gives the
    rounded sum's exact error; when inexact and the sum's last bit is even, the neighbour
    toward the exact sum, which is odd)."""
    d, i64 = x.type, _of(x, I64)
    total = b.fadd(x, y, name="s")
    y_part = b.fsub(total, x, name="bb")
    x_part = b.fsub(total, y_part, name="sb")
    error = b.fadd(b.fsub(x, x_part, name="ex"), b.fsub(y, y_part, name="ey"), name="e")
    inexact0 = irbuild.fcmp(b, "one", error, irbuild.const(d, 0), "inexact0")
    magnitude = irbuild.intrinsic(b, "fabs", [total], "abs")
    finite = irbuild.fcmp(b, "one", magnitude, irbuild.const(d, float("inf")), "finite")
    inexact = b.and_(inexact0, finite, name="inexact")
    bits = b.bitcast(total, i64, name="bits")
    even = irbuild.icmp(b, "eq", b.and_(bits, irbuild.const(i64, 1), name="low"), irbuild.const(i64, 0), "even")
    move = b.and_(inexact, even, name="move")
    # Toward the exact sum: away from zero when the error has the sum's sign.
    away = irbuild.icmp(b, "eq", irbuild.fcmp(b, "olt", error, irbuild.const(d, 0), "es"),
                        irbuild.icmp(b, "slt", bits, irbuild.const(i64, 0), "ss"), "away")
    step = b.select(away, irbuild.const(i64, 1), irbuild.const(i64, -1), name="step")
    final = b.select(move, b.add(bits, step, name="moved"), bits, name="fin")
    return b.bitcast(final, d, name="r")


def round_double_value(b, d):
    """The double d rounded once to bf16: round-to-odd float first (16 spare bits make the
    second rounding exact)."""
    return round_float_value(b, round_to_odd_value(b, d))


def round_from_value(b, src, x):
    """A half, float or double x rounded once to bf16."""
    if src == "double":
        return round_double_value(b, x)
    if src == "half":       # exact in float (F16C)
        return round_float_value(b, b.fpext(x, _of(x, FLOAT), name="f"))
    if src == "float":
        return round_float_value(b, x)
    raise Unsupported(f"a conversion from {src} to __bf16")


def int_to_bfloat_value(b, x, signed):
    """The scalar integer x rounded once to bf16 (coopmat2.convert_bfloat16: the exact
    integer; a 64-bit one through a round-to-odd double, which keeps the next rounding
    single): the magnitude's bits beyond 53 dropped to odd, exactly scaled to a double."""
    wide = x if x.type.width == 64 else (b.sext if signed else b.zext)(x, I64, name="x")
    if signed:
        negative = irbuild.icmp(b, "slt", wide, ir.Constant(I64, 0), "neg")
        magnitude = b.select(negative, b.sub(ir.Constant(I64, 0), wide, name="nx"), wide, name="u")
    else:
        negative, magnitude = ir.Constant(I1, 0), wide
    # Bits beyond 53 dropped to odd: shift = max(0, 11 - leading zeros).
    zeros = irbuild.intrinsic(b, "ctlz", [magnitude, ir.Constant(I1, 0)], "lz")
    shift0 = b.sub(ir.Constant(I64, 11), zeros, name="sh0")
    shift = b.select(irbuild.icmp(b, "sgt", shift0, ir.Constant(I64, 0), "big"), shift0, ir.Constant(I64, 0),
                     name="sh")
    mask = b.sub(b.shl(ir.Constant(I64, 1), shift, name="m1"), ir.Constant(I64, 1), name="m")
    sticky = irbuild.icmp(b, "ne", b.and_(magnitude, mask, name="low"), ir.Constant(I64, 0), "st")
    top = b.or_(b.lshr(magnitude, shift, name="t"), b.zext(sticky, I64, name="stz"), name="to")
    scale = b.bitcast(b.shl(b.add(shift, ir.Constant(I64, 1023), name="e"), ir.Constant(I64, 52), name="eb"),
                      DOUBLE, name="sc")
    value = b.fmul(b.uitofp(top, DOUBLE, name="d0"), scale, name="d1")
    value = b.select(negative, b.fneg(value, name="dn"), value, name="d") if signed else value
    return round_double_value(b, value)


def arithmetic_value(b, op, x, y=None):
    """x `op` y (fadd/fsub/fmul/fdiv/frem, or fneg with y None) of bf16 values, as the
    interpreter's NumPy on bf16 arrays: in float32, rounded once; fneg flips the sign bit."""
    if op == "fneg":
        bits = b.bitcast(x, _of(x, I16), name="n")
        return b.bitcast(b.xor(bits, irbuild.const(bits.type, -32768), name="nx"), x.type, name="r")
    operation = {"fadd": b.fadd, "fsub": b.fsub, "fmul": b.fmul, "fdiv": b.fdiv, "frem": b.frem}[op]
    return round_float_value(b, operation(widen_value(b, x), widen_value(b, y), name="w"))


def _mul_add_value(b, x, y, z):
    """llvm.fmuladd of bf16: the product rounded to bf16, then the sum (interp/intrinsics.py
    _fmuladd: NumPy multiply then add on bf16 arrays, each in float32 and rounded)."""
    product = round_float_value(b, b.fmul(widen_value(b, x), widen_value(b, y), name="pf"))
    return round_float_value(b, b.fadd(widen_value(b, product), widen_value(b, z), name="sf"))


def _fused_value(b, x, y, z):
    """llvm.fma of bf16, rounded once (interp/fused.py): the exact product in double plus c,
    rounded to odd in double, then to bf16 (round-to-odd float32 first, as every double)."""
    product = b.fmul(widen_value(b, x, "double"), widen_value(b, y, "double"), name="p")
    return round_double_value(b, sum_to_odd_value(b, product, widen_value(b, z, "double")))


def _abs_value(b, x):
    bits = b.bitcast(x, _of(x, I16), name="n")
    return b.bitcast(b.and_(bits, irbuild.const(bits.type, 0x7FFF), name="nx"), x.type, name="r")


# ---------------------------------------------------------------- as lines, in place
# The same computations spliced into a function being rewritten as text (codegen, the
# matrix routines): `out` the result's name, temporaries `p`.* (default `out`.*: give a
# fresh name where `out` is the IR's).

def widen(value, n, out, to="float", p=None):
    """Lines: `out` = the bf16 `value` (n lanes, None: scalar) as float (or double), exact."""
    return irbuild.splice(lambda b, x: widen_value(b, x, to), [(shape(n, "bfloat"), value)], out, p or out)


def round_float(value, n, out, p=None):
    """Lines: `out` (bfloat) = the float `value` rounded to nearest-even."""
    return irbuild.splice(round_float_value, [(shape(n, "float"), value)], out, p or out)


def round_double(value, n, out, p=None):
    """Lines: `out` (bfloat) = the double `value` rounded once to bf16."""
    return irbuild.splice(round_double_value, [(shape(n, "double"), value)], out, p or out)


def round_from(src, value, n, out, p=None):
    """Lines: `out` (bfloat) = a half, float or double `value` rounded once to bf16."""
    if src not in ("half", "float", "double"):
        raise Unsupported(f"a conversion from {src} to __bf16")
    return irbuild.splice(lambda b, x: round_from_value(b, src, x), [(shape(n, src), value)], out, p or out)


def int_to_bfloat(fg, src, value, signed, out, p):
    """Lines: `out` (bfloat) = the scalar integer `value` of type `src` rounded once."""
    if fg is not None:      # (a module's rendezvous functions: LLVM's parser declares it)
        fg.mg.needed_intrinsic("llvm.ctlz.i64", "declare i64 @llvm.ctlz.i64(i64, i1)")
    return irbuild.splice(lambda b, x: int_to_bfloat_value(b, x, signed), [(src, value)], out, p)


def arithmetic(fresh, op, t, a, b, out):
    """Lines: `out` = a `op` b (fadd/fsub/fmul/fdiv/frem, or fneg with b None) of bf16
    values of type `t` (bfloat or <n x bfloat>: a cooperative matrix's components)."""
    inputs = [(t, a)] + ([(t, b)] if op != "fneg" else [])
    return irbuild.splice(lambda bd, *xs: arithmetic_value(bd, op, *xs), inputs, out, fresh("bfa"))


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
    src = str(ops[0].type) if ops else ""
    inputs = [(str(o.type), ref(o)) for o in ops]
    if op == "fcmp":
        pred = text.split("fcmp", 1)[1].split()
        pred = [p for p in pred if p not in ("nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc", "fast")][0]
        fg.lines += irbuild.splice(lambda b, x, y: irbuild.fcmp(b, pred, widen_value(b, x), widen_value(b, y), "c"),
                                   inputs, out, fg.fresh("bfc"))
        return True
    if op == "fpext" and _elem(src) == "bfloat":
        fg.lines += irbuild.splice(lambda b, x: widen_value(b, x, _elem(t)), inputs, out, fg.fresh("bfx"))
        return True
    if op == "fptrunc" and _elem(t) == "bfloat":
        fg.lines += round_from(_elem(src), ref(ops[0]), _count(t), out, fg.fresh("bfr"))
        return True
    if op in ("fptosi", "fptoui") and _elem(src) == "bfloat":
        target = irbuild.parse_type(t)
        if _elem(t) != "i1":
            fl = shape(_count(src), "float")
            intr = f"llvm.{op}.sat.{intrinsic_suffix(t)}.{type_suffix(fl)}"
            fg.mg.needed_intrinsic(intr, f"declare {t} @{intr}({fl})")

        def to_int(b, x):
            w = widen_value(b, x)
            if _elem(t) == "i1":
                return irbuild.fcmp(b, "une", w, irbuild.const(w.type, 0), "c")
            return irbuild.intrinsic(b, f"{op}.sat", [w], "c", types=[target, w.type], ret=target)
        fg.lines += irbuild.splice(to_int, inputs, out, fg.fresh("bfw"))
        return True
    if op in ("sitofp", "uitofp") and _elem(t) == "bfloat":
        if _count(t):
            raise Unsupported(f"a vector integer -> __bf16 conversion: {text}")
        fg.lines += int_to_bfloat(fg, src, ref(ops[0]), op == "sitofp", out, fg.fresh("bfi"))
        return True
    raise Unsupported(f"the __bf16 instruction '{op}' is not compiled natively yet: {text}")


# llvm.<name>.bf16 intrinsics computed here: name -> the computation.
_INTRINSICS = {"fmuladd": _mul_add_value, "fma": _fused_value, "fabs": _abs_value}


def _intrinsic(fg, ins, ops, out):
    name = ops[-1].name if value_kind(ops[-1]) == "function" else ""
    if not name.startswith("llvm.") or not name.endswith("bf16"):
        return False        # a defined function taking or returning bf16: a plain call
    base = name[len("llvm."):].split(".")[0]
    if base not in _INTRINSICS:
        raise Unsupported(f"the __bf16 intrinsic @{name} is not compiled natively yet")
    inputs = [(str(o.type), ref(o)) for o in ops[:-1]]
    fg.lines += irbuild.splice(_INTRINSICS[base], inputs, out, fg.fresh("bf"))
    return True
