"""Native definitions of cl_khr_integer_dot_product (docs/native.md, "Built-ins compiled
natively"), bit for bit as the interpreter's (interp/integer_dot.py): the four products of
8-bit components, widened by each operand's signedness, summed exactly in i32 (at most
4 * 255 * 255); the _acc_sat forms add the accumulator in i64 and clamp to the result
type. A packed operand is a uint whose byte k is component k (a bitcast on the
little-endian hosts the native engine runs on)."""
import re

import llvmlite.ir as ir

from clcoop.native import irbuild

_PACKED = re.compile(r"dot(_acc_sat)?_4x8packed_([su])([su])_(u?int)")
_CHAR4 = "<4 x i8>"


def integer_dot_definition(name, base, mparams, ret, params):
    """The definition of an integer dot product call, or None if `name` is not one."""
    packed = _PACKED.fullmatch(base)
    if packed:
        saturating, signs = bool(packed.group(1)), (packed.group(2) == "s", packed.group(3) == "s")
        unsigned_result = packed.group(4) == "uint"
        operand_type = "i32"
    elif base in ("dot", "dot_acc_sat") and mparams and len(mparams) >= 2 \
            and all(p[0] == "vec" and p[1] == 4 and p[2][:2] == ("int", 8) for p in mparams[:2]):
        saturating = base == "dot_acc_sat"
        signs = (mparams[0][2][2], mparams[1][2][2])
        unsigned_result = not (signs[0] or signs[1])
        operand_type = _CHAR4
    else:
        return None
    if ret != "i32" or params[:2] != [operand_type, operand_type] or \
            len(params) != (3 if saturating else 2) or (saturating and params[2] != "i32"):
        return None
    fn, b = irbuild.builtin(name, "i32", params)
    char4, int4 = ir.VectorType(irbuild.I8, 4), ir.VectorType(irbuild.I32, 4)
    widened = []
    for k in (0, 1):
        value = fn.args[1 + k]
        if operand_type == "i32":
            value = b.bitcast(value, char4, name=f"v{k}")
        widened.append((b.sext if signs[k] else b.zext)(value, int4, name=f"w{k}"))
    product = b.mul(widened[0], widened[1], name="p")
    e = [b.extract_element(product, irbuild.const(irbuild.I32, k), name=f"e{k}") for k in range(4)]
    total = b.add(b.add(e[0], e[1], name="s01"), b.add(e[2], e[3], name="s23"), name="s")
    if not saturating:
        b.ret(total)
        return irbuild.function_text(fn)
    lo, hi = (0, (1 << 32) - 1) if unsigned_result else (-(1 << 31), (1 << 31) - 1)
    acc = (b.zext if unsigned_result else b.sext)(fn.args[3], irbuild.I64, name="acc")
    t = b.add(b.sext(total, irbuild.I64, name="s64"), acc, name="t")
    t = irbuild.intrinsic(b, "smax", [t, irbuild.const(irbuild.I64, lo)], "lo")
    t = irbuild.intrinsic(b, "smin", [t, irbuild.const(irbuild.I64, hi)], "hi")
    b.ret(b.trunc(t, irbuild.I32, name="r"))
    return irbuild.function_text(fn)
