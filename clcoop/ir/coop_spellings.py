"""Cooperative-matrix calls as other producers spell them, read as the callee names of
docs/ir-conventions.md so that clcoop.interp.coop_calls runs them all.

clcoop's own names carry every matrix type in their template arguments. Other producers
name the operation only, and the declaration's IR types say the rest:

- llc-22 (SPIRVBuiltins.td, lookupBuiltinNameHelper) lowers a call whose name is the
  plain `__spirv_<Op>`, or any Itanium name whose identifier is `__spirv_<Op>`, in the
  global namespace or in `__spv::` (`_Z32__spirv_CooperativeMatrixLoadKHR<anything>`,
  `_ZN5__spv32__spirv_CooperativeMatrixLoadKHRE...`); conversions also with an
  `_R<type>[_sat][_rte]` tail inside the identifier.
- The SPIRV-LLVM-Translator's tests: `_Z32__spirv_CooperativeMatrixLoadKHR_1`,
  `_Z26__spirv_CompositeConstructFloat`, and element-wise SPIR-V opcodes on matrices
  (`_Z12__spirv_FAdd`, `_Z15__spirv_FNegate`, `SNegate`, `IAdd`, `SDiv`, `UDiv`, ...,
  `MatrixTimesScalar`); its reverse translation writes the types into the identifier
  (`_Z86__spirv_CooperativeMatrixLoadKHR_RPU3AS144__spirv_CooperativeMatrixKHR__char_...`).
- The clang pull request (llvm/llvm-project #221328): unmangled names with a suffix
  (`__spirv_CooperativeMatrixLoadKHR_global_f32_sc3_16x16_u0`,
  `__spirv_CooperativeMatrixMulAddKHR_f32_sc3_16x16_u0_...`) and
  `__spirv_CooperativeMatrixFAdd`, `ScalarMulKHR`, `ScalarNeg`.

So an identifier is an operation's name, optionally followed by `_<anything>` (a superset
of what llc-22 lowers: llc-22 leaves the translator's `_R...` and the pull request's
suffixed names as imported functions). docs/ir-conventions.md "IR from other producers".
"""
import re

from clcoop import coop_names
from clcoop.coopmat_spec import COMPONENTS, COMPONENTS_BY_LLVM

from clcoop.coop_names import (BINARY, CONVERSIONS, LENGTH, LOAD, MUL_ADD, NEGATE, SCALAR_MUL,
                               SPIRV_PREFIX, SPLAT, STORE, spirv_name)

# Spelling of the operation -> (clcoop base name, component signedness it implies or None).
_BINARY_OPCODES = {"add": ("FAdd", "IAdd"), "sub": ("FSub", "ISub"), "mul": ("FMul", "IMul"),
                   "div": ("FDiv",)}
OPERATIONS = {base: (base, None) for base in (LOAD, STORE, MUL_ADD, LENGTH, SPLAT, NEGATE, SCALAR_MUL)}
for _spelled in ("FNegate", "SNegate", "CooperativeMatrixFNegate", "CooperativeMatrixSNegate"):
    OPERATIONS[spirv_name(_spelled)] = (NEGATE, None)
for _spelled in ("CooperativeMatrixScalarMulKHR", "MatrixTimesScalar"):
    OPERATIONS[spirv_name(_spelled)] = (SCALAR_MUL, None)
for _op, _opcodes in _BINARY_OPCODES.items():
    OPERATIONS[BINARY[_op]] = (BINARY[_op], None)
    for _opcode in _opcodes:
        OPERATIONS[spirv_name(_opcode)] = (BINARY[_op], None)
        OPERATIONS[spirv_name(f"CooperativeMatrix{_opcode}")] = (BINARY[_op], None)
for _opcode, _signed in (("SDiv", True), ("UDiv", False)):
    # Integer division is signed or unsigned by the component code (ir-conventions.md).
    OPERATIONS[spirv_name(_opcode)] = (BINARY["div"], _signed)
    OPERATIONS[spirv_name(f"CooperativeMatrix{_opcode}")] = (BINARY["div"], _signed)
for _base in CONVERSIONS:
    OPERATIONS[_base] = (_base, None)

# The pull request's element-type tokens (`_global_f32_sc3_...`).
_SUFFIX_TYPE_CODES = {"f16": "Dh", "f32": "f", "f64": "d", "i8": "c", "i16": "s", "i32": "i",
                      "i64": "l", "u8": "h", "u16": "t", "u32": "j", "u64": "m"}
_SUFFIX_POINTEE = re.compile(r"_(?:global|local|private|constant|generic)_([a-z]\d+)(?:_|$)")
_POINTER_PARAM = re.compile(r"P(?:U3AS\d+)?[KVr]*(?:Dv\d+_)?(?:Dh|[cahbstijlmxyfd])")


def split_identifier(name):
    """(identifier, rest): `_Z<len><id><rest>`, `_ZN5__spv<len><id>E<rest>` (and the
    anonymous namespace) are read as llc-22's demangling does; an unmangled name is its
    own identifier. None for other mangled names."""
    nested = re.match(r"_ZN(?:5__spv|12_GLOBAL__N_1)(\d+)", name)
    if nested:
        start = nested.end()
        ident = name[start:start + int(nested.group(1))]
        rest = name[start + len(ident):]
        return (ident, rest[1:]) if rest.startswith("E") else None
    plain = re.match(r"_Z(\d+)", name)
    if plain:
        start = plain.end()
        ident = name[start:start + int(plain.group(1))]
        return ident, name[start + len(ident):]
    if name.startswith("_Z"):
        return None
    return name, ""


def operation_of(ident):
    """(spelled operation, tail) of an identifier `<operation>` or `<operation>_<tail>`;
    None when it names no cooperative-matrix operation."""
    if ident in OPERATIONS:
        return ident, ""
    cut = ident.find("_", len(SPIRV_PREFIX))
    while cut != -1:
        if ident[:cut] in OPERATIONS:
            return ident[:cut], ident[cut + 1:]
        cut = ident.find("_", cut + 1)
    return None


def canonical_name(name, ret_type, param_types):
    """The docs/ir-conventions.md callee name of a declaration `name` of IR type
    ret_type (param_types) (clcoop.ir.loader Ty), or None when `name` is clcoop's own
    spelling or no cooperative-matrix operation on matrices."""
    own = coop_names.parse_callee(name)
    if own is not None and own.matrices:
        return None
    split = split_identifier(name)
    if split is None:
        return None
    ident, rest = split
    found = operation_of(ident)
    if found is None:
        return None
    spelled, tail = found
    base, signed = OPERATIONS[spelled]
    types = ([ret_type] if ret_type.kind == "matrix" else []) + \
        [t for t in param_types if t.kind == "matrix"]
    if not types:
        return None
    matrices = [_matrix_arg(t, signed) for t in types]
    others = [_param_code(t, signed) for t in param_types if t.kind != "matrix"]
    if base in (LOAD, STORE) and param_types and param_types[0].kind == "ptr":
        others[0] = _pointer_code(param_types[0], rest, tail, matrices[0].code)
    return coop_names.callee_name(base, matrices, others)


def _matrix_arg(t, signed):
    m = t.matrix
    return coop_names.MatrixArg(_component_code(m.component, signed), m.scope, m.rows, m.cols, m.use)


def _scalar_code(t, signed):
    component = COMPONENTS_BY_LLVM.get(str(t)) if t.kind in ("int", "float") else None
    return _component_code(component, signed) if component is not None else "v"


def _component_code(component, signed):
    """The Itanium code of an IR component type (the IR has no signedness: signed unless
    the operation says otherwise)."""
    if not component.is_float and signed is False:
        component = COMPONENTS["u" + component.name]
    return component.itanium


def _param_code(t, signed):
    if t.kind == "ptr":
        return f"PU3AS{t.addrspace}v" if t.addrspace else "Pv"
    return _scalar_code(t, signed)


def _pointer_code(t, rest, tail, component_code):
    """The mangled pointer parameter of a load/store: as the name mangles it (its
    pointee is the unit of the stride, docs/layout.md), else the pull request's
    `_<address space>_<type>` suffix, else a pointer to the matrix's component type."""
    mangled = _POINTER_PARAM.match(rest)
    if mangled:
        return mangled.group(0)
    suffix = _SUFFIX_POINTEE.search("_" + tail)
    code = _SUFFIX_TYPE_CODES.get(suffix.group(1), component_code) if suffix else component_code
    return (f"PU3AS{t.addrspace}" if t.addrspace else "P") + code
