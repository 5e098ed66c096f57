"""The cooperative-matrix rules, in one place: enums, matrix types and type rules.

Pure data and functions (no NumPy, no llvmlite), imported by every stage: check and lower
in the frontend, the interpreter's loader and semantics, and the SPIR-V rewrite. A rule
that is written here is written nowhere else.

Sources: SPV_KHR_cooperative_matrix (KHR), SPV_NV_cooperative_matrix2 rev 2 (NV2),
SPV_EXT_cooperative_matrix_maintenance1 (EXT), SPV_NV_tensor_addressing, and the OpenCL C
spellings of the RFC and of include/clcoop/opencl-c-coop.h (a test compares the header's
enums with these).
"""
import enum
import re

from clcoop import float8
from clcoop.records import record


class _Spelled:
    """Mixin: `opencl` is the OpenCL C enumerator, `spirv` the SPIR-V operand name."""

    @property
    def opencl(self):
        return self._spellings()[self][0]

    @property
    def spirv(self):
        return self._spellings()[self][1]

    @classmethod
    def by_opencl_name(cls):
        return {opencl: member for member, (opencl, _) in cls._spellings().items()}


class Use(_Spelled, enum.IntEnum):
    """KHR 3.X "Cooperative Matrix Use"."""
    A = 0
    B = 1
    ACCUMULATOR = 2

    @classmethod
    def _spellings(cls):
        return {cls.A: ("CLK_COOPERATIVE_MATRIX_A", "MatrixAKHR"),
                cls.B: ("CLK_COOPERATIVE_MATRIX_B", "MatrixBKHR"),
                cls.ACCUMULATOR: ("CLK_COOPERATIVE_MATRIX_ACCUMULATOR", "MatrixAccumulatorKHR")}


class Layout(_Spelled, enum.IntEnum):
    """KHR 3.X "Cooperative Matrix Layout"."""
    ROW_MAJOR = 0
    COLUMN_MAJOR = 1

    @classmethod
    def _spellings(cls):
        return {cls.ROW_MAJOR: ("CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR", "RowMajorKHR"),
                cls.COLUMN_MAJOR: ("CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR", "ColumnMajorKHR")}


class Scope(_Spelled, enum.IntEnum):
    """SPIR-V Scope values a cooperative matrix may have."""
    WORKGROUP = 2
    SUBGROUP = 3

    @classmethod
    def _spellings(cls):
        return {cls.WORKGROUP: ("CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP", "Workgroup"),
                cls.SUBGROUP: ("CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP", "Subgroup")}


# OpenCL C memory_scope values (clang's __OPENCL_MEMORY_SCOPE_*) accepted where a matrix
# scope is expected, as the clang pull request spells it.
OPENCL_MEMORY_SCOPES = {"memory_scope_sub_group": (4, Scope.SUBGROUP),
                        "memory_scope_work_group": (1, Scope.WORKGROUP)}


def scope_of_value(value):
    """The Scope a coop_mat(scope, ...) argument's value names: the RFC's
    CLK_COOPERATIVE_MATRIX_SCOPE_* (SPIR-V values) or an OpenCL memory_scope. None if none."""
    for opencl_value, scope in OPENCL_MEMORY_SCOPES.values():
        if value == opencl_value:
            return scope
    return Scope(value) if value in Scope._value2member_map_ else None


class Operand(_Spelled, enum.IntFlag):
    """KHR 3.X "Cooperative Matrix Operands" (a mask)."""
    NONE = 0
    MATRIX_A_SIGNED = 1
    MATRIX_B_SIGNED = 2
    MATRIX_C_SIGNED = 4
    MATRIX_RESULT_SIGNED = 8
    SATURATING_ACCUMULATION = 16

    @classmethod
    def _spellings(cls):
        return {cls.NONE: ("CLK_COOPERATIVE_MATRIX_OPERAND_NONE", "NoneKHR"),
                cls.MATRIX_A_SIGNED: ("CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED",
                                      "MatrixASignedComponentsKHR"),
                cls.MATRIX_B_SIGNED: ("CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED",
                                      "MatrixBSignedComponentsKHR"),
                cls.MATRIX_C_SIGNED: ("CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED",
                                      "MatrixCSignedComponentsKHR"),
                cls.MATRIX_RESULT_SIGNED: ("CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED",
                                           "MatrixResultSignedComponentsKHR"),
                cls.SATURATING_ACCUMULATION: ("CLK_COOPERATIVE_MATRIX_OPERAND_SATURATING_ACCUMULATION",
                                              "SaturatingAccumulationKHR")}


OPERAND_ALL = 31
SIGNED_OPERANDS = (Operand.MATRIX_A_SIGNED | Operand.MATRIX_B_SIGNED | Operand.MATRIX_C_SIGNED
                   | Operand.MATRIX_RESULT_SIGNED)


class Reduce(_Spelled, enum.IntFlag):
    """NV2 "Cooperative Matrix Reduce" mask (OpCooperativeMatrixReduceNV)."""
    ROW = 1
    COLUMN = 2
    TWO_BY_TWO = 4

    @classmethod
    def _spellings(cls):
        return {cls.ROW: ("CLK_COOPERATIVE_MATRIX_REDUCE_ROW", "Row"),
                cls.COLUMN: ("CLK_COOPERATIVE_MATRIX_REDUCE_COLUMN", "Column"),
                cls.TWO_BY_TWO: ("CLK_COOPERATIVE_MATRIX_REDUCE_2X2", "2x2")}


class ClampMode(_Spelled, enum.IntEnum):
    """SPV_NV_tensor_addressing "Tensor Clamp Mode"."""
    UNDEFINED = 0
    CONSTANT = 1
    CLAMP_TO_EDGE = 2
    REPEAT = 3
    REPEAT_MIRRORED = 4

    @classmethod
    def _spellings(cls):
        return {cls.UNDEFINED: ("CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED", "Undefined"),
                cls.CONSTANT: ("CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT", "Constant"),
                cls.CLAMP_TO_EDGE: ("CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CLAMP_TO_EDGE", "ClampToEdge"),
                cls.REPEAT: ("CLK_COOPERATIVE_MATRIX_CLAMP_MODE_REPEAT", "Repeat"),
                cls.REPEAT_MIRRORED: ("CLK_COOPERATIVE_MATRIX_CLAMP_MODE_REPEAT_MIRRORED",
                                      "RepeatMirrored")}


SPELLED_ENUMS = (Use, Layout, Scope, Operand, Reduce, ClampMode)


# ---------------------------------------------------------------- component types

@record(frozen=True)
class Component:
    """A matrix component type: OpenCL name, LLVM IR name, Itanium code, width, kind."""
    name: str        # OpenCL C spelling: "char", "float", "__bf16"
    llvm: str        # LLVM IR type: "i8", "float", "bfloat"
    itanium: str     # Itanium mangling code: "c", "f", "DF16b"
    bits: int
    is_float: bool
    signed: bool     # integers: signed type; floats: True


COMPONENTS = {c.name: c for c in (
    Component("char", "i8", "c", 8, False, True),
    Component("uchar", "i8", "h", 8, False, False),
    Component("short", "i16", "s", 16, False, True),
    Component("ushort", "i16", "t", 16, False, False),
    Component("int", "i32", "i", 32, False, True),
    Component("uint", "i32", "j", 32, False, False),
    Component("long", "i64", "l", 64, False, True),
    Component("ulong", "i64", "m", 64, False, False),
    Component("half", "half", "Dh", 16, True, True),
    Component("__bf16", "bfloat", "DF16b", 16, True, True),
    Component("float", "float", "f", 32, True, True),
    Component("double", "double", "d", 64, True, True),
    # SPV_EXT_float8: OpTypeFloat 8 with an FP encoding, an inline SPIR-V type in the IR.
    Component(float8.E4M3.name, float8.E4M3.ir_type, float8.E4M3.itanium, 8, True, True),
    Component(float8.E5M2.name, float8.E5M2.ir_type, float8.E5M2.itanium, 8, True, True),
)}
COMPONENTS_BY_ITANIUM = {c.itanium: c for c in COMPONENTS.values()}
# The IR loses integer signedness (docs/ir-conventions.md): an LLVM type names the signed
# component of its width.
COMPONENTS_BY_LLVM = {}
for _c in COMPONENTS.values():
    COMPONENTS_BY_LLVM.setdefault(_c.llvm, _c)


# VkComponentTypeKHR values (VK_KHR_cooperative_matrix; bf16: VK_KHR_shader_bfloat16; the
# packed types: VK_NV_cooperative_vector; e4m3/e5m2: VK_EXT_shader_float8), spelled as
# docs/vulkan-abi.md spells them: reflection records, device descriptions, clcoop-devices.
VK_COMPONENT_TYPES = {0: "f16", 1: "f32", 2: "f64", 3: "s8", 4: "s16", 5: "s32", 6: "s64", 7: "u8", 8: "u16",
                      9: "u32", 10: "u64", 1000141000: "bf16", 1000491000: "s8packed", 1000491001: "u8packed",
                      1000491002: "e4m3", 1000491003: "e5m2"}
# The OpenCL C component types (COMPONENTS) by their VkComponentTypeKHR names.
VK_COMPONENTS = {"char": "s8", "uchar": "u8", "short": "s16", "ushort": "u16", "int": "s32", "uint": "u32",
                 "long": "s64", "ulong": "u64", "half": "f16", "__bf16": "bf16", "float": "f32", "double": "f64"}


def component_of_llvm(text):
    """The Component of an LLVM component type text (an fp8 inline type in any spacing)."""
    fmt = float8.format_of_ir_type(text)
    return COMPONENTS[fmt.name] if fmt else COMPONENTS_BY_LLVM.get(text)


# ---------------------------------------------------------------- matrix types

# Largest rows/cols accepted: real devices use 8..64; larger values only exhaust memory.
MAX_DIMENSION = 1 << 12

# The LLVM target extension type of OpTypeCooperativeMatrixKHR (llc-22's SPIR-V backend).
MATRIX_TARGET_TYPE = "spirv.CooperativeMatrixKHR"
_COMPONENT = rf"(\w+|{float8.IR_TYPE_PATTERN})"      # fp8: an inline OpTypeFloat 8
_MATRIX_TYPE_RE = re.compile(
    r'^\s*target\s*\(\s*"spirv\.CooperativeMatrixKHR"\s*,\s*' + _COMPONENT + r'\s*,\s*(\d+)\s*,'
    r'\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)\s*$')


# A matrix type anywhere in IR text (group 1: the LLVM component, then scope, rows, cols, use).
_MATRIX_TYPE_IN_TEXT = re.compile(
    r'target\s*\(\s*"spirv\.CooperativeMatrixKHR"\s*,\s*' + _COMPONENT + r'\s*,\s*(\d+)\s*,'
    r'\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)')


def mentions_matrix_type(text):
    """True when IR text (a type, an instruction, a function) involves a matrix type."""
    return MATRIX_TARGET_TYPE in text


def first_matrix_type_fields(text):
    """(llvm component, scope, rows, cols, use) of the first matrix type in IR text, the
    component as written (it may be one MatrixType does not know); None if there is none."""
    match = _MATRIX_TYPE_IN_TEXT.search(text)
    if match is None:
        return None
    return (match.group(1),) + tuple(int(v) for v in match.groups()[1:])


def matrix_scopes(text):
    """The set of Scope values of the matrix types in IR text."""
    return {int(match.group(2)) for match in _MATRIX_TYPE_IN_TEXT.finditer(text)}


def replace_matrix_types(text, replace):
    """IR text with every matrix type replaced by replace(its type text)."""
    return _MATRIX_TYPE_IN_TEXT.sub(lambda m: replace(m.group(0)), text)


@record(frozen=True)
class MatrixType:
    """OpTypeCooperativeMatrixKHR: component, scope, rows, columns, use.

    `component` is a Component; from IR text it is the signed one of its LLVM type
    (signedness lives in callee names, coop_names.py)."""
    component: Component
    scope: int
    rows: int
    cols: int
    use: int

    def ir_text(self):
        """The LLVM target extension type, as llc-22's SPIR-V backend reads it."""
        return (f'target("{MATRIX_TARGET_TYPE}", {self.component.llvm}, {self.scope}, '
                f"{self.rows}, {self.cols}, {self.use})")

    @classmethod
    def parse(cls, text):
        """The MatrixType of `target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)`;
        None when `text` is not such a type or names an unknown component."""
        match = _MATRIX_TYPE_RE.match(text)
        component = match and component_of_llvm(match.group(1))
        if not component:
            return None
        scope, rows, cols, use = (int(v) for v in match.groups()[1:])
        return cls(component, scope, rows, cols, use)

    def with_(self, **changes):
        fields = {"component": self.component, "scope": self.scope, "rows": self.rows,
                  "cols": self.cols, "use": self.use}
        fields.update(changes)
        return MatrixType(**fields)


# ---------------------------------------------------------------- type rules
# Each rule returns None when the types are valid, or a Problem: what is wrong and which
# operand (0-based, in the operation's operand order; -1 for the result) it is about, so
# that the checker can point at that argument and the interpreter can name it.

@record(frozen=True)
class Problem:
    message: str
    operand: int
    note: str = ""
    note_operand: int = -1     # the operand the note is about (-1: the operation as a whole)


def mul_add_problem(a, b, c, result=None):
    """KHR OpCooperativeMatrixMulAddKHR: uses A/B/Accumulator, M x K times K x N plus
    M x N, one scope. Component types need not match (KHR: "defined by the client API");
    OpenCL C keeps integers with integers and floats with floats, float A and B of one
    type, integer A and B of one width (mixed signedness: uchar x char)."""
    for index, (matrix, use) in enumerate(((a, Use.A), (b, Use.B), (c, Use.ACCUMULATOR))):
        if matrix.use != use:
            return Problem(f"argument of cooperative matrix must have '{use.opencl}' use", index)
    ca, cb, cc = a.component, b.component, c.component
    if is_float8(ca) or is_float8(cb) or is_float8(cc):
        problem = _float8_mul_add_problem(ca, cb, cc, result)
        if problem is not None:
            return problem
    elif ca.is_float != cb.is_float or (ca.is_float and ca != cb) or ca.bits != cb.bits:
        return Problem("inconsistent cooperative matrix element types", 1,
                       f"element types are '{ca.name}', '{cb.name}' and '{cc.name}'")
    if ca.is_float != cc.is_float:
        return Problem("inconsistent cooperative matrix element types", 2,
                       f"element types are '{ca.name}', '{cb.name}' and '{cc.name}'")
    if a.cols != b.rows:
        return Problem("two cooperative matrices with incompatible shapes", 1,
                       f"A is {a.rows}x{a.cols}, B is {b.rows}x{b.cols}: B must have {a.cols} rows", 0)
    if a.rows != c.rows or b.cols != c.cols:
        return Problem("two cooperative matrices with incompatible shapes", 2,
                       f"A x B is {a.rows}x{b.cols}, C is {c.rows}x{c.cols}", 0)
    if not (a.scope == b.scope == c.scope):
        return Problem("cooperative matrices of a multiply-add must have the same scope", 2)
    if result is not None and (result.use != Use.ACCUMULATOR or
                               (result.rows, result.cols, result.scope) != (c.rows, c.cols, c.scope)):
        return Problem("the result of a multiply-add must be an accumulator of C's shape and scope", -1)
    return None


def is_float8(component):
    return component.name in float8.FORMATS


# Accumulators of an fp8 mul-add: SPV_EXT_float8 lets any cooperative matrix have an fp8
# component and leaves the mul-add's arithmetic to the client API; the ones that define it
# (VK_EXT_shader_float8, the issue) use half and float, so clcoop takes those.
FLOAT8_ACCUMULATORS = ("half", "float")


def _float8_mul_add_problem(ca, cb, cc, result):
    """fp8 A and B (either encoding each), a half or float C and result."""
    names = f"element types are '{ca.name}', '{cb.name}' and '{cc.name}'"
    if not (is_float8(ca) and is_float8(cb)):
        return Problem("inconsistent cooperative matrix element types", 0 if not is_float8(ca) else 1,
                       f"{names}: an fp8 multiply-add takes fp8 A and B")
    for index, component in ((2, cc), (-1, result.component if result is not None else cc)):
        if component.name not in FLOAT8_ACCUMULATORS:
            return Problem("inconsistent cooperative matrix element types", index,
                           f"{names}: the accumulator of an fp8 multiply-add is half or float")
    return None


def default_operands(a, b, c, result=None):
    """The signedness operands a 3-argument mul-add takes from its component types: a
    signed integer component sets its Matrix*SignedComponentsKHR flag (KHR: unsigned
    otherwise). Float components set none (KHR 2.16.1: the flags are for integers)."""
    result = result or c
    flags = Operand.NONE
    for matrix, flag in ((a, Operand.MATRIX_A_SIGNED), (b, Operand.MATRIX_B_SIGNED),
                         (c, Operand.MATRIX_C_SIGNED), (result, Operand.MATRIX_RESULT_SIGNED)):
        if not matrix.component.is_float and matrix.component.signed:
            flags |= flag
    return flags


def operands_for_float(operands, a, b, c, result=None):
    """The operands a float mul-add may carry: the signed flags are dropped for float
    matrices (KHR 2.16.1 allows them only on integer component types)."""
    result = result or c
    kept = Operand(operands)
    for matrix, flag in ((a, Operand.MATRIX_A_SIGNED), (b, Operand.MATRIX_B_SIGNED),
                         (c, Operand.MATRIX_C_SIGNED), (result, Operand.MATRIX_RESULT_SIGNED)):
        if matrix.component.is_float:
            kept &= ~flag
    return kept


def same_shape_problem(x, y):
    """Element-wise operators (RFC 4.6; KHR OpFAdd etc. on matrices): one type."""
    if (x.scope, x.rows, x.cols, x.use) != (y.scope, y.rows, y.cols, y.use):
        return Problem("cooperative matrices of different types", 1)
    return None


def conversion_problem(source, target):
    """A conversion between matrix types. Same use: KHR OpConvert* (rows, cols and scope
    kept). Use changes: NV2 OpCooperativeMatrixConvertNV allows Accumulator -> A or B;
    EXT OpCooperativeMatrixConvertUseEXT also A/B -> Accumulator; A <-> B is neither."""
    if (source.rows, source.cols) != (target.rows, target.cols):
        return Problem("cooperative matrix conversion changes the shape", 0,
                       f"{source.rows}x{source.cols} to {target.rows}x{target.cols}")
    if source.scope != target.scope:
        return Problem("cooperative matrix conversion changes the scope", 0)
    if source.use != target.use and Use.ACCUMULATOR not in (source.use, target.use):
        return Problem("cooperative matrix conversion between A and B uses", 0)
    return None


def use_conversion_needs_ext(source, target):
    """A/B -> Accumulator is EXT-only (ConversionsEXT capability); NV2 has the other way."""
    return source.use != Use.ACCUMULATOR and target.use == Use.ACCUMULATOR


def transpose_problem(source, target):
    """NV2 OpCooperativeMatrixTransposeNV: Accumulator -> B (NV) or A (EXT) with rows and
    columns swapped, same component type and scope."""
    if source.use != Use.ACCUMULATOR:
        return Problem("the matrix to transpose must be an accumulator", 0)
    if target.use == Use.ACCUMULATOR:
        return Problem("cannot transpose into an accumulator", -1)
    if (target.rows, target.cols) != (source.cols, source.rows):
        return Problem("transpose result must swap rows and columns", -1,
                       f"{source.rows}x{source.cols} transposes to {source.cols}x{source.rows}")
    if target.scope != source.scope or target.component != source.component:
        return Problem("transpose result must keep the component type and scope", -1)
    return None


def reduce_problem(source, target, mode):
    """NV2 OpCooperativeMatrixReduceNV: input and result accumulators of one component
    type and scope; 2x2 alone; Row keeps the rows, Column the columns, Row|Column any
    shape, 2x2 halves both dimensions."""
    mode = int(mode)
    if mode not in (1, 2, 3, 4):
        return Problem(f"invalid reduce mode {mode}", 1,
                       "a reduce mode is ROW, COLUMN, ROW | COLUMN or 2X2")
    if source.use != Use.ACCUMULATOR:
        return Problem("the matrix to reduce must be an accumulator", 0)
    if target.use != Use.ACCUMULATOR:
        return Problem("the result of a reduction must be an accumulator", -1)
    if target.scope != source.scope or target.component != source.component:
        return Problem("the result of a reduction must keep the component type and scope", -1)
    if mode == Reduce.ROW and target.rows != source.rows:
        return Problem("a row reduction keeps the number of rows", -1,
                       f"{source.rows} rows reduce to {target.rows}")
    if mode == Reduce.COLUMN and target.cols != source.cols:
        return Problem("a column reduction keeps the number of columns", -1,
                       f"{source.cols} columns reduce to {target.cols}")
    if mode == Reduce.TWO_BY_TWO and (source.rows % 2 or source.cols % 2 or
                                      (target.rows, target.cols) != (source.rows // 2, source.cols // 2)):
        return Problem("a 2x2 reduction halves both dimensions", -1,
                       f"{source.rows}x{source.cols} reduces to {source.rows // 2}x{source.cols // 2}")
    return None


# ---------------------------------------------------------------- tensor layouts and views

# SPV_NV_tensor_addressing: "a number of dimensions in the range [1,5]".
MAX_TENSOR_DIMS = 5

# The operands each layout/view operation takes after the layout or view itself, per
# dimension (a count of D, 2D for slices) or fixed (SPV_NV_tensor_addressing 3.49.x).
_TENSOR_OPERANDS_PER_DIM = {
    "coop_tensor_layout_set_dimension": 1, "coop_tensor_layout_set_stride": 1,
    "coop_tensor_layout_set_block_size": 1, "coop_tensor_layout_slice": 2,
    "coop_tensor_view_set_dimension": 1, "coop_tensor_view_set_stride": 1,
}
_TENSOR_OPERANDS_FIXED = {
    "coop_tensor_layout_create": 0, "coop_tensor_view_create": 0,
    "coop_tensor_layout_set_clamp_value": 1, "coop_tensor_view_set_clip": 4,
}


def tensor_operand_count(operation, dims):
    """How many operands `operation` (its OpenCL C name) takes after the layout or view
    for a `dims`-dimensional type; None for an unknown operation."""
    if operation in _TENSOR_OPERANDS_PER_DIM:
        return _TENSOR_OPERANDS_PER_DIM[operation] * dims
    return _TENSOR_OPERANDS_FIXED.get(operation)


def tensor_operand_count_problem(operation, dims, count):
    """A wrong operand count. Operand 0 is the layout or view; the Problem names the first
    extra operand, or the last one given (the layout or view when none is)."""
    expected = tensor_operand_count(operation, dims)
    if expected is None or count == expected:
        return None
    return Problem(f"'{operation}' takes {expected} operands after the "
                   f"{'view' if '_view_' in operation else 'layout'} for a {dims}-dimensional "
                   f"tensor, {count} given", 1 + expected if count > expected else count)


def tensor_type_problem(dims, clamp_mode=None, permutation=None):
    """OpTypeTensorLayoutNV (dims, clamp mode) and OpTypeTensorViewNV (dims, permutation):
    1 to 5 dimensions, a known clamp mode, a permutation of 0..dims-1. The operand index
    is that of the attribute argument."""
    if not 1 <= dims <= MAX_TENSOR_DIMS:
        return Problem(f"a tensor layout or view has 1 to {MAX_TENSOR_DIMS} dimensions, "
                       f"not {dims}", 0)
    if clamp_mode is not None and clamp_mode not in ClampMode._value2member_map_:
        return Problem(f"invalid tensor clamp mode {clamp_mode}", 1,
                       "a clamp mode is UNDEFINED, CONSTANT, CLAMP_TO_EDGE, REPEAT or "
                       "REPEAT_MIRRORED")
    if permutation is not None and sorted(permutation) != list(range(dims)):
        return Problem(f"tensor view permutation ({', '.join(map(str, permutation))}) is not "
                       f"a permutation of 0..{dims - 1}", 2)
    return None
