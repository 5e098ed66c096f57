"""The Workgroup (shared, OpenCL `__local`) memory a module's entry point needs, read from the
module itself, so that a launch over the device's maxComputeSharedMemorySize is refused before
anything is dispatched (VUID-RuntimeSpirv-Workgroup-06530: the Workgroup variables' bytes,
padding included, must not exceed the limit; NVIDIA's driver accepted such a pipeline and lost
the device at the dispatch). A module with workgroup-scope matrices has that limit less
cooperativeMatrixWorkgroupScopeReservedSharedMemory (VUID-RuntimeSpirv-maxComputeSharedMemorySize-10168).

Which variables: the Workgroup OpVariables of the entry point's interface (SPIR-V 1.4 and
later list every global variable the entry point's call tree uses, SPIR-V 2.4 "OpEntryPoint"),
or, in older modules, those referenced by the functions reachable from the entry point.

How many bytes: the Vulkan specification bounds what an implementation consumes by laying
the variables out one after the other with the standard storage-buffer (std430) rules,
booleans as 32-bit integers (Vulkan 1.3, "Shader Interfaces", Workgroup variables); that
bound is the count used here (in declaration order), so a launch that fits it fits every
conforming driver. (A kernel right at the limit whose variables need std430 padding, vec3 or
mixed structs, may be refused though a driver that packs tighter would take it.)
With explicit layouts (SPV_KHR_workgroup_memory_explicit_layout) the Block-decorated
variables share one storage: the largest of them counts. Array lengths may be specialization
constants (the `__local` arguments' SpecId 100 + i, docs/vulkan-abi.md): they are evaluated
with the launch's values.

Plain data and the standard library: CI checks modules against a recorded device description.
"""
from dataclasses import dataclass

from clcoop.coopmat_spec import Scope
from clcoop.errors import ArgumentError, UnsupportedOnDevice
from clcoop.spirv.binary import (DECORATION_ARRAY_STRIDE, DECORATION_BLOCK, DECORATION_OFFSET, DECORATION_SPEC_ID,
                                 OP_CONSTANT, OP_DECORATE, OP_ENTRY_POINT, OP_FUNCTION, OP_FUNCTION_CALL,
                                 OP_FUNCTION_END, OP_MEMBER_DECORATE, OP_NAME, OP_SPEC_CONSTANT, OP_SPEC_CONSTANT_OP,
                                 OP_TYPE_ARRAY, OP_TYPE_BOOL, OP_TYPE_COOPERATIVE_MATRIX_KHR, OP_TYPE_FLOAT,
                                 OP_TYPE_INT, OP_TYPE_MATRIX, OP_TYPE_POINTER, OP_TYPE_STRUCT, OP_TYPE_VECTOR,
                                 OP_VARIABLE, STORAGE_CLASS_PHYSICAL_STORAGE_BUFFER, STORAGE_CLASS_WORKGROUP,
                                 SpirvFormatError, decode_string, definitions, id_operands, read_module, reachable)

FIRST_INTERFACE_VERSION = 0x00010400          # SPIR-V 1.4: the interface lists every global
# OpSpecConstantOp operations an array length may use (SPIR-V 3.52.7), on 32-bit words.
_SPEC_OPS = {128: lambda a, b: a + b, 130: lambda a, b: a - b, 132: lambda a, b: a * b,
             134: lambda a, b: a // b if b else 0, 137: lambda a, b: a % b if b else 0,
             194: lambda a, b: a >> b, 196: lambda a, b: a << b}


@dataclass(frozen=True)
class WorkgroupVariable:
    id: int
    name: str            # OpName, or %id
    pointee: int         # the variable's type


class WorkgroupMemory:
    """The Workgroup variables of each entry point of a module, sized on demand."""

    def __init__(self, module_bytes):
        module = read_module(bytes(module_bytes))
        self._definitions = definitions(module)
        self._definitions.update({inst.operands[1]: inst for inst in module.instructions   # (not in binary's table)
                                  if inst.opcode in (OP_SPEC_CONSTANT, OP_SPEC_CONSTANT_OP)})
        self._names = {}
        self._decorations = {}           # id -> {decoration: first literal (or True)}
        self._member_offsets = {}        # struct id -> {member: Offset}
        for inst in module.instructions:
            ops = inst.operands
            if inst.opcode == OP_NAME:
                self._names[ops[0]] = decode_string(ops[1:])[0]
            elif inst.opcode == OP_DECORATE and len(ops) >= 2:
                self._decorations.setdefault(ops[0], {})[ops[1]] = ops[2] if len(ops) > 2 else True
            elif inst.opcode == OP_MEMBER_DECORATE and len(ops) >= 4 and ops[2] == DECORATION_OFFSET:
                self._member_offsets.setdefault(ops[0], {})[ops[1]] = ops[3]
        self._variables = {inst.operands[1]: inst for inst in module.instructions
                           if inst.opcode == OP_VARIABLE and inst.operands[2] == STORAGE_CLASS_WORKGROUP}
        self._entries = self._entry_variables(module)
        self.workgroup_scope_matrices = self._has_workgroup_scope_matrices(module)

    def _has_workgroup_scope_matrices(self, module):
        """Whether the module declares an OpTypeCooperativeMatrixKHR of Workgroup scope (the
        driver then keeps some shared memory for itself, VUID-...-10168; per module, as the
        validation layers count it)."""
        for inst in module.instructions:
            if inst.opcode == OP_TYPE_COOPERATIVE_MATRIX_KHR:
                scope = self._definitions.get(inst.operands[2])
                if scope is None or scope.opcode != OP_CONSTANT or scope.operands[2] == Scope.WORKGROUP:
                    return True      # (a specialized scope may be Workgroup: counted as one)
        return False

    # ------------------------------------------------------------------ which variables

    def _entry_variables(self, module):
        """entry point name -> [WorkgroupVariable] it uses."""
        bodies, calls = self._functions(module)
        entries = {}
        for inst in module.instructions:
            if inst.opcode != OP_ENTRY_POINT:
                continue
            name, used = decode_string(inst.operands[2:])
            interface = inst.operands[2 + used:]
            if module.version >= FIRST_INTERFACE_VERSION:
                ids = set(interface)
            else:
                ids = set()
                for function in reachable(inst.operands[1], calls):
                    ids.update(bodies.get(function, ()))
            entries[name] = [self._variable(v) for v in sorted(ids) if v in self._variables]
        return entries

    @staticmethod
    def _functions(module):
        """(function id -> ids its body uses, function id -> functions it calls)."""
        bodies, calls, current = {}, {}, None
        for inst in module.instructions:
            if inst.opcode == OP_FUNCTION:
                current = inst.operands[1]
                bodies[current], calls[current] = set(), set()
            elif inst.opcode == OP_FUNCTION_END:
                current = None
            elif current is not None:
                bodies[current].update(id_operands(inst))
                if inst.opcode == OP_FUNCTION_CALL:
                    calls[current].add(inst.operands[2])
        return bodies, calls

    def _variable(self, var_id):
        pointer = self._definitions.get(self._variables[var_id].operands[0])
        if pointer is None or pointer.opcode != OP_TYPE_POINTER:
            raise SpirvFormatError(f"Workgroup variable %{var_id} has no pointer type")
        return WorkgroupVariable(var_id, self._names.get(var_id, f"%{var_id}"), pointer.operands[2])

    def length_spec_id(self, variable):
        """The SpecId of a variable's array length when it is one specialization constant
        (how a `__local` argument's array is declared, docs/vulkan-abi.md), else None."""
        array = self._definitions.get(variable.pointee)
        if array is None or array.opcode != OP_TYPE_ARRAY:
            return None
        length = self._definitions.get(array.operands[2])
        if length is None or length.opcode != OP_SPEC_CONSTANT:
            return None
        return self._decorations.get(length.operands[1], {}).get(DECORATION_SPEC_ID)

    def variables(self, entry):
        """The Workgroup variables entry point `entry` uses ([] for an unknown entry point)."""
        return list(self._entries.get(entry, ()))

    # ------------------------------------------------------------------------ sizes

    def sizes(self, entry, constants):
        """[(WorkgroupVariable, bytes)] of entry point `entry` with the specialization
        constants {SpecId: value} (others at their defaults)."""
        return [(v, self._size_align(v.pointee, constants)[0]) for v in self._entries.get(entry, ())]

    def total(self, entry, constants):
        """The bytes of Workgroup memory a work-group of `entry` needs (std430 placement in
        declaration order; explicitly laid-out Block variables alias: the largest counts)."""
        variables = self._entries.get(entry, ())
        blocks = [v for v in variables if DECORATION_BLOCK in self._decorations.get(v.pointee, {})]
        if blocks:
            return max(self._size_align(v.pointee, constants)[0] for v in blocks)
        offset = 0
        for variable in variables:
            size, align = self._size_align(variable.pointee, constants)
            offset = _round_up(offset, align) + size
        return offset

    def _size_align(self, type_id, constants, depth=0):
        """(size, base alignment) of a type under std430 (Vulkan 1.3, "Offset and Stride Assignment")."""
        inst = self._definitions.get(type_id)
        if inst is None or depth > 64:
            raise SpirvFormatError(f"cannot size Workgroup type %{type_id}: not a type the module defines")
        op, ops = inst.opcode, inst.operands
        if op == OP_TYPE_BOOL:
            return 4, 4                                    # booleans count as 32-bit integers
        if op in (OP_TYPE_INT, OP_TYPE_FLOAT):
            return ops[1] // 8, ops[1] // 8
        if op == OP_TYPE_POINTER and ops[1] == STORAGE_CLASS_PHYSICAL_STORAGE_BUFFER:
            return 8, 8
        if op == OP_TYPE_VECTOR:
            size, _ = self._size_align(ops[1], constants, depth + 1)
            return size * ops[2], size * (2 if ops[2] == 2 else 4 if ops[2] <= 4 else ops[2])
        if op == OP_TYPE_MATRIX:                           # columns as an array of vectors
            size, align = self._size_align(ops[1], constants, depth + 1)
            return _round_up(size, align) * ops[2], align
        if op == OP_TYPE_ARRAY:
            size, align = self._size_align(ops[1], constants, depth + 1)
            stride = self._decorations.get(type_id, {}).get(DECORATION_ARRAY_STRIDE) or _round_up(size, align)
            return stride * self._constant(ops[2], constants), align
        if op == OP_TYPE_STRUCT:
            return self._struct(type_id, ops[1:], constants, depth)
        raise SpirvFormatError(f"cannot size Workgroup type %{type_id} (opcode {op})")

    def _struct(self, type_id, members, constants, depth):
        offsets = self._member_offsets.get(type_id, {})
        end, struct_align = 0, 1
        for index, member in enumerate(members):
            size, align = self._size_align(member, constants, depth + 1)
            start = offsets.get(index, _round_up(end, align))
            end, struct_align = max(end, start + size), max(struct_align, align)
        return _round_up(end, struct_align), struct_align

    def _constant(self, const_id, constants, depth=0):
        """The value of an array length: a constant, a specialization constant (the launch's
        value for its SpecId, else its default) or a specialization-constant operation."""
        inst = self._definitions.get(const_id)
        if inst is None or depth > 64:
            raise SpirvFormatError(f"array length %{const_id} is not a constant the module defines")
        if inst.opcode == OP_CONSTANT:
            return inst.operands[2]
        if inst.opcode == OP_SPEC_CONSTANT:
            spec_id = self._decorations.get(const_id, {}).get(DECORATION_SPEC_ID)
            return constants.get(spec_id, inst.operands[2]) if spec_id is not None else inst.operands[2]
        if inst.opcode == OP_SPEC_CONSTANT_OP and inst.operands[2] in _SPEC_OPS and len(inst.operands) == 5:
            a, b = (self._constant(x, constants, depth + 1) for x in inst.operands[3:5])
            return _SPEC_OPS[inst.operands[2]](a, b) & 0xFFFFFFFF
        raise SpirvFormatError(f"cannot evaluate array length %{const_id} (opcode {inst.opcode})")


def workgroup_memory_problem(kernel, record, memory, constants, description):
    """The error to raise when kernel `kernel` (its reflection record, the module's
    WorkgroupMemory) specialized with `constants` needs more Workgroup memory than the device
    has (maxComputeSharedMemorySize), else None: UnsupportedOnDevice when its own `__local`
    arrays alone are too large, ArgumentError when its LocalMemory arguments make it so."""
    limit, reserved = description.max_shared_memory, 0
    if memory.workgroup_scope_matrices:
        reserved = description.workgroup_scope_reserved_shared_memory
    needed = memory.total(kernel, constants)
    if needed <= limit - reserved:
        return None
    arguments = {arg["spec_id"]: arg["name"] for arg in record.get("args", ()) if arg.get("kind") == "local"}
    without_arguments = dict(constants)
    without_arguments.update({spec_id: 0 for spec_id in arguments})
    fixed = memory.total(kernel, without_arguments)
    parts = ", ".join(f"{_display(kernel, variable, memory, arguments)} {size}"
                      for variable, size in memory.sizes(kernel, constants))
    text = (f"kernel '{kernel}' needs {needed} bytes of Workgroup (__local) memory per work-group ({parts}), "
            f"{description.title()} has {limit} bytes (maxComputeSharedMemorySize)")
    if reserved:
        text += (f" less the {reserved} its driver keeps for workgroup-scope matrices "
                 f"(cooperativeMatrixWorkgroupScopeReservedSharedMemory)")
    if fixed > limit - reserved:
        return UnsupportedOnDevice(f"{text}: its __local arrays alone take {fixed} bytes")
    return ArgumentError(f"{text}: its LocalMemory arguments take {needed - fixed} of them; pass smaller "
                         f"LocalMemory sizes (or a smaller local size)")


def _display(kernel, variable, memory, arguments):
    """A LocalMemory argument by its name, another variable by its OpName without the
    kernel's prefix (the Vulkan target names them kernel.var)."""
    spec_id = memory.length_spec_id(variable)
    if spec_id in arguments:
        return f"argument '{arguments[spec_id]}'"
    name = variable.name
    return name[len(kernel) + 1:] if name.startswith(kernel + ".") else name


def _round_up(value, align):
    return (value + align - 1) // align * align if align > 1 else value
