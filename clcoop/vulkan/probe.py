"""The real layout of a cooperative matrix on a Vulkan device, found by a probe kernel.

Which invocation holds which element of a matrix is the driver's choice
(SPV_KHR_cooperative_matrix: "the mapping of matrix elements to invocations is
implementation-dependent"). The probe module, assembled here word by word (no tool is needed
on the GPU machine), makes one matrix of the asked type; each invocation writes into each of
its OpCooperativeMatrixLengthKHR elements i (element access through OpAccessChain) a digit of
its invocation id, or of i; then the matrix is stored row-major. Two channels (the id, the
index), each in as many digits as the component type holds exactly (a half holds integers to
2048, a signed char to 127), give for every (row, col) the invocation and the element index
that hold it. Each invocation also writes its length to a second buffer.

An element held by several invocations (replicated storage) shows the one whose store won;
the others' slots read as padding ("-"), and ProbedLayout.replicated counts them.
"""
import struct
from dataclasses import dataclass, field

import numpy as np

from clcoop.coopmat_spec import COMPONENTS, VK_COMPONENTS, Layout, Scope, Use
from clcoop.errors import ArgumentError, DeviceError
from clcoop.ir.scalars import COMPONENT_DTYPES
from clcoop.spirv.reflection import encode_string, record_words
from clcoop.vulkan import device as devices
from clcoop.vulkan.capabilities import check_kernel
from clcoop.vulkan.program import VulkanProgram

SIGNIFICAND_BITS = {16: 11, 32: 24, 64: 53}           # IEEE binary16/32/64 (bf16: 8)
USES = {"a": Use.A, "b": Use.B, "accumulator": Use.ACCUMULATOR}
SCOPES = {"workgroup": Scope.WORKGROUP, "subgroup": Scope.SUBGROUP}
KERNEL = "clcoop_layout_probe"
CHANNEL_ID, CHANNEL_INDEX = 0, 1
# Push constants: out address, lengths address, channel, shift, mask.
PUSH_SIZE = 28


@dataclass(frozen=True)
class ProbeComponent:
    """An OpenCL C component type (coopmat_spec.COMPONENTS) as the probe writes it."""
    name: str                 # OpenCL C: "half", "__bf16", "uchar"
    vk: str                   # VkComponentTypeKHR, as docs/vulkan-abi.md spells it: "f16", "bf16", "u8"
    kind: str                 # "float", "bfloat", "int", "uint"
    bits: int
    dtype: str                # NumPy dtype name of a buffer element
    exact_bits: int           # the bits of an integer the type holds exactly (the probe's digits)


def component(type_name):
    c = COMPONENTS.get(type_name)
    if c is None or c.name not in VK_COMPONENTS:
        raise ArgumentError(f"unknown component type '{type_name}' (one of {', '.join(VK_COMPONENTS)})")
    if c.is_float:
        bfloat = c.llvm == "bfloat"
        exact = min(8 if bfloat else SIGNIFICAND_BITS[c.bits], 24)
        return ProbeComponent(c.name, VK_COMPONENTS[c.name], "bfloat" if bfloat else "float", c.bits,
                              "bfloat16" if bfloat else f"float{c.bits}", exact)
    kind = "int" if c.signed else "uint"
    return ProbeComponent(c.name, VK_COMPONENTS[c.name], kind, c.bits, COMPONENT_DTYPES[c.name].name,
                          min(c.bits - 1 if c.signed else c.bits, 24))


# ---------------------------------------------------------------------------- the module

class _Module:
    """SPIR-V words in the sections of the logical layout (SPIR-V 2.4)."""

    SECTIONS = ("capability", "extension", "memory_model", "entry", "mode", "debug", "annotation", "global",
                "function")

    def __init__(self):
        self.bound = 1
        self.words = {name: [] for name in self.SECTIONS}

    def id(self):
        self.bound += 1
        return self.bound - 1

    def op(self, section, opcode, *operands):
        flat = []
        for operand in operands:
            flat.extend(operand if isinstance(operand, list) else [operand])
        self.words[section].append(((len(flat) + 1) << 16) | opcode)
        self.words[section].extend(flat)

    def define(self, section, opcode, result_type, *operands):
        result = self.id()
        self.op(section, opcode, *([result_type] if result_type is not None else []), result, *operands)
        return result

    def binary(self):
        body = [w for name in self.SECTIONS for w in self.words[name]]
        return struct.pack(f"<{5 + len(body)}I", 0x07230203, 0x00010600, 0, self.bound, 0, *body)


# Opcodes (SPIR-V 3.52) and enumerants used by the probe.
OP_SOURCE_EXTENSION, OP_EXTENSION, OP_MEMORY_MODEL, OP_ENTRY_POINT, OP_EXECUTION_MODE = 4, 10, 14, 15, 16
OP_CAPABILITY, OP_TYPE_VOID, OP_TYPE_BOOL, OP_TYPE_INT, OP_TYPE_FLOAT = 17, 19, 20, 21, 22
OP_TYPE_STRUCT, OP_TYPE_POINTER, OP_TYPE_FUNCTION, OP_CONSTANT, OP_CONSTANT_NULL = 30, 32, 33, 43, 46
OP_FUNCTION, OP_FUNCTION_END, OP_VARIABLE, OP_LOAD, OP_STORE, OP_ACCESS_CHAIN = 54, 56, 59, 61, 62, 65
OP_PTR_ACCESS_CHAIN = 67
OP_DECORATE, OP_MEMBER_DECORATE, OP_COMPOSITE_CONSTRUCT = 71, 72, 80
OP_CONVERT_U_TO_F, OP_U_CONVERT, OP_S_CONVERT, OP_CONVERT_U_TO_PTR, OP_BITCAST = 112, 113, 114, 120, 124
OP_IADD, OP_SELECT, OP_IEQUAL, OP_ULESS_THAN, OP_SHIFT_RIGHT_LOGICAL, OP_BITWISE_AND = 128, 169, 170, 176, 194, 199
OP_LOOP_MERGE, OP_LABEL, OP_BRANCH, OP_BRANCH_CONDITIONAL, OP_RETURN = 246, 248, 249, 250, 253
OP_TYPE_COOPERATIVE_MATRIX_KHR, OP_COOPERATIVE_MATRIX_STORE_KHR, OP_COOPERATIVE_MATRIX_LENGTH_KHR = 4456, 4458, 4460
CAP_SHADER, CAP_FLOAT16, CAP_FLOAT64, CAP_INT64, CAP_INT16, CAP_INT8 = 1, 9, 10, 11, 22, 39
CAP_GROUP_NON_UNIFORM, CAP_STORAGE_16BIT, CAP_STORAGE_8BIT = 61, 4433, 4448
CAP_BFLOAT16_TYPE, CAP_BFLOAT16_COOPERATIVE_MATRIX = 5116, 5118
CAP_VULKAN_MEMORY_MODEL, CAP_PHYSICAL_STORAGE_BUFFER, CAP_COOPERATIVE_MATRIX = 5345, 5347, 6022
SC_INPUT, SC_FUNCTION, SC_PUSH_CONSTANT, SC_PHYSICAL_STORAGE_BUFFER = 1, 7, 9, 5349
DEC_BLOCK, DEC_ARRAY_STRIDE, DEC_BUILTIN, DEC_OFFSET = 2, 6, 11, 35
BUILTIN_LOCAL_INVOCATION_INDEX, BUILTIN_SUBGROUP_LOCAL_INVOCATION_ID = 29, 41
MEMORY_ACCESS_ALIGNED = 0x2
FP_ENCODING_BFLOAT16 = 0


def probe_module(type_name, rows, cols, use, scope, invocations):
    """The probe's SPIR-V (Vulkan 1.3) for a rows x cols matrix of OpenCL C type `type_name` and
    `use` at `scope`, run by one work-group of `invocations`; it carries its reflection record."""
    c = component(type_name)
    kind, width = c.kind, c.bits
    m = _Module()
    capabilities = [CAP_SHADER, CAP_INT64, CAP_GROUP_NON_UNIFORM, CAP_VULKAN_MEMORY_MODEL,
                    CAP_PHYSICAL_STORAGE_BUFFER, CAP_COOPERATIVE_MATRIX]
    capabilities += {("float", 16): [CAP_FLOAT16, CAP_STORAGE_16BIT], ("float", 64): [CAP_FLOAT64],
                     ("bfloat", 16): [CAP_BFLOAT16_TYPE, CAP_BFLOAT16_COOPERATIVE_MATRIX, CAP_STORAGE_16BIT],
                     ("int", 8): [CAP_INT8, CAP_STORAGE_8BIT], ("uint", 8): [CAP_INT8, CAP_STORAGE_8BIT],
                     ("int", 16): [CAP_INT16, CAP_STORAGE_16BIT], ("uint", 16): [CAP_INT16, CAP_STORAGE_16BIT]
                     }.get((kind, width), [])
    for capability in capabilities:
        m.op("capability", OP_CAPABILITY, capability)
    extensions = ["SPV_KHR_cooperative_matrix"] + (["SPV_NV_cooperative_matrix2"] if scope == "workgroup" else []) + \
        (["SPV_KHR_bfloat16"] if kind == "bfloat" else [])
    for extension in extensions:
        m.op("extension", OP_EXTENSION, encode_string(extension))
    m.op("memory_model", OP_MEMORY_MODEL, 5348, 3)          # PhysicalStorageBuffer64, Vulkan

    t_void, t_bool = m.define("global", OP_TYPE_VOID, None), m.define("global", OP_TYPE_BOOL, None)
    t_uint = m.define("global", OP_TYPE_INT, None, 32, 0)
    t_ulong = m.define("global", OP_TYPE_INT, None, 64, 0)
    if kind == "float":
        t_elem = m.define("global", OP_TYPE_FLOAT, None, width)
    elif kind == "bfloat":
        t_elem = m.define("global", OP_TYPE_FLOAT, None, 16, FP_ENCODING_BFLOAT16)
    elif kind == "uint" and width in (32, 64):
        t_elem = t_uint if width == 32 else t_ulong      # (a type is declared once: SPIR-V 2.8)
    else:
        t_elem = m.define("global", OP_TYPE_INT, None, width, 1 if kind == "int" else 0)

    constants = {}

    def const(value):
        if value not in constants:
            constants[value] = m.define("global", OP_CONSTANT, t_uint, value)
        return constants[value]

    c0, c1, c2, c3, c4 = (const(v) for v in range(5))
    c_scope, c_rows, c_cols, c_use = const(int(SCOPES[scope])), const(rows), const(cols), const(int(USES[use]))
    t_matrix = m.define("global", OP_TYPE_COOPERATIVE_MATRIX_KHR, None, t_elem, c_scope, c_rows, c_cols, c_use)
    t_push = m.define("global", OP_TYPE_STRUCT, None, t_ulong, t_ulong, t_uint, t_uint, t_uint)
    p_push = m.define("global", OP_TYPE_POINTER, None, SC_PUSH_CONSTANT, t_push)
    p_push_ulong = m.define("global", OP_TYPE_POINTER, None, SC_PUSH_CONSTANT, t_ulong)
    p_push_uint = m.define("global", OP_TYPE_POINTER, None, SC_PUSH_CONSTANT, t_uint)
    p_input_uint = m.define("global", OP_TYPE_POINTER, None, SC_INPUT, t_uint)
    p_fn_uint = m.define("global", OP_TYPE_POINTER, None, SC_FUNCTION, t_uint)
    p_fn_matrix = m.define("global", OP_TYPE_POINTER, None, SC_FUNCTION, t_matrix)
    p_fn_elem = m.define("global", OP_TYPE_POINTER, None, SC_FUNCTION, t_elem)
    p_buf_uint = m.define("global", OP_TYPE_POINTER, None, SC_PHYSICAL_STORAGE_BUFFER, t_uint)
    p_buf_elem = p_buf_uint if t_elem == t_uint else \
        m.define("global", OP_TYPE_POINTER, None, SC_PHYSICAL_STORAGE_BUFFER, t_elem)
    t_fn = m.define("global", OP_TYPE_FUNCTION, None, t_void)
    zero = m.define("global", OP_CONSTANT_NULL, t_elem)
    push = m.define("global", OP_VARIABLE, p_push, SC_PUSH_CONSTANT)
    invocation = m.define("global", OP_VARIABLE, p_input_uint, SC_INPUT)

    main = m.id()
    m.op("entry", OP_ENTRY_POINT, 5, main, encode_string(KERNEL), invocation, push)       # GLCompute
    m.op("mode", OP_EXECUTION_MODE, main, 17, invocations, 1, 1)                            # LocalSize
    builtin = BUILTIN_SUBGROUP_LOCAL_INVOCATION_ID if scope == "subgroup" else BUILTIN_LOCAL_INVOCATION_INDEX
    m.op("annotation", OP_DECORATE, invocation, DEC_BUILTIN, builtin)
    m.op("annotation", OP_DECORATE, t_push, DEC_BLOCK)
    m.op("annotation", OP_DECORATE, p_buf_uint, DEC_ARRAY_STRIDE, 4)       # for OpPtrAccessChain
    for member, offset in enumerate((0, 8, 16, 20, 24)):
        m.op("annotation", OP_MEMBER_DECORATE, t_push, member, DEC_OFFSET, offset)
    m.op("debug", OP_SOURCE_EXTENSION, record_words({KERNEL: _record(type_name, rows, cols, use, scope, invocations)}))

    f = "function"
    m.op(f, OP_FUNCTION, t_void, main, 0, t_fn)
    labels = {name: m.id() for name in ("entry", "head", "test", "body", "continue", "after")}
    m.op(f, OP_LABEL, labels["entry"])
    matrix = m.define(f, OP_VARIABLE, p_fn_matrix, SC_FUNCTION)
    counter = m.define(f, OP_VARIABLE, p_fn_uint, SC_FUNCTION)
    me = m.define(f, OP_LOAD, t_uint, invocation)
    length = m.define(f, OP_COOPERATIVE_MATRIX_LENGTH_KHR, t_uint, t_matrix)
    channel = m.define(f, OP_LOAD, t_uint, m.define(f, OP_ACCESS_CHAIN, p_push_uint, push, c2))
    shift = m.define(f, OP_LOAD, t_uint, m.define(f, OP_ACCESS_CHAIN, p_push_uint, push, c3))
    mask = m.define(f, OP_LOAD, t_uint, m.define(f, OP_ACCESS_CHAIN, p_push_uint, push, c4))
    m.op(f, OP_STORE, matrix, m.define(f, OP_COMPOSITE_CONSTRUCT, t_matrix, zero))
    m.op(f, OP_STORE, counter, c0)
    m.op(f, OP_BRANCH, labels["head"])
    m.op(f, OP_LABEL, labels["head"])
    m.op(f, OP_LOOP_MERGE, labels["after"], labels["continue"], 0)
    m.op(f, OP_BRANCH, labels["test"])
    m.op(f, OP_LABEL, labels["test"])
    i = m.define(f, OP_LOAD, t_uint, counter)
    m.op(f, OP_BRANCH_CONDITIONAL, m.define(f, OP_ULESS_THAN, t_bool, i, length), labels["body"], labels["after"])
    m.op(f, OP_LABEL, labels["body"])
    source = m.define(f, OP_SELECT, t_uint, m.define(f, OP_IEQUAL, t_bool, channel, c0), me, i)
    digit = m.define(f, OP_BITWISE_AND, t_uint, m.define(f, OP_SHIFT_RIGHT_LOGICAL, t_uint, source, shift), mask)
    m.op(f, OP_STORE, m.define(f, OP_ACCESS_CHAIN, p_fn_elem, matrix, i), _convert(m, f, digit, t_elem, kind, width))
    m.op(f, OP_BRANCH, labels["continue"])
    m.op(f, OP_LABEL, labels["continue"])
    m.op(f, OP_STORE, counter, m.define(f, OP_IADD, t_uint, i, c1))
    m.op(f, OP_BRANCH, labels["head"])
    m.op(f, OP_LABEL, labels["after"])
    out = m.define(f, OP_CONVERT_U_TO_PTR, p_buf_elem,
                   m.define(f, OP_LOAD, t_ulong, m.define(f, OP_ACCESS_CHAIN, p_push_ulong, push, c0)))
    value = m.define(f, OP_LOAD, t_matrix, matrix)
    row_major = const(int(Layout.ROW_MAJOR))
    m.op(f, OP_COOPERATIVE_MATRIX_STORE_KHR, out, value, row_major, c_cols, MEMORY_ACCESS_ALIGNED, 16)
    lengths = m.define(f, OP_CONVERT_U_TO_PTR, p_buf_uint,
                       m.define(f, OP_LOAD, t_ulong, m.define(f, OP_ACCESS_CHAIN, p_push_ulong, push, c1)))
    slot = m.define(f, OP_PTR_ACCESS_CHAIN, p_buf_uint, lengths, me)
    m.op(f, OP_STORE, slot, length, MEMORY_ACCESS_ALIGNED, 4)
    m.op(f, OP_RETURN)
    m.op(f, OP_FUNCTION_END)
    return m.binary()


def _convert(m, f, digit, t_elem, kind, width):
    """A small uint (a digit) as the component type, exactly."""
    if kind in ("float", "bfloat"):
        return m.define(f, OP_CONVERT_U_TO_F, t_elem, digit)
    if width == 32:
        return digit if kind == "uint" else m.define(f, OP_BITCAST, t_elem, digit)
    return m.define(f, OP_U_CONVERT if kind == "uint" else OP_S_CONVERT, t_elem, digit)


def _record(type_name, rows, cols, use, scope, invocations):
    c = component(type_name)
    extensions = ["VK_KHR_cooperative_matrix"] + (["VK_NV_cooperative_matrix2"] if scope == "workgroup" else []) + \
        (["VK_KHR_shader_bfloat16"] if c.kind == "bfloat" else [])
    return {"args": [{"name": "out", "kind": "global", "type": f"{c.name}*", "dtype": c.dtype, "writable": True,
                      "offset": 0, "size": 8},
                     {"name": "lengths", "kind": "global", "type": "uint*", "dtype": "uint32", "writable": True,
                      "offset": 8, "size": 8},
                     {"name": "channel", "kind": "scalar", "type": "uint", "dtype": "uint32", "offset": 16, "size": 4},
                     {"name": "shift", "kind": "scalar", "type": "uint", "dtype": "uint32", "offset": 20, "size": 4},
                     {"name": "mask", "kind": "scalar", "type": "uint", "dtype": "uint32", "offset": 24, "size": 4}],
            "push_constant_size": PUSH_SIZE, "global_offset_offset": None, "local_size": [invocations, 1, 1],
            "subgroup_size": invocations if scope == "subgroup" else None,
            "matrices": [{"scope": scope, "rows": rows, "cols": cols, "use": use, "component": c.vk}],
            "mul_adds": [], "device_extensions": extensions}


# ---------------------------------------------------------------------------- the layout

@dataclass
class ProbedLayout:
    """Who holds what, as measured: positions[(p, v)] = (row, col). The attributes
    clcoop.interp.debug.format_layout_table reads (group_size, length, row_col) included."""
    rows: int
    cols: int
    use: str
    elem: str
    scope: str
    group_size: int            # the invocations over which the matrix is spread
    subgroup_size: int
    length: int                # OpCooperativeMatrixLengthKHR
    device: str
    positions: dict = field(default_factory=dict)

    def row_col(self, p, v):
        return self.positions.get((p, v))

    def owners(self):
        """(invocation, element) as rows x cols int64 arrays: who holds each (row, col), for
        comparing a kernel whose results depend on the layout (element access writing
        lane-dependent values) through the device's layout."""
        invocation = np.full((self.rows, self.cols), -1, np.int64)
        element = np.full((self.rows, self.cols), -1, np.int64)
        for (p, v), (r, c) in self.positions.items():
            invocation[r, c], element[r, c] = p, v
        return invocation, element

    @property
    def replicated(self):
        """Slots (p, v) holding no element of their own: copies of elements another slot shows."""
        return self.group_size * self.length - len(self.positions)

    def as_json(self):
        work_items = [[list(self.positions[(p, v)]) if (p, v) in self.positions else None
                       for v in range(self.length)] for p in range(self.group_size)]
        return {"rows": self.rows, "cols": self.cols, "subgroup_size": self.subgroup_size, "use": self.use,
                "type": self.elem, "length": self.length, "scope": self.scope, "work_group_size": self.group_size,
                "device": self.device, "replicated": self.replicated, "work_items": work_items}


def digits(bits_per_digit, largest):
    """(shift, mask) of each digit of values up to `largest`, bits_per_digit at a time."""
    places, shift = [], 0
    while True:
        places.append((shift, (1 << bits_per_digit) - 1))
        shift += bits_per_digit
        if largest >> shift == 0:
            return places


def assemble_layout(readings, lengths, rows, cols, invocations):
    """positions {(p, v): (row, col)} from the probe's readings: {channel: rows x cols
    integers} (the digits already put together) and each invocation's length."""
    owners, indices = readings[CHANNEL_ID], readings[CHANNEL_INDEX]
    positions = {}
    for r in range(rows):
        for c in range(cols):
            p, v = int(owners[r, c]), int(indices[r, c])
            if not (0 <= p < invocations and 0 <= v < int(lengths[p])) or (p, v) in positions:
                raise DeviceError(f"the probe read invocation {p}, element {v} at ({r}, {c}), which no "
                                  f"invocation holds (or two places hold): the driver's element access and "
                                  f"store disagree")
            positions[(p, v)] = (r, c)
    return positions


def probe_layout(type_name="half", rows=16, cols=16, use="a", scope="subgroup", work_group_size=None, device=None):
    """The layout of a rows x cols matrix on a Vulkan device (ProbedLayout); UnsupportedOnDevice
    when the device does not take the matrix type."""
    component(type_name)
    if use not in USES or scope not in SCOPES:
        raise ArgumentError(f"use must be one of {', '.join(USES)} and scope one of {', '.join(SCOPES)}")
    if rows < 1 or cols < 1:
        raise ArgumentError(f"a {rows}x{cols} matrix has no elements")
    found = devices.descriptions()
    description = found[devices.choose(found, _record(type_name, rows, cols, use, scope, 1)["device_extensions"],
                                       device)]
    if scope == "workgroup":
        if work_group_size is None:
            raise ArgumentError("a workgroup-scope matrix needs the work-group size (--local-size)")
        invocations = int(work_group_size)
    else:
        invocations = description.subgroup_size
    check_kernel(KERNEL, _record(type_name, rows, cols, use, scope, invocations), description,
                 (invocations, 1, 1))
    program = VulkanProgram(probe_module(type_name, rows, cols, use, scope, invocations), device)
    try:
        return _measure(program, type_name, rows, cols, use, scope, invocations)
    finally:
        program.close()


def _measure(program, type_name, rows, cols, use, scope, invocations):
    kernel = program.kernel(KERNEL)
    dtype = component(type_name).dtype
    lengths = np.zeros(invocations, np.uint32)

    def launch(channel, shift, mask):
        out = np.zeros((rows, cols), np.uint16 if dtype == "bfloat16" else np.dtype(dtype))
        kernel((invocations,), (invocations,), out, lengths, channel, shift, mask)
        return out
    readings = read_channels(launch, type_name, rows, cols, invocations)
    positions = assemble_layout(readings, lengths, rows, cols, invocations)
    return ProbedLayout(rows, cols, use, type_name, scope, invocations, program.description.subgroup_size,
                        int(lengths.max()), program.description.title(), positions)


def read_channels(launch, type_name, rows, cols, invocations):
    """{channel: rows x cols int64} of the whole invocation ids and element indices, put
    together from one launch(channel, shift, mask) -> stored matrix per digit."""
    dtype, exact_bits = component(type_name).dtype, component(type_name).exact_bits
    readings = {}
    for channel, largest in ((CHANNEL_ID, invocations - 1), (CHANNEL_INDEX, rows * cols - 1)):
        total = np.zeros((rows, cols), np.int64)
        for shift, mask in digits(exact_bits, largest):
            total += _as_numbers(launch(channel, shift, mask), dtype) << shift
        readings[channel] = total
    return readings


def _as_numbers(out, dtype):
    if dtype == "bfloat16":      # bit patterns: the top 16 bits of a float32
        return (out.astype(np.uint32) << 16).view(np.float32).astype(np.int64)
    return out.astype(np.int64)
