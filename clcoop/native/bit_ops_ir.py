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

import llvmlite.ir as ir

from clcoop.native import irbuild
from clcoop.native.context import FAULT_BIT_FIELD
from clcoop.native.support import Unsupported
from clcoop.native.text_rewrite import quote, ref, typed

FUNCTIONS = ("bitfield_insert", "bitfield_extract_signed", "bitfield_extract_unsigned", "bit_reverse")
_VECTOR = re.compile(r"<(\d+) x (i\d+)>")


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
    """The call `ins` of the bit op `base` (gen: codegen._FunctionGen), rewritten in place:
    bit_reverse as LLVM's intrinsic, the field operations as a call of their generated
    function (field_definition) with the call's fault site."""
    args = ops[:-1]
    T = str(ins.type)
    shape = _shape(T)
    want = {"bit_reverse": [T], "bitfield_insert": [T, T, "i32", "i32"]}.get(base, [T, "i32", "i32"])
    if shape is None or [str(a.type) for a in args] != want:
        raise Unsupported(f"the built-in '{base}' on ({', '.join(str(a.type) for a in args)}) -> {T}")
    elem, lanes = shape
    out = quote(ins.name)
    if base == "bit_reverse":
        gen.lines.append(f"  {out} = call {T} @llvm.bitreverse.{_suffix(elem, lanes)}({T} {ref(args[0])})")
        return
    site = gen.site(ins, base, int(elem[1:]))
    name = f"__clcoop_{base}.{_suffix(elem, lanes)}"
    if name not in gen.mg.builtin_defs:
        gen.mg.builtin_defs[name] = field_definition(name, base, T)
    gen.lines.append(f"  {out} = call {T} @{name}(ptr %__ctx, {', '.join(typed(a) for a in args)}, i32 {site})")


def field_definition(name, base, T):
    """@name(ctx, value, [insert,] offset, count, site) of the field operation `base` on the
    integer type T (scalar or vector): a FAULT_BIT_FIELD when offset + count exceeds the
    width, then the result from shift amounts that are always legal."""
    t = irbuild.parse_type(T)
    e = irbuild.element(t)
    width = e.width
    I32, I64 = irbuild.I32, irbuild.I64
    inserted = [(t, "insert")] if base == "bitfield_insert" else []
    fn, b = irbuild.define(name, t, [(irbuild.PTR, "c"), (t, "v"), *inserted, (I32, "offset"), (I32, "count"),
                                     (I32, "site")])
    c, v, offset, count, site = fn.args[0], fn.args[1], *fn.args[-3:]
    # In i64: offset + count of two uints cannot wrap.
    o, n = b.zext(offset, I64, name="o"), b.zext(count, I64, name="n")
    bad = irbuild.icmp(b, "ugt", b.add(o, n, name="end"), ir.Constant(I64, width), "bad")
    with b.if_then(bad):
        irbuild.call(b, "__clcoop_fault", ir.VoidType(), [c, site, ir.Constant(I32, FAULT_BIT_FIELD), o, n])
    # Legal amounts from here on: count 0 (nothing, whatever the offset), else count in
    # [1, width] and offset <= width - count (a faulting call gets count 0).
    none = b.or_(irbuild.icmp(b, "eq", n, ir.Constant(I64, 0), "zc"), bad, name="none")
    n1 = b.select(none, ir.Constant(I64, 1), n, name="n1")
    o1 = b.select(none, ir.Constant(I64, 0), o, name="o1")
    nw, ow = (x if width == 64 else b.trunc(x, e, name=f"{x.name[0]}w") for x in (n1, o1))
    wc = b.sub(ir.Constant(e, width), nw, name="wc")                        # in [0, width - 1]
    ones = b.lshr(ir.Constant(e, -1), wc, name="ones")                     # count low bits
    field = b.select(none, ir.Constant(e, 0), ones, name="field")
    if base == "bitfield_insert":
        # (base & ~(field << offset)) | ((insert << offset) & (field << offset))
        mask = irbuild.splat(b, b.shl(field, ow, name="m"), t, "mask")
        kept = b.and_(v, b.xor(mask, irbuild.const(t, -1), name="nm"), name="kept")
        put = b.and_(b.shl(fn.args[2], irbuild.splat(b, ow, t, "off"), name="moved"), mask, name="put")
        b.ret(b.or_(kept, put, name="r"))
    elif base == "bitfield_extract_unsigned":
        shifted = b.lshr(v, irbuild.splat(b, ow, t, "off"), name="sh")
        b.ret(b.and_(shifted, irbuild.splat(b, field, t, "fieldv"), name="r"))
    else:
        # signed: the field's top bit at the type's top (shl by width - offset - count),
        # then an arithmetic shift back by width - count; count 0 gives 0.
        up = irbuild.splat(b, b.sub(wc, ow, name="up"), t, "upv")
        extended = b.ashr(b.shl(v, up, name="hi"), irbuild.splat(b, wc, t, "down"), name="sx")
        b.ret(b.select(none, irbuild.const(t, 0), extended, name="r"))
    return irbuild.function_text(fn)


def _suffix(elem, lanes):
    return f"v{lanes}{elem}" if lanes else elem
