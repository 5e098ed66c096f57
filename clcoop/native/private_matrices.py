"""Cooperative-matrix values in private memory in native kernels (docs/native.md,
"Cooperative matrices"): -O0 IR, where every matrix variable is an alloca loaded and
stored, and element access `m[i]`, which takes a matrix variable's address
(__spirv_AccessChain).

As in the interpreter (interp/instructions.py op_alloca, typed_memory.py), a matrix in
private memory is its work-item's components, V x sizeof(T) bytes in component order: the
<V x T> vector the native engine keeps for a matrix (coop_routines.py). Its loads and
stores are plain vector loads and stores (bounds-checked like any private access when the
alloca's address escapes), and `&m[i]` is m's address + i * sizeof(T)
(interp/coop_calls.py _do_access_chain), unchecked itself: the access through it is
checked against the matrix variable, so an index outside [0, V) is the interpreter's
out-of-bounds fault on the private variable.
"""
from clcoop import coop_names
from clcoop.errors import IRError
from clcoop.ir.coop_operands import component_dtype, pointee_size
from clcoop.native.support import Unsupported
from clcoop.native.text_rewrite import ref, typed
from clcoop.ir.loader import value_kind


def is_access_chain(ins):
    """Whether `ins` is a call of __spirv_AccessChain (its result points into its first
    operand's matrix variable)."""
    if ins.opcode != "call":
        return False
    callee = list(ins.operands)[-1]
    if value_kind(callee) != "function" or not coop_names.names_spirv_operation(callee.name):
        return False
    parsed = coop_names.parse_callee(callee.name)
    return parsed is not None and parsed.base == coop_names.ACCESS_CHAIN


def access_chain(fg, ins, ops, callee, lhs):
    """&m[i]: the matrix pointer plus i components (the index sign-extended, as the
    interpreter's int64 arithmetic); no check here, the access through it is checked."""
    if len(ops) != 3 or str(ops[0].type) != "ptr" or not str(ops[1].type).startswith("i") \
            or str(ins.type) != "ptr":
        raise Unsupported(f"a cooperative-matrix element access of another form: {typed(ops[0])}, {typed(ops[1])}")
    try:        # the component's size, as the interpreter takes it
        size = component_dtype(callee.matrices[0]).itemsize if callee.matrices else pointee_size(callee.params)
    except (IRError, KeyError) as exc:
        raise Unsupported(f"a cooperative-matrix element access of unknown component size ({exc})")
    index = typed(ops[1])
    wide = fg.fresh("ac")
    if str(ops[1].type) == "i64":
        fg.lines.append(f"  {wide} = add i64 {ref(ops[1])}, 0")
    else:
        fg.lines.append(f"  {wide} = sext {index} to i64")
    fg.lines += [f"  {wide}.b = mul i64 {wide}, {size}",
                 f"  {lhs}getelementptr i8, {typed(ops[0])}, i64 {wide}.b"]
    return None
