"""Scalar types in the interpreter: one table from the Itanium code of a C scalar type
(the code in mangled built-in and cooperative-matrix callee names) to its kind, width,
signedness and NumPy dtype, and the dtypes of LLVM's sign-less types derived from it.
"""
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from clcoop import coopmat_spec, float8
from clcoop.errors import IRError


@dataclass(frozen=True)
class Scalar:
    kind: str          # "int", "float" or "void"
    bits: int
    signed: bool       # integers: signed type; floats: True
    dtype: object      # np.dtype, None for void

    def as_tuple(self):
        """The demangler's parameter form: ("void",), ("int", bits, signed), ("float", bits)."""
        if self.kind == "void":
            return ("void",)
        return ("int", self.bits, self.signed) if self.kind == "int" else ("float", self.bits)


def _scalar(kind, bits, signed, dtype):
    return Scalar(kind, bits, signed, None if dtype is None else np.dtype(dtype))


# Itanium ABI 5.1.5 builtin-type codes of the OpenCL C scalar types.
SCALARS = {
    "v": _scalar("void", 0, False, None),
    "b": _scalar("int", 8, False, np.uint8),       # bool
    "c": _scalar("int", 8, True, np.int8),         # char (signed in OpenCL C, 6.1.1)
    "a": _scalar("int", 8, True, np.int8),         # signed char
    "h": _scalar("int", 8, False, np.uint8),
    "s": _scalar("int", 16, True, np.int16),
    "t": _scalar("int", 16, False, np.uint16),
    "i": _scalar("int", 32, True, np.int32),
    "j": _scalar("int", 32, False, np.uint32),
    "l": _scalar("int", 64, True, np.int64),
    "m": _scalar("int", 64, False, np.uint64),
    "x": _scalar("int", 64, True, np.int64),       # long long
    "y": _scalar("int", 64, False, np.uint64),
    "Dh": _scalar("float", 16, True, np.float16),
    "DF16b": _scalar("float", 16, True, ml_dtypes.bfloat16),     # __bf16 (LLVM bfloat)
    "f": _scalar("float", 32, True, np.float32),
    "d": _scalar("float", 64, True, np.float64),
}

# LLVM types carry no sign (docs/ir-conventions.md): i1 is a NumPy bool, iN the signed
# dtype of its width, and UINT_DTYPES views those bits as unsigned.
INT_DTYPES = {1: np.dtype(np.bool_)}
UINT_DTYPES = {}
FLOAT_DTYPES = {}
for _s in SCALARS.values():
    if _s.kind == "int":
        (INT_DTYPES if _s.signed else UINT_DTYPES).setdefault(_s.bits, _s.dtype)
    elif _s.kind == "float":
        FLOAT_DTYPES.setdefault(_s.bits, _s.dtype)

# LLVM bfloat (clang-22's __bf16): FLOAT_DTYPES[16] is half's.
BFLOAT16 = SCALARS["DF16b"].dtype

# SPV_EXT_float8 components (clcoop/float8.py): the ml_dtypes dtypes of their bits.
FLOAT8_DTYPES = {f.name: np.dtype(getattr(ml_dtypes, f.numpy_name)) for f in float8.FORMATS.values()}

# Cooperative-matrix components the interpreter runs: OpenCL name -> dtype.
COMPONENT_DTYPES = {c.name: SCALARS[c.itanium].dtype
                    for c in coopmat_spec.COMPONENTS.values() if c.itanium in SCALARS}
COMPONENT_DTYPES.update(FLOAT8_DTYPES)


def component_dtype(component):
    """The dtype of a coopmat_spec.Component; IRError for one the interpreter lacks."""
    if component.name not in COMPONENT_DTYPES:
        raise IRError(f"cooperative matrix component type '{component.name}' is not supported "
                      "by the interpreter")
    return COMPONENT_DTYPES[component.name]


def storage_bits(bits):
    """Width of the NumPy integer holding an LLVM iN: N itself for 1/8/16/32/64, else the
    next of 8/16/32/64 (the value is kept sign-extended from N bits, see wrap_int)."""
    if bits in INT_DTYPES:
        return bits
    if not 1 < bits <= 64:
        raise IRError(f"integer type i{bits} is not supported by the interpreter "
                      "(widths 1 to 64 are)")
    return next(w for w in (8, 16, 32, 64) if w > bits)


def odd_int_bits(t):
    """N when t (or its vector element) is an integer iN of non-standard width, else None."""
    elem = t.elem if t.kind == "vec" else t
    return elem.bits if elem.kind == "int" and elem.bits not in INT_DTYPES else None


def wrap_int(v, bits):
    """Canonical form of iN values held in a wider dtype: the low N bits sign-extended,
    so signed operations on the storage dtype give iN's results (LangRef: integer ops
    are modulo 2**N)."""
    v = np.asarray(v)
    dtype = v.dtype
    sign = dtype.type(1 << (bits - 1))
    low = v & dtype.type((1 << (bits - 1)) - 1)
    out = np.where((v & sign) != 0, low - sign, low).astype(dtype)
    return out[()] if out.ndim == 0 else out


def uint_bits(v, bits):
    """The low `bits` bits of integer values as the unsigned dtype of their storage."""
    if bits == 1:
        return v
    v = np.asarray(v)
    u = v.astype(UINT_DTYPES[storage_bits(bits)])
    return u if bits in UINT_DTYPES else u & u.dtype.type((1 << bits) - 1)


def scalar_dtype(t):
    """NumPy dtype holding one scalar (or vector element) of LLVM type t."""
    if t.kind == "int":
        return INT_DTYPES[storage_bits(t.bits)]
    if t.kind == "float":
        if t.bits == 8:         # an fp8 matrix component (loader: its inline SPIR-V type)
            return FLOAT8_DTYPES[float8.format_of_ir_type(t.text).name]
        return BFLOAT16 if t.bfloat else FLOAT_DTYPES[t.bits]
    if t.kind in ("ptr", "event"):
        return np.dtype(np.int64)
    if t.kind in ("vec", "matrix"):
        return scalar_dtype(t.elem)
    raise IRError(f"type {t} has no scalar representation")


def unsigned(v, t):
    """View integer values of type t as unsigned (LLVM integers carry no sign)."""
    return uint_bits(v, t.elem.bits if t.kind == "vec" else t.bits)


def as_unsigned(v):
    """Signed integer values converted to the unsigned dtype of their width."""
    v = np.asarray(v)
    return v if v.dtype.kind != "i" else v.astype(UINT_DTYPES[v.dtype.itemsize * 8])


def float_to_int(x, dtype):
    """Float -> integer as both engines convert (fptosi/fptoui, convert_<int>[_sat][_rt?],
    matrix conversions; docs/native.md "Safety contract"): toward zero, NaN -> 0, and a
    value outside the range (infinities included) -> the nearest bound, as LLVM's
    fpto[su]i.sat and SPIR-V's SaturatedConversion. C leaves the out-of-range ones
    undefined (OpenCL C 3.0 6.4.3.3); one rule keeps the engines equal bit for bit.
    dtype: the integer dtype whose range applies (unsigned for fptoui)."""
    dtype = np.dtype(dtype)
    info = np.iinfo(dtype)
    wide = np.trunc(np.asarray(x, dtype=np.float64))
    wide = np.where(np.isnan(wide), 0.0, wide)
    if dtype.itemsize == 8:
        # float64 cannot hold INT64_MAX exactly: compare before converting.
        result = np.where((wide >= float(info.max)) | (wide <= float(info.min)), 0, wide).astype(dtype)
        result = np.where(wide >= float(info.max), info.max, result)
        result = np.where(wide <= float(info.min), info.min, result)
        return result.astype(dtype)
    return np.clip(wide, info.min, info.max).astype(dtype)
