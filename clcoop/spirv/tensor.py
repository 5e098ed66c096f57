"""Tensor layouts, views and tensor loads/stores in SPIR-V (SPV_NV_cooperative_matrix2,
SPV_NV_tensor_addressing; opcodes in docs/ir-conventions.md "Tensor layouts and views").

llc-22 emits the types itself (OpTypeTensorLayoutNV / OpTypeTensorViewNV, from the
`target("spirv.Type", ...)` encoding) but leaves every operation an imported function:
`rewrite_tensor_calls` replaces each call by its NV instruction (the memory operand and
the tensor addressing operands become literals; a decode function operand, which llc-22
passes as OpConstantNull, becomes the function's id), and declares the extensions and
capabilities.

spirv-val 2025.5 applies two rules of the extension meant for Vulkan in every
environment (docs/tensor.md "Validation"): tensor loads and stores through a
CrossWorkgroup pointer ("not Workgroup, StorageBuffer, or PhysicalStorageBuffer"), and
a decode function whose first parameter is not a PhysicalStorageBuffer pointer. clcoop
emits such modules as the extension defines them, and validates instead a copy where
exactly those constructs are changed (`validator_copy`): everything else is checked.
"""
import copy

from clcoop import coop_names
from clcoop.spirv import binary as sb
from clcoop.spirv.rewrite import _Rewriter
from clcoop.spirv.tools import INTERNAL_HINT, SpirvError

# Opcodes (shared/notes/nv2-ops.md, SPIRV-Headers' grammar).
OP_LOAD_TENSOR = 5367
OP_STORE_TENSOR = 5368
OP_TYPE_TENSOR_LAYOUT = 5370
OP_TYPE_TENSOR_VIEW = 5371
OPCODES = {
    "coop_tensor_layout_create": 5372, "coop_tensor_layout_set_dimension": 5373,
    "coop_tensor_layout_set_stride": 5374, "coop_tensor_layout_slice": 5375,
    "coop_tensor_layout_set_clamp_value": 5376, "coop_tensor_view_create": 5377,
    "coop_tensor_view_set_dimension": 5378, "coop_tensor_view_set_stride": 5379,
    "coop_tensor_view_set_clip": 5382, "coop_tensor_layout_set_block_size": 5384,
    "coop_mat_load_tensor": OP_LOAD_TENSOR, "coop_mat_store_tensor": OP_STORE_TENSOR,
}
# Capabilities: CooperativeMatrixTensorAddressingNV, CooperativeMatrixBlockLoadsNV,
# TensorAddressingNV.
CAPABILITY_TENSOR_ADDRESSING_LOADS = 5433
CAPABILITY_BLOCK_LOADS = 5434
CAPABILITY_TENSOR_ADDRESSING = 5439
EXTENSIONS = ("SPV_NV_cooperative_matrix2", "SPV_NV_tensor_addressing")
ADDRESSING_TENSOR_VIEW = 0x1
ADDRESSING_DECODE_FUNC = 0x2
STORAGE_CLASS_PHYSICAL_STORAGE_BUFFER = 5349
CAPABILITY_PHYSICAL_STORAGE_BUFFER_ADDRESSES = 5347
CAPABILITY_GENERIC_POINTER = 38          # the validator copy's casts go through Generic

# The instructions the rewrite adds have a result type and id (binary.py knows the KHR ones).
sb.TYPED_RESULT_OPCODES = sb.TYPED_RESULT_OPCODES | {
    opcode for opcode in OPCODES.values() if opcode != OP_STORE_TENSOR}
sb.TYPE_OPCODES = sb.TYPE_OPCODES | {OP_TYPE_TENSOR_LAYOUT, OP_TYPE_TENSOR_VIEW}


def _fail(message):
    raise SpirvError(f"cannot rewrite SPIR-V tensor operations: {message}; {INTERNAL_HINT}")


def tensor_imports(module):
    """Imported function id -> OpenCL C tensor operation, for llc-22's imports of tensor callees."""
    found = {}
    for fid, name in sb.imported_functions(module).items():
        callee = coop_names.parse_callee(name)
        if callee is not None and callee.base in coop_names.TENSOR_BASES:
            found[fid] = coop_names.TENSOR_BASES[callee.base]
    return found


def _constant(defs, value, what):
    definition = defs.get(value)
    if definition is not None and definition.opcode == sb.OP_CONSTANT:
        return definition.operands[2]
    if definition is not None and definition.opcode == sb.OP_CONSTANT_NULL:
        return 0
    _fail(f"the {what} is not a constant")


def _instruction(call, operation, defs, functions):
    """The NV instruction replacing one OpFunctionCall of a tensor callee."""
    result_type, result, _callee, *args = call.operands
    opcode = OPCODES[operation]
    if operation == "coop_mat_load_tensor" or operation == "coop_mat_store_tensor":
        if len(args) < 5:
            _fail(f"{operation} is called with {len(args)} operands")
        pointer, matrix, layout, memory, addressing, *extra = args
        memory = _constant(defs, memory, "memory operand")
        addressing = _constant(defs, addressing, "tensor addressing operand")
        if addressing & ADDRESSING_DECODE_FUNC:
            extra[-1] = functions.pop(0) if functions else _fail("a decode function call has no function")
        operands = [pointer, matrix, layout, memory, addressing] + extra
        if operation == "coop_mat_store_tensor":
            return sb.Instruction(opcode, operands)
        return sb.Instruction(opcode, [result_type, result] + operands)
    return sb.Instruction(opcode, [result_type, result] + args)


def rewrite_tensor_calls(module, decode_functions=()):
    """Rewrite in place (and return) a parsed module: every call of an imported tensor
    callee becomes its NV instruction. `decode_functions` are the function ids of the
    decode operands in call order (llc-22 passes OpConstantNull in their place)."""
    targets = tensor_imports(module)
    if not targets:
        return module
    defs = sb.definitions(module)
    functions = list(decode_functions)
    uses_decode = False
    output = []
    for inst in module.instructions:
        if inst.opcode == sb.OP_FUNCTION_CALL and inst.operands[2] in targets:
            new = _instruction(inst, targets[inst.operands[2]], defs, functions)
            uses_decode |= new.opcode == OP_LOAD_TENSOR and bool(new.operands[6] & ADDRESSING_DECODE_FUNC)
            output.append(new)
        else:
            output.append(inst)
    module.instructions = output
    _drop_imports(module, targets)
    _declare(module, uses_decode)
    return module


def _drop_imports(module, targets):
    # The cooperative-matrix rewrite knows how to drop rewritten imports and their types.
    rewriter = _Rewriter(module)
    rewriter.targets = dict.fromkeys(targets)
    rewriter.drop_imports()


def _declare(module, uses_decode):
    capabilities = [CAPABILITY_TENSOR_ADDRESSING_LOADS, CAPABILITY_TENSOR_ADDRESSING]
    if uses_decode:
        capabilities.append(CAPABILITY_BLOCK_LOADS)
    have = {inst.operands[0] for inst in module.instructions if inst.opcode == sb.OP_CAPABILITY}
    last_capability = max(i for i, inst in enumerate(module.instructions) if inst.opcode == sb.OP_CAPABILITY)
    for capability in reversed(capabilities):
        if capability not in have:
            module.instructions.insert(last_capability + 1, sb.Instruction(sb.OP_CAPABILITY, [capability]))
    extensions = {sb.decode_string(inst.operands)[0] for inst in module.instructions
                  if inst.opcode == sb.OP_EXTENSION}
    at = max(i for i, inst in enumerate(module.instructions) if inst.opcode == sb.OP_CAPABILITY) + 1
    for name in reversed(EXTENSIONS):
        if name not in extensions:
            module.instructions.insert(at, sb.Instruction(sb.OP_EXTENSION, sb.encode_string(name)))


# ---------------------------------------------------------------- spirv-val 2025.5's limits

def validator_copy(module):
    """A copy of the module for spirv-val 2025.5, with exactly the two constructs it
    rejects changed: the pointer operand of each tensor load/store through CrossWorkgroup
    memory becomes a Workgroup pointer (cast through Generic just before it), and the
    first parameter of each decode function a PhysicalStorageBuffer pointer (converted
    back to the original pointer type on entry). Returns (copy, what changed), or
    (module, []) when nothing needs changing."""
    defs = sb.definitions(module)
    if not any(_cross_workgroup_pointer(inst, defs) for inst in module.instructions):
        return module, []
    patched = copy.deepcopy(module)
    changes = []
    pointers = {}           # tensor load/store -> its pointer's pointee type
    for inst in patched.instructions:
        pointer_type = _cross_workgroup_pointer(inst, defs)
        if pointer_type is not None:
            pointers[id(inst)] = defs[pointer_type].operands[2]
    casts = {pointee: (sb.find_or_add_pointer_type(patched, sb.STORAGE_CLASS_GENERIC, pointee),
                       sb.find_or_add_pointer_type(patched, sb.STORAGE_CLASS_WORKGROUP, pointee))
             for pointee in set(pointers.values())}
    if casts and not any(inst.opcode == sb.OP_CAPABILITY and inst.operands == [CAPABILITY_GENERIC_POINTER]
                         for inst in patched.instructions):
        patched.instructions.insert(0, sb.Instruction(sb.OP_CAPABILITY, [CAPABILITY_GENERIC_POINTER]))
    output = []
    for inst in patched.instructions:
        if id(inst) in pointers:
            output.extend(_through_workgroup(patched, inst, *casts[pointers[id(inst)]]))
            changes.append("a tensor load/store pointer: CrossWorkgroup -> Workgroup")
        output.append(inst)
    patched.instructions = output
    return patched, changes


def _pointer_index(inst):
    return 2 if inst.opcode == OP_LOAD_TENSOR else 0


def _cross_workgroup_pointer(inst, defs):
    """The CrossWorkgroup pointer type of a tensor load/store's pointer, else None."""
    if inst.opcode not in (OP_LOAD_TENSOR, OP_STORE_TENSOR):
        return None
    pointer = defs.get(inst.operands[_pointer_index(inst)])
    pointer_type = defs.get(pointer.result_type) if pointer is not None else None
    if pointer_type is not None and pointer_type.opcode == sb.OP_TYPE_POINTER \
            and pointer_type.operands[1] == sb.STORAGE_CLASS_CROSS_WORKGROUP:
        return pointer_type.result_id
    return None


def _through_workgroup(module, inst, generic, workgroup):
    """OpPtrCastToGeneric + OpGenericCastToPtr of the instruction's pointer to a Workgroup
    pointer; the instruction then uses it."""
    at = _pointer_index(inst)
    as_generic, as_workgroup = module.new_id(), module.new_id()
    casts = [sb.Instruction(sb.OP_PTR_CAST_TO_GENERIC, [generic, as_generic, inst.operands[at]]),
             sb.Instruction(sb.OP_GENERIC_CAST_TO_PTR, [workgroup, as_workgroup, as_generic])]
    inst.operands[at] = as_workgroup
    return casts
