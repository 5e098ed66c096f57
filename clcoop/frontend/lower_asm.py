"""Lowering of GNU inline assembly statements (tast.Asm, checked by asm_check.py) as clang-22
emits them: `call <outputs> asm [sideeffect] "template", "constraints"(inputs)`, marked
convergent nounwind, then each output stored to its lvalue (several outputs: a literal
struct, one extractvalue each)."""
from llvmlite import ir

from clcoop.frontend import tast as A


def llvm_string(text):
    """Text as an LLVM string body: quotes, backslashes and non-printable bytes as \\XX."""
    return "".join(c if " " <= c <= "~" and c not in '"\\' else f"\\{ord(c):02X}" for c in text)


def lower_asm(lw, s):
    b = lw.builder
    direct = [not isinstance(o, (A.Swizzle, A.VectorElement)) for o in s.outputs]
    places = [lw.expressions.address(o) if d else None for o, d in zip(s.outputs, direct)]
    args = [lw.expressions.rvalue(v) for v in s.inputs]
    for k in s.tied:
        o = s.outputs[k]
        args.append(lw.load_value(places[k], o.type) if direct[k] else lw.expressions.rvalue(o))
    types = [lw.value_type(o.type) for o in s.outputs]
    if not types:
        ret = ir.VoidType()
    else:
        ret = types[0] if len(types) == 1 else ir.LiteralStructType(types)
    asm = ir.InlineAsm(ir.FunctionType(ret, [a.type for a in args]), llvm_string(s.template),
                       s.constraints, side_effect=s.side_effect)
    result = b.call(asm, args, attrs=("convergent", "nounwind"))
    for k, o in enumerate(s.outputs):
        value = result if len(types) == 1 else b.extract_value(result, k)
        if direct[k]:
            lw.store_value(value, places[k], o.type)
        else:
            lw.expressions.store_lvalue(o, value)
