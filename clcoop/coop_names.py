"""Callee names of cooperative-matrix operations: the one place that builds and reads them.

docs/ir-conventions.md "Callee names": `_Z<len><base> I <matrix args> E v <other params>`,
each matrix arg `<T>Li<scope>ELi<rows>ELi<cols>ELi<use>E` with T the Itanium code of the
OpenCL component type (so the name keeps signedness that the IR type loses). The compiler
writes them (frontend/lower.py); the interpreter (interp/coop_calls.py) and the SPIR-V
rewrite (spirv/rewrite.py) read them.
"""
import functools
import re

from clcoop.coopmat_spec import COMPONENTS, MatrixType
from clcoop.records import record

# Itanium codes of OpenCL component types.
ITANIUM_COMPONENTS = {c.itanium: c.name for c in COMPONENTS.values()}
CODES_BY_COMPONENT = {elem: code for code, elem in ITANIUM_COMPONENTS.items()}
SIGNED_CODES = frozenset({"a", "c", "s", "i", "l"})
UNSIGNED_CODES = frozenset({"h", "t", "j", "m"})

_MANGLED_PREFIX = re.compile(r"_Z(\d+)")
_MATRIX_ARG = re.compile(r"(DF16b|Dh|u10__fp8_e4m3|u10__fp8_e5m2|[a-z])Li(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E")


@record(frozen=True)
class MatrixArg:
    """One matrix type from a callee's template arguments."""
    code: str      # Itanium code of the component type, e.g. "f", "Dh", "c"
    scope: int
    rows: int
    cols: int
    use: int

    @classmethod
    def of_component(cls, elem, scope, rows, cols, use):
        return cls(CODES_BY_COMPONENT[elem], scope, rows, cols, use)

    @classmethod
    def of_matrix_type(cls, matrix):
        """The MatrixArg of a coopmat_spec.MatrixType."""
        return cls(matrix.component.itanium, matrix.scope, matrix.rows, matrix.cols, matrix.use)

    def matrix_type(self):
        """The coopmat_spec.MatrixType this names (keeping the component's signedness)."""
        return MatrixType(COMPONENTS[self.elem], self.scope, self.rows, self.cols, self.use)

    @property
    def elem(self):
        """OpenCL component name (keeps signedness), e.g. "char"."""
        return ITANIUM_COMPONENTS[self.code]

    def template_args(self):
        """The template arguments that name this matrix type in a callee name."""
        return f"{self.code}Li{self.scope}ELi{self.rows}ELi{self.cols}ELi{self.use}E"


@record(frozen=True)
class CalleeName:
    base: str          # e.g. "__spirv_CooperativeMatrixLoadKHR"
    matrices: tuple    # MatrixArg of the result (if a matrix), then of each matrix parameter
    params: str        # mangled non-matrix parameters, e.g. "PU3AS1fim"
    well_formed: bool  # the template arguments end with "Ev" as the conventions say


def callee_name(base, matrix_types, other_codes):
    """Name of a call: `matrix_types` are CoopMatType (result first), `other_codes` the
    Itanium codes of the non-matrix parameters."""
    return (f"_Z{len(base)}{base}I" + "".join(m.template_args() for m in matrix_types)
            + "Ev" + "".join(other_codes))


@functools.lru_cache(maxsize=None)
def parse_callee(name):
    """'_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim' -> CalleeName;
    None when `name` is not a mangled name."""
    prefix = _MANGLED_PREFIX.match(name)
    if not prefix:
        return None
    start = prefix.end()
    base = name[start:start + int(prefix.group(1))]
    rest = name[start + len(base):]
    matrices = []
    well_formed = True
    if rest.startswith("I"):
        rest = rest[1:]
        while (arg := _MATRIX_ARG.match(rest)) and arg.group(1) in ITANIUM_COMPONENTS:
            code, scope, rows, cols, use = arg.groups()
            matrices.append(MatrixArg(code, int(scope), int(rows), int(cols), int(use)))
            rest = rest[arg.end():]
        well_formed = rest.startswith("Ev")
        rest = rest[2:] if well_formed else rest
    return CalleeName(base, tuple(matrices), rest, well_formed)


# ---------------------------------------------------------------- operation identifiers
# (interpreter and SPIR-V rewrite; issue 11) The `__spirv_<Op>` identifiers are spelled
# here only: the interpreter (interp/coop_calls.py, ir/coop_spellings.py), the
# loader, and the SPIR-V rewrite (spirv/rewrite.py) name operations through these.

SPIRV_PREFIX = "__spirv_"


def spirv_name(op):
    """'CooperativeMatrixLoadKHR' -> '__spirv_CooperativeMatrixLoadKHR'."""
    return SPIRV_PREFIX + op


def operation_name(base):
    """'__spirv_CooperativeMatrixLoadKHR' -> 'CooperativeMatrixLoadKHR' (for messages)."""
    return base[len(SPIRV_PREFIX):] if base.startswith(SPIRV_PREFIX) else base


def names_spirv_operation(name):
    """True when a (mangled or plain) callee name contains a `__spirv_` identifier."""
    return SPIRV_PREFIX in name


LOAD = spirv_name("CooperativeMatrixLoadKHR")
STORE = spirv_name("CooperativeMatrixStoreKHR")
MUL_ADD = spirv_name("CooperativeMatrixMulAddKHR")
LENGTH = spirv_name("CooperativeMatrixLengthKHR")
SPLAT = spirv_name("CompositeConstruct")
NEGATE = spirv_name("CooperativeMatrixScalarNeg")
SCALAR_MUL = spirv_name("CooperativeMatrixScalarMul")
ACCESS_CHAIN = spirv_name("AccessChain")
# SPV_NV_cooperative_matrix2 / SPV_EXT_cooperative_matrix_maintenance1 (nv2-ops.md table).
REDUCE = spirv_name("CooperativeMatrixReduceNV")
PER_ELEMENT = spirv_name("CooperativeMatrixPerElementOpNV")
GET_COORDINATE = spirv_name("CooperativeMatrixGetCoordinateEXT")
# Element-wise binary operators (RFC 4.6) by operation.
BINARY = {op: spirv_name(f"CooperativeMatrixBinary{op.capitalize()}") for op in ("add", "sub", "mul", "div")}
# Conversions: the SPIR-V opcode names, which are also the callee identifiers.
CONVERSION_OPCODES = ("FConvert", "SConvert", "UConvert", "ConvertFToS", "ConvertFToU",
                      "ConvertSToF", "ConvertUToF")
CONVERSIONS = {spirv_name(opcode): opcode for opcode in CONVERSION_OPCODES}
# NV2 / EXT use conversion (only the use changes) and transpose (nv2-ops.md op names).
CONVERT_USE = spirv_name("CooperativeMatrixConvertNV")
TRANSPOSE = spirv_name("CooperativeMatrixTransposeNV")


# ---------------------------------------------------------------- builders
# The callee names the compiler (frontend/lower.py) writes, by operation.
OPERATION_BASES = {
    "load": LOAD, "store": STORE, "mul_add": MUL_ADD, "length": LENGTH,
    "construct": SPLAT,                 # coop_mat_init: every component one scalar
    "+": BINARY["add"], "-": BINARY["sub"], "*": BINARY["mul"], "/": BINARY["div"],
    "neg": NEGATE, "scalar_mul": SCALAR_MUL,
    "access_chain": ACCESS_CHAIN,       # element access: a pointer to one component
    "convert_use": CONVERT_USE, "transpose": TRANSPOSE,
    "reduce": REDUCE, "per_element": PER_ELEMENT, "get_coordinate": GET_COORDINATE,
}


def operation_callee(operation, matrix_types, other_codes):
    """The callee name of one of OPERATION_BASES: `matrix_types` (result first) are
    CoopMatType, `other_codes` the Itanium codes of the non-matrix parameters."""
    return callee_name(OPERATION_BASES[operation], matrix_types, other_codes)


# ---------------------------------------------------------------- tensor layouts and views
# SPV_NV_tensor_addressing / SPV_NV_cooperative_matrix2 (shared/notes/nv2-ops.md): the
# OpenCL C operation -> the SPIR-V opcode name, which is also the callee identifier.
TENSOR_OPCODES = {
    "coop_tensor_layout_create": "CreateTensorLayoutNV",
    "coop_tensor_layout_set_dimension": "TensorLayoutSetDimensionNV",
    "coop_tensor_layout_set_stride": "TensorLayoutSetStrideNV",
    "coop_tensor_layout_set_block_size": "TensorLayoutSetBlockSizeNV",
    "coop_tensor_layout_slice": "TensorLayoutSliceNV",
    "coop_tensor_layout_set_clamp_value": "TensorLayoutSetClampValueNV",
    "coop_tensor_view_create": "CreateTensorViewNV",
    "coop_tensor_view_set_dimension": "TensorViewSetDimensionNV",
    "coop_tensor_view_set_stride": "TensorViewSetStrideNV",
    "coop_tensor_view_set_clip": "TensorViewSetClipNV",
    "coop_mat_load_tensor": "CooperativeMatrixLoadTensorNV",
    "coop_mat_store_tensor": "CooperativeMatrixStoreTensorNV",
}
TENSOR_BASES = {spirv_name(opcode): operation for operation, opcode in TENSOR_OPCODES.items()}
LOAD_TENSOR = spirv_name(TENSOR_OPCODES["coop_mat_load_tensor"])
STORE_TENSOR = spirv_name(TENSOR_OPCODES["coop_mat_store_tensor"])


def tensor_callee(operation, matrix_types, other_codes):
    """The callee of a tensor operation (its OpenCL C name): `matrix_types` (result
    first) are CoopMatType, `other_codes` the codes of the other parameters in order
    (a tensor type's is tensor_spec.TensorType.mangled())."""
    return callee_name(spirv_name(TENSOR_OPCODES[operation]), matrix_types, other_codes)


def conversion_callee(src_is_float, src_signed, dst_is_float, dst_signed, matrix_types):
    """The callee of a component-type conversion (SPV_KHR_cooperative_matrix: OpFConvert,
    OpConvertFToS/FToU/SToF/UToF, OpSConvert/UConvert); choice rules in
    docs/ir-conventions.md: the source's signedness picks S/U, except FToS/FToU by the
    destination's."""
    if src_is_float and dst_is_float:
        base = "FConvert"
    elif src_is_float:
        base = "ConvertFToS" if dst_signed else "ConvertFToU"
    elif dst_is_float:
        base = "ConvertSToF" if src_signed else "ConvertUToF"
    else:
        base = "SConvert" if src_signed else "UConvert"
    return callee_name(spirv_name(base), matrix_types, [])


def function_operand_code(ret_code, param_codes):
    """The parameter code of a function operand (`ptr @f` in the call), spelled as clang
    mangles a pointer to that function type: float (*)(float, float) -> 'PFfffE'."""
    return "PF" + ret_code + "".join(param_codes) + "E"
