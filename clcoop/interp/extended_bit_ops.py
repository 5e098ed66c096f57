"""cl_khr_extended_bit_ops for the interpreter: bitfield_insert, bitfield_extract_signed,
bitfield_extract_unsigned and bit_reverse, on every integer type, scalar or vector (the
offset and count are one uint for all components).

The extension leaves the result undefined when offset, count or offset + count exceeds
the width of the type: the interpreter faults there (a run that depends on it would differ
between devices). A count of 0 inserts nothing and extracts 0.
"""
import numpy as np

from clcoop.interp.lanes import bcast
from clcoop.ir.scalars import scalar_dtype


def _unsigned(x):
    x = np.asarray(x)
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def _field(ex, base, args, width, name, bmask):
    """(offset, count) per lane as uint64 arrays shaped to broadcast against `base`; a fault
    where they leave the type, in an active lane (bmask: after a fault the call runs again
    for the lanes before the faulting one, which must not see its field again)."""
    offset = bcast(np.asarray(args[0]), ex.lane_count).astype(np.uint32).astype(np.uint64)
    count = bcast(np.asarray(args[1]), ex.lane_count).astype(np.uint32).astype(np.uint64)
    bad = (offset + count) > width
    if bmask is not None:
        bad &= np.asarray(bmask, bool)
    if bad.any():
        lane = int(np.argmax(bad))
        ex.fault(f"{name}: offset {int(offset[lane])} + count {int(count[lane])} exceeds the {width} bits "
                 f"of the type (undefined in cl_khr_extended_bit_ops)", lane=lane)
    if base.ndim == 2:
        offset, count = offset[:, None], count[:, None]
    return offset, count


def _mask(count, width):
    ones = np.uint64((1 << 64) - 1)
    return np.where(count == 0, np.uint64(0), ones >> (np.uint64(64) - np.maximum(count, 1)))


def _make(kind):
    def make(base_name, params, arg_types, ret_ty):
        out = scalar_dtype(ret_ty)

        def h(ex, args, bmask, full, ins):
            base = bcast(np.asarray(args[0]), ex.lane_count)
            width = base.dtype.itemsize * 8
            u = _unsigned(base).astype(np.uint64)
            if kind == "bit_reverse":
                bits = (u[..., None] >> np.arange(width, dtype=np.uint64)) & np.uint64(1)
                r = (bits << np.arange(width - 1, -1, -1, dtype=np.uint64)).sum(axis=-1, dtype=np.uint64)
                return r.astype(_unsigned(base).dtype).view(base.dtype).astype(out)
            if kind == "insert":
                insert = _unsigned(bcast(np.asarray(args[1]), ex.lane_count)).astype(np.uint64)
                offset, count = _field(ex, base, args[2:], width, base_name, bmask)
                mask = _mask(count, width) << offset
                r = (u & ~mask) | ((insert << offset) & mask)
                return r.astype(_unsigned(base).dtype).view(base.dtype).astype(out)
            offset, count = _field(ex, base, args[1:], width, base_name, bmask)
            field = (u >> offset) & _mask(count, width)
            if kind == "extract_signed":
                sign = np.where(count == 0, np.uint64(0), np.uint64(1) << np.maximum(count, 1) - np.uint64(1))
                field = np.where(field & sign, field | ~_mask(count, width), field)   # sign-extended
                return field.view(np.int64).astype(np.dtype(f"i{base.dtype.itemsize}")).astype(out)
            return field.astype(_unsigned(base).dtype).astype(out)
        return h
    return make


def add_extended_bit_ops(table):
    table["bitfield_insert"] = _make("insert")
    table["bitfield_extract_signed"] = _make("extract_signed")
    table["bitfield_extract_unsigned"] = _make("extract_unsigned")
    table["bit_reverse"] = _make("bit_reverse")
