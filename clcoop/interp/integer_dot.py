"""cl_khr_integer_dot_product for the interpreter: dot and dot_acc_sat of char4/uchar4
(__opencl_c_integer_dot_product_input_4x8bit) and of four 8-bit values packed in a uint
(dot_4x8packed_XY_T, dot_acc_sat_4x8packed_XY_T; ..._input_4x8bit_packed).

The products and their sum are exact (four products of 8-bit values fit in 18 bits); the
_acc_sat forms add the accumulator and saturate to the result type (int or uint). A packed
operand holds component 0 in its least significant byte; X and Y of the name say whether
the first and second operand's bytes are signed (s) or unsigned (u).
"""
import re

import numpy as np

from clcoop.ir.demangle import signed_param
from clcoop.interp.lanes import bcast
from clcoop.ir.scalars import scalar_dtype

_PACKED = re.compile(r"dot(_acc_sat)?_4x8packed_([su])([su])_u?int")


def is_integer_dot(base, arg_types):
    """Whether a call of `base` is an integer dot product (not the float `dot` of 6.15.5)."""
    if _PACKED.fullmatch(base):
        return True
    first = arg_types[0] if arg_types else None
    return base in ("dot", "dot_acc_sat") and first is not None and first.kind == "vec" \
        and first.elem.kind == "int"


def _bytes(x, signed, lanes):
    """(L, 4) int64 components of a char4/uchar4 value or of a packed uint."""
    x = bcast(np.asarray(x), lanes)
    if x.ndim == 1:      # packed: component k in byte k
        x = ((x.astype(np.uint32)[:, None] >> np.array([0, 8, 16, 24], np.uint32)) & 0xFF).astype(np.uint8)
    return x.astype(np.int8 if signed else np.uint8).astype(np.int64)


def make(base, params, arg_types, ret_ty):
    out = scalar_dtype(ret_ty)
    packed = _PACKED.fullmatch(base)
    if packed:
        saturating = bool(packed.group(1))
        signs = (packed.group(2) == "s", packed.group(3) == "s")
    else:
        saturating = base == "dot_acc_sat"
        signs = (signed_param(params, 0), signed_param(params, 1))
    # uint only when both operands are unsigned (the IR's i32 does not say).
    result = np.dtype(np.int32 if signs[0] or signs[1] else np.uint32)
    info = np.iinfo(result)

    def h(ex, args, bmask, full, ins):
        L = ex.lane_count
        total = (_bytes(args[0], signs[0], L) * _bytes(args[1], signs[1], L)).sum(axis=1)
        if saturating:
            acc = bcast(np.asarray(args[2]), L).astype(out).view(result).astype(np.int64)
            total = np.clip(total + acc, info.min, info.max)
        return total.astype(result).view(out) if result.itemsize == out.itemsize else total.astype(out)
    return h
