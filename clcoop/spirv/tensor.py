"""Tensor layouts, views and tensor loads/stores in SPIR-V (SPV_NV_cooperative_matrix2,
SPV_NV_tensor_addressing; opcodes in docs/ir-conventions.md "Tensor layouts and views").

llc-22 emits the types itself (OpTypeTensorLayoutNV / OpTypeTensorViewNV, from the
`target("spirv.Type", ...)` encoding) but leaves every operation an imported function:
`rewrite_tensor_calls` replaces each call by its NV instruction (the memory operand and
the tensor addressing operands become literals; a decode function operand is the
function's id, as spirv/function_operands.py restores it), and declares the extensions
and capabilities.

spirv-val 2025.5 applies two rules of the extension meant for Vulkan in every
environment (docs/tensor.md "Validation"): tensor loads and stores through a
CrossWorkgroup pointer ("not Workgroup, StorageBuffer, or PhysicalStorageBuffer"), and
a decode function whose first parameter is not a PhysicalStorageBuffer pointer. clcoop
emits such modules as the extension defines them, and validates instead a copy where
exactly those constructs are changed (`validator_copy`): everything else is checked.
"""
import copy
import re

from clcoop import coop_names
from clcoop.spirv import binary as sb
from clcoop.spirv.function_operands import add_extension
from clcoop.spirv.rewrite import _Rewriter
from clcoop.spirv.tools import INTERNAL_HINT, SpirvError

# Opcodes (shared/notes/nv2-ops.md, SPIRV-Headers' grammar).
OP_LOAD_TENSOR = sb.OP_LOAD_TENSOR_NV
OP_STORE_TENSOR = sb.OP_STORE_TENSOR_NV
OP_TYPE_TENSOR_LAYOUT = sb.OP_TYPE_TENSOR_LAYOUT_NV
OP_TYPE_TENSOR_VIEW = sb.OP_TYPE_TENSOR_VIEW_NV
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
CAPABILITY_INT64 = 11
CAPABILITY_VULKAN_MEMORY_MODEL = 5345
OP_LABEL = 248
OP_TYPE_VECTOR = 23
OP_TYPE_ARRAY = 28
OP_TYPE_STRUCT = 30
OP_MEMORY_MODEL = 14
MEMORY_MODEL_VULKAN = 3
OP_CONVERT_PTR_TO_U = 117
OP_CONVERT_U_TO_PTR = 120



def _fail(message):
    raise SpirvError(f"cannot rewrite SPIR-V tensor operations: {message}; {INTERNAL_HINT}")


def is_tensor_callee(name):
    """True for the callee name of a tensor operation (coop_names.TENSOR_BASES), which
    llc-22 leaves an imported function."""
    callee = coop_names.parse_callee(name)
    return callee is not None and callee.base in coop_names.TENSOR_BASES


def tensor_imports(module):
    """Imported function id -> OpenCL C tensor operation, for llc-22's imports of tensor callees."""
    return {fid: coop_names.TENSOR_BASES[coop_names.parse_callee(name).base]
            for fid, name in sb.imported_functions(module).items() if is_tensor_callee(name)}


def _constant(defs, value, what):
    definition = defs.get(value)
    if definition is not None and definition.opcode == sb.OP_CONSTANT:
        return definition.operands[2]
    if definition is not None and definition.opcode == sb.OP_CONSTANT_NULL:
        return 0
    _fail(f"the {what} is not a constant")


def _instruction(call, operation, defs):
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
            decode = defs.get(extra[-1]) if extra else None
            if decode is None or decode.opcode != sb.OP_FUNCTION:
                _fail("the decode operand is not an OpFunction (restore_function_operands runs first)")
        operands = [pointer, matrix, layout, memory, addressing] + extra
        if operation == "coop_mat_store_tensor":
            return sb.Instruction(opcode, operands)
        return sb.Instruction(opcode, [result_type, result] + operands)
    return sb.Instruction(opcode, [result_type, result] + args)


def rewrite_tensor_calls(module, ir_text=None):
    """Rewrite in place (and return) a parsed module: every call of an imported tensor
    callee becomes its NV instruction. Runs after rewrite_cooperative_calls, whose
    restore_function_operands has made each decode operand its OpFunction's id. With the
    module's LLVM IR (the Kernel flavour, ir_to_spirv), each decode function's first
    parameter also gets its block type (_type_decode_blocks)."""
    targets = tensor_imports(module)
    if not targets:
        return module
    defs = sb.definitions(module)
    imports = sb.imported_functions(module)
    blocks = {}                 # decode function id -> mangled code of its block type
    output = []
    for inst in module.instructions:
        if inst.opcode == sb.OP_FUNCTION_CALL and inst.operands[2] in targets:
            new = _instruction(inst, targets[inst.operands[2]], defs)
            if new.opcode == OP_LOAD_TENSOR and new.operands[6] & ADDRESSING_DECODE_FUNC:
                blocks[new.operands[-1]] = _block_code(imports[inst.operands[2]])
            output.append(new)
        else:
            output.append(inst)
    module.instructions = output
    _drop_imports(module, targets)
    _declare(module, bool(blocks))
    if ir_text is not None:
        _type_decode_blocks(module, blocks, ir_text)
    return module


# ---------------------------------------------------------------- decode function blocks
# SPV_NV_cooperative_matrix2 (OpCooperativeMatrixLoadTensorNV, DecodeFunc): a block is
# "the pointee type of the first parameter of the decode function", and the load steps
# through the tensor one block at a time. llc-22 types that parameter from the function's
# uses (opaque pointers): a decode function reading its block bytewise gets `uchar *`, so a
# driver would step 1 byte per block. The callee name carries the block's C type (the
# decode function's pointer code, e.g. PFDhPU3AS1K10block_q4_0...E): the parameter is
# retyped to point to it, and converted back (OpBitcast) to llc's type on entry.
_DECODE_POINTER = re.compile(r"PF(?:Dh|Dv\d+_\w|[a-z])PU3AS\d+[KVr]*")
_SCALAR_CODES = {"c": ("int", 8), "a": ("int", 8), "h": ("int", 8), "s": ("int", 16), "t": ("int", 16),
                 "i": ("int", 32), "j": ("int", 32), "l": ("int", 64), "m": ("int", 64),
                 "Dh": ("float", 16), "f": ("float", 32), "d": ("float", 64)}


def _block_code(callee_name):
    """(the mangled code of the decode function's block type, its size in bytes) in a
    load's callee name: `10block_q4_0` (a struct), `h`, `Dv4_f`, ...; the size from the
    vendor code u<len>TensorBlockNV_<bytes> (lower_tensor.py)."""
    params = coop_names.parse_callee(callee_name).params
    size = re.search(r"TensorBlockNV_(\d+)", params)
    if size is None:
        _fail(f"the callee name {callee_name} does not say the size of its decode block")
    return _block_code_in(params, callee_name), int(size.group(1))


def _block_code_in(params, callee_name):
    m = _DECODE_POINTER.search(params)
    rest = params[m.end():] if m else ""
    length = re.match(r"\d+", rest)
    if length:
        return rest[:len(length.group(0)) + int(length.group(0))]
    vector = re.match(r"Dv\d+_(?:Dh|[a-z])|Dh|[a-z]", rest)
    if vector is None:
        _fail(f"the decode function's block type is not in the callee name {callee_name}")
    return vector.group(0)


def _block_type(module, code, size, structs):
    """The SPIR-V type id of a block's mangled C type: a struct by its OpName, as llc-22
    names it (struct.<name>, union.<name>), else declared from the IR's definition of it;
    where neither has it (no code of the module uses the struct's fields), an array of its
    `size` bytes: what the load steps by is the block's size. Scalars and vectors are found
    or declared."""
    length = re.match(r"\d+", code)
    if length:
        name = code[len(length.group(0)):]
        named = {text: id_ for id_, text in sb.names(module).items()}
        for spelled in (f"struct.{name}", f"union.{name}"):
            if spelled in named:
                return named[spelled]
            if spelled in structs:
                return _ir_type(module, structs[spelled], structs)
        return _ir_type(module, f"[{size} x i8]", structs)
    vector = re.fullmatch(r"Dv(\d+)_(.+)", code)
    if vector:
        elem = _block_type(module, vector.group(2), None, structs)
        return _find_or_add_type(module, OP_TYPE_VECTOR, [elem, int(vector.group(1))])
    kind, width = _SCALAR_CODES[code]
    return _scalar_type(module, kind, width)


def _scalar_type(module, kind, width):
    if kind == "int":
        return _find_or_add_type(module, sb.OP_TYPE_INT, [width, 0])    # OpenCL: signless
    return _find_or_add_type(module, sb.OP_TYPE_FLOAT, [width])


_IR_STRUCT = re.compile(r"^%((?:struct|union)\.[\w.]+) = type (\{.*\})$", re.M)
_IR_SCALARS = {"i8": ("int", 8), "i16": ("int", 16), "i32": ("int", 32), "i64": ("int", 64),
               "half": ("float", 16), "float": ("float", 32), "double": ("float", 64)}


def ir_structs(ir_text):
    """Named struct types of LLVM IR text: name -> body (`{ i8, [5 x i8] }`)."""
    return dict(_IR_STRUCT.findall(ir_text))


def _ir_type(module, text, structs):
    """A SPIR-V type id for an LLVM IR type (the scalars, arrays, vectors and structs a
    block can hold), declared where missing."""
    text = text.strip()
    if text in _IR_SCALARS:
        return _scalar_type(module, *_IR_SCALARS[text])
    aggregate = re.fullmatch(r"([\[<])(\d+) x (.+)[\]>]", text)
    if aggregate:
        elem = _ir_type(module, aggregate.group(3), structs)
        if aggregate.group(1) == "<":
            return _find_or_add_type(module, OP_TYPE_VECTOR, [elem, int(aggregate.group(2))])
        length = _find_or_add_constant(module, _scalar_type(module, "int", 32), int(aggregate.group(2)))
        return _find_or_add_type(module, OP_TYPE_ARRAY, [elem, length])
    if text.startswith("%") and text[1:] in structs:
        return _ir_type(module, structs[text[1:]], structs)
    if text.startswith("{") and text.endswith("}"):
        fields = [_ir_type(module, f, structs) for f in _split_fields(text[1:-1])]
        return _find_or_add_type(module, OP_TYPE_STRUCT, fields)
    _fail(f"a decode block holds the IR type '{text}', which has no SPIR-V block form here")


def _split_fields(body):
    fields, depth, start = [], 0, 0
    for i, c in enumerate(body):
        if c in "[<{":
            depth += 1
        elif c in "]>}":
            depth -= 1
        if c == "," and depth == 0:
            fields.append(body[start:i])
            start = i + 1
    return fields + ([body[start:]] if body.strip() else [])


def _find_or_add_constant(module, type_id, value):
    for inst in module.instructions:
        if inst.opcode == sb.OP_CONSTANT and inst.operands[0] == type_id and inst.operands[2:] == [value]:
            return inst.operands[1]
    fresh = module.new_id()
    module.instructions.insert(sb.first_function_index(module), sb.Instruction(sb.OP_CONSTANT, [type_id, fresh, value]))
    return fresh


def _find_or_add_type(module, opcode, operands):
    for inst in module.instructions:
        if inst.opcode == opcode and inst.operands[1:] == operands:
            return inst.operands[0]
    fresh = module.new_id()
    module.instructions.insert(sb.first_function_index(module), sb.Instruction(opcode, [fresh] + operands))
    return fresh


def _type_decode_blocks(module, blocks, ir_text):
    """Each decode function's first parameter points to its block type."""
    structs = ir_structs(ir_text)
    for function, (code, size) in blocks.items():
        block = _block_type(module, code, size, structs)
        defs = sb.definitions(module)
        if _size_align(defs, block)[0] != size:
            _fail(f"the decode block %{block} is not the {size} bytes the callee name says")
        ftype = defs[defs[function].operands[3]]
        llc_pointer = defs[ftype.operands[2]]
        if llc_pointer.operands[2] == block:
            continue
        pointer = sb.find_or_add_pointer_type(module, llc_pointer.operands[1], block)
        new_type = module.new_id()
        module.instructions.insert(sb.first_function_index(module), sb.Instruction(
            sb.OP_TYPE_FUNCTION, [new_type, ftype.operands[1], pointer] + ftype.operands[3:]))
        _retype_first_parameter(module, function, new_type, pointer)


def _retype_first_parameter(module, function, new_type, pointer):
    """OpFunction `function` gets `new_type`; its first parameter, a fresh id of type
    `pointer`; on entry an OpBitcast gives the old id its old type again."""
    output = []
    state = None
    for inst in module.instructions:
        if inst.opcode == sb.OP_FUNCTION and inst.result_id == function:
            inst.operands[3] = new_type
            state = "first parameter"
        elif state == "first parameter" and inst.opcode == sb.OP_FUNCTION_PARAMETER:
            fresh = module.new_id()
            output.append(sb.Instruction(sb.OP_FUNCTION_PARAMETER, [pointer, fresh]))
            state = ("entry", inst.operands[0], inst.operands[1], fresh)
            continue
        elif isinstance(state, tuple) and inst.opcode not in (OP_LABEL, sb.OP_VARIABLE, sb.OP_FUNCTION_PARAMETER):
            _, old_type, old_id, fresh = state
            output.append(sb.Instruction(sb.OP_BITCAST, [old_type, old_id, fresh]))
            state = None
        output.append(inst)
    module.instructions = output


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

def validator_copy(module, decode="omit"):
    """A copy of the module for spirv-val 2025.5, which rejects two constructs of the
    extension in an OpenCL (Kernel) module. Returns (copy, what changed), or (module, [])
    when there is nothing to change.

    - The pointer of each tensor load/store through CrossWorkgroup memory becomes a
      Workgroup pointer (cast through Generic just before the instruction; the copy
      declares GenericPointer).
    - decode="physical": the first parameter of each decode function becomes a
      PhysicalStorageBuffer pointer (converted back to the original pointer on entry),
      with what the validator then requires: the PhysicalStorageBufferAddresses
      capability implies Shader, and Shader with cooperative matrices requires the
      VulkanMemoryModel capability and memory model. Shader also requires structured
      control flow, so this copy validates only branch-free modules (the tests').
    - decode="omit" (what `ir_to_spirv` checks): each load's DecodeFunc operand is left
      out instead; the decode function stays in the module and is validated as a function.
    - decode="keep": decode operands unchanged (tests: the pointers alone are not enough)."""
    defs = sb.definitions(module)
    decoders = {_decode_operand(inst) for inst in module.instructions} - {None}
    if not decoders and not any(_cross_workgroup_pointer(inst, defs) for inst in module.instructions):
        return module, []
    patched = copy.deepcopy(module)
    changes = []
    if decoders and decode == "physical":
        _physical_storage_buffer_parameters(patched, decoders)
        changes += [f"decode function %{f}: first parameter -> PhysicalStorageBuffer" for f in sorted(decoders)]
    elif decoders and decode == "omit":
        for inst in patched.instructions:
            if _decode_operand(inst) is not None:
                inst.operands[6] &= ~ADDRESSING_DECODE_FUNC
                del inst.operands[-1]
        changes.append("DecodeFunc operands left out")
    pointers = {}           # tensor load/store -> its pointer's pointee type
    for inst in patched.instructions:
        pointer_type = _cross_workgroup_pointer(inst, defs)
        if pointer_type is not None:
            pointers[id(inst)] = defs[pointer_type].operands[2]
    casts = {pointee: (sb.find_or_add_pointer_type(patched, sb.STORAGE_CLASS_GENERIC, pointee),
                       sb.find_or_add_pointer_type(patched, sb.STORAGE_CLASS_WORKGROUP, pointee))
             for pointee in set(pointers.values())}
    if casts:
        _add_capability(patched, CAPABILITY_GENERIC_POINTER)
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


def _decode_operand(inst):
    """The decode function id of a tensor load, else None."""
    if inst.opcode == OP_LOAD_TENSOR and inst.operands[6] & ADDRESSING_DECODE_FUNC:
        return inst.operands[-1]
    return None


def _add_capability(module, capability):
    if not any(inst.opcode == sb.OP_CAPABILITY and inst.operands == [capability] for inst in module.instructions):
        module.instructions.insert(0, sb.Instruction(sb.OP_CAPABILITY, [capability]))


def _physical_storage_buffer_parameters(module, functions):
    """Each decode function's first parameter becomes a PhysicalStorageBuffer pointer to
    the same pointee; on entry it is converted (through a 64-bit integer) back to the
    original pointer under the original id, so the body is unchanged."""
    _add_capability(module, CAPABILITY_PHYSICAL_STORAGE_BUFFER_ADDRESSES)
    add_extension(module, "SPV_KHR_physical_storage_buffer")       # core only from SPIR-V 1.5
    # PhysicalStorageBufferAddresses implies Shader, and Shader with CooperativeMatrixKHR
    # requires the VulkanMemoryModel capability to be declared.
    _add_capability(module, CAPABILITY_VULKAN_MEMORY_MODEL)
    add_extension(module, "SPV_KHR_vulkan_memory_model")
    for inst in module.instructions:
        if inst.opcode == OP_MEMORY_MODEL:
            inst.operands[1] = MEMORY_MODEL_VULKAN
    ulong = next((inst.result_id for inst in module.instructions
                  if inst.opcode == sb.OP_TYPE_INT and inst.operands[1:] == [64, 0]), None)
    if ulong is None:
        _add_capability(module, CAPABILITY_INT64)
        ulong = module.new_id()
        module.instructions.insert(sb.first_function_index(module), sb.Instruction(sb.OP_TYPE_INT, [ulong, 64, 0]))
    defs = sb.definitions(module)
    retyped = {}                # function id -> (its new function type, the new first parameter type)
    for function in functions:
        ftype = defs[defs[function].operands[3]]
        pointee = defs[ftype.operands[2]].operands[2]
        _explicit_layout(module, pointee, defs)
        physical = sb.find_or_add_pointer_type(module, STORAGE_CLASS_PHYSICAL_STORAGE_BUFFER, pointee)
        new_type = module.new_id()
        module.instructions.insert(sb.first_function_index(module), sb.Instruction(
            sb.OP_TYPE_FUNCTION, [new_type, ftype.operands[1], physical] + ftype.operands[3:]))
        retyped[function] = (new_type, physical)
    output = []
    state = None                # "first parameter" | ("entry", old type, old id, new id)
    for inst in list(module.instructions):
        if inst.opcode == sb.OP_FUNCTION and inst.result_id in retyped:
            inst.operands[3], physical = retyped[inst.result_id]
            state = ("first parameter", physical)
        elif state and state[0] == "first parameter" and inst.opcode == sb.OP_FUNCTION_PARAMETER:
            fresh = module.new_id()
            output.append(sb.Instruction(sb.OP_FUNCTION_PARAMETER, [state[1], fresh]))
            state = ("entry", inst.operands[0], inst.operands[1], fresh)
            continue
        elif state and state[0] == "entry" and inst.opcode not in (OP_LABEL, sb.OP_VARIABLE) \
                and not (inst.opcode == sb.OP_FUNCTION_PARAMETER):
            _, old_type, old_id, fresh = state
            as_integer = module.new_id()
            output += [sb.Instruction(OP_CONVERT_PTR_TO_U, [ulong, as_integer, fresh]),
                       sb.Instruction(OP_CONVERT_U_TO_PTR, [old_type, old_id, as_integer])]
            state = None
        output.append(inst)
    module.instructions = output


# A struct block behind a PhysicalStorageBuffer pointer must have an explicit layout
# (spirv-val's Vulkan rule): the copy decorates it with the C layout OpenCL gives it
# (members at their alignment, arrays strided by their element's size).
OP_MEMBER_DECORATE = 72
DECORATION_ARRAY_STRIDE = 6
DECORATION_OFFSET = 35


def _size_align(defs, type_id):
    inst = defs[type_id]
    if inst.opcode in (sb.OP_TYPE_INT, sb.OP_TYPE_FLOAT):
        size = inst.operands[1] // 8
        return size, size
    if inst.opcode == OP_TYPE_VECTOR:
        size, _ = _size_align(defs, inst.operands[1])
        count = 4 if inst.operands[2] == 3 else inst.operands[2]
        return size * count, size * count
    if inst.opcode == OP_TYPE_ARRAY:
        size, align = _size_align(defs, inst.operands[1])
        return size * defs[inst.operands[2]].operands[2], align
    if inst.opcode == OP_TYPE_STRUCT:
        offset, align = 0, 1
        for member in inst.operands[1:]:
            size, member_align = _size_align(defs, member)
            offset = -(-offset // member_align) * member_align + size
            align = max(align, member_align)
        return -(-offset // align) * align, align
    _fail(f"a decode block of type %{type_id} (opcode {inst.opcode}) has no C layout here")


def _explicit_layout(module, type_id, defs):
    inst = defs[type_id]
    decorations = []
    if inst.opcode == OP_TYPE_STRUCT:
        offset = 0
        for index, member in enumerate(inst.operands[1:]):
            size, align = _size_align(defs, member)
            offset = -(-offset // align) * align
            decorations.append(sb.Instruction(OP_MEMBER_DECORATE, [type_id, index, DECORATION_OFFSET, offset]))
            offset += size
            _explicit_layout(module, member, defs)
    elif inst.opcode == OP_TYPE_ARRAY:
        size, _ = _size_align(defs, inst.operands[1])
        decorations.append(sb.Instruction(sb.OP_DECORATE, [type_id, DECORATION_ARRAY_STRIDE, size]))
        _explicit_layout(module, inst.operands[1], defs)
    at = max(i for i, d in enumerate(module.instructions) if d.opcode in (sb.OP_DECORATE, OP_MEMBER_DECORATE, sb.OP_NAME)) + 1
    module.instructions[at:at] = [d for d in decorations if d not in module.instructions]
