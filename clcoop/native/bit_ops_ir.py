"""cl_khr_extended_bit_ops natively (docs/native.md, "Built-ins compiled natively"):
bitfield_insert, bitfield_extract_signed / _unsigned and bit_reverse on every integer type,
scalar or vector, bit for bit as the interpreter's (interp/extended_bit_ops.py).

The offset and count are one uint for every component. The extension leaves the result
undefined where offset + count exceeds the type's width; the interpreter faults there, and
so does this code: a FAULT_BIT_FIELD at the call (runtime.py words it as the interpreter:
fault_message), its offset and count in the fault's address and size words. A count of 0
inserts nothing and extracts 0 (even at offset = width). LLVM shifts by the width or more
are poison: every shift amount here is below the width (where the field is legal) or made
so (where it faults, the value is never used)."""
import re

from clcoop.native.context import FAULT_BIT_FIELD
from clcoop.native.support import Unsupported
from clcoop.native.text_rewrite import quote, ref

FUNCTIONS = ("bitfield_insert", "bitfield_extract_signed", "bitfield_extract_unsigned", "bit_reverse")
_VECTOR = re.compile(r"<(\d+) x (i\d+)>")


# A fault with its two words when `bad`, branchless at the call (a branch would split the
# caller's block, which the subgroup-wide path's per-lane copies cannot).
FAULT_IF_IR = """define internal void @__clcoop_fault_words_if(ptr %c, i1 %bad, i32 %site, i32 %kind, i64 %a, i64 %b) alwaysinline {
entry:
  br i1 %bad, label %rec, label %out
rec:
  call void @__clcoop_fault(ptr %c, i32 %site, i32 %kind, i64 %a, i64 %b)
  br label %out
out:
  ret void
}"""


def is_bit_op(base):
    return base in FUNCTIONS


def fault_message(site, offset, count):
    """The interpreter's words (interp/extended_bit_ops._field) for a field past the width."""
    return (f"{site.what}: offset {offset} + count {count} exceeds the {site.size} bits of the type "
            f"(undefined in cl_khr_extended_bit_ops)")


def _shape(t):
    """(element type, lanes or None) of an integer scalar or vector IR type, else None."""
    m = _VECTOR.fullmatch(t)
    elem, n = (m.group(2), int(m.group(1))) if m else (t, None)
    return (elem, n) if re.fullmatch(r"i(8|16|32|64)", elem) else None


def emit(gen, ins, ops, base):
    """The call `ins` of the bit op `base` (gen: codegen._FunctionGen), inline: the field
    check needs the call's fault site."""
    args = ops[:-1]
    T = str(ins.type)
    shape = _shape(T)
    want = {"bit_reverse": [T], "bitfield_insert": [T, T, "i32", "i32"]}.get(base, [T, "i32", "i32"])
    if shape is None or [str(a.type) for a in args] != want:
        raise Unsupported(f"the built-in '{base}' on ({', '.join(str(a.type) for a in args)}) -> {T}")
    elem, lanes = shape
    width = int(elem[1:])
    out = quote(ins.name)
    v = ref(args[0])
    if base == "bit_reverse":
        gen.lines.append(f"  {out} = call {T} @llvm.bitreverse.{_suffix(elem, lanes)}({T} {v})")
        return
    offset, count = (ref(a) for a in args[-2:])
    n = gen.fresh("bit")
    site = gen.site(ins, base, width)
    gen.mg.builtin_defs.setdefault("__clcoop_fault_words_if", FAULT_IF_IR)
    L = gen.lines
    # In i64: offset + count of two uints cannot wrap.
    L += [f"  {n}.o = zext i32 {offset} to i64", f"  {n}.c = zext i32 {count} to i64",
          f"  {n}.end = add i64 {n}.o, {n}.c", f"  {n}.bad = icmp ugt i64 {n}.end, {width}",
          f"  call void @__clcoop_fault_words_if(ptr %__ctx, i1 {n}.bad, i32 {site}, i32 {FAULT_BIT_FIELD}, "
          f"i64 {n}.o, i64 {n}.c)"]
    # Legal amounts from here on: count 0 (nothing, whatever the offset), else count in
    # [1, width] and offset <= width - count (a faulting call gets count 0).
    e = elem
    narrow = "bitcast" if e == "i64" else "trunc"
    L += [f"  {n}.zc = icmp eq i64 {n}.c, 0", f"  {n}.none = or i1 {n}.zc, {n}.bad",
          f"  {n}.c1 = select i1 {n}.none, i64 1, i64 {n}.c",
          f"  {n}.o1 = select i1 {n}.none, i64 0, i64 {n}.o",
          f"  {n}.cw = {narrow} i64 {n}.c1 to {e}", f"  {n}.ow = {narrow} i64 {n}.o1 to {e}",
          f"  {n}.wc = sub {e} {width}, {n}.cw",                       # in [0, width - 1]
          f"  {n}.ones = lshr {e} -1, {n}.wc",                           # count low bits
          f"  {n}.field = select i1 {n}.none, {e} 0, {e} {n}.ones"]
    if base == "bitfield_insert":
        # (base & ~(field << offset)) | ((insert << offset) & (field << offset))
        L += [f"  {n}.m = shl {e} {n}.field, {n}.ow"]
        mask, off = _splat(gen, n, "m", e, lanes), _splat(gen, n, "ow", e, lanes)
        ins_v = ref(args[1])
        L += [f"  {n}.nm = xor {T} {mask}, {_all_ones(e, lanes)}", f"  {n}.kept = and {T} {v}, {n}.nm",
              f"  {n}.moved = shl {T} {ins_v}, {off}", f"  {n}.put = and {T} {n}.moved, {mask}",
              f"  {out} = or {T} {n}.kept, {n}.put"]
        return
    if base == "bitfield_extract_unsigned":
        off, field = _splat(gen, n, "ow", e, lanes), _splat(gen, n, "field", e, lanes)
        L += [f"  {n}.sh = lshr {T} {v}, {off}", f"  {out} = and {T} {n}.sh, {field}"]
        return
    # signed: the field's top bit at the type's top (shl by width - offset - count), then
    # an arithmetic shift back by width - count; count 0 gives 0.
    L += [f"  {n}.up = sub {e} {n}.wc, {n}.ow"]
    up, down = _splat(gen, n, "up", e, lanes), _splat(gen, n, "wc", e, lanes)
    zero = "zeroinitializer" if lanes else "0"
    L += [f"  {n}.hi = shl {T} {v}, {up}", f"  {n}.sx = ashr {T} {n}.hi, {down}",
          f"  {out} = select i1 {n}.none, {T} {zero}, {T} {n}.sx"]


def _splat(gen, n, name, elem, lanes):
    """%n.name (an elem), as a <lanes x elem> vector for vector operands."""
    if lanes is None:
        return f"{n}.{name}"
    gen.lines += [f"  {n}.{name}.i = insertelement <{lanes} x {elem}> poison, {elem} {n}.{name}, i64 0",
                  f"  {n}.{name}.v = shufflevector <{lanes} x {elem}> {n}.{name}.i, <{lanes} x {elem}> poison, "
                  f"<{lanes} x i32> zeroinitializer"]
    return f"{n}.{name}.v"


def _all_ones(elem, lanes):
    if lanes is None:
        return "-1"
    return "<" + ", ".join([f"{elem} -1"] * lanes) + ">"


def _suffix(elem, lanes):
    return f"v{lanes}{elem}" if lanes else elem
