"""A small SPIR-V word-stream reader/writer (SPIR-V spec 2.3 "Physical Layout of a SPIR-V Module").

A module is its header plus a list of Instruction(opcode, operands), where `operands` are the words after
the first one (word count | opcode). Only the opcodes clcoop's rewrite touches are named here.
"""

import struct
from dataclasses import dataclass, field

from clcoop.errors import ClcoopError

MAGIC = 0x07230203

# Opcodes (SPIR-V spec 3.52 and SPV_KHR_cooperative_matrix).
OP_NAME = 5
OP_EXTENSION = 10
OP_CAPABILITY = 17
OP_TYPE_INT = 21
OP_TYPE_FLOAT = 22
OP_TYPE_POINTER = 32
OP_TYPE_FUNCTION = 33
OP_CONSTANT = 43
OP_CONSTANT_NULL = 46
OP_FUNCTION = 54
OP_FUNCTION_PARAMETER = 55
OP_FUNCTION_END = 56
OP_FUNCTION_CALL = 57
OP_VARIABLE = 59
OP_LOAD = 61
OP_STORE = 62
OP_ACCESS_CHAIN = 65
OP_DECORATE = 71
OP_COMPOSITE_CONSTRUCT = 80
OP_PTR_CAST_TO_GENERIC = 121
OP_GENERIC_CAST_TO_PTR = 122
OP_BITCAST = 124
OP_SNEGATE = 126
OP_FNEGATE = 127
OP_IADD = 128
OP_FADD = 129
OP_ISUB = 130
OP_FSUB = 131
OP_IMUL = 132
OP_FMUL = 133
OP_UDIV = 134
OP_SDIV = 135
OP_FDIV = 136
OP_ATOMIC_SMIN = 236
OP_ATOMIC_UMIN = 237
OP_ATOMIC_SMAX = 238
OP_ATOMIC_UMAX = 239
OP_ENTRY_POINT = 15
OP_TYPE_BOOL, OP_TYPE_VECTOR, OP_TYPE_MATRIX, OP_TYPE_ARRAY, OP_TYPE_STRUCT = 20, 23, 24, 28, 30
OP_SPEC_CONSTANT, OP_SPEC_CONSTANT_OP = 50, 52
OP_MEMBER_DECORATE = 72
OP_TYPE_COOPERATIVE_MATRIX_KHR = 4456
OP_COOPERATIVE_MATRIX_LOAD_KHR = 4457
OP_COOPERATIVE_MATRIX_STORE_KHR = 4458
OP_COOPERATIVE_MATRIX_MUL_ADD_KHR = 4459
OP_COOPERATIVE_MATRIX_LENGTH_KHR = 4460
# SPV_NV_cooperative_matrix2 / SPV_EXT_cooperative_matrix_maintenance1 / SPV_INTEL_function_pointers
OP_COOPERATIVE_MATRIX_GET_COORDINATE_EXT = 5363
OP_COOPERATIVE_MATRIX_REDUCE_NV = 5366
OP_COOPERATIVE_MATRIX_PER_ELEMENT_OP_NV = 5369
OP_CONSTANT_FUNCTION_POINTER_INTEL = 5600
# SPV_NV_cooperative_matrix2 / SPV_NV_tensor_addressing (spirv/tensor.py)
OP_LOAD_TENSOR_NV = 5367
OP_STORE_TENSOR_NV = 5368
OP_TYPE_TENSOR_LAYOUT_NV = 5370
OP_TYPE_TENSOR_VIEW_NV = 5371

CAPABILITY_LINKAGE = 5
CAPABILITY_INT8 = 39
CAPABILITY_INT64_ATOMICS = 12
DECORATION_SPEC_ID, DECORATION_BLOCK, DECORATION_ARRAY_STRIDE, DECORATION_OFFSET = 1, 2, 6, 35
DECORATION_LINKAGE_ATTRIBUTES = 41
LINKAGE_TYPE_IMPORT = 1
STORAGE_CLASS_WORKGROUP = 4
STORAGE_CLASS_CROSS_WORKGROUP = 5
STORAGE_CLASS_FUNCTION = 7
STORAGE_CLASS_GENERIC = 8
STORAGE_CLASS_PUSH_CONSTANT = 9
STORAGE_CLASS_PHYSICAL_STORAGE_BUFFER = 5349

# Opcodes whose operands start with <result type> <result id> (those the rewrite inspects).
TYPED_RESULT_OPCODES = frozenset({
    OP_CONSTANT, OP_FUNCTION, OP_FUNCTION_PARAMETER, OP_FUNCTION_CALL, OP_VARIABLE, OP_LOAD,
    OP_ACCESS_CHAIN, OP_COMPOSITE_CONSTRUCT, OP_PTR_CAST_TO_GENERIC, OP_GENERIC_CAST_TO_PTR,
    OP_BITCAST, OP_SNEGATE, OP_FNEGATE, OP_IADD, OP_FADD, OP_ISUB, OP_FSUB, OP_IMUL, OP_FMUL,
    OP_UDIV, OP_SDIV, OP_FDIV, OP_COOPERATIVE_MATRIX_LOAD_KHR, OP_COOPERATIVE_MATRIX_MUL_ADD_KHR,
    OP_COOPERATIVE_MATRIX_LENGTH_KHR, OP_COOPERATIVE_MATRIX_GET_COORDINATE_EXT,
    OP_COOPERATIVE_MATRIX_REDUCE_NV, OP_COOPERATIVE_MATRIX_PER_ELEMENT_OP_NV, OP_CONSTANT_FUNCTION_POINTER_INTEL,
    1, 12, 41, 42, 44, 46, 81, 82, 83, 169, 245,  # Undef, ExtInst, ConstantTrue/False/Composite/Null,
                                                  # CompositeExtract/Insert, CopyObject, Select, Phi
    109, 110, 111, 112, 113, 114, 115,       # OpConvertFToU ... OpFConvert
    66, 67, 70, 77, 78, 79, 116, 117, 120,   # (InBounds)(Ptr)AccessChain, vector ops, ptr/int conversions
    *range(137, 152), *range(164, 201),      # remaining arithmetic, logic, comparisons, shifts, bitwise
    227, *range(229, 243),                   # atomics (OpAtomicStore, 228, has no result)
    5293, 5390,                              # OpCooperativeMatrixConvertNV, TransposeNV
    OP_LOAD_TENSOR_NV, *range(5372, 5380), 5382, 5384,  # OpCreateTensorLayoutNV ... OpTensorViewSetClipNV,
                                                        # OpTensorLayoutSetBlockSizeNV
})
# Type declarations: operand 0 is the result id.
TYPE_OPCODES = frozenset({OP_TYPE_INT, OP_TYPE_FLOAT, OP_TYPE_POINTER, OP_TYPE_FUNCTION,
                          OP_TYPE_COOPERATIVE_MATRIX_KHR, OP_TYPE_TENSOR_LAYOUT_NV, OP_TYPE_TENSOR_VIEW_NV,
                          19, 20, 23, 24, 28, 29, 30, 31})  # + void, bool, vector, array, struct, opaque


class SpirvFormatError(ClcoopError):
    """The bytes are not a SPIR-V module."""


@dataclass
class Instruction:
    opcode: int
    operands: list = field(default_factory=list)

    def words(self):
        return [((len(self.operands) + 1) << 16) | self.opcode] + list(self.operands)

    @property
    def result_id(self):
        if self.opcode in TYPED_RESULT_OPCODES:
            return self.operands[1]
        if self.opcode in TYPE_OPCODES:
            return self.operands[0]
        return None

    @property
    def result_type(self):
        return self.operands[0] if self.opcode in TYPED_RESULT_OPCODES else None


@dataclass
class Module:
    version: int
    generator: int
    bound: int
    schema: int
    instructions: list

    def new_id(self):
        """A fresh id; the header's bound grows with it (SPIR-V 2.3: all ids < bound)."""
        fresh = self.bound
        self.bound += 1
        return fresh


def read_module(data):
    if len(data) < 20 or len(data) % 4:
        raise SpirvFormatError("not a SPIR-V module (size is not a multiple of 4 words)")
    endian = "<"
    if struct.unpack_from("<I", data)[0] != MAGIC:
        if struct.unpack_from(">I", data)[0] != MAGIC:
            raise SpirvFormatError("not a SPIR-V module (bad magic number)")
        endian = ">"
    words = struct.unpack(f"{endian}{len(data) // 4}I", data)
    instructions = []
    at = 5
    while at < len(words):
        count, opcode = words[at] >> 16, words[at] & 0xFFFF
        if count == 0 or at + count > len(words):
            raise SpirvFormatError(f"truncated SPIR-V instruction at word {at}")
        instructions.append(Instruction(opcode, list(words[at + 1:at + count])))
        at += count
    return Module(words[1], words[2], words[3], words[4], instructions)


def write_module(module):
    words = [MAGIC, module.version, module.generator, module.bound, module.schema]
    for inst in module.instructions:
        words.extend(inst.words())
    return struct.pack(f"<{len(words)}I", *words)


def decode_string(words):
    """A literal string (UTF-8, NUL-terminated, padded to a word) -> (text, words used)."""
    raw = struct.pack(f"<{len(words)}I", *words)
    end = raw.find(b"\0")
    if end < 0:
        raise SpirvFormatError("unterminated literal string in SPIR-V")
    return raw[:end].decode("utf-8"), end // 4 + 1


def encode_string(text):
    raw = text.encode("utf-8") + b"\0"
    raw += b"\0" * (-len(raw) % 4)
    return list(struct.unpack(f"<{len(raw) // 4}I", raw))


# ---- lookups -------------------------------------------------------------------------------------

def reachable(function, calls):
    """The functions `function` reaches through `calls` (function id -> ids it calls), itself
    included."""
    seen, todo = set(), [function]
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.add(current)
            todo.extend(calls.get(current, ()))
    return seen


def definitions(module):
    """id -> the instruction defining it."""
    return {inst.result_id: inst for inst in module.instructions if inst.result_id is not None}


def names(module):
    """id -> OpName string."""
    return {inst.operands[0]: decode_string(inst.operands[1:])[0]
            for inst in module.instructions if inst.opcode == OP_NAME}


def linkage_decorations(module):
    """List of (target id, linkage name, linkage type) from LinkageAttributes decorations."""
    found = []
    for inst in module.instructions:
        if inst.opcode == OP_DECORATE and inst.operands[1] == DECORATION_LINKAGE_ATTRIBUTES:
            name, used = decode_string(inst.operands[2:])
            found.append((inst.operands[0], name, inst.operands[2 + used]))
    return found


def imported_functions(module):
    """OpFunction id -> linkage name, for functions decorated LinkageAttributes ... Import."""
    functions = {inst.result_id for inst in module.instructions if inst.opcode == OP_FUNCTION}
    return {target: name for target, name, kind in linkage_decorations(module)
            if kind == LINKAGE_TYPE_IMPORT and target in functions}


def first_function_index(module):
    for index, inst in enumerate(module.instructions):
        if inst.opcode == OP_FUNCTION:
            return index
    return len(module.instructions)


def find_or_add_pointer_type(module, storage_class, pointee):
    """Id of OpTypePointer storage_class pointee, declared after the last global if missing."""
    for inst in module.instructions:
        if inst.opcode == OP_TYPE_POINTER and inst.operands[1:] == [storage_class, pointee]:
            return inst.operands[0]
    fresh = module.new_id()
    module.instructions.insert(first_function_index(module),
                               Instruction(OP_TYPE_POINTER, [fresh, storage_class, pointee]))
    return fresh


# ---- uses of ids inside function bodies ----------------------------------------------------------

# Opcodes whose operands are ids up to an index, then literals (memory operands, masks, indices...).
# Every other body instruction is taken as all ids: a superset, so "unused" is never wrong.
_IDS_BEFORE = {
    OP_LOAD: 3, OP_STORE: 2, 63: 2, 64: 3,                      # OpCopyMemory(Sized): memory operands
    OP_COOPERATIVE_MATRIX_LOAD_KHR: 5, OP_COOPERATIVE_MATRIX_STORE_KHR: 4,
    OP_COOPERATIVE_MATRIX_MUL_ADD_KHR: 5,                        # operands mask
    81: 3, 82: 4, 79: 4,                                         # CompositeExtract/Insert, VectorShuffle
    250: 3, 246: 2, 247: 1, 256: 1, 257: 1, 8: 1,                # branch weights, merges, lifetime, OpLine
    # Module-level instructions with literal operands:
    4: 0, 10: 0, 11: 1, 14: 0, 17: 0, 16: 1, 330: 0,             # SourceExtension ... ExecutionMode
    OP_NAME: 1, 6: 1, 7: 1, OP_DECORATE: 1, 72: 1,               # names, strings, decorations
    OP_TYPE_INT: 1, OP_TYPE_FLOAT: 1, 23: 2, 24: 2,              # widths, component counts
    OP_CONSTANT: 2, 41: 2, 42: 2, 46: 2, 48: 2, 49: 2, 50: 2,    # constant values
}


def id_operands(inst):
    """The operand words of an instruction that may be ids (a superset for opcodes not listed)."""
    ops = inst.operands
    if inst.opcode == OP_VARIABLE:
        return ops[:2] + ops[3:]  # storage class is a literal
    if inst.opcode == OP_FUNCTION:
        return ops[:2] + ops[3:]  # function control is a literal
    if inst.opcode == OP_TYPE_POINTER:
        return ops[:1] + ops[2:]  # storage class is a literal
    if inst.opcode == 12:  # OpExtInst: the instruction number is a literal
        return ops[:3] + ops[4:]
    return ops[:_IDS_BEFORE.get(inst.opcode, len(ops))]


def body_instructions(module):
    """The instructions from each OpFunction to its OpFunctionEnd."""
    inside = False
    for inst in module.instructions:
        if inst.opcode == OP_FUNCTION:
            inside = True
        if inside:
            yield inst
        if inst.opcode == OP_FUNCTION_END:
            inside = False
