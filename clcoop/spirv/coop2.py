"""SPIR-V for the NV2 / EXT conversions and for bf16: use conversions, transpose, the
capabilities and extensions they need, the bf16 arithmetic that cannot be emitted, and the
copy of a module that spirv-val 2025.5 can check (docs/coopmat2-semantics.md "SPIR-V").

- `__spirv_CooperativeMatrixConvertNV` (only the use changes) -> OpCooperativeMatrixConvertNV
  (5293, = ConvertUseEXT): Accumulator -> A/B needs CooperativeMatrixConversionsNV (5431,
  SPV_NV_cooperative_matrix2); A/B -> Accumulator is EXT only (CooperativeMatrixConversionsEXT
  5429, SPV_EXT_cooperative_matrix_maintenance1).
- `__spirv_CooperativeMatrixTransposeNV` into B -> OpCooperativeMatrixTransposeNV (5390, 5431);
  into A -> OpCooperativeMatrixConvertUseEXT decorated CooperativeMatrixTransposeEXT (5440,
  capability 5429), as EXT "Conversion Instructions" says.
- llc-22 lowers Op*Convert itself; when one also changes the use (NV2 and EXT allow it), the
  same capability as a ConvertNV of that direction is declared.
- bf16 (SPV_KHR_bfloat16) types, with their capabilities, come from llc-22 (+SPV_KHR_bfloat16).
  Arithmetic on bf16 values is outside SPV_KHR_bfloat16 (only conversions, cooperative-matrix
  operations and OpDot are in it): a clear error.
"""
import re

from clcoop import coop_names
from clcoop.coopmat_spec import Use
from clcoop.spirv import binary as sb
from clcoop.spirv.tools import SpirvError

OP_UNDEF = 1
OP_CONVERT_FIRST, OP_CONVERT_LAST = 109, 115       # OpConvertFToU .. OpFConvert
OP_CONVERT_NV = 5293                                # = OpCooperativeMatrixConvertUseEXT
OP_TRANSPOSE_NV = 5390
DECORATION_TRANSPOSE_EXT = 5440
CAPABILITY_CONVERSIONS_NV = 5431
CAPABILITY_CONVERSIONS_EXT = 5429
NV2_EXTENSION = "SPV_NV_cooperative_matrix2"
EXT_EXTENSION = "SPV_EXT_cooperative_matrix_maintenance1"
# What each direction needs: (capability, extension).
NV_CONVERSIONS = (CAPABILITY_CONVERSIONS_NV, NV2_EXTENSION)
EXT_CONVERSIONS = (CAPABILITY_CONVERSIONS_EXT, EXT_EXTENSION)

# The callee bases the rewrite replaces (rewrite.py dispatches them here) -> kind.
KIND_BY_BASE = {coop_names.CONVERT_USE: "convert_use", coop_names.TRANSPOSE: "transpose"}

# Arithmetic opcodes (SPIR-V 3.52.13) that SPV_KHR_bfloat16 does not extend to bf16.
FLOAT_ARITHMETIC = {127: "OpFNegate", 129: "OpFAdd", 131: "OpFSub", 133: "OpFMul", 136: "OpFDiv",
                    140: "OpFRem", 141: "OpFMod", 142: "OpVectorTimesScalar"}
BF16_ARITHMETIC_EXTENSION = "SPV_INTEL_bfloat16_arithmetic"


def matrix_use(defs, type_id):
    """The Use of an OpTypeCooperativeMatrixKHR id (its use operand is a constant), else None."""
    matrix = defs.get(type_id)
    if matrix is None or matrix.opcode != sb.OP_TYPE_COOPERATIVE_MATRIX_KHR:
        return None
    use = defs.get(matrix.operands[5])
    if use is None:
        return None
    return 0 if use.opcode == sb.OP_CONSTANT_NULL else use.operands[2]


def rewrite_call(defs, call, kind, name):
    """The instructions replacing one call of a KIND_BY_BASE callee."""
    if len(call.operands) != 4:
        raise SpirvError(f"cannot rewrite SPIR-V: {name} is called with {len(call.operands) - 3} "
                         f"operands, expected 1")
    result_type, result, _callee, matrix = call.operands
    if kind == "transpose" and matrix_use(defs, result_type) == Use.A:
        return [sb.Instruction(OP_CONVERT_NV, [result_type, result, matrix])]
    opcode = OP_TRANSPOSE_NV if kind == "transpose" else OP_CONVERT_NV
    return [sb.Instruction(opcode, [result_type, result, matrix])]


def transposes_into_a(module, defs):
    """Result ids of the EXT transposes (5293 whose result use is A after a transpose call);
    decided before the rewrite, when the callee still says which is which."""
    imported = sb.imported_functions(module)
    found = set()
    for inst in module.instructions:
        if inst.opcode == sb.OP_FUNCTION_CALL and inst.operands[2] in imported:
            callee = coop_names.parse_callee(imported[inst.operands[2]])
            if callee is not None and callee.base == coop_names.TRANSPOSE \
                    and matrix_use(defs, inst.operands[0]) == Use.A:
                found.add(inst.operands[1])
    return found


def decorate_transposes(module, result_ids):
    """OpDecorate <id> CooperativeMatrixTransposeEXT, with the other decorations."""
    if not result_ids:
        return          # (a module may have no decoration and no type at all: no kernel)
    at = max((i for i, inst in enumerate(module.instructions) if inst.opcode == sb.OP_DECORATE),
             default=None)
    if at is None:
        at = next(i for i, inst in enumerate(module.instructions)
                  if inst.opcode in sb.TYPE_OPCODES)
    else:
        at += 1
    for result in sorted(result_ids):
        module.instructions.insert(at, sb.Instruction(sb.OP_DECORATE, [result, DECORATION_TRANSPOSE_EXT]))


def conversion_needs(module):
    """{(capability, extension)} the module's use-changing conversions need."""
    defs = sb.definitions(module)
    transposed = {inst.operands[0] for inst in module.instructions
                  if inst.opcode == sb.OP_DECORATE and inst.operands[1:2] == [DECORATION_TRANSPOSE_EXT]}
    needs = set()
    for inst in module.instructions:
        if inst.opcode == OP_TRANSPOSE_NV:
            needs.add(NV_CONVERSIONS)
        elif inst.opcode == OP_CONVERT_NV or OP_CONVERT_FIRST <= inst.opcode <= OP_CONVERT_LAST:
            target = matrix_use(defs, inst.operands[0])
            source_def = defs.get(inst.operands[2])
            source = matrix_use(defs, source_def.result_type) if source_def is not None else None
            if target is None or source is None or (target == source and inst.operands[1] not in transposed):
                continue
            ext_only = inst.operands[1] in transposed or target == Use.ACCUMULATOR
            needs.add(EXT_CONVERSIONS if ext_only else NV_CONVERSIONS)
    return needs


def declare(module, needs):
    """Add each (capability, extension) of `needs` that the module lacks."""
    for capability, extension in sorted(needs):
        capabilities = [i for i, inst in enumerate(module.instructions) if inst.opcode == sb.OP_CAPABILITY]
        if not any(module.instructions[i].operands == [capability] for i in capabilities):
            module.instructions.insert(capabilities[-1] + 1 if capabilities else 0,
                                       sb.Instruction(sb.OP_CAPABILITY, [capability]))
        words = sb.encode_string(extension)
        extensions = [i for i, inst in enumerate(module.instructions) if inst.opcode == sb.OP_EXTENSION]
        if not any(module.instructions[i].operands == words for i in extensions):
            at = extensions[-1] + 1 if extensions else \
                max(i for i, inst in enumerate(module.instructions) if inst.opcode == sb.OP_CAPABILITY) + 1
            module.instructions.insert(at, sb.Instruction(sb.OP_EXTENSION, words))


def is_bfloat16(defs, type_id):
    """True for a bf16 scalar, or a vector or matrix of bf16 (OpTypeFloat 16 BFloat16KHR)."""
    t = defs.get(type_id)
    if t is None:
        return False
    if t.opcode in (23, sb.OP_TYPE_COOPERATIVE_MATRIX_KHR):       # OpTypeVector, matrix
        return is_bfloat16(defs, t.operands[1])
    return t.opcode == sb.OP_TYPE_FLOAT and t.operands[1:] == [16, 0]


def bfloat16_arithmetic_error(what):
    return SpirvError(
        f"arithmetic on __bf16 values ({what}) cannot be emitted as SPIR-V: SPV_KHR_bfloat16 allows "
        f"bf16 only in conversions, cooperative-matrix loads, stores and mul-adds, and OpDot; "
        f"arithmetic needs {BF16_ARITHMETIC_EXTENSION}, which spirv-val 2025.5 refuses (\"FAdd "
        f"doesn't support BFloat16 type\") and llc-22 does not enable. Convert to float, compute, "
        f"and convert back (the interpreter runs bf16 arithmetic as it is)")


def reject_bfloat16_arithmetic(module):
    """SpirvError for arithmetic on bf16 values (element-wise matrix operators included)."""
    defs = sb.definitions(module)
    for inst in module.instructions:
        if inst.opcode in FLOAT_ARITHMETIC and is_bfloat16(defs, inst.operands[0]):
            raise bfloat16_arithmetic_error(FLOAT_ARITHMETIC[inst.opcode])


# Scalar bfloat arithmetic in the IR, which llc-22 refuses with an LLVM ERROR.
_BFLOAT_IR_ARITHMETIC = re.compile(
    r"= (fadd|fsub|fmul|fdiv|frem|fneg|fcmp \w+)(?: \w+)* (?:<\d+ x )?bfloat\b|@(llvm\.\w+)\.(?:v\d+)?bf16\(")


def reject_bfloat16_arithmetic_ir(ir_text):
    """bfloat16_arithmetic_error for scalar bf16 arithmetic, before llc-22 sees it."""
    m = _BFLOAT_IR_ARITHMETIC.search(ir_text)
    if m:
        raise bfloat16_arithmetic_error(m.group(1) or m.group(2))


def finish(module, ext_transposes):
    """After the rewrite: the EXT transpose decorations, capabilities and extensions."""
    decorate_transposes(module, ext_transposes)
    declare(module, conversion_needs(module))
    reject_bfloat16_arithmetic(module)
    return module


# ---------------------------------------------------------------- the validator's gap

def ext_constructs(module):
    """Result ids of the instructions spirv-val 2025.5 does not know: EXT use conversions
    A/B -> Accumulator and EXT transposes into A (both opcode 5293 under the EXT capability)."""
    defs = sb.definitions(module)
    transposed = {inst.operands[0] for inst in module.instructions
                  if inst.opcode == sb.OP_DECORATE and inst.operands[1:2] == [DECORATION_TRANSPOSE_EXT]}
    found = set()
    for inst in module.instructions:
        if inst.opcode == OP_CONVERT_NV or OP_CONVERT_FIRST <= inst.opcode <= OP_CONVERT_LAST:
            target = matrix_use(defs, inst.operands[0])
            source_def = defs.get(inst.operands[2])
            source = matrix_use(defs, source_def.result_type) if source_def is not None else None
            if inst.operands[1] in transposed or (target == Use.ACCUMULATOR and source not in (None, target)):
                found.add(inst.operands[1])
    return found


def without_ext_constructs(module):
    """A copy of the module for spirv-val 2025.5: each EXT-only conversion becomes an OpUndef
    of its result type (its uses stay valid), and the EXT decoration, capability and
    extension are dropped. Everything else is unchanged, so the validator still checks it."""
    removed = ext_constructs(module)
    copy = sb.Module(module.version, module.generator, module.bound, module.schema, [])
    ext_words = sb.encode_string(EXT_EXTENSION)
    for inst in module.instructions:
        if inst.result_id in removed and inst.opcode != sb.OP_DECORATE:
            copy.instructions.append(sb.Instruction(OP_UNDEF, inst.operands[:2]))
        elif inst.opcode == sb.OP_DECORATE and inst.operands[1:2] == [DECORATION_TRANSPOSE_EXT]:
            continue
        elif inst.opcode == sb.OP_CAPABILITY and inst.operands == [CAPABILITY_CONVERSIONS_EXT]:
            continue
        elif inst.opcode == sb.OP_EXTENSION and inst.operands == ext_words:
            continue
        else:
            copy.instructions.append(sb.Instruction(inst.opcode, list(inst.operands)))
    return copy
