"""LLVM types and values the lowering needs that llvmlite lacks (target extension types, poison,
loop metadata), and the IR types of C types."""
import math
import struct
from dataclasses import replace

from llvmlite import ir

from clcoop.frontend import types as T


# ---------------------------------------------------------------- LLVM types
class CoopMatIRType(ir.Type):
    """`target("spirv.CooperativeMatrixKHR", T, scope, rows, cols, use)` (ir-conventions.md),
    and the tensor layout/view types (`target("spirv.Type", ...)`, tensor_spec.py): the text
    of the C type's `.spec.ir_text()`."""

    def __init__(self, ctype):
        self.ctype = ctype

    def _to_string(self):
        return self.ctype.spec.ir_text()

    def __eq__(self, other):
        return isinstance(other, CoopMatIRType) and other.ctype == self.ctype

    def __hash__(self):
        return hash(("coopmat", self.ctype))


class PoisonConstant(ir.Constant):
    """`<type> poison` (llvmlite has only undef), as clang writes it in !vec_type_hint."""

    def __init__(self, ty):
        super().__init__(ty, None)

    def _to_string(self):
        return "poison"

    def get_reference(self):
        return "poison"

    def __eq__(self, other):
        return isinstance(other, PoisonConstant) and other.type == self.type

    def __hash__(self):
        return hash(("poison", str(self.type)))


class VolatileLoad(ir.instructions.LoadInstr):
    """`load volatile` (llvmlite's LoadInstr has no volatile flag): an access through a
    pointer to volatile (C99 6.7.3p6), which LLVM must neither remove nor merge."""

    def descr(self, buf):
        super().descr(buf)
        buf[-1] = buf[-1].replace("load ", "load volatile ", 1)


class VolatileStore(ir.instructions.StoreInstr):
    """`store volatile` (see VolatileLoad)."""

    def descr(self, buf):
        super().descr(buf)
        buf[-1] = buf[-1].replace("store ", "store volatile ", 1)


def mark_volatile(instr, volatile):
    """Make a load or store `volatile` in place when volatile is true."""
    if volatile:
        instr.__class__ = VolatileLoad if isinstance(instr, ir.instructions.LoadInstr) else VolatileStore
    return instr


class LoopIdMetadata(ir.values.MDValue):
    """A loop ID: `distinct !{!self, !hint}` (LLVM LangRef, 'llvm.loop'), as clang emits it."""

    def __init__(self, module, hint):
        super().__init__(module, [], name=str(len(module.metadata)))
        self.operands = (self, hint)

    def descr(self, buf):
        buf += (f"distinct !{{{self.get_reference()}, {self.operands[1].get_reference()}}}", "\n")

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)


class EventIRType(ir.Type):
    """`target("spirv.Event")`: event_t, as clang-22 lowers it for SPIR."""

    def _to_string(self):
        return 'target("spirv.Event")'

    def __eq__(self, other):
        return isinstance(other, EventIRType)

    def __hash__(self):
        return hash("spirv.Event")


EVENT_IR = EventIRType()


class BFloatIRType(ir.Type):
    """`bfloat` (llvmlite lacks it): __bf16 as clang-22 lowers it for SPIR. Constants are
    written as LLVM's `0xR<bits>`, rounded once to nearest-even from the folded double."""
    null = "0xR0000"

    def _to_string(self):
        return "bfloat"

    def format_constant(self, value):
        return f"0xR{bfloat16_bits(float(value)):04X}"

    def __eq__(self, other):
        return isinstance(other, BFloatIRType)

    def __hash__(self):
        return hash("bfloat")


BFLOAT_IR = BFloatIRType()


def bfloat16_bits(value):
    """The bf16 pattern nearest to a double, ties to even (one rounding, as clang-22 folds
    `(__bf16)x`): 8 significand bits, float32's exponent range, subnormals below 2**-126."""
    from fractions import Fraction      # here: fractions and decimal are 3 ms of every start-up
    if math.isnan(value):
        return 0x7FC0
    sign = 0x8000 if math.copysign(1.0, value) < 0 else 0
    magnitude = Fraction(abs(value)) if math.isfinite(value) else None
    if magnitude is None or magnitude == 0:
        return sign | (0x7F80 if magnitude is None else 0)
    exponent = max(math.frexp(abs(value))[1] - 1, -126)
    quantum = Fraction(2) ** (exponent - 7)
    rounded = round(magnitude / quantum) * quantum      # round() of a Fraction: ties to even
    if rounded >= 2 ** 128:
        return sign | 0x7F80
    return sign | (struct.unpack("<I", struct.pack("<f", float(rounded)))[0] >> 16)
class HalfIRType(ir.HalfType):
    """llvmlite's `half` whose constants are the folded double rounded once to half (ties to
    even) and infinite beyond its range, as clang-22 folds them (`(half)70000`, `70000.0h`,
    `60000.0h + 60000.0h` are +Inf). llvmlite's own formatting packs the double with
    struct's 'e' format, which refuses those: an internal compiler error before. Equal to
    llvmlite's HalfType either way round."""

    def format_constant(self, value):
        return super().format_constant(half_value(float(value)))

    def __eq__(self, other):
        return isinstance(other, ir.HalfType)

    def __hash__(self):
        return hash(ir.HalfType)


HalfIRType._create_instance()     # (llvmlite's float types are one cached instance each)

# The half midway between the largest finite half (65504) and 2^16: from it up a value
# rounds to infinity (round to nearest, ties to even).
HALF_OVERFLOW = 65520.0


def half_value(value):
    """`value` rounded once to half, infinite beyond its range."""
    if abs(value) >= HALF_OVERFLOW:
        return math.copysign(math.inf, value)
    return struct.unpack("<e", struct.pack("<e", value))[0]


I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
FLOAT_TYPES = {16: HalfIRType(), 32: ir.FloatType(), 64: ir.DoubleType()}


def intrinsic_suffix(ty):
    """LLVM's overload suffix of an intrinsic: i32, f32, v4f32, ..."""
    elem = ty.element if isinstance(ty, ir.VectorType) else ty
    text = {"half": "f16", "float": "f32", "double": "f64", "bfloat": "bf16"}.get(str(elem), str(elem))
    return f"v{ty.count}{text}" if isinstance(ty, ir.VectorType) else text


# One llvmlite type object per pointer address space and integer width (llvmlite itself
# keeps one per width): a type's text is made once per object and kept on it, and the lowering
# asks for these at nearly every instruction (throughput, issue 26). llvmlite never changes a
# type object, and an equal one prints the same.
_POINTER_TYPES = {}
_INT_TYPES = {bits: ir.IntType(bits) for bits in (1, 8, 16, 32, 64)}


def ptr_type(addrspace):
    pointer = _POINTER_TYPES.get(addrspace)
    if pointer is None:
        pointer = _POINTER_TYPES[addrspace] = ir.PointerType(addrspace=addrspace)
    return pointer


def scalar_ir(t):
    kind = t.kind
    if kind == "int":
        return _INT_TYPES.get(t.bits) or ir.IntType(t.bits)
    if kind == "void":
        return ir.VoidType()
    if kind == "bool":
        return I1
    if kind == "float":
        return BFLOAT_IR if t.name == "__bf16" else FLOAT_TYPES[t.bits]
    return ir.IntType(t.bits)


def element_type(t):
    """Scalar element of a scalar or vector C type (EnumType counts as int)."""
    if isinstance(t, T.VectorType):
        return t.elem
    if isinstance(t, T.EnumType):
        return T.INT
    return t


def is_signed_int(t):
    e = element_type(t)
    return isinstance(e, T.ScalarType) and e.kind == "int" and e.signed


def is_float_type(t):
    e = element_type(t)
    return isinstance(e, T.ScalarType) and e.kind == "float"


def coop_mangled_pointer(ptype):
    """Pointer parameter code with cv-qualifiers dropped (ir-conventions.md "Callee names")."""
    pointee = ptype.pointee
    if isinstance(pointee, (T.ScalarType, T.VectorType, T.EnumType, T.PointerType)):
        return T.mangle_type(replace(ptype, const=False, volatile=False, restrict=False))
    return "P" + (f"U3AS{ptype.addrspace}" if ptype.addrspace != T.PRIVATE else "") + "v"
