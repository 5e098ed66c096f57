"""Function operands in SPIR-V, and the NV2 / EXT operations that take them.

Function operands: a cooperative-matrix call passes a user function as `ptr @f`
(docs/ir-conventions.md). Without +SPV_INTEL_function_pointers, llc-22 silently replaces
such an operand with OpConstantNull (of a pointer to the function type, cast to a byte
pointer), so every function of one type becomes the same null. With the extension, it
emits `OpConstantFunctionPointerINTEL %ptr_CodeSectionINTEL_fn %f` and passes that
constant. `ir_to_spirv` enables the extension only for IR with function operands
(`llc_extensions`); `restore_function_operands` then replaces each such constant by the
id of its OpFunction (what OpCooperativeMatrixReduceNV's CombineFunc, PerElementOpNV's
Func and OpCooperativeMatrixLoadTensorNV's decode function take), and removes the
constants, their pointer types, the capability and the extension.

Rewrites (`CALL_REWRITES`, used by rewrite.py for the imported calls llc-22 leaves):
- reduce  -> OpCooperativeMatrixReduceNV  Result Matrix Reduce(literal) CombineFunc
             (capability CooperativeMatrixReductionsNV, SPV_NV_cooperative_matrix2)
- per-element -> OpCooperativeMatrixPerElementOpNV Result Matrix Func Operands...
             (CooperativeMatrixPerElementOperationsNV, SPV_NV_cooperative_matrix2)
- get-coordinate -> OpCooperativeMatrixGetCoordinateEXT Result Matrix Index
             (CooperativeMatrixGetCoordinateEXT, SPV_EXT_cooperative_matrix_maintenance1;
             spirv-val 2025.5 does not know it yet: docs/coopmat2-semantics.md "SPIR-V")
"""
import re

from clcoop.spirv import binary as sb
from clcoop.spirv.tools import INTERNAL_HINT, SpirvError

FUNCTION_POINTERS_EXTENSION = "SPV_INTEL_function_pointers"
LLC_FUNCTION_POINTERS = "+" + FUNCTION_POINTERS_EXTENSION
CAPABILITY_FUNCTION_POINTERS_INTEL = 5603
STORAGE_CLASS_CODE_SECTION_INTEL = 5605

NV2_EXTENSION = "SPV_NV_cooperative_matrix2"
EXT_MAINTENANCE_EXTENSION = "SPV_EXT_cooperative_matrix_maintenance1"
CAPABILITY_REDUCTIONS_NV = 5430
CAPABILITY_PER_ELEMENT_OPERATIONS_NV = 5432
CAPABILITY_GET_COORDINATE_EXT = 5438

# A call argument `ptr @name`, `ptr nonnull @name` (a function operand; OpenCL C has no other
# function pointers).
_FUNCTION_OPERAND = re.compile(r"^\s*(?:%[\w.]+ = )?(?:\w+ )?call .*[(,] ?ptr(?: [a-z_]+)* @[\w.$\"]+[,)]", re.M)


def has_function_operands(ir_text):
    """True when a call of the IR passes a function (`ptr @f`)."""
    return _FUNCTION_OPERAND.search(ir_text) is not None


def llc_extensions(base, ir_text):
    """llc's --spirv-ext list: `base`, plus SPV_INTEL_function_pointers for IR with function
    operands (the only way llc-22 keeps their identity)."""
    return base + "," + LLC_FUNCTION_POINTERS if has_function_operands(ir_text) else base


def _fail(message):
    raise SpirvError(f"cannot rewrite SPIR-V: {message}; {INTERNAL_HINT}")


def restore_function_operands(module):
    """Replace each OpConstantFunctionPointerINTEL use by its OpFunction id; drop the
    constants, their CodeSectionINTEL pointer types, the capability and the extension.
    Returns {constant id: function id}."""
    mapped = {inst.operands[1]: inst.operands[2] for inst in module.instructions
              if inst.opcode == sb.OP_CONSTANT_FUNCTION_POINTER_INTEL}
    if not mapped:
        return mapped
    pointer_types = {inst.operands[0] for inst in module.instructions
                     if inst.opcode == sb.OP_CONSTANT_FUNCTION_POINTER_INTEL}
    kept = []
    for inst in module.instructions:
        if inst.opcode == sb.OP_CONSTANT_FUNCTION_POINTER_INTEL:
            continue
        if inst.opcode in (sb.OP_NAME, sb.OP_DECORATE) and inst.operands[0] in mapped:
            continue
        if inst.opcode == sb.OP_TYPE_POINTER and inst.operands[0] in pointer_types:
            continue
        if inst.opcode == sb.OP_CAPABILITY and inst.operands == [CAPABILITY_FUNCTION_POINTERS_INTEL]:
            continue
        if inst.opcode == sb.OP_EXTENSION and sb.decode_string(inst.operands)[0] == FUNCTION_POINTERS_EXTENSION:
            continue
        if inst.opcode == sb.OP_FUNCTION_CALL:
            inst.operands[3:] = [mapped.get(op, op) for op in inst.operands[3:]]
        kept.append(inst)
    module.instructions = kept
    leftover = [inst for inst in sb.body_instructions(module)
                if inst.opcode != sb.OP_FUNCTION_CALL and set(sb.id_operands(inst)) & set(mapped)]
    if leftover:
        _fail(f"a function pointer is used by opcode {leftover[0].opcode}, not as the function operand of a call")
    pointer_uses = [inst for inst in module.instructions if inst.result_id not in pointer_types
                    and set(sb.id_operands(inst)) & pointer_types]
    if pointer_uses:
        _fail("a CodeSectionINTEL pointer type is still used after restoring function operands")
    return mapped


def add_extension(module, name):
    """OpExtension `name` after the last one (or after the capabilities), once."""
    at = 0
    for index, inst in enumerate(module.instructions):
        if inst.opcode == sb.OP_EXTENSION and sb.decode_string(inst.operands)[0] == name:
            return
        if inst.opcode in (sb.OP_CAPABILITY, sb.OP_EXTENSION):
            at = index + 1
    module.instructions.insert(at, sb.Instruction(sb.OP_EXTENSION, sb.encode_string(name)))


def function_id(rewriter, value, name):
    """The OpFunction id a rewritten call passes for its function operand `value` (after
    restore_function_operands); `name` is the callee, for the message."""
    definition = rewriter.defs.get(value)
    if definition is None or definition.opcode != sb.OP_FUNCTION:
        # llc-22 without SPV_INTEL_function_pointers: an OpConstantNull (through a bitcast).
        _fail(f"the function operand of {name} is not an OpFunction (llc-22 replaced it, "
              f"opcode {definition.opcode if definition else '?'}; it needs {LLC_FUNCTION_POINTERS})")
    return value


# What each rewritten operation needs (NV2 / EXT 3.31 Capabilities).
REQUIREMENTS = {"reduce": (CAPABILITY_REDUCTIONS_NV, NV2_EXTENSION),
                "per_element": (CAPABILITY_PER_ELEMENT_OPERATIONS_NV, NV2_EXTENSION),
                "get_coordinate": (CAPABILITY_GET_COORDINATE_EXT, EXT_MAINTENANCE_EXTENSION)}


def add_requirements(rewriter):
    """The capabilities and extensions of the operations the rewriter will emit (added
    before it rewrites: the rewrite loop must not see the instruction list change)."""
    for kind, _codes, _name in rewriter.targets.values():
        if kind in REQUIREMENTS:
            capability, extension = REQUIREMENTS[kind]
            rewriter.add_capability(capability)
            add_extension(rewriter.module, extension)


def rewrite_reduce(rewriter, call, name):
    result_type, result, _callee, *args = call.operands
    if len(args) != 3:
        _fail(f"{name} is called with {len(args)} operands, expected 3")
    matrix, mode, combine = args
    mode_value = rewriter.constant_value(mode)
    if mode_value is None:
        _fail(f"{name}: the reduce mode is not a constant")
    return [sb.Instruction(sb.OP_COOPERATIVE_MATRIX_REDUCE_NV,
                           [result_type, result, matrix, mode_value, function_id(rewriter, combine, name)])]


def rewrite_per_element(rewriter, call, name):
    result_type, result, _callee, *args = call.operands
    if len(args) < 2:
        _fail(f"{name} is called with {len(args)} operands, expected at least 2")
    matrix, function, *extras = args
    return [sb.Instruction(sb.OP_COOPERATIVE_MATRIX_PER_ELEMENT_OP_NV,
                           [result_type, result, matrix, function_id(rewriter, function, name)] + extras)]


def rewrite_get_coordinate(rewriter, call, name):
    result_type, result, _callee, *args = call.operands
    if len(args) != 2:
        _fail(f"{name} is called with {len(args)} operands, expected 2")
    return [sb.Instruction(sb.OP_COOPERATIVE_MATRIX_GET_COORDINATE_EXT, [result_type, result] + args)]


# rewrite.py kind -> rewrite(rewriter, call, name) -> replacement instructions
CALL_REWRITES = {"reduce": rewrite_reduce, "per_element": rewrite_per_element,
                 "get_coordinate": rewrite_get_coordinate}


def without_get_coordinate(module):
    """A copy-ready module where each OpCooperativeMatrixGetCoordinateEXT is an OpUndef of
    its result type, and its capability and extension are gone: what spirv-val 2025.5 can
    check (it does not know the instruction yet; docs/coopmat2-semantics.md "SPIR-V"). In place; returns it."""
    kept = []
    for inst in module.instructions:
        if inst.opcode == sb.OP_COOPERATIVE_MATRIX_GET_COORDINATE_EXT:
            kept.append(sb.Instruction(1, inst.operands[:2]))      # OpUndef
        elif inst.opcode == sb.OP_CAPABILITY and inst.operands == [CAPABILITY_GET_COORDINATE_EXT]:
            continue
        elif inst.opcode == sb.OP_EXTENSION and sb.decode_string(inst.operands)[0] == EXT_MAINTENANCE_EXTENSION:
            continue
        else:
            kept.append(inst)
    module.instructions = kept
    return module
