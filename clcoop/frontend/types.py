"""The C/OpenCL type system shared by check, builtins, mangling and lower.

Plain frozen dataclasses (built by clcoop.records.record): two types are the same type exactly when they compare equal.
Each type knows its clang spelling (for diagnostics and kernel_arg_type metadata)
and its Itanium mangling (for built-in callee names).
"""
import functools
from dataclasses import field
from types import MappingProxyType

from clcoop import coop_names, float8
from clcoop.coopmat_spec import COMPONENTS, MatrixType, Use
from clcoop.records import record   # lean dataclasses; tast imports it from here too

# OpenCL address spaces as clang numbers them for SPIR targets.
PRIVATE, GLOBAL, CONSTANT, LOCAL, GENERIC = 0, 1, 2, 3, 4
ADDRSPACE_NAMES = {PRIVATE: "__private", GLOBAL: "__global", CONSTANT: "__constant",
                   LOCAL: "__local", GENERIC: "__generic"}
ADDRSPACE_BY_KEYWORD = {
    "__private": PRIVATE, "private": PRIVATE,
    "__global": GLOBAL, "global": GLOBAL,
    "__constant": CONSTANT, "constant": CONSTANT,
    "__local": LOCAL, "local": LOCAL,
    "__generic": GENERIC, "generic": GENERIC,
}


class CType:
    """Base of all types."""

    def spelling(self):
        raise NotImplementedError

    def __str__(self):
        return self.spelling()

    # Predicates used all over check and lower. Those of a scalar's kind are False here and
    # kept in each ScalarType's __dict__ when it is made (_scalar_init): is_scalar (not
    # void), is_integer (int or bool), is_float, is_arithmetic (integer or float), is_void.
    # A property's call for each of ~90,000 reads (pocl's test_bitselect.cl) cost more than reading
    # the attribute (test_check_fast_paths compares them with the properties they were).
    is_scalar = False
    is_integer = False
    is_float = False
    is_arithmetic = False
    is_void = False

    # The predicates of the class alone are class attributes, True on their class (and its
    # subclasses) below: isinstance(t, PointerType), VectorType, CoopMatType, CoopTensorType.
    # A property's call for each of ~30,000 reads (pocl's test_bitselect.cl) cost more than the
    # attribute (test_check_fast_paths compares them with isinstance).
    is_pointer = False
    is_vector = False
    is_coop_matrix = False
    is_coop_tensor = False
    # A cooperative matrix or a tensor layout/view: a value that lives only in private
    # variables, parameters and return values (SPIR-V opaque types).
    is_coop_opaque = False


@record(frozen=True)
class ScalarType(CType):
    name: str        # OpenCL spelling: bool char uchar short ushort int uint long ulong half float double void
    kind: str        # "int", "float", "bool" or "void"
    bits: int        # storage size in bits (bool: 8 in memory, i1 as a value)
    signed: bool     # meaningful for integers only

    def spelling(self):
        return self.name

    @property
    def size(self):
        return max(self.bits // 8, 1)

    def itanium(self):
        return ITANIUM_CODES[self.name]

    @property
    def llvm_name(self):
        if self.kind == "float":
            return "bfloat" if self.name == "__bf16" else {16: "half", 32: "float", 64: "double"}[self.bits]
        if self.kind == "bool":
            return "i1"
        if self.kind == "void":
            return "void"
        return f"i{self.bits}"


def _scalar_init(self, name, kind, bits, signed):
    """ScalarType's __init__: the record's (its four fields set in order through
    object.__setattr__, as a frozen record's __init__ does), then its kind's predicates (see
    CType) beside them. Not through the instance's __dict__: reading it makes CPython 3.11
    move the attributes into a dict made from them, and every later read of one took three
    times as long (docs/performance.md, fifth pass)."""
    setattr_ = object.__setattr__
    setattr_(self, "name", name)
    setattr_(self, "kind", kind)
    setattr_(self, "bits", bits)
    setattr_(self, "signed", signed)
    integer = kind == "int" or kind == "bool"
    setattr_(self, "is_scalar", kind != "void")
    setattr_(self, "is_integer", integer)
    setattr_(self, "is_float", kind == "float")
    setattr_(self, "is_arithmetic", integer or kind == "float")
    setattr_(self, "is_void", kind == "void")


ScalarType.__init__ = _scalar_init


def _scalar_equal(self, other):
    """ScalarType's ==: the record's (the class, then the fields as a tuple), the same object
    first and then field by field. The checker compares scalar types ~40,000 times in a
    macro-heavy file (pocl's test_bitselect.cl), two thirds of them different types, where
    the record made both field tuples first. The fields are strings, ints and bools, so
    comparing them one by one answers as the tuples do (test_check_fast_paths)."""
    if self is other:
        return True
    if other.__class__ is not self.__class__:
        return NotImplemented
    return (self.name == other.name and self.kind == other.kind and self.bits == other.bits
            and self.signed == other.signed)


ScalarType.__eq__ = _scalar_equal


ITANIUM_CODES = {
    "void": "v", "bool": "b", "char": "c", "uchar": "h", "short": "s", "ushort": "t",
    "int": "i", "uint": "j", "long": "l", "ulong": "m", "half": "Dh", "float": "f", "double": "d",
    "__bf16": "DF16b", "__fp8_e4m3": float8.E4M3.itanium, "__fp8_e5m2": float8.E5M2.itanium,
}

VOID = ScalarType("void", "void", 0, False)
BOOL = ScalarType("bool", "bool", 8, False)
CHAR = ScalarType("char", "int", 8, True)      # OpenCL char is signed
UCHAR = ScalarType("uchar", "int", 8, False)
SHORT = ScalarType("short", "int", 16, True)
USHORT = ScalarType("ushort", "int", 16, False)
INT = ScalarType("int", "int", 32, True)
UINT = ScalarType("uint", "int", 32, False)
LONG = ScalarType("long", "int", 64, True)
ULONG = ScalarType("ulong", "int", 64, False)
HALF = ScalarType("half", "float", 16, True)
FLOAT = ScalarType("float", "float", 32, True)
DOUBLE = ScalarType("double", "float", 64, True)
# clang-22's __bf16 for spir64 (LLVM bfloat, mangled DF16b): an arithmetic type that ranks
# below half (half + __bf16 is half) and needs no extension.
BF16 = ScalarType("__bf16", "float", 16, True)
# SPV_EXT_float8 (clcoop/float8.py): kind "fp8", neither integer nor floating, so no operator
# takes them (the extension allows conversions, memory, composites, select and the
# mul-add); casts and convert_<fp8>[_sat] convert them. An i8 of bits in the IR.
FP8_E4M3 = ScalarType("__fp8_e4m3", "fp8", 8, True)
FP8_E5M2 = ScalarType("__fp8_e5m2", "fp8", 8, True)

SCALARS = {t.name: t for t in (VOID, BOOL, CHAR, UCHAR, SHORT, USHORT, INT, UINT,
                                LONG, ULONG, HALF, FLOAT, DOUBLE, BF16, FP8_E4M3, FP8_E5M2)}
# C spellings that name the same OpenCL types.
C_SPELLINGS = {
    ("void",): VOID, ("bool",): BOOL, ("_Bool",): BOOL,
    ("char",): CHAR, ("signed", "char"): CHAR, ("unsigned", "char"): UCHAR, ("uchar",): UCHAR,
    ("short",): SHORT, ("short", "int"): SHORT, ("signed", "short"): SHORT,
    ("unsigned", "short"): USHORT, ("unsigned", "short", "int"): USHORT, ("ushort",): USHORT,
    ("int",): INT, ("signed",): INT, ("signed", "int"): INT,
    ("unsigned",): UINT, ("unsigned", "int"): UINT, ("uint",): UINT,
    ("long",): LONG, ("long", "int"): LONG, ("signed", "long"): LONG,
    ("unsigned", "long"): ULONG, ("unsigned", "long", "int"): ULONG, ("ulong",): ULONG,
    ("half",): HALF, ("float",): FLOAT, ("double",): DOUBLE, ("__bf16",): BF16,
    ("__fp8_e4m3",): FP8_E4M3, ("__fp8_e5m2",): FP8_E5M2,
}
# Integer conversion rank (C99 6.3.1.1) for the usual arithmetic conversions.
INTEGER_RANK = {"bool": 0, "char": 1, "uchar": 1, "short": 2, "ushort": 2,
                "int": 3, "uint": 3, "long": 4, "ulong": 4}
VECTOR_SIZES = (2, 3, 4, 8, 16)
VECTOR_ELEMENT_NAMES = ("char", "uchar", "short", "ushort", "int", "uint",
                        "long", "ulong", "half", "float", "double")
# Component types a cooperative matrix may have (issue: any scalar numeric type).
COOP_ELEMENT_NAMES = VECTOR_ELEMENT_NAMES + ("__bf16", "__fp8_e4m3", "__fp8_e5m2")


@record(frozen=True)
class VectorType(CType):
    is_vector = True
    elem: ScalarType
    count: int

    def spelling(self):
        return f"{self.elem.name}{self.count}"

    @property
    def size(self):
        # OpenCL 6.1.5: 3-component vectors are stored as 4.
        return self.elem.size * (4 if self.count == 3 else self.count)

    def itanium(self):
        return f"Dv{self.count}_{self.elem.itanium()}"


@record(frozen=True)
class PointerType(CType):
    is_pointer = True
    pointee: CType
    addrspace: int = PRIVATE
    const: bool = False
    volatile: bool = False
    restrict: bool = False

    def spelling(self):
        quals = " ".join(q for q, on in (("const", self.const), ("volatile", self.volatile)) if on)
        prefix = f"{ADDRSPACE_NAMES[self.addrspace]} " if self.addrspace != PRIVATE else ""
        inner = f"{quals} {self.pointee.spelling()}" if quals else self.pointee.spelling()
        return f"{prefix}{inner} *"

    def itanium(self):
        # clang mangles every address space but private as U3AS<n>, then cv-qualifiers
        # (e.g. PU3AS1Vi for `volatile __global int *`, PU3AS4Kf for `const __generic float *`).
        quals = ("K" if self.const else "") + ("V" if self.volatile else "")
        space = f"U3AS{self.addrspace}" if self.addrspace != PRIVATE else ""
        return f"P{space}{quals}{mangle_type(self.pointee)}"


@record(frozen=True)
class AtomicType(CType):
    """OpenCL C 2.0's atomic types (6.15.12.6), `_Atomic(value)` in clang: objects only the
    atomic functions may read or write; same size and representation as `value`."""
    value: ScalarType
    # atomic_int, atomic_flag, ... for diagnostics only: atomic_uintptr_t is atomic_ulong on
    # spir64 (both _Atomic(ulong)), so two spellings of one type compare equal.
    name: str = field(default="", compare=False)

    def spelling(self):
        return self.name or f"_Atomic({self.value.spelling()})"

    @property
    def size(self):
        return self.value.size

    def itanium(self):
        return "U7_Atomic" + self.value.itanium()


@record(frozen=True)
class ArrayType(CType):
    elem: CType
    length: int | None      # None: incomplete (e.g. `int a[] = {...}` before the initializer is seen)

    def spelling(self):
        n = "" if self.length is None else str(self.length)
        return f"{self.elem.spelling()}[{n}]"


@record(frozen=True)
class StructField:
    name: str
    type: CType


@record(frozen=True, eq=False)
class StructType(CType):
    """Struct or union. Compared by identity: two declarations are two types (C99 6.7.2.3)."""
    tag: str | None
    is_union: bool = False
    fields: list = field(default_factory=list, compare=False)   # filled in when the body is seen
    complete: bool = False
    # `typedef struct { ... } S;` names an anonymous struct S (C++'s "typedef name for
    # linkage purposes", which clang also uses in C: diagnostics, %struct.S, metadata).
    typedef_name: str | None = field(default=None, compare=False)

    def spelling(self):
        kw = "union" if self.is_union else "struct"
        if self.tag:
            return f"{kw} {self.tag}"
        return self.typedef_name or f"{kw} (anonymous)"

    def itanium(self):
        """A class type's source name, <length><name> (Itanium ABI 5.1.5): the tag, or the
        typedef name of an anonymous struct, as clang mangles `typedef struct {...} S`."""
        name = self.tag or self.typedef_name or "anon"
        return f"{len(name)}{name}"


@record(frozen=True)
class EnumType(CType):
    """An enum behaves as its underlying type `int` except in diagnostics."""
    tag: str | None

    def spelling(self):
        return f"enum {self.tag}" if self.tag else "enum (anonymous)"


@record(frozen=True)
class FunctionType(CType):
    ret: CType
    params: tuple
    variadic: bool = False

    def spelling(self):
        ps = ", ".join(p.spelling() for p in self.params) or "void"
        return f"{self.ret.spelling()} ({ps})"


@record(frozen=True)
class EventType(CType):
    """OpenCL C's event_t (6.3.1.1 other built-in types, async copies 6.15.11): an opaque
    handle, `target("spirv.Event")` in the IR and `9ocl_event` in mangled names, as clang."""

    def spelling(self):
        return "event_t"

    def itanium(self):
        return "9ocl_event"

    @property
    def size(self):
        return 8


EVENT = EventType()


@record(frozen=True)
class CoopMatType(CType):
    """`T __attribute__((coop_mat(scope, rows, cols, use)))`; scope holds the SPIR-V value (3 = Subgroup)."""
    is_coop_matrix = True
    is_coop_opaque = True
    elem: ScalarType
    scope: int
    rows: int
    cols: int
    use: int
    typedef_name: str | None = field(default=None, compare=False)  # for diagnostics only

    def spelling(self):
        if self.typedef_name:
            return self.typedef_name
        return (f"{self.elem.name} __attribute__((coop_mat({self.scope}, {self.rows}, "
                f"{self.cols}, {Use(self.use).opencl})))")

    @property
    def spec(self):
        """This type as coopmat_spec's MatrixType (its rules and its IR text)."""
        return MatrixType(COMPONENTS[self.elem.name], self.scope, self.rows, self.cols, self.use)

    def template_args(self):
        """Template-style mangling of the matrix type, used in callee tails (docs/ir-conventions.md)."""
        return coop_names.MatrixArg(self.elem.itanium(), self.scope, self.rows, self.cols,
                                    self.use).template_args()

    def same_shape(self, other):
        return (self.scope, self.rows, self.cols, self.use) == (other.scope, other.rows, other.cols, other.use)


@record(frozen=True)
class CoopTensorBaseType(CType):
    """`coop_tensor_layout_t` / `coop_tensor_view_t` before their attribute gives the
    dimensions (opencl-c-coop.h declares them over these built-in names)."""
    kind: str          # tensor_spec.LAYOUT or VIEW

    def spelling(self):
        return f"coop_tensor_{self.kind}_t"


@record(frozen=True)
class CoopTensorType(CType):
    """`typedef coop_tensor_layout_t L __attribute__((coop_tensor_layout(D, clamp)))` or a
    view (coop_tensor_view(D, has_dimensions, p0, ...)): an immutable value."""
    is_coop_tensor = True
    is_coop_opaque = True
    spec: object       # tensor_spec.TensorType
    typedef_name: str | None = field(default=None, compare=False)  # for diagnostics only

    def spelling(self):
        return self.typedef_name or self.spec.spelling()

    def itanium(self):
        return self.spec.mangled()


TENSOR_BASE_NAMES = {"__clcoop_tensor_layout": CoopTensorBaseType("layout"),
                     "__clcoop_tensor_view": CoopTensorBaseType("view")}


def mangle_type(t):
    """Itanium mangling of a parameter type, as clang mangles OpenCL built-ins."""
    if isinstance(t, EnumType):
        return INT.itanium()
    if isinstance(t, CoopMatType):
        raise ValueError("cooperative matrix types are mangled as template arguments")
    return t.itanium()


def vector_of(elem, count):
    return VectorType(elem, count) if count > 1 else elem


@record(frozen=True)
class Target:
    """What depends on the triple: pointer width, size_t, datalayout."""
    triple: str

    @property
    def pointer_bits(self):
        return 32 if self.triple.startswith("spir-") or self.triple.startswith("spirv32") else 64

    @property
    def size_t(self):
        return ULONG if self.pointer_bits == 64 else UINT

    @property
    def ptrdiff_t(self):
        return LONG if self.pointer_bits == 64 else INT

    @property
    def datalayout(self):
        # clang-22 for spir64-unknown-unknown / spir-unknown-unknown.
        vec = "v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
        if self.pointer_bits == 64:
            return "e-i64:64-" + vec
        return "e-p:32:32-i64:64-" + vec


SPIR64 = Target("spir64-unknown-unknown")
SPIR32 = Target("spir-unknown-unknown")


@functools.lru_cache(maxsize=4)
def builtin_typedefs(target):
    """Type names an OpenCL C program may use without declaring them: one read-only table per
    target (every as_<type> call and atomic overload looks a name up; building the table,
    ~100 types, at each was a fifth of checking pocl's test_as_type.cl)."""
    names = dict(SCALARS)
    for elem in VECTOR_ELEMENT_NAMES:
        for n in VECTOR_SIZES:
            names[f"{elem}{n}"] = VectorType(SCALARS[elem], n)
    names.update({
        "size_t": target.size_t, "ptrdiff_t": target.ptrdiff_t,
        "intptr_t": target.ptrdiff_t, "uintptr_t": target.size_t, "event_t": EVENT,
    })
    names.update(TENSOR_BASE_NAMES)
    atomic_values = {"int": INT, "uint": UINT, "long": LONG, "ulong": ULONG, "float": FLOAT,
                     "double": DOUBLE, "half": HALF, "flag": INT, "intptr_t": target.ptrdiff_t,
                     "uintptr_t": target.size_t, "size_t": target.size_t, "ptrdiff_t": target.ptrdiff_t}
    for suffix, value in atomic_values.items():
        names[f"atomic_{suffix}"] = AtomicType(value, f"atomic_{suffix}")
    return MappingProxyType(names)


# ---------------------------------------------------------------- C value facts
def unqualified_elem(t):
    return t.elem if isinstance(t, VectorType) else t


def as_arith(t):
    """Enums behave as int in arithmetic."""
    return INT if isinstance(t, EnumType) else t


def is_integer_like(t):
    return t.is_integer or isinstance(t, EnumType)


def wrap_int(value, t):
    """Two's complement wrap of a Python int to the integer type t."""
    if t == BOOL:
        return 1 if value else 0
    bits = t.bits
    value &= (1 << bits) - 1
    if t.signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value
