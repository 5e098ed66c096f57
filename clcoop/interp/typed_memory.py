"""Typed loads and stores: scalars, vectors, matrices and aggregates of an LLVM type
at per-lane addresses."""
import numpy as np

from clcoop.errors import IRError
from clcoop.interp.lanes import bcast
from clcoop.ir.wg_layout import matrix_length
from clcoop.ir.scalars import scalar_dtype


def access_shape(ex, t):
    """(scalar dtype, component count or None, element byte size) of a loaded type."""
    if t.kind == "vec":
        return scalar_dtype(t), t.n, ex.layout.size(t.elem)
    if t.kind == "matrix":
        return scalar_dtype(t), matrix_length(t, ex.subgroup_size, ex.nd.wg_size), ex.layout.size(t.elem)
    if t.kind in ("int", "float", "ptr", "event"):
        return scalar_dtype(t), None, None
    raise IRError(f"loads and stores of {t} values are not supported: {ex.current.text}")


def mem_dtype(ex, t, dtype):
    if t.kind == "int" and t.bits == 1 or (t.kind == "vec" and t.elem.kind == "int" and t.elem.bits == 1):
        return np.dtype(np.uint8)
    if (t.kind == "ptr" or (t.kind == "vec" and t.elem.kind == "ptr")) and ex.layout.pointer_bytes == 4:
        return np.dtype(np.uint32)
    return dtype


def is_aggregate(t):
    return t.kind in ("array", "struct")


def _aggregate_leaves(ex, t, offset=0):
    """[(byte offset, index path, scalar/vector type)] of an array or struct type."""
    if t.kind == "struct":
        offsets, _ = ex.layout.struct_layout(t)
        items = [(offsets[i], f) for i, f in enumerate(t.fields)]
    else:
        es = ex.layout.size(t.elem)
        items = [(i * es, t.elem) for i in range(t.n)]
    return [(offset + off, ft) for off, ft in items]


def read_aggregate(ex, addrs, t):
    out = []
    for off, ft in _aggregate_leaves(ex, t):
        a = addrs + np.int64(off)
        out.append(read_aggregate(ex, a, ft) if is_aggregate(ft) else read_typed(ex, a, ft))
    return tuple(out)


def write_aggregate(ex, addrs, value, t):
    if all_zero(value):
        size = ex.layout.size(t)
        ex.memory.store_rows(addrs, np.zeros((addrs.shape[0], size), np.uint8), np.uint8)
        return
    for (off, ft), v in zip(_aggregate_leaves(ex, t), value):
        a = addrs + np.int64(off)
        if is_aggregate(ft):
            write_aggregate(ex, a, v, ft)
        else:
            write_typed(ex, a, bcast(v, addrs.shape[0]) if np.ndim(v) == 0 else v, ft)


def all_zero(value):
    if isinstance(value, tuple):
        return all(all_zero(v) for v in value)
    return np.ndim(value) <= 1 and not np.any(value) and (np.ndim(value) == 0 or value.size < 64)


def map_leaves(fn, value):
    if isinstance(value, tuple):
        return tuple(map_leaves(fn, v) for v in value)
    return fn(value)


def read_typed(ex, addrs, t):
    if is_aggregate(t):
        return read_aggregate(ex, addrs, t)
    dtype, n, es = access_shape(ex, t)
    mdt = mem_dtype(ex, t, dtype)
    if n is not None and mdt.itemsize == es:
        v = ex.memory.load_rows(addrs, n, mdt)
        return v.astype(dtype) if mdt != dtype else v
    if n is not None:
        addrs = addrs[:, None] + np.arange(n, dtype=np.int64) * es
    v = ex.memory.load(addrs, mdt)
    return v.astype(dtype) if mdt != dtype else v


def write_typed(ex, addrs, values, t):
    if is_aggregate(t):
        write_aggregate(ex, addrs, values, t)
        return
    dtype, n, es = access_shape(ex, t)
    mdt = mem_dtype(ex, t, dtype)
    if n is not None and mdt.itemsize == es:
        ex.memory.store_rows(addrs, np.asarray(values).astype(mdt, copy=False), mdt)
        return
    if n is not None:
        addrs = addrs[:, None] + np.arange(n, dtype=np.int64) * es
    ex.memory.store(addrs, np.asarray(values).astype(mdt, copy=False), mdt)


