"""Extract the cooperative-matrix skeleton of a kernel from LLVM IR text and from a SPIR-V module, in one
shape, so tests can compare them: matrix types, and per function and block the sequence of
loads / stores / mul-adds with their layouts and operand masks (and pointee types of loads/stores).

A matrix is (kind, width, scope, rows, cols, use) with kind 'f' or 'i' (SPIR-V integers carry no sign).
"""

import re

from clcoop import float8
from clcoop.spirv import binary as sb

IR_COMPONENT = {"half": ("f", 16), "float": ("f", 32), "double": ("f", 64), "bfloat": ("bf", 16),
                "i8": ("i", 8), "i16": ("i", 16), "i32": ("i", 32), "i64": ("i", 64)}
# fp8 matrix components: the inline OpTypeFloat 8 <FP encoding> (clcoop/float8.py).
IR_COMPONENT.update({f.ir_type: (f.token.lower(), 8) for f in float8.FORMATS.values()})
FP8_ENCODINGS = {f.encoding: f.token.lower() for f in float8.FORMATS.values()}
# Itanium codes of pointee types in callee names (docs/ir-conventions.md).
CODE_COMPONENT = {"c": ("i", 8), "a": ("i", 8), "h": ("i", 8), "s": ("i", 16), "t": ("i", 16),
                  "i": ("i", 32), "j": ("i", 32), "l": ("i", 64), "m": ("i", 64),
                  "Dh": ("f", 16), "f": ("f", 32), "d": ("f", 64), "DF16b": ("bf", 16),
                  # fp8 pointees hold bytes: llc-22 points at them with uchar pointers.
                  "u10__fp8_e4m3": ("i", 8), "u10__fp8_e5m2": ("i", 8)}
MATRIX_RE = re.compile(r'target\("spirv\.CooperativeMatrixKHR", (\w+|' + float8.IR_TYPE_PATTERN
                       + r'), (\d+), (\d+), (\d+), (\d+)\)')
CALL_RE = re.compile(r"call spir_func (.*?) @(_Z\d+__spirv_CooperativeMatrix(LoadKHR|StoreKHR|MulAddKHR)\w*)\((.*)\)")
DEFINE_RE = re.compile(r"^define .*?@([\w.$]+)\(")
LABEL_RE = re.compile(r"^([\w.$-]+):")
POINTEE_RE = re.compile(r"EvPU3AS\d(DF16b|Dh|u10__fp8_e4m3|u10__fp8_e5m2|[a-z])|EvP(DF16b|Dh|u10__fp8_e4m3|u10__fp8_e5m2|[a-z])")


# Matrix{A,B,C,Result}SignedComponentsKHR (SPV_KHR_cooperative_matrix 3.X), in (A, B, C, Result) order.
SIGNED_BITS = (0x1, 0x2, 0x4, 0x8)
SIGNED_NAMES = ("MatrixASignedComponentsKHR", "MatrixBSignedComponentsKHR",
                "MatrixCSignedComponentsKHR", "MatrixResultSignedComponentsKHR")


def ir_matrix(match):
    kind, width = IR_COMPONENT[match.group(1)]
    return (kind, width) + tuple(int(match.group(i)) for i in range(2, 6))


def split_args(text):
    """Split a call's argument list at top-level commas."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def _constant(arg):
    value = arg.rsplit(" ", 1)[1]
    return int(value)


def ir_events(ir_text):
    """{function: {block: [event, ...]}}; event = (op, matrices, layout-or-mask, pointee-or-None)."""
    functions, function, block = {}, None, None
    for line in ir_text.splitlines():
        found = DEFINE_RE.match(line)
        if found:
            function, block = found.group(1), "entry"
            functions[function] = {}
            continue
        if function is None:
            continue
        if line.startswith("}"):
            function = None
            continue
        label = LABEL_RE.match(line)
        if label:
            block = label.group(1)
            continue
        call = CALL_RE.search(line)
        if not call:
            continue
        ret, name, op, args = call.group(1), call.group(2), call.group(3), split_args(call.group(4))
        event = _ir_event(op, ret, name, args)
        functions[function].setdefault(block, []).append(event)
    return functions


def _ir_pointee(name):
    found = POINTEE_RE.search(name)
    return CODE_COMPONENT[found.group(1) or found.group(2)]


def _ir_event(op, ret, name, args):
    if op == "LoadKHR":
        return ("load", (ir_matrix(MATRIX_RE.search(ret)),), _constant(args[1]), _ir_pointee(name))
    if op == "StoreKHR":
        return ("store", (ir_matrix(MATRIX_RE.search(args[1])),), _constant(args[2]), _ir_pointee(name))
    matrices = tuple(ir_matrix(MATRIX_RE.search(arg)) for arg in args[:3]) + (ir_matrix(MATRIX_RE.search(ret)),)
    mask = _constant(args[3]) if len(args) > 3 else 0
    return ("muladd", matrices, mask, None)


def emitted_events(functions):
    """ir_events as `clcoop --emit-spirv` must write them: the signedness bits of floating-point
    matrices dropped from mul-add masks (SPV_KHR 2.16.1; llc-22 itself copies them)."""
    def emitted(event):
        op, matrices, mask, pointee = event
        if op == "muladd":
            for matrix, bit in zip(matrices, SIGNED_BITS):
                if matrix[0] == "f":
                    mask &= ~bit
        return (op, matrices, mask, pointee)
    return {name: {block: [emitted(e) for e in events] for block, events in blocks.items()}
            for name, blocks in functions.items()}


def ir_matrix_types(ir_text):
    """Matrix types used inside function definitions."""
    found, inside = set(), False
    for line in ir_text.splitlines():
        if DEFINE_RE.match(line):
            inside = True
        if inside:
            found.update(ir_matrix(m) for m in MATRIX_RE.finditer(line))
        if line.startswith("}"):
            inside = False
    return found


class SpirvView:
    """Lookups over a parsed SPIR-V module for the extractor."""

    def __init__(self, data):
        self.module = sb.read_module(data)
        self.defs = sb.definitions(self.module)
        self.names = sb.names(self.module)

    def constant(self, value_id):
        inst = self.defs[value_id]
        if inst.opcode == 46:  # OpConstantNull
            return 0
        assert inst.opcode == sb.OP_CONSTANT, f"not a constant: {inst}"
        return inst.operands[2]

    def scalar(self, type_id):
        inst = self.defs[type_id]
        if inst.opcode == sb.OP_TYPE_FLOAT:      # FP encoding 0: BFloat16KHR (SPV_KHR_bfloat16)
            if inst.operands[2:3] and inst.operands[2] in FP8_ENCODINGS:      # SPV_EXT_float8
                return (FP8_ENCODINGS[inst.operands[2]], inst.operands[1])
            return ("bf" if inst.operands[2:] == [0] else "f", inst.operands[1])
        assert inst.opcode == sb.OP_TYPE_INT, f"not a scalar type: {inst}"
        return ("i", inst.operands[1])

    def matrix(self, type_id):
        inst = self.defs[type_id]
        assert inst.opcode == sb.OP_TYPE_COOPERATIVE_MATRIX_KHR, f"not a matrix type: {inst}"
        return self.scalar(inst.operands[1]) + tuple(self.constant(i) for i in inst.operands[2:6])

    def value_matrix(self, value_id):
        return self.matrix(self.defs[value_id].result_type)

    def pointee(self, pointer_id):
        pointer_type = self.defs[self.defs[pointer_id].result_type]
        assert pointer_type.opcode == sb.OP_TYPE_POINTER
        return self.scalar(pointer_type.operands[2])


def spirv_events(data):
    view = SpirvView(data)
    functions, function, block = {}, None, None
    for inst in view.module.instructions:
        ops = inst.operands
        if inst.opcode == sb.OP_FUNCTION:
            function, block = view.names.get(inst.result_id), None
            functions[function] = {}
        elif inst.opcode == 248:  # OpLabel
            block = view.names.get(ops[0], f"%{ops[0]}")
        elif inst.opcode == sb.OP_COOPERATIVE_MATRIX_LOAD_KHR:
            event = ("load", (view.matrix(ops[0]),), view.constant(ops[3]), view.pointee(ops[2]))
            functions[function].setdefault(block, []).append(event)
        elif inst.opcode == sb.OP_COOPERATIVE_MATRIX_STORE_KHR:
            event = ("store", (view.value_matrix(ops[1]),), view.constant(ops[2]), view.pointee(ops[0]))
            functions[function].setdefault(block, []).append(event)
        elif inst.opcode == sb.OP_COOPERATIVE_MATRIX_MUL_ADD_KHR:
            matrices = tuple(view.value_matrix(v) for v in ops[2:5]) + (view.matrix(ops[0]),)
            event = ("muladd", matrices, ops[5] if len(ops) > 5 else 0, None)
            functions[function].setdefault(block, []).append(event)
    return functions


def mul_add_operand_errors(data):
    """SPV_KHR_cooperative_matrix 2.16.1, which spirv-val 2025.5 does not check: "The
    Matrix{A,B,C,Result}SignedComponentsKHR Cooperative Matrix Operand can only be used when the type of
    the corresponding matrix is an integer type". One message per offending bit of every
    OpCooperativeMatrixMulAddKHR (empty when the module is right)."""
    view = SpirvView(data)
    errors = []
    for inst in view.module.instructions:
        if inst.opcode != sb.OP_COOPERATIVE_MATRIX_MUL_ADD_KHR:
            continue
        ops = inst.operands
        mask = ops[5] if len(ops) > 5 else 0
        matrices = tuple(view.value_matrix(v) for v in ops[2:5]) + (view.matrix(ops[0]),)
        for matrix, bit, name in zip(matrices, SIGNED_BITS, SIGNED_NAMES):
            if mask & bit and matrix[0] != "i":
                errors.append(f"OpCooperativeMatrixMulAddKHR %{ops[1]}: {name} on a matrix of "
                              f"{matrix[0]}{matrix[1]} components")
    return errors


def spirv_matrix_types(data):
    view = SpirvView(data)
    return {view.matrix(inst.result_id) for inst in view.module.instructions
            if inst.opcode == sb.OP_TYPE_COOPERATIVE_MATRIX_KHR}


def drop_empty(functions):
    """Only functions with cooperative-matrix events; blocks without events dropped."""
    return {name: {b: ev for b, ev in blocks.items() if ev} for name, blocks in functions.items()
            if any(blocks.values())}
