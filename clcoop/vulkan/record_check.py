"""A module's reflection record checked against the module it describes, before anything of
it runs (docs/vulkan-abi.md, "The reflection record").

The record says where each argument goes in the push-constant block; the engine writes
device addresses and scalars there. A record that disagrees with the module (edited, stale,
or hostile) would put a buffer's address where the kernel reads another, or leave a pointer
member zero for the kernel to dereference: on lavapipe, which runs kernels in this process,
that crashed the process (a test reproduces it). So the module's own block decides: every
member the kernel can read must be exactly one argument's (or the global offset's), of the
member's size, and an address only goes into a 64-bit integer member. The SpecIds a launch
sets (the local size, a `__local` argument's length, a specialized scalar) are distinct. The
record lists every matrix type and multiply-add the kernel's code uses (the capability check
reads the record, so a record that left one out would pass a kernel the device cannot run).
"""
from dataclasses import dataclass, field

from clcoop.coopmat_spec import Operand, Scope, Use
from clcoop.spirv import binary as sb
from clcoop.spirv.reflection import ReflectionError
from clcoop.vulkan.arguments import LOCAL_SIZE_SPEC_IDS

# SPIR-V 1.6, 3.6: the GLCompute execution model.
EXECUTION_MODEL_GL_COMPUTE = 5
GLOBAL_OFFSET_BYTES = 12       # three uint32 (docs/vulkan-abi.md)


@dataclass(frozen=True)
class Member:
    """One member of a push-constant block: its byte offset and size, and whether a device
    address may go there (a 64-bit integer or a PhysicalStorageBuffer pointer)."""
    offset: int
    size: int
    address: bool


@dataclass
class ModuleFacts:
    """What the check reads of a module: GLCompute entry points by name -> the members of
    the push-constant block in their interface (None without one); by name, the cooperative
    matrix types the entry point's code uses and its multiply-adds (as the record spells them,
    integer components without their signedness: SPV_KHR_cooperative_matrix gives it on the
    multiply-add, not the type)."""
    entry_points: dict = field(default_factory=dict)
    matrices: dict = field(default_factory=dict)
    mul_adds: dict = field(default_factory=dict)


def module_facts(module_bytes):
    module = sb.read_module(module_bytes)
    defs = sb.definitions(module)
    defs.update({inst.operands[1]: inst for inst in module.instructions if inst.opcode == sb.OP_SPEC_CONSTANT})
    offsets, strides = {}, {}
    for inst in module.instructions:
        if inst.opcode == sb.OP_MEMBER_DECORATE and inst.operands[2:3] == [sb.DECORATION_OFFSET]:
            offsets[(inst.operands[0], inst.operands[1])] = inst.operands[3]
        elif inst.opcode == sb.OP_DECORATE and inst.operands[1:2] == [sb.DECORATION_ARRAY_STRIDE]:
            strides[inst.operands[0]] = inst.operands[2]
    facts = ModuleFacts()
    bodies = _function_bodies(module)
    calls = {function: [i.operands[2] for i in code if i.opcode == sb.OP_FUNCTION_CALL]
             for function, code in bodies.items()}
    for inst in module.instructions:
        if inst.opcode == sb.OP_ENTRY_POINT and inst.operands[0] == EXECUTION_MODEL_GL_COMPUTE:
            name, used = sb.decode_string(inst.operands[2:])
            interface = inst.operands[2 + used:]
            facts.entry_points[name] = _push_constant_members(interface, defs, offsets, strides)
            code = [i for function in sb.reachable(inst.operands[1], calls) for i in bodies.get(function, ())]
            facts.matrices[name], facts.mul_adds[name] = _matrix_uses(code, defs)
    return facts


def _function_bodies(module):
    """{function id: its instructions}."""
    bodies, current = {}, None
    for inst in module.instructions:
        if inst.opcode == sb.OP_FUNCTION:
            current = inst.result_id
            bodies[current] = []
        elif inst.opcode == sb.OP_FUNCTION_END:
            current = None
        elif current is not None:
            bodies[current].append(inst)
    return bodies


BFLOAT16_ENCODING = 0          # SPV_KHR_bfloat16: OpTypeFloat 16 BFloat16KHR


def _enum_name(kind, value):
    """The record's spelling of a Scope or Use value (its member's name, lower case)."""
    try:
        return kind(value).name.lower()
    except ValueError:
        return str(value)


def _matrix_uses(code, defs):
    """(matrix types, multiply-adds) that `code` uses, as hashable tuples in the record's terms."""
    matrices, mul_adds = set(), set()
    for inst in code:
        # The types of its result and operands (a constant matrix is defined outside the code),
        # and an operand that is itself a type (OpCooperativeMatrixLengthKHR's).
        for ident in [inst.result_type] + list(inst.operands) + [_value_type(defs, o) for o in inst.operands]:
            matrix = _matrix(defs.get(ident), defs) if ident is not None else None
            if matrix:
                matrices.add(matrix)
        if inst.opcode == sb.OP_COOPERATIVE_MATRIX_MUL_ADD_KHR:
            mask = inst.operands[5] if len(inst.operands) > 5 else 0
            types = [inst.operands[0]] + [_value_type(defs, v) for v in inst.operands[2:5]]
            result, a, b, c = (_matrix(defs.get(t), defs) for t in types)
            if None in (result, a, b, c):
                raise ReflectionError("a multiply-add of the module has an operand that is not a matrix")
            mul_adds.add((result[0], a[2], b[3], a[3], _signed(a[1], mask & Operand.MATRIX_A_SIGNED),
                          _signed(b[1], mask & Operand.MATRIX_B_SIGNED), _signed(c[1], mask & Operand.MATRIX_C_SIGNED),
                          _signed(result[1], mask & Operand.MATRIX_RESULT_SIGNED),
                          bool(mask & Operand.SATURATING_ACCUMULATION)))
    return matrices, mul_adds


def _value_type(defs, ident):
    inst = defs.get(ident)
    return inst.result_type if inst is not None else None


def _matrix(inst, defs):
    """(scope, component, rows, cols, use) of an OpTypeCooperativeMatrixKHR, None for others;
    an integer component as 'i8', 'i32' ... (its signedness is the multiply-add's)."""
    if inst is None or inst.opcode != sb.OP_TYPE_COOPERATIVE_MATRIX_KHR:
        return None
    component = defs.get(inst.operands[1])
    scope, rows, cols, use = (_constant(defs, i) for i in inst.operands[2:6])
    if component is not None and component.opcode == sb.OP_TYPE_FLOAT:
        bf16 = len(component.operands) > 2 and component.operands[2] == BFLOAT16_ENCODING
        name = "bf16" if bf16 else f"f{component.operands[1]}"
    elif component is not None and component.opcode == sb.OP_TYPE_INT:
        name = f"i{component.operands[1]}"
    else:
        name = "?"
    return (_enum_name(Scope, scope), name, rows, cols, _enum_name(Use, use))


def _constant(defs, ident):
    inst = defs.get(ident)
    if inst is None or inst.opcode not in (sb.OP_CONSTANT, sb.OP_SPEC_CONSTANT):
        raise ReflectionError("a cooperative matrix type of the module has a size or scope that is not a constant")
    return inst.operands[2]


def _signed(component, signed):
    """The record's spelling of a multiply-add operand's component: s8/u8 ... for integers."""
    if component.startswith("i"):
        return ("s" if signed else "u") + component[1:]
    return component


def _record_matrix(entry):
    """A record's matrix entry in _matrix's terms (integers without signedness)."""
    component = entry["component"]
    if component[:1] in ("s", "u") and component[1:].isdigit():
        component = "i" + component[1:]
    return (entry["scope"], component, entry["rows"], entry["cols"], entry["use"])


def _record_mul_add(entry):
    return (entry["scope"], entry["M"], entry["N"], entry["K"], entry["A"], entry["B"], entry["C"],
            entry["result"], bool(entry.get("saturating")))


def _push_constant_members(interface, defs, offsets, strides):
    blocks = []
    for ident in interface:
        var = defs.get(ident)
        if var is None or var.opcode != sb.OP_VARIABLE or var.operands[2] != sb.STORAGE_CLASS_PUSH_CONSTANT:
            continue
        pointer = defs.get(var.operands[0])
        blocks.append(defs.get(pointer.operands[2]) if pointer is not None else None)
    if not blocks:
        return None
    if len(blocks) > 1 or blocks[0] is None or blocks[0].opcode != sb.OP_TYPE_STRUCT:
        raise ReflectionError("the module's entry point has more than one push-constant block, or one that "
                              "is not a structure (Vulkan allows one block per entry point)")
    block = blocks[0]
    members = []
    for index, type_id in enumerate(block.operands[1:]):
        offset = offsets.get((block.operands[0], index))
        if offset is None:
            raise ReflectionError(f"member {index} of the module's push-constant block has no Offset")
        members.append(Member(offset, _size(type_id, defs, strides), _holds_address(type_id, defs)))
    return members


def _holds_address(type_id, defs):
    inst = defs.get(type_id)
    if inst is None:
        return False
    if inst.opcode == sb.OP_TYPE_INT:
        return inst.operands[1] == 64
    return inst.opcode == sb.OP_TYPE_POINTER and inst.operands[1] == sb.STORAGE_CLASS_PHYSICAL_STORAGE_BUFFER


def _size(type_id, defs, strides):
    """Bytes of a push-constant member's type (a scalar, vector, pointer or array)."""
    inst = defs.get(type_id)
    if inst is None:
        raise ReflectionError(f"the module's push-constant block uses an undefined type %{type_id}")
    if inst.opcode in (sb.OP_TYPE_INT, sb.OP_TYPE_FLOAT):
        return inst.operands[1] // 8
    if inst.opcode == sb.OP_TYPE_POINTER:
        return 8
    if inst.opcode == sb.OP_TYPE_BOOL:
        return 4
    if inst.opcode == sb.OP_TYPE_VECTOR:
        # An argument of a 3-component vector type has the size of a 4-component one
        # (OpenCL C 6.1.5), which the record gives and the engine writes.
        return _size(inst.operands[1], defs, strides) * (4 if inst.operands[2] == 3 else inst.operands[2])
    if inst.opcode == sb.OP_TYPE_ARRAY:
        length = defs.get(inst.operands[2])
        if length is None or length.opcode not in (sb.OP_CONSTANT, sb.OP_SPEC_CONSTANT):
            raise ReflectionError("an array in the module's push-constant block has no constant length")
        element = strides.get(type_id) or _size(inst.operands[1], defs, strides)
        return element * length.operands[2]
    # (A structure inside the block is not in the contract: structures are not passed by value.)
    raise ReflectionError(f"the module's push-constant block has a member of an unexpected type (opcode {inst.opcode})")


def check_module_record(module_bytes, records):
    """ReflectionError unless every kernel of the record (read_reflection) is a GLCompute
    entry point of the module whose push-constant block the record describes exactly, and
    the SpecIds it would set are the module's."""
    facts = module_facts(module_bytes)
    for name, record in records.items():
        if name not in facts.entry_points:
            raise ReflectionError(f"the reflection record describes kernel '{name}', which is not an entry point "
                                  f"of the module (its entry points: {', '.join(sorted(facts.entry_points)) or 'none'})")
        _check_push_constants(name, record, facts.entry_points[name])
        _check_spec_ids(name, record)
        _check_matrices(name, record, facts.matrices[name], facts.mul_adds[name])


def _fields(record):
    """(what, offset, bytes, is an address) of everything the engine writes into the block."""
    fields = []
    for arg in record["args"]:
        if arg["kind"] in ("global", "constant"):
            fields.append((f"argument '{arg['name']}'", arg["offset"], 8, True))
        elif arg["kind"] == "scalar":
            fields.append((f"argument '{arg['name']}'", arg["offset"], arg["size"], False))
    if record.get("global_offset_offset") is not None:
        fields.append(("the global offset", record["global_offset_offset"], GLOBAL_OFFSET_BYTES, False))
    return fields


def _check_push_constants(name, record, members):
    def fail(why):
        raise ReflectionError(f"kernel '{name}': the reflection record does not match the module: {why}")

    fields = _fields(record)
    members = sorted(members or [], key=lambda m: m.offset)
    for member, following in zip(members, members[1:]):
        if member.offset + member.size > following.offset:
            fail(f"the push-constant members at bytes {member.offset} and {following.offset} overlap")
    by_offset = {member.offset: member for member in members}
    claimed = {}
    for what, offset, size, address in fields:
        member = by_offset.get(offset)
        if member is None:
            fail(f"{what} at byte {offset}: the push-constant block has no member there "
                 f"(members at {', '.join(str(m.offset) for m in members) or 'none'})")
        if member.size != size:
            fail(f"{what} is {size} bytes at byte {offset}, where the block's member is {member.size}")
        if address and not member.address:
            fail(f"{what} is a buffer, but the block's member at byte {offset} cannot hold a device address")
        if offset in claimed:
            fail(f"{claimed[offset]} and {what} are both at byte {offset}")
        claimed[offset] = what
    for member in members:
        if member.offset not in claimed:
            fail(f"the push-constant member at byte {member.offset} ({member.size} bytes) is no argument's: "
                 f"the kernel would read it unset")
    end = max((m.offset + m.size for m in members), default=0)
    if record.get("push_constant_size", 0) < end:
        fail(f"push_constant_size {record.get('push_constant_size', 0)} is less than the block's {end} bytes")


def _check_matrices(name, record, matrices, mul_adds):
    """The record lists every matrix type and multiply-add the kernel's code uses: the device's
    capabilities are checked against the record (capabilities.check_kernel), so a record that
    left one out would hand the driver a kernel it cannot run."""
    def fail(what, entry):
        raise ReflectionError(f"kernel '{name}': the reflection record does not match the module: the module uses "
                              f"{what} {entry}, which the record does not list")

    listed = {_record_matrix(entry) for entry in record.get("matrices") or ()}
    for matrix in sorted(matrices - listed, key=str):
        fail("the matrix type (scope, component, rows, cols, use)", matrix)
    listed = {_record_mul_add(entry) for entry in record.get("mul_adds") or ()}
    for mul_add in sorted(mul_adds - listed, key=str):
        fail("the multiply-add (scope, M, N, K, A, B, C, result, saturating)", mul_add)


def _check_spec_ids(name, record):
    """The SpecIds a launch may set are distinct: a `__local` length or a specialized value
    written into the local size's SpecIds (0-2) would change the work-group's size. (A SpecId
    the module does not use is harmless, Vulkan 1.3, 10.9.1: an argument the kernel never
    reads has none.)"""
    taken = {} if record.get("local_size") else {i: "the local size" for i in LOCAL_SIZE_SPEC_IDS}
    for arg in record["args"]:
        for ident in ([arg["spec_id"]] if arg["kind"] == "local" else list(arg.get("spec_ids") or ())):
            if ident in taken:
                raise ReflectionError(f"kernel '{name}': unusable reflection record: argument '{arg['name']}' "
                                      f"names SpecId {ident}, which {taken[ident]} uses too")
            taken[ident] = f"argument '{arg['name']}'"
