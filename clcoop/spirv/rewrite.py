"""Rewrite the cooperative-matrix calls llc-22 leaves as imported functions into native SPIR-V.

llc-22 lowers load/store/mul-add/length/splat/conversions, but element-wise arithmetic, scalar multiply
and element access come out as `OpFunctionCall` to an imported function (LinkageAttributes ... Import),
which `spirv-link` rejects (notes/llc22-cooperative-matrix.md). SPV_KHR_cooperative_matrix ("Arithmetic
Instructions") allows OpSNegate, OpFNegate, OpIAdd, OpFAdd, OpISub, OpFSub, OpIMul, OpFMul, OpSDiv,
OpUDiv, OpFDiv on cooperative matrices, and OpAccessChain with a pointer to a matrix as base (the index
selects a component the invocation holds). Scalar multiply uses a splat plus an element-wise multiply,
because OpMatrixTimesScalar needs the Shader capability (SPV_KHR_cooperative_matrix issue 9).

llc-22 also leaves OpenCL C 2.0 atomic_fetch_min/max (and their _explicit forms) on integers imported:
they become OpAtomicSMin/UMin/SMax/UMax with the scope and semantics llc-22 gives the atomic_fetch_add
it does lower (SPIRVBuiltins.cpp buildAtomicRMWInst): Workgroup scope and no semantics by default; an
explicit order maps to its semantics bit plus the pointer's storage-class bit, an explicit scope to
the SPIR-V scope. Float min/max is refused earlier (clcoop.spirv.reject_what_llc_cannot_lower).
"""

import re


from clcoop import coop_names
from clcoop.coop_names import SIGNED_CODES, UNSIGNED_CODES
from clcoop.coopmat_spec import Operand
from clcoop.spirv import binary as sb
from clcoop.spirv import coop2
from clcoop.spirv import function_operands
from clcoop.spirv.tools import INTERNAL_HINT, SpirvError

# Base name (after the `_Z<len>` prefix) -> operation kind. The RFC names are what clcoop emits
# (docs/ir-conventions.md); the __spirv_<Op> spellings are accepted too since llc-22 doesn't lower them either.
KIND_BY_BASE = {base: op for op, base in coop_names.BINARY.items()}
KIND_BY_BASE.update({coop_names.NEGATE: "neg", coop_names.SCALAR_MUL: "scalar_mul",
                     coop_names.ACCESS_CHAIN: "access_chain"})
KIND_BY_BASE.update({coop_names.REDUCE: "reduce", coop_names.PER_ELEMENT: "per_element",
                     coop_names.GET_COORDINATE: "get_coordinate"})     # function_operands.py
KIND_BY_BASE.update({coop_names.spirv_name(opcode): kind for opcode, kind in (
    ("MatrixTimesScalar", "scalar_mul"),
    ("FAdd", "add"), ("IAdd", "add"), ("FSub", "sub"), ("ISub", "sub"),
    ("FMul", "mul"), ("IMul", "mul"), ("FDiv", "div"), ("SDiv", "sdiv"), ("UDiv", "udiv"),
    ("FNegate", "neg"), ("SNegate", "neg"))})
KIND_BY_BASE.update(coop2.KIND_BY_BASE)      # use conversion and transpose (coop2.py)

FLOAT_OPCODES = {"add": sb.OP_FADD, "sub": sb.OP_FSUB, "mul": sb.OP_FMUL, "div": sb.OP_FDIV,
                 "neg": sb.OP_FNEGATE}
INT_OPCODES = {"add": sb.OP_IADD, "sub": sb.OP_ISUB, "mul": sb.OP_IMUL, "neg": sb.OP_SNEGATE,
               "sdiv": sb.OP_SDIV, "udiv": sb.OP_UDIV}

POINTER_CASTS = (sb.OP_BITCAST, sb.OP_PTR_CAST_TO_GENERIC, sb.OP_GENERIC_CAST_TO_PTR)


def parse_callee(name):
    """`_Z<len><base>[I<matrix args>E]...` -> (base, [component code of each matrix arg]) or None."""
    callee = coop_names.parse_callee(name)
    if callee is None:
        return None
    return callee.base, [m.code for m in callee.matrices]


def classify(name):
    """(kind, component codes) for an element-wise cooperative-matrix callee, else None."""
    parsed = parse_callee(name)
    if parsed is None or parsed[0] not in KIND_BY_BASE:
        return None
    return KIND_BY_BASE[parsed[0]], parsed[1]


# `_Z<len>atomic_fetch_{min,max}[_explicit]P[U3AS<n>]VU7_Atomic<code>...`: integer value types only.
_ATOMIC_MIN_MAX = re.compile(r"_Z\d+(atomic_fetch_(min|max)(?:_explicit)?)P(?:U3AS\d+)?VU7_Atomic([ijlm])")
ATOMIC_OPCODES = {("min", True): sb.OP_ATOMIC_SMIN, ("min", False): sb.OP_ATOMIC_UMIN,
                  ("max", True): sb.OP_ATOMIC_SMAX, ("max", False): sb.OP_ATOMIC_UMAX}
# OpenCL memory_order (opencl-c-coop.h; consume = 1 as in C11) -> SPIR-V Memory Semantics bit.
SEMANTICS_BY_ORDER = {0: 0x0, 1: 0x2, 2: 0x2, 3: 0x4, 4: 0x8, 5: 0x10}
# Storage class -> its memory semantics bit (WorkgroupMemory, CrossWorkgroupMemory); none for Generic.
SEMANTICS_BY_STORAGE = {sb.STORAGE_CLASS_WORKGROUP: 0x100, sb.STORAGE_CLASS_CROSS_WORKGROUP: 0x200}
# OpenCL memory_scope -> SPIR-V Scope (work_item, work_group, device, all_svm_devices, sub_group).
SCOPE_BY_OPENCL = {0: 4, 1: 2, 2: 1, 3: 0, 4: 3}
DEFAULT_SCOPE = 2  # Workgroup, as llc-22 for the forms without a scope argument


def classify_atomic(name):
    """(kind, opcode, function name) for an imported integer atomic_fetch_min/max, else None."""
    m = _ATOMIC_MIN_MAX.match(name)
    if m is None:
        return None
    return "atomic", ATOMIC_OPCODES[(m.group(2), m.group(3) in SIGNED_CODES)], m.group(1)


def _fail(message):
    raise SpirvError(f"cannot rewrite SPIR-V: {message}; {INTERNAL_HINT}")


class _Rewriter:
    def __init__(self, module):
        self.module = module
        self.defs = sb.definitions(module)
        self.targets = {}  # imported function id -> (kind, codes, name)
        for fid, name in sb.imported_functions(module).items():
            found = classify(name) or classify_atomic(name)
            if found:
                self.targets[fid] = (found[0], found[1], name if found[0] != "atomic" else found[2])

    # ---- types ----
    def matrix_component(self, type_id):
        matrix = self.defs.get(type_id)
        if matrix is None or matrix.opcode != sb.OP_TYPE_COOPERATIVE_MATRIX_KHR:
            return None
        return self.defs[matrix.operands[1]]

    def pointee_matrix(self, pointer_type_id):
        """Matrix type id if `pointer_type_id` is a Function-storage pointer to a cooperative matrix."""
        pointer = self.defs.get(pointer_type_id)
        if pointer is None or pointer.opcode != sb.OP_TYPE_POINTER:
            return None
        if pointer.operands[1] != sb.STORAGE_CLASS_FUNCTION:
            return None
        pointee = self.defs.get(pointer.operands[2])
        if pointee is None or pointee.opcode != sb.OP_TYPE_COOPERATIVE_MATRIX_KHR:
            return None
        return pointee.operands[0]

    # ---- element-wise arithmetic ----
    def arithmetic(self, call, kind, codes, name):
        result_type, result, _callee, *args = call.operands
        component = self.matrix_component(result_type)
        if component is None:
            return None  # not a matrix operation: leave the call alone
        if component.opcode == sb.OP_TYPE_FLOAT:
            table = FLOAT_OPCODES
        else:
            table = INT_OPCODES
            if kind == "div":
                kind = self.integer_division(codes, name)
        if kind == "scalar_mul":
            return self.scalar_mul(call, component, table)
        if kind not in table:
            _fail(f"{name} has no {kind} form for this component type")
        expected = 1 if kind == "neg" else 2
        if len(args) != expected:
            _fail(f"{name} is called with {len(args)} operands, expected {expected}")
        return [sb.Instruction(table[kind], [result_type, result] + args)]

    @staticmethod
    def integer_division(codes, name):
        # Signedness comes from the result's component code (docs/ir-conventions.md).
        if not codes:
            _fail(f"{name} carries no component type, so signed/unsigned division is unknown")
        if codes[0] in SIGNED_CODES:
            return "sdiv"
        if codes[0] in UNSIGNED_CODES:
            return "udiv"
        _fail(f"{name}: component code {codes[0]!r} is not an integer type")

    def scalar_mul(self, call, component, table):
        result_type, result, _callee, *args = call.operands
        if len(args) != 2:
            _fail(f"scalar multiply called with {len(args)} operands, expected 2")
        matrix, scalar = args
        scalar_def = self.defs.get(scalar)
        if scalar_def is not None and scalar_def.result_type not in (None, component.result_id):
            _fail("scalar multiply: the scalar's type differs from the matrix component type")
        splat = self.module.new_id()
        return [sb.Instruction(sb.OP_COMPOSITE_CONSTRUCT, [result_type, splat, scalar]),
                sb.Instruction(table["mul"], [result_type, result, matrix, splat])]

    # ---- element access ----
    def matrix_base(self, pointer):
        """Follow pointer casts back to a Function-storage pointer to a matrix; returns (base, cast ids)."""
        casts = []
        current = pointer
        while True:
            definition = self.defs.get(current)
            if definition is None:
                break
            if definition.result_type is not None and self.pointee_matrix(definition.result_type):
                return current, casts
            if definition.opcode not in POINTER_CASTS:
                break
            casts.append(current)
            current = definition.operands[2]
        _fail("element access whose pointer is not traced to a private matrix variable")

    def plan_access_chains(self):
        """call result id -> _ChainPlan for every call of an imported __spirv_AccessChain."""
        plans = {}
        for inst in self.module.instructions:
            if inst.opcode != sb.OP_FUNCTION_CALL or inst.operands[2] not in self.targets:
                continue
            kind, _codes, name = self.targets[inst.operands[2]]
            if kind != "access_chain":
                continue
            if len(inst.operands) != 5:
                _fail(f"{name} is called with {len(inst.operands) - 3} operands, expected 2")
            base, casts = self.matrix_base(inst.operands[3])
            matrix = self.pointee_matrix(self.defs[base].result_type)
            component = self.defs[matrix].operands[1]
            plan = _ChainPlan(base, inst.operands[4], casts)
            plan.typed[sb.STORAGE_CLASS_FUNCTION] = sb.find_or_add_pointer_type(
                self.module, sb.STORAGE_CLASS_FUNCTION, component)
            storage = self.storage_class(inst.operands[0])
            if storage == sb.STORAGE_CLASS_GENERIC:  # &m[i] used as a generic pointer
                plan.typed[storage] = sb.find_or_add_pointer_type(self.module, storage, component)
            elif storage != sb.STORAGE_CLASS_FUNCTION:
                _fail(f"{name} returns a pointer in storage class {storage}, not Function or Generic")
            plans[inst.operands[1]] = plan
        return plans

    def storage_class(self, pointer_type):
        definition = self.defs.get(pointer_type)
        if definition is None or definition.opcode != sb.OP_TYPE_POINTER:
            _fail("element access does not return a pointer")
        return definition.operands[1]

    def element_address(self, plan, pointer_type, result):
        """Instructions defining `result` as &m[i] typed `pointer_type` (a component pointer of the plan)."""
        function_pointer = plan.typed[sb.STORAGE_CLASS_FUNCTION]
        if pointer_type == function_pointer:
            return [sb.Instruction(sb.OP_ACCESS_CHAIN, [function_pointer, result, plan.base, plan.index])]
        chain = self.module.new_id()
        # OpBitcast may not change the storage class: Function -> Generic is OpPtrCastToGeneric.
        return [sb.Instruction(sb.OP_ACCESS_CHAIN, [function_pointer, chain, plan.base, plan.index]),
                sb.Instruction(sb.OP_PTR_CAST_TO_GENERIC, [pointer_type, result, chain])]

    # ---- atomic_fetch_min/max ----
    def plan_atomics(self, cleanup):
        """call result id -> the instructions replacing an atomic_fetch_min/max call.

        Planned before the rewrite loop: it may add types, constants and a capability to the module.
        """
        plans = {}
        for inst in list(self.module.instructions):
            if inst.opcode != sb.OP_FUNCTION_CALL or inst.operands[2] not in self.targets:
                continue
            kind, opcode, name = self.targets[inst.operands[2]]
            if kind == "atomic":
                plans[inst.operands[1]] = self.atomic(inst, opcode, name, cleanup)
        return plans

    def atomic(self, call, opcode, name, cleanup):
        result_type, result, _callee, pointer, value, *rest = call.operands
        if len(rest) > 2:
            _fail(f"{name} is called with {len(rest) + 2} operands, expected at most 4")
        order, scope = (rest + [None, None])[:2]
        storage = self.storage_class(self.defs[pointer].result_type)
        semantics, spirv_scope = 0, DEFAULT_SCOPE
        if order is not None:
            semantics = (self.mapped_constant(name, order, SEMANTICS_BY_ORDER, "memory order")
                         | SEMANTICS_BY_STORAGE.get(storage, 0))
        if scope is not None:
            spirv_scope = self.mapped_constant(name, scope, SCOPE_BY_OPENCL, "memory scope")
        if self.defs[result_type].operands[1] == 64:
            self.add_capability(sb.CAPABILITY_INT64_ATOMICS)
        typed = sb.find_or_add_pointer_type(self.module, storage, result_type)
        scope_id, semantics_id = self.uint_constant(spirv_scope), self.uint_constant(semantics)
        cast = self.defs[pointer]
        before = []
        if cast.result_type == typed:
            address = pointer
        elif cast.opcode == sb.OP_BITCAST and self.defs.get(cast.operands[2]) is not None \
                and self.defs[cast.operands[2]].result_type == typed:
            address = cast.operands[2]  # llc's cast to its uchar pointer, undone
            cleanup.append(pointer)
        else:
            address = self.module.new_id()
            before.append(sb.Instruction(sb.OP_BITCAST, [typed, address, pointer]))
        return before + [sb.Instruction(opcode, [result_type, result, address, scope_id, semantics_id, value])]

    def mapped_constant(self, name, operand, table, what):
        """table[value of the constant `operand`] (a memory_order or memory_scope argument)."""
        value = self.constant_value(operand)
        if value not in table:
            raise SpirvError(f"{name} cannot be emitted as SPIR-V with a {what} that is not a "
                             f"constant {what.replace(' ', '_')} value (llc-22 leaves it an imported "
                             f"function); pass a {what.replace(' ', '_')}_* constant")
        return table[value]

    def constant_value(self, value):
        definition = self.defs.get(value)
        if definition is not None and definition.opcode == sb.OP_CONSTANT:
            return definition.operands[2]
        if definition is not None and definition.opcode == sb.OP_CONSTANT_NULL:
            return 0
        return None

    def uint_constant(self, value):
        """Id of a 32-bit integer constant `value` (OpConstantNull for 0, as llc), added if missing."""
        uint = next((i.result_id for i in self.module.instructions
                     if i.opcode == sb.OP_TYPE_INT and i.operands[1:] == [32, 0]), None)
        if uint is None:
            uint = self.module.new_id()
            self.module.instructions.insert(sb.first_function_index(self.module),
                                            sb.Instruction(sb.OP_TYPE_INT, [uint, 32, 0]))
        for inst in self.module.instructions:
            if inst.opcode in (sb.OP_CONSTANT, sb.OP_CONSTANT_NULL) and inst.result_type == uint \
                    and self.constant_value(inst.result_id) == value:
                return inst.result_id
        fresh = self.module.new_id()
        constant = (sb.Instruction(sb.OP_CONSTANT_NULL, [uint, fresh]) if value == 0
                    else sb.Instruction(sb.OP_CONSTANT, [uint, fresh, value]))
        self.module.instructions.insert(sb.first_function_index(self.module), constant)
        self.defs[fresh] = constant
        return fresh

    def add_capability(self, capability):
        capabilities = [i for i, inst in enumerate(self.module.instructions) if inst.opcode == sb.OP_CAPABILITY]
        if any(self.module.instructions[i].operands == [capability] for i in capabilities):
            return
        at = capabilities[-1] + 1 if capabilities else 0
        self.module.instructions.insert(at, sb.Instruction(sb.OP_CAPABILITY, [capability]))

    def rewrite(self):
        cleanup = []
        atomics = self.plan_atomics(cleanup)
        plans = self.plan_access_chains()
        retyped = self.retyping_casts(plans)
        output = []
        for inst in self.module.instructions:
            if inst.opcode == sb.OP_BITCAST and id(inst) in retyped:
                output.extend(self.element_address(plans[inst.operands[2]], inst.operands[0], inst.operands[1]))
            elif inst.opcode == sb.OP_FUNCTION_CALL and inst.operands[2] in self.targets:
                output.extend(self.rewrite_call(inst, plans, retyped, cleanup, atomics))
            else:
                output.append(inst)
        self.module.instructions = output
        self.drop_dead_casts(cleanup)
        self.drop_imports()
        return self.module

    def retyping_casts(self, plans):
        """OpBitcasts of an access-chain result to a component pointer type (llc emits them): by identity."""
        found = set()
        for inst in self.module.instructions:
            if inst.opcode == sb.OP_BITCAST and inst.operands[2] in plans:
                if inst.operands[0] in plans[inst.operands[2]].typed.values():
                    found.add(id(inst))
        return found

    def rewrite_call(self, call, plans, retyped, cleanup, atomics):
        kind, codes, name = self.targets[call.operands[2]]
        if kind == "atomic":
            return atomics[call.operands[1]]
        if kind in coop2.KIND_BY_BASE.values():
            return coop2.rewrite_call(self.defs, call, kind, name)
        if kind in function_operands.CALL_REWRITES:
            return function_operands.CALL_REWRITES[kind](self, call, name)
        if kind != "access_chain":
            replaced = self.arithmetic(call, kind, codes, name)
            # Not on matrices (e.g. a scalar __spirv_FAdd llc did not lower): the call and its import stay.
            return [call] if replaced is None else replaced
        result_type, result = call.operands[:2]
        plan = plans[result]
        cleanup.extend(plan.casts)
        if result_type in plan.typed.values():
            return self.element_address(plan, result_type, result)
        if not self.used_outside(result, retyped):
            return []
        # Some use wants llc's own (byte) pointer type: keep the result id as a cast of the typed address.
        typed = self.module.new_id()
        same_storage = plan.typed[self.storage_class(result_type)]
        return self.element_address(plan, same_storage, typed) + [
            sb.Instruction(sb.OP_BITCAST, [result_type, result, typed])]

    def used_outside(self, value, excluded):
        """Whether an instruction of a function body (other than `excluded`) uses `value` as an operand.

        Result ids are function-local, so only bodies can use them (OpName/OpDecorate are not uses).
        """
        for inst in sb.body_instructions(self.module):
            if id(inst) in excluded or inst.result_id == value:
                continue
            if value in sb.id_operands(inst):
                return True
        return False

    def drop_dead_casts(self, cast_ids):
        """Remove llc's pointer casts that only fed the rewritten calls (repeat: casts feed casts)."""
        pending = list(dict.fromkeys(cast_ids))
        changed = True
        while changed:
            changed = False
            for cast in list(pending):
                if not self.used_outside(cast, set()):
                    self.remove_ids({cast})
                    pending.remove(cast)
                    changed = True

    def remove_ids(self, ids):
        self.module.instructions = [inst for inst in self.module.instructions
                                    if inst.result_id not in ids
                                    and not any(_is_debug_of(inst, i) for i in ids)]

    def drop_imports(self):
        """Remove the rewritten imported functions, their names and linkage decorations."""
        called = {inst.operands[2] for inst in self.module.instructions if inst.opcode == sb.OP_FUNCTION_CALL}
        dropped = set(self.targets) - called
        kept, removed_ids, inside, function_types = [], set(), False, set()
        for inst in self.module.instructions:
            if inst.opcode == sb.OP_FUNCTION and inst.result_id in dropped:
                inside = True
                function_types.add(inst.operands[3])
            if inside:
                removed_ids.add(inst.result_id)
                inside = inst.opcode != sb.OP_FUNCTION_END
                continue
            kept.append(inst)
        self.module.instructions = kept
        self.remove_ids(removed_ids - {None})
        self.drop_unused_types(function_types)
        if not sb.linkage_decorations(self.module):
            # Without any import/export the Linkage capability is unused (llc omits it then too).
            self.module.instructions = [
                inst for inst in self.module.instructions
                if not (inst.opcode == sb.OP_CAPABILITY and inst.operands == [sb.CAPABILITY_LINKAGE])]

    def drop_unused_types(self, candidates):
        """Remove the types only the dropped imports used (llc's uchar pointers), then Int8 if it is unused.

        A type counts as used when its id is among the possible id operands of another instruction
        (a superset for unknown opcodes): a coincidence only keeps a dead type.
        """
        pending = list(candidates)
        while pending:
            type_id = pending.pop()
            definition = next((i for i in self.module.instructions if i.result_id == type_id), None)
            if definition is None or definition.opcode not in sb.TYPE_OPCODES or self.referenced(type_id):
                continue
            self.remove_ids({type_id})
            if definition.opcode == sb.OP_TYPE_FUNCTION:
                pending.extend(definition.operands[1:])
            elif definition.opcode == sb.OP_TYPE_POINTER:
                pending.append(definition.operands[2])
        has_int8 = any(i.opcode == sb.OP_TYPE_INT and i.operands[1] == 8 for i in self.module.instructions)
        if not has_int8:
            # SPIR-V 2.16.1: Int8 is required by OpTypeInt 8 only; drivers without Int8 reject it needlessly.
            self.module.instructions = [
                inst for inst in self.module.instructions
                if not (inst.opcode == sb.OP_CAPABILITY and inst.operands == [sb.CAPABILITY_INT8])]

    def referenced(self, value):
        for inst in self.module.instructions:
            if inst.result_id == value or _is_debug_of(inst, value):
                continue
            if value in sb.id_operands(inst):
                return True
        return False


class _ChainPlan:
    """How to rebuild one &m[i]: matrix variable, index, and component pointer type per storage class."""

    def __init__(self, base, index, casts):
        self.base = base
        self.index = index
        self.casts = casts   # llc's pointer casts between the variable and the call
        self.typed = {}      # storage class -> OpTypePointer <storage> <component>


def _is_debug_of(inst, value):
    """OpName / OpDecorate naming `value` as target (not uses of the value)."""
    return inst.opcode in (sb.OP_NAME, sb.OP_DECORATE) and inst.operands[0] == value


# Cooperative Matrix Operands bits naming the signedness of A, B, C and Result (SPV_KHR 3.X), by the
# position of that matrix among OpCooperativeMatrixMulAddKHR's operands (Result: its result type).
SIGNED_OPERAND_BITS = ((2, Operand.MATRIX_A_SIGNED), (3, Operand.MATRIX_B_SIGNED),
                       (4, Operand.MATRIX_C_SIGNED), (0, Operand.MATRIX_RESULT_SIGNED))


def drop_float_signedness(module):
    """Clears the Matrix{A,B,C,Result}SignedComponentsKHR bits of each OpCooperativeMatrixMulAddKHR
    whose corresponding matrix has floating-point components: SPV_KHR_cooperative_matrix 2.16.1 allows
    them only for integer matrices (spirv-val 2025.5 does not check it). llc-22 copies the operands of
    the call, and the RFC's own 4.5 example passes MATRIX_RESULT_SIGNED for float matrices, which the
    compiler accepts with a warning that the flag is ignored."""
    defs = sb.definitions(module)
    for inst in module.instructions:
        if inst.opcode != sb.OP_COOPERATIVE_MATRIX_MUL_ADD_KHR or len(inst.operands) < 6:
            continue
        for position, bit in SIGNED_OPERAND_BITS:
            operand = inst.operands[position]
            matrix_type = operand if position == 0 else defs[operand].result_type
            component = defs[defs[matrix_type].operands[1]]
            if component.opcode == sb.OP_TYPE_FLOAT:
                inst.operands[5] &= ~int(bit)
    return module


def rewrite_cooperative_calls(module):
    """Rewrite in place (and return) a parsed module; see the module docstring."""
    drop_float_signedness(module)
    ext_transposes = coop2.transposes_into_a(module, sb.definitions(module))
    function_operands.restore_function_operands(module)
    rewriter = _Rewriter(module)
    if rewriter.targets:
        function_operands.add_requirements(rewriter)
        rewriter.rewrite()
    return coop2.finish(module, ext_transposes)
