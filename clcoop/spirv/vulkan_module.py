"""llc-22's Vulkan-environment SPIR-V -> the module of docs/vulkan-abi.md.

llc-22 (`spirv1.6-unknown-vulkan1.3-compute`) gives a Shader module with logical addressing,
the GLSL450 memory model, `CrossWorkgroup` pointers from `inttoptr` and imported functions for
what it does not lower. This pass makes it the contract's module (SPIR-V 1.6 section numbers):
- `OpMemoryModel PhysicalStorageBuffer64 Vulkan` (2.18.2 / Vulkan memory model), the
  CrossWorkgroup pointer types become PhysicalStorageBuffer ones, every load/store through them
  carries `Aligned` (the pointee's size: what the IR proves), and llc's index-less access chains
  used as pointer casts become OpBitcast / OpCopyObject;
- the placeholders of clcoop.spirv.vulkan_builtins become OpControlBarrier/OpMemoryBarrier with
  Vulkan scopes and semantics, OpGroupNonUniform* at Subgroup scope, OpExtInst GLSL.std.450;
- the KHR cooperative-matrix calls become their instructions (with `Aligned` memory operands),
  then clcoop.spirv.rewrite handles the element-wise ones as for the Kernel flavour;
- the work-group size: `LocalSize` for a kernel with reqd_work_group_size, otherwise
  `LocalSizeId` of the spec constants SpecIds 0-2, and each `__local` argument's array length
  the spec constant SpecId 100 + argument index;
- push-constant member offsets as clcoop.spirv.vulkan_ir.push_constant_layout computes them.
"""
import re

from clcoop import coop_names
from clcoop.coopmat_spec import Scope
from clcoop.ir.demangle import demangle
from clcoop.spirv import binary as sb
from clcoop.spirv.rewrite import SCOPE_BY_OPENCL
from clcoop.spirv.tools import INTERNAL_HINT, SpirvError
from clcoop.spirv.vulkan_builtins import PLACEHOLDER
from clcoop.spirv.vulkan_types import scalar_spec_ids, specializable

OP_SOURCE = 3
OP_SOURCE_EXTENSION = 4
OP_MEMBER_NAME = 6
OP_EXT_INST_IMPORT = 11
OP_EXT_INST = 12
OP_MEMORY_MODEL = 14
OP_ENTRY_POINT = 15
OP_EXECUTION_MODE = 16
OP_TYPE_BOOL = 20
OP_TYPE_VECTOR = 23
OP_TYPE_ARRAY = 28
OP_TYPE_STRUCT = 30
OP_CONSTANT_COMPOSITE = 44
OP_SPEC_CONSTANT = 50
OP_SPEC_CONSTANT_COMPOSITE = 51
OP_SPEC_CONSTANT_FALSE = 49
OP_IN_BOUNDS_ACCESS_CHAIN = 66
OP_MEMBER_DECORATE = 72
OP_COPY_OBJECT = 83
OP_U_CONVERT = 113
OP_DOT = 148
OP_SELECT = 169
OP_UNDEF = 1
OP_PHI = 245
OP_INOT_EQUAL = 171
OP_CONTROL_BARRIER = 224
OP_MEMORY_BARRIER = 225
OP_COPY_MEMORY_SIZED = 64
OP_LABEL = 248
OP_SELECTION_MERGE = 247
OP_BRANCH = 249
OP_BRANCH_CONDITIONAL = 250
OP_CONSTANT_TRUE = 41
DECORATION_ARRAY_STRIDE = 6
DECORATION_FUNC_PARAM_ATTR = 38

ADDRESSING_PHYSICAL_STORAGE_BUFFER64 = 5348
MEMORY_MODEL_VULKAN = 3
STORAGE_PHYSICAL_STORAGE_BUFFER = 5349
STORAGE_INPUT = 1
EXECUTION_MODE_LOCAL_SIZE = 17
EXECUTION_MODE_LOCAL_SIZE_ID = 38
OP_EXECUTION_MODE_ID = 331
DECORATION_SPEC_ID = 1
DECORATION_BLOCK = 2
DECORATION_BUILTIN = 11
DECORATION_OFFSET = 35
DECORATION_ALIASED_POINTER = 5356
DECORATION_ALIASED = 20
BUILTIN_WORKGROUP_SIZE = 25
MEMORY_ALIGNED = 0x2
MEMORY_NON_PRIVATE_POINTER = 0x20
SEMANTICS_MAKE_AVAILABLE = 0x2000
SEMANTICS_MAKE_VISIBLE = 0x4000

CAP_PHYSICAL_STORAGE_BUFFER_ADDRESSES = 5347
CAP_VULKAN_MEMORY_MODEL = 5345
CAP_VULKAN_MEMORY_MODEL_DEVICE_SCOPE = 5346
CAP_GROUP_NON_UNIFORM = 61
CAP_GROUP_NON_UNIFORM_VOTE = 62
CAP_GROUP_NON_UNIFORM_ARITHMETIC = 63
CAP_GROUP_NON_UNIFORM_BALLOT = 64
CAP_GROUP_NON_UNIFORM_SHUFFLE = 65
CAP_GROUP_NON_UNIFORM_SHUFFLE_RELATIVE = 66
CAP_STORAGE_BUFFER_16 = 4433
CAP_STORAGE_PUSH_CONSTANT_16 = 4435
CAP_STORAGE_BUFFER_8 = 4448
CAP_STORAGE_PUSH_CONSTANT_8 = 4450

DEVICE_SCOPE = 1                     # SPIR-V Scope Device (Workgroup, Subgroup: coopmat_spec.Scope)
SEMANTICS_ACQUIRE_RELEASE = 0x8
SEMANTICS_UNIFORM_MEMORY = 0x40      # StorageBuffer and PhysicalStorageBuffer (Vulkan MM)
SEMANTICS_WORKGROUP_MEMORY = 0x100
CLK_LOCAL_MEM_FENCE, CLK_GLOBAL_MEM_FENCE = 1, 2

OP_ATOMIC_STORE = 228
OP_ATOMIC_COMPARE_EXCHANGE = 230
ATOMIC_OPCODES = {"exchange": 229, "inc": 232, "dec": 233, "add": 234, "sub": 235, "min.s": 236, "min.u": 237,
                  "max.s": 238, "max.u": 239, "and": 240, "or": 241, "xor": 242, "load": 227}
CAP_INT64_ATOMICS = 12

# Sub-group operations: placeholder kind -> (int opcode(s), float opcode). SPIR-V 3.52.36.
_ARITH = {"add": ((349, 349), 350), "mul": ((351, 351), 352), "min": ((353, 354), 355),
          "max": ((356, 357), 358), "and": ((359, 359), None), "or": ((360, 360), None),
          "xor": ((361, 361), None)}
_GROUP_OPERATION = {"reduce": 0, "scan_inclusive": 1, "scan_exclusive": 2}
_SHUFFLES = {"shuffle": (345, CAP_GROUP_NON_UNIFORM_SHUFFLE), "shuffle_xor": (346, CAP_GROUP_NON_UNIFORM_SHUFFLE),
             "shuffle_up": (347, CAP_GROUP_NON_UNIFORM_SHUFFLE_RELATIVE),
             "shuffle_down": (348, CAP_GROUP_NON_UNIFORM_SHUFFLE_RELATIVE)}
_CONVERSION_OPCODES = {"ConvertFToU": 109, "ConvertFToS": 110, "ConvertSToF": 111, "ConvertUToF": 112,
                       "UConvert": 113, "SConvert": 114, "FConvert": 115}


def _block_struct_name(callee):
    """`struct.<name>` of a decode function's block struct in a tensor load's callee name (the
    decode function's pointer parameter, e.g. PFDhPU3AS1K10block_q4_0...), or None."""
    m = re.search(r"PF(?:Dh|Dv\d+_\w|[a-z])PU3AS\d+[KVr]*(\d+)", coop_names.parse_callee(callee).params)
    if m is None:
        return None
    start = m.end()
    return "struct." + coop_names.parse_callee(callee).params[start:start + int(m.group(1))]


def _fail(message):
    raise SpirvError(f"cannot finish the Vulkan module: {message}; {INTERNAL_HINT}")


class VulkanModule:
    def __init__(self, module):
        self.module = module
        self.defs = sb.definitions(module)
        self.names = sb.names(module)
        self.capabilities = {i.operands[0] for i in module.instructions if i.opcode == sb.OP_CAPABILITY}
        self.decode_blocks = {}      # decode function id -> sizeof(block)

    # ---- module-level helpers
    def add_capability(self, capability):
        if capability in self.capabilities:
            return
        self.capabilities.add(capability)
        at = max(i for i, inst in enumerate(self.module.instructions) if inst.opcode == sb.OP_CAPABILITY)
        self.module.instructions.insert(at + 1, sb.Instruction(sb.OP_CAPABILITY, [capability]))

    def add_global(self, inst):
        """A type, constant or variable after every other global (llc interleaves types and
        variables) and before the first function: what it refers to is defined earlier."""
        at = sb.first_function_index(self.module)
        self.module.instructions.insert(at, inst)
        ident = inst.operands[0] if inst.opcode in sb.TYPE_OPCODES else inst.operands[1]
        self.defs[ident] = inst
        return ident

    def add_annotation_name(self, target, name):
        at = next(i for i, x in enumerate(self.module.instructions) if x.opcode == sb.OP_NAME)
        self.module.instructions.insert(at, sb.Instruction(sb.OP_NAME, [target] + sb.encode_string(name)))

    def add_annotation(self, inst):
        at = next(i for i, x in enumerate(self.module.instructions) if x.opcode in sb.TYPE_OPCODES
                  or x.opcode in (sb.OP_CONSTANT, OP_SPEC_CONSTANT, sb.OP_VARIABLE, sb.OP_FUNCTION))
        self.module.instructions.insert(at, inst)

    def find_type(self, opcode, operands):
        for inst in self.module.instructions:
            if inst.opcode == opcode and inst.operands[1:] == operands:
                return inst.operands[0]
        return self.add_global(sb.Instruction(opcode, [self.module.new_id()] + operands))

    def uint_type(self):
        return self.find_type(sb.OP_TYPE_INT, [32, 0])

    def bool_type(self):
        return self.find_type(OP_TYPE_BOOL, [])

    def uint(self, value):
        uint = self.uint_type()
        for inst in self.module.instructions:
            if inst.opcode == sb.OP_CONSTANT and inst.operands[0] == uint and inst.operands[2:] == [value]:
                return inst.operands[1]
        return self.add_global(sb.Instruction(sb.OP_CONSTANT, [uint, self.module.new_id(), value]))

    def constant_value(self, value, what):
        inst = self.defs.get(value)
        if inst is not None and inst.opcode == sb.OP_CONSTANT:
            return inst.operands[2]
        if inst is not None and inst.opcode == sb.OP_CONSTANT_NULL:
            return 0
        raise SpirvError(f"the {what} must be a compile-time constant on the Vulkan target")

    def type_of(self, value):
        return self.defs[value].result_type

    def is_float(self, type_id):
        inst = self.defs[type_id]
        if inst.opcode == OP_TYPE_VECTOR:
            inst = self.defs[inst.operands[1]]
        return inst.opcode == sb.OP_TYPE_FLOAT

    def glsl_set(self):
        for inst in self.module.instructions:
            if inst.opcode == OP_EXT_INST_IMPORT and sb.decode_string(inst.operands[1:])[0] == "GLSL.std.450":
                return inst.operands[0]
        fresh = self.module.new_id()
        at = next(i for i, x in enumerate(self.module.instructions) if x.opcode == OP_MEMORY_MODEL)
        self.module.instructions.insert(at, sb.Instruction(OP_EXT_INST_IMPORT, [fresh] + sb.encode_string("GLSL.std.450")))
        return fresh

    # ---- 1. addressing and memory model
    def physical_storage_buffers(self):
        for inst in self.module.instructions:
            if inst.opcode == OP_MEMORY_MODEL:
                inst.operands = [ADDRESSING_PHYSICAL_STORAGE_BUFFER64, MEMORY_MODEL_VULKAN]
            elif inst.opcode == sb.OP_TYPE_POINTER and inst.operands[1] == sb.STORAGE_CLASS_CROSS_WORKGROUP:
                inst.operands[1] = STORAGE_PHYSICAL_STORAGE_BUFFER
            elif inst.opcode == sb.OP_TYPE_POINTER and inst.operands[1] == sb.STORAGE_CLASS_GENERIC:
                _fail("a Generic pointer reached the module")
        self.add_capability(CAP_PHYSICAL_STORAGE_BUFFER_ADDRESSES)
        self.add_capability(CAP_VULKAN_MEMORY_MODEL)

    def psb_pointee(self, pointer_type):
        inst = self.defs.get(pointer_type)
        if inst is None or inst.opcode != sb.OP_TYPE_POINTER or inst.operands[1] != STORAGE_PHYSICAL_STORAGE_BUFFER:
            return None
        return inst.operands[2]

    def size_of(self, type_id):
        inst = self.defs[type_id]
        if inst.opcode in (sb.OP_TYPE_INT, sb.OP_TYPE_FLOAT):
            return inst.operands[1] // 8
        if inst.opcode == OP_TYPE_VECTOR:
            count = inst.operands[2]
            return self.size_of(inst.operands[1]) * (4 if count == 3 else count)
        if inst.opcode == sb.OP_TYPE_POINTER:
            return 8
        if inst.opcode == sb.OP_TYPE_COOPERATIVE_MATRIX_KHR:
            return self.size_of(inst.operands[1])
        if inst.opcode == OP_TYPE_ARRAY:
            return self.size_of(inst.operands[1])
        if inst.opcode == OP_TYPE_STRUCT:
            return max([self.size_of(f) for f in inst.operands[1:]] or [1])
        return 1

    def scalar_bits(self, type_id):
        inst = self.defs[type_id]
        while inst.opcode in (OP_TYPE_VECTOR, OP_TYPE_ARRAY, sb.OP_TYPE_COOPERATIVE_MATRIX_KHR):
            inst = self.defs[inst.operands[1]]
        return inst.operands[1] if inst.opcode in (sb.OP_TYPE_INT, sb.OP_TYPE_FLOAT) else 32

    def pointer_casts(self):
        """llc's index-less access chains on a device address are casts."""
        for inst in self.module.instructions:
            if inst.opcode in (sb.OP_ACCESS_CHAIN, OP_IN_BOUNDS_ACCESS_CHAIN) and len(inst.operands) == 3:
                base_type = self.type_of(inst.operands[2])
                if self.psb_pointee(base_type) is None:
                    continue
                if base_type == inst.operands[0]:
                    inst.opcode = OP_COPY_OBJECT
                else:
                    inst.opcode = sb.OP_BITCAST

    def shared_storage(self, pointer):
        """True for a pointer into memory other invocations see (PhysicalStorageBuffer,
        Workgroup): under the Vulkan memory model its accesses are NonPrivatePointer, or
        barriers and atomics would not order them (SPV_KHR_vulkan_memory_model)."""
        return self.defs[self.type_of(pointer)].operands[1] in (STORAGE_PHYSICAL_STORAGE_BUFFER,
                                                                sb.STORAGE_CLASS_WORKGROUP)

    def aligned_accesses(self):
        """`Aligned <pointee size>` on every OpLoad/OpStore through a PhysicalStorageBuffer pointer
        (Vulkan: required, VUID-StandaloneSpirv-PhysicalStorageBuffer64-04708), and
        NonPrivatePointer on those and on Workgroup accesses (OpenCL's barriers and fences order
        them; GLSL's `shared` is implicitly coherent in the same way)."""
        for inst in self.module.instructions:
            if inst.opcode == sb.OP_LOAD:
                pointer, at = inst.operands[2], 3
            elif inst.opcode == sb.OP_STORE:
                pointer, at = inst.operands[0], 2
            else:
                continue
            if not self.shared_storage(pointer):
                continue
            if len(inst.operands) <= at:
                inst.operands.append(0)
            inst.operands[at] |= MEMORY_NON_PRIVATE_POINTER
            pointee = self.psb_pointee(self.type_of(pointer))
            if pointee is None:
                continue
            self.note_storage_width(pointee)
            if not inst.operands[at] & MEMORY_ALIGNED:
                inst.operands[at:at + 1] = [inst.operands[at] | MEMORY_ALIGNED, self.size_of(pointee)]

    def aligned_tensor_accesses(self):
        """Aligned 16 on tensor loads/stores through a PhysicalStorageBuffer pointer:
        SPV_NV_cooperative_matrix2 requires the pointer to be 16-byte aligned (tensor
        addressing counts elements from it), and Vulkan requires Aligned (VUID 04708)."""
        for inst in self.module.instructions:
            if inst.opcode == sb.OP_LOAD_TENSOR_NV:
                at = 5
            elif inst.opcode == sb.OP_STORE_TENSOR_NV:
                at = 3
            else:
                continue
            pointer = inst.operands[at - 3]
            while self.defs.get(pointer) is not None and self.defs[pointer].opcode == sb.OP_BITCAST:
                pointer = self.defs[pointer].operands[2]     # llc's cast to its byte pointer
            pointee = self.psb_pointee(self.type_of(pointer))
            if pointee is None:
                continue
            inst.operands[at - 3] = pointer
            self.note_storage_width(pointee)
            mask = inst.operands[at] | MEMORY_NON_PRIVATE_POINTER
            inst.operands[at] = mask
            if not mask & MEMORY_ALIGNED:
                inst.operands[at:at + 1] = [mask | MEMORY_ALIGNED, 16]

    def note_storage_width(self, pointee):
        bits = self.scalar_bits(pointee)
        if bits == 16:
            self.add_capability(CAP_STORAGE_BUFFER_16)
        elif bits == 8:
            self.add_capability(CAP_STORAGE_BUFFER_8)

    def aliased_pointers(self):
        """Vulkan: a variable holding a PhysicalStorageBuffer pointer is AliasedPointer, a
        parameter of that type Aliased (VUID-StandaloneSpirv-PhysicalStorageBuffer64-04710)."""
        for inst in list(self.module.instructions):
            if inst.opcode == sb.OP_VARIABLE:
                pointee = self.defs[inst.operands[0]].operands[2]
                if self.psb_pointee(pointee) is not None:
                    self.add_annotation(sb.Instruction(sb.OP_DECORATE, [inst.operands[1], DECORATION_ALIASED_POINTER]))
            elif inst.opcode == sb.OP_FUNCTION_PARAMETER and self.psb_pointee(inst.operands[0]) is not None:
                self.add_annotation(sb.Instruction(sb.OP_DECORATE, [inst.operands[1], DECORATION_ALIASED]))

    def restore_function_operands(self, tokens):
        """Each i32 token constant passed to an imported call -> the OpFunction id of the
        function it stands for (clcoop.spirv.vulkan_ir.FUNCTION_TOKEN)."""
        from clcoop.spirv.vulkan_ir import FUNCTION_TOKEN
        if not tokens:
            return
        by_name = {}
        functions = {i.result_id for i in self.module.instructions if i.opcode == sb.OP_FUNCTION}
        for ident, name in self.names.items():
            if ident in functions:
                by_name[name] = ident
        imports = self.imports()
        for inst in self.module.instructions:
            if inst.opcode != sb.OP_FUNCTION_CALL or inst.operands[2] not in imports:
                continue
            for position in range(3, len(inst.operands)):
                definition = self.defs.get(inst.operands[position])
                if definition is None or definition.opcode != sb.OP_CONSTANT:
                    continue
                index = definition.operands[2] - FUNCTION_TOKEN
                if 0 <= index < len(tokens):
                    if tokens[index] not in by_name:
                        _fail(f"the function {tokens[index]} passed as an operand is not in the module")
                    inst.operands[position] = by_name[tokens[index]]
                    block = re.search(r"TensorBlockNV_(\d+)", imports[inst.operands[2]])
                    if block:
                        self.decode_blocks[by_name[tokens[index]]] = (int(block.group(1)),
                                                                      _block_struct_name(imports[inst.operands[2]]))

    def decode_block_parameters(self):
        """Each decode function's first parameter points to its block: a PhysicalStorageBuffer
        pointer to `uchar[sizeof(block)]` (ArrayStride 1), so that a driver steps one block at
        a time (SPV_NV_cooperative_matrix2: the block's address is Pointer + block index *
        the pointee's size); the body keeps llc's pointer type through one OpBitcast."""
        for function, (size, struct_name) in self.decode_blocks.items():
            uchar = self.find_type(sb.OP_TYPE_INT, [8, 0])
            self.add_capability(sb.CAPABILITY_INT8)
            array = self.find_type(OP_TYPE_ARRAY, [uchar, self.uint(size)])
            if not any(i.opcode == sb.OP_DECORATE and i.operands[:2] == [array, DECORATION_ARRAY_STRIDE]
                       for i in self.module.instructions):
                self.add_annotation(sb.Instruction(sb.OP_DECORATE, [array, DECORATION_ARRAY_STRIDE, 1]))
            if struct_name and not any(i.opcode == sb.OP_NAME and i.operands[0] == array
                                       for i in self.module.instructions):
                # clcoop.spirv.tensor finds a block struct by its name: this array is that block.
                self.add_annotation_name(array, struct_name)
            pointer = self.find_type(sb.OP_TYPE_POINTER, [STORAGE_PHYSICAL_STORAGE_BUFFER, array])
            at = next(i for i, x in enumerate(self.module.instructions) if x.opcode == sb.OP_FUNCTION
                      and x.operands[1] == function)
            header, parameter = self.module.instructions[at], self.module.instructions[at + 1]
            old_type, old_id = parameter.operands
            function_type = self.defs[header.operands[3]]
            header.operands[3] = self.find_type(sb.OP_TYPE_FUNCTION, [function_type.operands[1], pointer]
                                                + function_type.operands[3:])
            fresh = self.module.new_id()
            parameter.operands = [pointer, fresh]
            label = next(i for i in range(at, len(self.module.instructions))
                         if self.module.instructions[i].opcode == OP_LABEL)
            self.module.instructions.insert(label + 1, sb.Instruction(sb.OP_BITCAST, [old_type, old_id, fresh]))
            for inst in self.module.instructions:       # Aliased belongs to the parameter
                if inst.opcode == sb.OP_DECORATE and inst.operands[0] == old_id:
                    inst.operands[0] = fresh

    # ---- 2. imported calls
    def imports(self):
        return sb.imported_functions(self.module)

    def lower_calls(self):
        imports = self.imports()
        replacements = {}
        for inst in list(self.module.instructions):
            if inst.opcode == sb.OP_FUNCTION_CALL and inst.operands[2] in imports:
                replaced = self.lower_call(inst, imports[inst.operands[2]])
                if replaced is not None:
                    replacements[id(inst)] = replaced
        self.replace(replacements)

    def replace(self, replacements):
        """Each instruction whose id() is a key replaced by its list (new globals kept: they
        are added to the module while the replacements are planned)."""
        output = []
        for inst in self.module.instructions:
            output.extend(replacements.get(id(inst), [inst]))
        self.module.instructions = output
        self.defs.update(sb.definitions(self.module))

    def lower_call(self, call, name):
        if name.startswith(PLACEHOLDER):
            return self.placeholder(call, name[len(PLACEHOLDER):].split(".__")[0])
        parsed = coop_names.parse_callee(name)
        if parsed is None:
            return None
        return self.cooperative(call, parsed.base, name)

    def placeholder(self, call, kind):
        result_type, result, _callee, *args = call.operands
        if kind.startswith("barrier."):
            scope = Scope.WORKGROUP if ".workgroup." in kind else Scope.SUBGROUP
            return self.barrier(scope, args)
        if kind == "fence":
            flags = self.constant_value(args[0], "cl_mem_fence_flags argument")
            return [sb.Instruction(OP_MEMORY_BARRIER, [self.uint(Scope.WORKGROUP), self.uint(self.semantics(flags))])]
        if kind.startswith("glsl."):
            return self.ext_inst(result_type, result, int(kind[5:]), args)
        if kind == "mad":
            product = self.module.new_id()
            return [sb.Instruction(sb.OP_FMUL, [result_type, product, args[0], args[1]]),
                    sb.Instruction(sb.OP_FADD, [result_type, result, product, args[2]])]
        if kind == "dot":
            return [sb.Instruction(OP_DOT, [result_type, result, args[0], args[1]])]
        if kind == "mul":
            return [sb.Instruction(sb.OP_FMUL, [result_type, result, args[0], args[1]])]
        if kind == "copy":
            return [sb.Instruction(OP_COPY_OBJECT, [result_type, result, args[0]])]
        if kind in ("mat_load", "mat_store"):
            return self.matrix_element(kind, result_type, result, args)
        if kind.startswith("atomic."):
            return self.atomic(result_type, result, kind.split(".")[1:], args)
        if kind.startswith("sg."):
            return self.subgroup(result_type, result, kind[3:].split("."), args)
        _fail(f"unknown placeholder {kind}")

    def matrix_element(self, kind, result_type, result, args):
        """m[i] of a matrix variable: OpAccessChain to the component (SPV_KHR_cooperative_matrix:
        the index selects one of the components the invocation holds), then OpLoad/OpStore."""
        base = args[0]
        while self.defs.get(base) is not None and self.defs[base].opcode == sb.OP_BITCAST:
            base = self.defs[base].operands[2]
        variable_type = self.defs[self.type_of(base)]
        matrix = self.defs[variable_type.operands[2]]
        if matrix.opcode != sb.OP_TYPE_COOPERATIVE_MATRIX_KHR:
            _fail("matrix element access whose pointer is not a matrix variable")
        component = matrix.operands[1]
        pointer_type = self.find_type(sb.OP_TYPE_POINTER, [variable_type.operands[1], component])
        chain = self.module.new_id()
        access = sb.Instruction(sb.OP_ACCESS_CHAIN, [pointer_type, chain, base, args[1]])
        if kind == "mat_load":
            return [access, sb.Instruction(sb.OP_LOAD, [result_type, result, chain])]
        return [access, sb.Instruction(sb.OP_STORE, [chain, args[2]])]

    def semantics(self, flags):
        """Barrier/fence semantics: acquire-release on the fenced storage classes, with their
        availability and visibility operations (the Vulkan memory model's MakeAvailable and
        MakeVisible), so that the NonPrivatePointer accesses on either side are ordered."""
        storage = ((SEMANTICS_WORKGROUP_MEMORY if flags & CLK_LOCAL_MEM_FENCE else 0)
                   | (SEMANTICS_UNIFORM_MEMORY if flags & CLK_GLOBAL_MEM_FENCE else 0))
        if not storage:
            return 0
        return SEMANTICS_ACQUIRE_RELEASE | storage | SEMANTICS_MAKE_AVAILABLE | SEMANTICS_MAKE_VISIBLE

    def barrier(self, execution, args):
        """OpenCL barrier / work_group_barrier / sub_group_barrier (OpenCL C 6.15.8) ->
        OpControlBarrier; the memory scope is the execution scope unless given."""
        flags = self.constant_value(args[0], "cl_mem_fence_flags argument of a barrier")
        memory = execution
        if len(args) > 1:
            opencl_scope = self.constant_value(args[1], "memory_scope argument of a barrier")
            memory = SCOPE_BY_OPENCL.get(opencl_scope, DEVICE_SCOPE)
            memory = DEVICE_SCOPE if memory == 0 else memory        # no CrossDevice in Vulkan
            if memory == DEVICE_SCOPE:
                self.add_capability(CAP_VULKAN_MEMORY_MODEL_DEVICE_SCOPE)
        return [sb.Instruction(OP_CONTROL_BARRIER, [self.uint(execution), self.uint(memory),
                                                    self.uint(self.semantics(flags))])]

    def splat_to(self, result_type, value):
        """`value` as `result_type`: a scalar operand of a vector built-in is replicated."""
        target = self.defs[result_type]
        if target.opcode != OP_TYPE_VECTOR or self.type_of(value) == result_type:
            return value, []
        fresh = self.module.new_id()
        return fresh, [sb.Instruction(sb.OP_COMPOSITE_CONSTRUCT, [result_type, fresh] + [value] * target.operands[2])]

    def ext_inst(self, result_type, result, number, args):
        before, operands = [], []
        for arg in args:
            if number in (66, 67):            # Length, Distance: vector operands, scalar result
                operands.append(arg)
                continue
            value, extra = self.splat_to(result_type, arg)
            before += extra
            operands.append(value)
        return before + [sb.Instruction(OP_EXT_INST, [result_type, result, self.glsl_set(), number] + operands)]

    def subgroup(self, result_type, result, parts, args):
        self.add_capability(CAP_GROUP_NON_UNIFORM)
        scope = self.uint(Scope.SUBGROUP)
        if parts[0] in _GROUP_OPERATION:
            operation, op, sign = parts
            ints, float_opcode = _ARITH[op]
            opcode = float_opcode if self.is_float(result_type) else ints[0 if sign == "s" else 1]
            if opcode is None:
                _fail(f"sub-group {op} on floating point")
            self.add_capability(CAP_GROUP_NON_UNIFORM_ARITHMETIC)
            return [sb.Instruction(opcode, [result_type, result, scope, _GROUP_OPERATION[operation], args[0]])]
        kind = parts[0]
        if kind == "broadcast":
            self.add_capability(CAP_GROUP_NON_UNIFORM_BALLOT)
            return [sb.Instruction(337, [result_type, result, scope, args[0], args[1]])]
        if kind == "broadcast_first":
            self.add_capability(CAP_GROUP_NON_UNIFORM_BALLOT)
            return [sb.Instruction(338, [result_type, result, scope, args[0]])]
        if kind in _SHUFFLES:
            opcode, capability = _SHUFFLES[kind]
            self.add_capability(capability)
            return [sb.Instruction(opcode, [result_type, result, scope, args[0], args[1]])]
        if kind in ("any", "all", "elect"):
            boolean = self.bool_type()
            before, vote = [], self.module.new_id()
            if kind == "elect":
                before.append(sb.Instruction(333, [boolean, vote, scope]))
            else:
                self.add_capability(CAP_GROUP_NON_UNIFORM_VOTE)
                predicate = self.module.new_id()
                zero = self.typed_zero(self.type_of(args[0]))
                before += [sb.Instruction(OP_INOT_EQUAL, [boolean, predicate, args[0], zero]),
                           sb.Instruction(335 if kind == "any" else 334, [boolean, vote, scope, predicate])]
            one, zero = self.typed_constant(result_type, 1), self.typed_zero(result_type)
            return before + [sb.Instruction(OP_SELECT, [result_type, result, vote, one, zero])]
        _fail(f"unknown sub-group operation {parts}")

    def atomic(self, result_type, result, parts, args):
        """OpAtomic* (SPIR-V 3.52.18). OpenCL 1.x forms are relaxed; C11 forms default to
        seq_cst, which the Vulkan memory model has not: acquire-release (acquire for loads,
        release for stores), with the storage class's memory semantics bit. The scope is the
        pointer's (Device for buffers, Workgroup for __local) unless given."""
        op, sign, form = parts
        pointer, *rest = args
        value_type = result_type if op != "store" else self.type_of(rest[0])
        before, pointer = self.pointer_to(pointer, value_type)
        storage = self.defs[self.type_of(pointer)].operands[1]
        scope = Scope.WORKGROUP if storage == sb.STORAGE_CLASS_WORKGROUP else DEVICE_SCOPE
        operands_count = {"inc": 0, "dec": 0, "load": 0, "cmpxchg": 2}.get(op, 1)
        values, extra = rest[:operands_count], rest[operands_count:]
        order = 0 if form == "legacy" else 5                      # memory_order_seq_cst
        if extra:
            order = self.constant_value(extra[0], "memory_order argument")
        if len(extra) > 1:
            scope = SCOPE_BY_OPENCL.get(self.constant_value(extra[1], "memory_scope argument"), DEVICE_SCOPE)
            scope = DEVICE_SCOPE if scope == 0 else scope
        if scope == DEVICE_SCOPE:
            self.add_capability(CAP_VULKAN_MEMORY_MODEL_DEVICE_SCOPE)
        if self.scalar_bits(value_type) == 64:
            self.add_capability(CAP_INT64_ATOMICS)
        semantics = self.uint(self.atomic_semantics(order, op, storage))
        scope_id = self.uint(scope)
        if op == "store":
            return before + [sb.Instruction(OP_ATOMIC_STORE, [pointer, scope_id, semantics, values[0]])]
        if op == "cmpxchg":
            compare, new = values
            return before + [sb.Instruction(OP_ATOMIC_COMPARE_EXCHANGE, [result_type, result, pointer, scope_id,
                                                                         semantics, self.uint(0), new, compare])]
        opcode = ATOMIC_OPCODES[op] if op not in ("min", "max") else ATOMIC_OPCODES[op + "." + sign]
        return before + [sb.Instruction(opcode, [result_type, result, pointer, scope_id, semantics] + values)]

    @staticmethod
    def atomic_semantics(order, op, storage):
        """OpenCL memory_order (relaxed 0, acquire 2, release 3, acq_rel 4, seq_cst 5) -> SPIR-V
        memory semantics under the Vulkan memory model."""
        bits = {0: 0, 1: 0x2, 2: 0x2, 3: 0x4, 4: 0x8, 5: 0x8}.get(order, 0x8)
        if op == "load" and bits:
            bits = 0x2
        elif op == "store" and bits:
            bits = 0x4
        if not bits:
            return 0
        if bits & 0xC:                       # release, acq_rel: make earlier writes available
            bits |= SEMANTICS_MAKE_AVAILABLE
        if bits & 0xA:                       # acquire, acq_rel: make later reads see them
            bits |= SEMANTICS_MAKE_VISIBLE
        return bits | (SEMANTICS_WORKGROUP_MEMORY if storage == sb.STORAGE_CLASS_WORKGROUP else SEMANTICS_UNIFORM_MEMORY)

    def pointer_to(self, pointer, pointee, what="an atomic"):
        """(instructions, a pointer to `pointee`): llc-22 passes byte pointers to imports; a
        bitcast chain back to a pointer of that type is followed, a device address is cast, and
        another storage class is refused naming `what` uses it."""
        current = pointer
        while True:
            if self.defs[self.type_of(current)].operands[2] == pointee:
                return [], current
            definition = self.defs.get(current)
            if definition is None or definition.opcode != sb.OP_BITCAST:
                break
            current = definition.operands[2]
        storage = self.defs[self.type_of(pointer)].operands[1]
        if storage != STORAGE_PHYSICAL_STORAGE_BUFFER:
            _fail(f"{what}: a {storage}-storage pointer of another element type")
        fresh = self.module.new_id()
        cast = sb.Instruction(sb.OP_BITCAST, [self.find_type(sb.OP_TYPE_POINTER, [storage, pointee]), fresh, pointer])
        self.defs[fresh] = cast
        return [cast], fresh

    def typed_constant(self, type_id, value):
        for inst in self.module.instructions:
            if inst.opcode == sb.OP_CONSTANT and inst.operands[0] == type_id and inst.operands[2:] == [value]:
                return inst.operands[1]
        return self.add_global(sb.Instruction(sb.OP_CONSTANT, [type_id, self.module.new_id(), value]))

    def typed_zero(self, type_id):
        for inst in self.module.instructions:
            if inst.opcode == sb.OP_CONSTANT_NULL and inst.operands[0] == type_id:
                return inst.operands[1]
        return self.add_global(sb.Instruction(sb.OP_CONSTANT_NULL, [type_id, self.module.new_id()]))

    # ---- cooperative matrices (SPV_KHR_cooperative_matrix)
    def cooperative(self, call, base, name):
        result_type, result, _callee, *args = call.operands
        if base == coop_names.LOAD:
            pointer, layout, *rest = args
            before, pointer = self.typed_pointer(pointer, name)
            narrow, stride = self.stride_32(rest[:1])
            memory = self.memory_operands(pointer, rest[1:], result_type)
            return before + narrow + [sb.Instruction(sb.OP_COOPERATIVE_MATRIX_LOAD_KHR,
                                                     [result_type, result, pointer, layout] + stride + memory)]
        if base == coop_names.STORE:
            pointer, matrix, layout, *rest = args
            before, pointer = self.typed_pointer(pointer, name)
            narrow, stride = self.stride_32(rest[:1])
            memory = self.memory_operands(pointer, rest[1:], self.type_of(matrix))
            return before + narrow + [sb.Instruction(sb.OP_COOPERATIVE_MATRIX_STORE_KHR,
                                                     [pointer, matrix, layout] + stride + memory)]
        if base == coop_names.MUL_ADD:
            a, b, c, *mask = args
            operands = [self.constant_value(mask[0], "cooperative matrix operands")] if mask else []
            return [sb.Instruction(sb.OP_COOPERATIVE_MATRIX_MUL_ADD_KHR, [result_type, result, a, b, c] + operands)]
        if base == coop_names.LENGTH:
            return [sb.Instruction(sb.OP_COOPERATIVE_MATRIX_LENGTH_KHR, [result_type, result, self.type_of(args[0])])]
        if base == coop_names.SPLAT:
            return [sb.Instruction(sb.OP_COMPOSITE_CONSTRUCT, [result_type, result] + args)]
        if base in coop_names.CONVERSIONS:
            if "_sat" in name[name.index(base):] or "_rt" in name[name.index(base):]:
                raise SpirvError(f"{name}: saturating or rounding-mode conversions of cooperative "
                                 "matrices have no Vulkan form (the SaturatedConversion and "
                                 "FPRoundingMode decorations are for Kernel modules)")
            return [sb.Instruction(_CONVERSION_OPCODES[coop_names.CONVERSIONS[base]], [result_type, result, args[0]])]
        return None

    def scalar_type(self, demangled):
        """Type id of a demangled scalar or vector (clcoop.ir.demangle)."""
        if demangled[0] == "vec":
            return self.find_type(OP_TYPE_VECTOR, [self.scalar_type(demangled[2]), demangled[1]])
        if demangled[0] == "float":
            return self.find_type(sb.OP_TYPE_FLOAT, [demangled[1]])
        return self.find_type(sb.OP_TYPE_INT, [demangled[1], 0])

    def stride_32(self, stride):
        """(instructions, [stride]) with a 64-bit stride narrowed to 32 bits. SPV_KHR_cooperative_matrix
        allows any integer width, but NVIDIA's driver (580.159, H200) fails to compile a pipeline
        ("NVVM compilation failed", VK_ERROR_UNKNOWN) whose load or store has a 64-bit stride, while
        the same module with a 32-bit one runs (measured 2026-11-28, docs/gpu.md); glslang always
        writes 32 bits. A stride of 2^32 elements or more is no matrix a device can load anyway."""
        if not stride:
            return [], []
        width_type = self.defs[self.type_of(stride[0])]
        if width_type.opcode != sb.OP_TYPE_INT or width_type.operands[1] == 32:
            return [], list(stride)
        uint32 = self.find_type(sb.OP_TYPE_INT, [32, 0])
        fresh = self.module.new_id()
        convert = sb.Instruction(OP_U_CONVERT, [uint32, fresh, stride[0]])
        self.defs[fresh] = convert
        return [convert], [fresh]

    def typed_pointer(self, pointer, name):
        """(instructions, pointer) with the pointee the callee's mangled pointer parameter names:
        the load/store stride counts its elements (SPV_KHR_cooperative_matrix), and llc-22's
        Vulkan target types the imported parameter as a byte pointer."""
        params = coop_names.parse_callee(name).params
        if params.startswith(("PU3AS1DF16b", "PU3AS3DF16b", "PDF16b")):
            pointee = self.find_type(sb.OP_TYPE_FLOAT, [16, 0])          # FPEncoding BFloat16KHR
        else:
            # The parameters after the template arguments, demangled as those of a plain name.
            _base, demangled = demangle("_Z1x" + params)
            pointers = [p for p in (demangled or []) if p[0] == "ptr"]
            if not pointers:
                _fail(f"{name} names no pointer parameter")
            pointee = self.scalar_type(pointers[0][2])
        return self.pointer_to(pointer, pointee, name)

    def memory_operands(self, pointer, given, matrix_type):
        """The memory operands of a matrix load/store: NonPrivatePointer for shared storage,
        and on a device address `Aligned` the component size or, where clcoop.spirv.vulkan_ir
        proved more (a tagged extra argument, ALIGNMENT_TAG), that alignment."""
        from clcoop.spirv.vulkan_ir import ALIGNMENT_TAG
        mask = self.constant_value(given[0], "memory operand") if given else 0
        proven = 0
        if mask & 0xFF000000 == ALIGNMENT_TAG:
            proven, mask = 1 << (mask & 0xFF), 0
        if self.shared_storage(pointer):
            mask |= MEMORY_NON_PRIVATE_POINTER
        if self.psb_pointee(self.type_of(pointer)) is None:
            return [mask] if mask else []
        self.note_storage_width(matrix_type)
        return [mask | MEMORY_ALIGNED, max(self.size_of(matrix_type), proven)]

    def drop_imports(self):
        imports = self.imports()
        called = {i.operands[2] for i in self.module.instructions if i.opcode == sb.OP_FUNCTION_CALL}
        left = {fid: name for fid, name in imports.items() if fid in called}
        if left:
            raise SpirvError("the Vulkan target cannot call " + ", ".join(sorted(set(left.values())))
                             + " (llc-22 left it an imported function)")
        dead = set(imports)
        kept, inside = [], False
        for inst in self.module.instructions:
            if inst.opcode == sb.OP_FUNCTION and inst.result_id in dead:
                inside = True
            if inside:
                inside = inst.opcode != sb.OP_FUNCTION_END
                dead.add(inst.result_id)
                continue
            kept.append(inst)
        dead.discard(None)
        self.module.instructions = [i for i in kept if not (i.opcode in (sb.OP_NAME, sb.OP_DECORATE)
                                                             and i.operands[0] in dead)]
        self.module.instructions = [i for i in self.module.instructions
                                    if not (i.opcode == sb.OP_CAPABILITY and i.operands == [sb.CAPABILITY_LINKAGE])]
        self.capabilities.discard(sb.CAPABILITY_LINKAGE)

    # ---- 3. work-group size, __local arguments, push constants
    def workgroup_size(self, kernels):
        """Per entry point: `LocalSize x y z` from reqd_work_group_size, otherwise
        `OpExecutionModeId LocalSizeId` of the spec constants SpecId 0, 1, 2 (default 1; Vulkan
        1.3's maintenance4), so that kernels with and without the attribute share a module.
        get_local_size reads a constant composite of the same values."""
        uint = self.uint_type()
        vector = self.find_type(OP_TYPE_VECTOR, [uint, 3])
        entries = {sb.decode_string(i.operands[2:])[0]: i.operands[1] for i in self.module.instructions
                   if i.opcode == OP_ENTRY_POINT}
        composites, spec = {}, None
        for kernel in kernels:
            if kernel.local_size:
                size = tuple(int(s) for s in kernel.local_size)
                if size not in composites:
                    parts = [self.uint(s) for s in size]
                    composites[size] = self.add_global(sb.Instruction(
                        OP_CONSTANT_COMPOSITE, [vector, self.module.new_id()] + parts))
                composites[kernel.name] = composites[size]
                continue
            if spec is None:
                parts = []
                for spec_id in range(3):
                    part = self.add_global(sb.Instruction(OP_SPEC_CONSTANT, [uint, self.module.new_id(), 1]))
                    self.add_annotation(sb.Instruction(sb.OP_DECORATE, [part, DECORATION_SPEC_ID, spec_id]))
                    parts.append(part)
                spec = (parts, self.add_global(sb.Instruction(OP_SPEC_CONSTANT_COMPOSITE,
                                                              [vector, self.module.new_id()] + parts)))
            composites[kernel.name] = spec[1]
            entry = entries[kernel.name]
            self.module.instructions = [i for i in self.module.instructions if not (
                i.opcode == OP_EXECUTION_MODE and i.operands[:2] == [entry, EXECUTION_MODE_LOCAL_SIZE])]
            at = max(i for i, x in enumerate(self.module.instructions) if x.opcode in (OP_ENTRY_POINT, OP_EXECUTION_MODE,
                                                                                        OP_EXECUTION_MODE_ID))
            self.module.instructions.insert(at + 1, sb.Instruction(OP_EXECUTION_MODE_ID,
                                                                   [entry, EXECUTION_MODE_LOCAL_SIZE_ID] + spec[0]))
        self.replace_workgroup_size_variable(composites)

    def replace_workgroup_size_variable(self, composites):
        """llc-22 reads get_local_size from an Input WorkgroupSize variable, which Vulkan
        forbids: each load becomes its kernel's composite."""
        variables = {i.operands[0] for i in self.module.instructions if i.opcode == sb.OP_DECORATE
                     and i.operands[1:] == [DECORATION_BUILTIN, BUILTIN_WORKGROUP_SIZE]
                     and self.defs.get(i.operands[0]) is not None
                     and self.defs[i.operands[0]].opcode == sb.OP_VARIABLE}
        if not variables:
            return
        entry_of = self.entry_of_functions()
        replacements = {}
        for inst in list(self.module.instructions):
            if inst.opcode == sb.OP_LOAD and inst.operands[2] in variables:
                value = composites[entry_of.get(id(inst))]
                replacements[id(inst)] = [sb.Instruction(OP_COPY_OBJECT, [inst.operands[0], inst.operands[1], value])]
            elif inst.result_id in variables or (inst.opcode in (sb.OP_NAME, sb.OP_DECORATE)
                                                  and inst.operands[0] in variables):
                replacements[id(inst)] = []
        self.replace(replacements)
        self.drop_from_interfaces(variables)

    def entry_of_functions(self):
        """id(instruction) -> kernel name of the entry function containing it."""
        entries = {}
        for inst in self.module.instructions:
            if inst.opcode == OP_ENTRY_POINT:
                entries[inst.operands[1]] = sb.decode_string(inst.operands[2:])[0]
        found, current = {}, None
        for inst in self.module.instructions:
            if inst.opcode == sb.OP_FUNCTION:
                current = entries.get(inst.result_id)
            found[id(inst)] = current
        return found

    def drop_from_interfaces(self, ids):
        for inst in self.module.instructions:
            if inst.opcode == OP_ENTRY_POINT:
                _name, used = sb.decode_string(inst.operands[2:])
                head = inst.operands[:2 + used]
                inst.operands = head + [i for i in inst.operands[2 + used:] if i not in ids]

    def local_arrays(self, kernels):
        """Each `__local` argument's Workgroup array gets the length SpecId 100 + index."""
        by_name = {name: var for var, name in self.names.items()}
        for kernel in kernels:
            for index, arg in enumerate(kernel.args):
                if arg.kind != "local":
                    continue
                var = by_name.get(f"{kernel.name}.vk.local.{index}")
                if var is None:
                    continue           # the argument is never used
                variable = self.defs[var]
                pointer = self.defs[variable.operands[0]]
                array = self.defs[pointer.operands[2]]
                length = self.add_global(sb.Instruction(OP_SPEC_CONSTANT, [self.uint_type(), self.module.new_id(), 1]))
                self.add_annotation(sb.Instruction(sb.OP_DECORATE, [length, DECORATION_SPEC_ID, 100 + index]))
                new_array = self.add_global(sb.Instruction(OP_TYPE_ARRAY, [self.module.new_id(), array.operands[1], length]))
                new_pointer = self.add_global(sb.Instruction(sb.OP_TYPE_POINTER,
                                                             [self.module.new_id(), sb.STORAGE_CLASS_WORKGROUP, new_array]))
                # The variable must follow its new type.
                self.module.instructions.remove(variable)
                variable.operands[0] = new_pointer
                self.add_global(variable)

    def push_constant_offsets(self, kernels, layouts):
        by_name = {name: ident for ident, name in self.names.items()}
        for kernel in kernels:
            block = by_name.get(f"{kernel.name}.vk.args")
            if block is None:
                continue
            offsets = layouts[kernel.name][0]
            for inst in self.module.instructions:
                if inst.opcode == OP_MEMBER_DECORATE and inst.operands[0] == block and inst.operands[2] == DECORATION_OFFSET:
                    inst.operands[3] = offsets[inst.operands[1]]
            struct = self.defs[block]
            for member in struct.operands[1:]:
                bits = self.scalar_bits(member)
                if bits == 16:
                    self.add_capability(CAP_STORAGE_PUSH_CONSTANT_16)
                elif bits == 8:
                    self.add_capability(CAP_STORAGE_PUSH_CONSTANT_8)

    def specializable_scalars(self, kernels):
        """Each scalar argument of a specializable type (vulkan_types.SPECIALIZABLE_DTYPES) is
        `OpSelect(flag, value, <its push constant>)` with two specialization constants (SpecIds
        vulkan_types.scalar_spec_ids): unspecialized (flag false, the default) the driver folds
        the select to the push constant; a pipeline specialized with the launch's value sees a
        constant, as if the kernel had been compiled for it (Vulkan 1.3, 10.9: specialization
        constants are constants at pipeline creation). Loop bounds and tensor-layout dimensions
        then fold; NVIDIA's driver compiles a workgroup-scope GEMM with known dimensions
        about twice as fast (docs/gpu.md, "Performance")."""
        by_name = {name: ident for ident, name in self.names.items()}
        for kernel in kernels:
            block = by_name.get(f"{kernel.name}.vk.args")
            if block is None:
                continue
            # The rule for which arguments are specializable is vulkan_types.specializable's
            # (the record's spec_ids come from it too).
            members = {arg.member: index for index, arg in enumerate(kernel.args)
                       if arg.kind not in ("global", "constant", "local") and specializable(arg.type_name)}
            self._specialize_loads(self._push_constant_chains(block, members))

    def _push_constant_chains(self, block, members):
        """{access chain id: argument index} of the chains to scalar members of `block`."""
        pointers = {i.operands[0] for i in self.module.instructions
                    if i.opcode == sb.OP_TYPE_POINTER and i.operands[2] == block}
        variables = {i.operands[1] for i in self.module.instructions
                     if i.opcode == sb.OP_VARIABLE and i.operands[0] in pointers}
        chains = {}
        for inst in sb.body_instructions(self.module):
            if inst.opcode in (sb.OP_ACCESS_CHAIN, OP_IN_BOUNDS_ACCESS_CHAIN) and len(inst.operands) == 4 \
                    and inst.operands[2] in variables:
                member = self.defs.get(inst.operands[3])
                if member is not None and member.opcode == sb.OP_CONSTANT and member.operands[2] in members:
                    chains[inst.operands[1]] = members[member.operands[2]]
        return chains

    def _specialize_loads(self, chains):
        """Each load of a specializable argument keeps its id on an OpSelect after it (so no use
        changes) and loads into a fresh id."""
        selects = {}
        loads = [inst for inst in sb.body_instructions(self.module)
                 if inst.opcode == sb.OP_LOAD and inst.operands[2] in chains]
        for inst in loads:              # (adding globals moves the instructions)
            value_type = inst.operands[0]
            words = self.scalar_literal_words(value_type)
            if words is None:
                raise RuntimeError(f"internal error: specializable argument {chains[inst.operands[2]]} is "
                                   f"loaded as %{value_type}, not a 32/64-bit scalar")
            flag_id, value_id = scalar_spec_ids(chains[inst.operands[2]])
            flag = self.add_global(sb.Instruction(OP_SPEC_CONSTANT_FALSE, [self.bool_type(), self.module.new_id()]))
            value = self.add_global(sb.Instruction(OP_SPEC_CONSTANT, [value_type, self.module.new_id()] + [0] * words))
            self.add_annotation(sb.Instruction(sb.OP_DECORATE, [flag, DECORATION_SPEC_ID, flag_id]))
            self.add_annotation(sb.Instruction(sb.OP_DECORATE, [value, DECORATION_SPEC_ID, value_id]))
            argument, loaded = inst.operands[1], self.module.new_id()
            inst.operands[1] = loaded
            selects[id(inst)] = [inst, sb.Instruction(OP_SELECT, [value_type, argument, flag, value, loaded])]
        if selects:
            self.replace(selects)

    def scalar_literal_words(self, type_id):
        """The number of literal words of an OpSpecConstant of type `type_id` (a 32/64-bit
        integer, a 32-bit float: what vulkan_types.SPECIALIZABLE_DTYPES maps to), None for
        others."""
        inst = self.defs[type_id]
        if inst.opcode == sb.OP_TYPE_INT and inst.operands[1] in (32, 64):
            return inst.operands[1] // 32
        if inst.opcode == sb.OP_TYPE_FLOAT and inst.operands[1:] == [32]:
            return 1
        return None

    def interfaces(self):
        """Each entry point's interface: exactly the global variables its function (and the
        functions it calls) use (SPIR-V 1.4+; Vulkan allows one push-constant block each)."""
        variables = {i.operands[1] for i in self.module.instructions
                     if i.opcode == sb.OP_VARIABLE and i.operands[2] != sb.STORAGE_CLASS_FUNCTION}
        uses, calls, current = {}, {}, None
        for inst in self.module.instructions:
            if inst.opcode == sb.OP_FUNCTION:
                current = inst.result_id
                uses[current], calls[current] = set(), set()
            elif current is not None:
                operands = sb.id_operands(inst)
                uses[current].update(o for o in operands if o in variables)
                if inst.opcode == sb.OP_FUNCTION_CALL:
                    calls[current].add(inst.operands[2])
            if inst.opcode == sb.OP_FUNCTION_END:
                current = None
        for inst in self.module.instructions:
            if inst.opcode != OP_ENTRY_POINT:
                continue
            seen, pending = set(), [inst.operands[1]]
            while pending:
                function = pending.pop()
                if function not in seen:
                    seen.add(function)
                    pending.extend(calls.get(function, ()))
            used = set().union(*(uses.get(f, set()) for f in seen))
            _name, count = sb.decode_string(inst.operands[2:])
            inst.operands = inst.operands[:2 + count] + sorted(used)

    def complete_empty_selections(self):
        """llc-22's structurizer sometimes declares an OpSelectionMerge before an unconditional
        OpBranch (measured on -O2 IR with nested loops), which SPIR-V 2.16.2 forbids (a merge
        instruction precedes a conditional branch or switch). The branch becomes
        `OpBranchConditional %true <target> <merge>`: the same control flow, and the selection
        construct llc laid out stays structured."""
        def pairs():
            instructions = self.module.instructions
            return [i for i, inst in enumerate(instructions) if inst.opcode == OP_SELECTION_MERGE
                    and i + 1 < len(instructions) and instructions[i + 1].opcode == OP_BRANCH]
        if not pairs():
            return
        true = self.true_constant()          # a new global: the indices move
        instructions = self.module.instructions
        for i in pairs():
            merge, target = instructions[i].operands[0], instructions[i + 1].operands[0]
            instructions[i + 1] = sb.Instruction(OP_BRANCH_CONDITIONAL, [true, target, merge])

    def typed_undefs(self):
        """llc-22 writes an IR `undef` of a cooperative-matrix type as `OpUndef %ulong` (measured:
        a matrix variable left uninitialized on one path, at -O0 after mem2reg, gives a phi with an
        undef incoming value), which spirv-val refuses: an OpPhi's or OpSelect's operands must have
        its result type (SPIR-V 3.52.17 OpPhi, 3.52.15 OpSelect). Such an operand becomes an
        OpUndef of the result type (the value stays undefined)."""
        undefs = {i.operands[1]: i.operands[0] for i in self.module.instructions if i.opcode == OP_UNDEF}
        for inst in sb.body_instructions(self.module):
            if inst.opcode == OP_PHI:
                positions = range(2, len(inst.operands), 2)     # (value, parent block) pairs
            elif inst.opcode == OP_SELECT:
                positions = (3, 4)
            else:
                continue
            result_type = inst.operands[0]
            for at in positions:
                value = inst.operands[at]
                if value in undefs and undefs[value] != result_type:
                    inst.operands[at] = self.undef_of(result_type, undefs)

    def undef_of(self, type_id, undefs):
        for value, value_type in undefs.items():
            if value_type == type_id:
                return value
        value = self.add_global(sb.Instruction(OP_UNDEF, [type_id, self.module.new_id()]))
        undefs[value] = type_id
        return value

    def true_constant(self):
        boolean = self.bool_type()
        for inst in self.module.instructions:
            if inst.opcode == OP_CONSTANT_TRUE and inst.operands[0] == boolean:
                return inst.operands[1]
        return self.add_global(sb.Instruction(OP_CONSTANT_TRUE, [boolean, self.module.new_id()]))

    def drop_dead_casts(self):
        """llc's pointer casts that fed the lowered calls (a logical pointer may not be cast)."""
        while True:
            used = set()
            for inst in sb.body_instructions(self.module):
                used.update(o for o in sb.id_operands(inst) if o != inst.result_id)
            dead = {i.result_id for i in self.module.instructions
                    if i.opcode == sb.OP_BITCAST and i.result_id not in used}
            if not dead:
                return
            self.module.instructions = [i for i in self.module.instructions
                                        if i.result_id not in dead and not (
                                            i.opcode in (sb.OP_NAME, sb.OP_DECORATE) and i.operands[0] in dead)]

    def drop_unused_types(self):
        """Types nothing uses any more (llc's byte pointers of the lowered calls), then Int8
        when no 8-bit integer type is left: a device without shaderInt8 need not refuse it."""
        annotations = (sb.OP_NAME, sb.OP_DECORATE, OP_MEMBER_DECORATE, OP_MEMBER_NAME)
        while True:
            used = set()
            for inst in self.module.instructions:
                if inst.opcode not in annotations:
                    used.update(o for o in sb.id_operands(inst) if o != inst.result_id)
            dead = {i.operands[0] for i in self.module.instructions
                    if i.opcode in (sb.OP_TYPE_POINTER, sb.OP_TYPE_FUNCTION, sb.OP_TYPE_INT, OP_TYPE_ARRAY)
                    and i.operands[0] not in used}
            if not dead:
                break
            self.module.instructions = [i for i in self.module.instructions if not (
                (i.opcode in sb.TYPE_OPCODES and i.operands[0] in dead)
                or (i.opcode in annotations and i.operands[0] in dead))]
        if not any(i.opcode == sb.OP_TYPE_INT and i.operands[1] == 8 for i in self.module.instructions):
            self.module.instructions = [i for i in self.module.instructions
                                        if not (i.opcode == sb.OP_CAPABILITY and i.operands == [sb.CAPABILITY_INT8])]

    # ---- 4. checks
    def drop_kernel_decorations(self):
        """FuncParamAttr (SPIR-V 3.20: Kernel capability) that llc-22 puts on parameters from
        IR attributes such as `readonly`: no meaning for a Shader module."""
        self.module.instructions = [i for i in self.module.instructions
                                    if not (i.opcode == sb.OP_DECORATE and i.operands[1] == DECORATION_FUNC_PARAM_ATTR)]

    def check(self):
        self.drop_kernel_decorations()
        self.complete_empty_selections()
        self.drop_dead_casts()
        self.drop_unused_types()
        for inst in self.module.instructions:
            if inst.opcode == OP_EXT_INST_IMPORT and sb.decode_string(inst.operands[1:])[0] != "GLSL.std.450":
                _fail(f"llc-22 used the {sb.decode_string(inst.operands[1:])[0]} instruction set")
            if inst.opcode == OP_COPY_MEMORY_SIZED:
                raise SpirvError("a memory copy of a struct or array (llvm.memcpy) cannot be expressed "
                                 "on the Vulkan target; copy the fields one by one")

    def add_source_extension(self, words):
        at = next(i for i, x in enumerate(self.module.instructions)
                  if x.opcode in (OP_SOURCE, sb.OP_NAME, OP_MEMBER_NAME, sb.OP_DECORATE))
        self.module.instructions.insert(at, sb.Instruction(OP_SOURCE_EXTENSION, words))


def finish_module(module, kernels, layouts, tokens=()):
    """The post-processing of the module docstring, in order; returns the VulkanModule."""
    vulkan = VulkanModule(module)
    vulkan.restore_function_operands(tokens)
    vulkan.physical_storage_buffers()
    vulkan.pointer_casts()
    vulkan.lower_calls()
    vulkan.typed_undefs()
    vulkan.aligned_accesses()
    vulkan.aliased_pointers()
    vulkan.workgroup_size(kernels)
    vulkan.local_arrays(kernels)
    vulkan.push_constant_offsets(kernels, layouts)
    vulkan.specializable_scalars(kernels)
    vulkan.interfaces()
    return vulkan
