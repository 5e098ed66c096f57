"""Native definitions of cl_khr_integer_dot_product (docs/native.md, "Built-ins compiled
natively"), bit for bit as the interpreter's (interp/integer_dot.py): the four products of
8-bit components, widened by each operand's signedness, summed exactly in i32 (at most
4 * 255 * 255); the _acc_sat forms add the accumulator in i64 and clamp to the result
type. A packed operand is a uint whose byte k is component k (a bitcast on the
little-endian hosts the native engine runs on)."""
import re

from clcoop.native.text_rewrite import gquote

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
    args = ", ".join(f"{t} %a{i}" for i, t in enumerate(params))
    lines = [f"define internal i32 {gquote(name)}(ptr %c, {args}) alwaysinline {{"]
    for k in (0, 1):
        value = f"%a{k}"
        if operand_type == "i32":
            lines.append(f"  %v{k} = bitcast i32 %a{k} to {_CHAR4}")
            value = f"%v{k}"
        lines.append(f"  %w{k} = {'sext' if signs[k] else 'zext'} {_CHAR4} {value} to <4 x i32>")
    lines.append("  %p = mul <4 x i32> %w0, %w1")
    for k in range(4):
        lines.append(f"  %e{k} = extractelement <4 x i32> %p, i32 {k}")
    lines += ["  %s01 = add i32 %e0, %e1", "  %s23 = add i32 %e2, %e3", "  %s = add i32 %s01, %s23"]
    if saturating:
        lo, hi = (0, (1 << 32) - 1) if unsigned_result else (-(1 << 31), (1 << 31) - 1)
        lines += ["  %s64 = sext i32 %s to i64",
                  f"  %acc = {'zext' if unsigned_result else 'sext'} i32 %a2 to i64",
                  "  %t = add i64 %s64, %acc",
                  f"  %lo = call i64 @llvm.smax.i64(i64 %t, i64 {lo})",
                  f"  %hi = call i64 @llvm.smin.i64(i64 %lo, i64 {hi})",
                  "  %r = trunc i64 %hi to i32", "  ret i32 %r"]
    else:
        lines.append("  ret i32 %s")
    return "\n".join(lines + ["}"])
