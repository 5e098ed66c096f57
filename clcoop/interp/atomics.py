"""Atomic operations: the atomicrmw/cmpxchg instructions and the OpenCL C atomic
built-ins (6.15.12), applied lane by lane in lane (= work-item) order."""
import numpy as np

from clcoop.errors import IRError
from clcoop.interp import float_order
from clcoop.ir.demangle import pointee_type
from clcoop.interp.lanes import active_lanes, active_operands, bcast, expand_lanes
from clcoop.ir.loader import Ty
from clcoop.interp.provenance import with_provenance
from clcoop.ir.scalars import UINT_DTYPES, scalar_dtype
from clcoop.interp.typed_memory import mem_dtype, read_typed, write_typed
from clcoop.ir.atomic_enums import MEMORY_ORDERS, MEMORY_SCOPES


def atomic_apply(ex, addrs, values, t, op, lanes, compare=None):
    """Apply an atomic RMW for each active lane in lane order; return old values."""
    dtype = mem_dtype(ex, t, scalar_dtype(t))
    view, idx = ex.memory.atomic_region_view(addrs, dtype)
    values = np.asarray(values).astype(dtype)
    compare = None if compare is None else np.asarray(compare).astype(dtype)
    uniq = np.unique(idx).size == idx.size
    if uniq:
        old = view[idx].copy()
        view[idx] = _rmw(op, old, values, compare)
        return old
    if op in ("add", "sub") and dtype.kind in "iu":
        # Segmented exclusive prefix sums give each lane the value it saw in lane order.
        delta = values if op == "add" else -values
        order = np.argsort(idx, kind="stable")
        s_idx, s_delta = idx[order], delta[order]
        csum = np.cumsum(s_delta, dtype=dtype)
        starts = np.r_[True, s_idx[1:] != s_idx[:-1]]
        seg_start = np.maximum.accumulate(np.where(starts, np.arange(idx.size), 0))
        before = csum - s_delta - (csum[seg_start] - s_delta[seg_start])
        old_sorted = view[s_idx] + before
        old = np.empty_like(old_sorted)
        old[order] = old_sorted
        np.add.at(view, idx, delta)
        return old
    old = np.empty(idx.size, dtype)
    for k in range(idx.size):     # serial lane order (rare: contended non-add atomics)
        i = idx[k]
        old[k] = view[i]
        view[i] = _rmw(op, view[i:i + 1], values[k:k + 1],
                       None if compare is None else compare[k:k + 1])[0]
    return old


def _rmw(op, old, v, compare):
    if op == "xchg":
        return v
    if op == "add" or op == "fadd":
        return old + v
    if op == "sub" or op == "fsub":
        return old - v
    if op == "and":
        return old & v
    if op == "or":
        return old | v
    if op == "xor":
        return old ^ v
    if op == "nand":
        return ~(old & v)
    if op in ("max", "min", "fmax", "fmin"):
        if old.dtype.kind == "f":      # LLVM maxnum/minnum, cl_ext_float_atomics: NaN loses
            return float_order.fmax(old, v) if "max" in op else float_order.fmin(old, v)
        return np.maximum(old, v) if "max" in op else np.minimum(old, v)
    if op in ("umax", "umin"):
        udt = UINT_DTYPES[old.dtype.itemsize * 8]
        u = (np.maximum if op == "umax" else np.minimum)(old.astype(udt), np.asarray(v).astype(udt))
        return u.astype(old.dtype)
    if op == "uinc_wrap":
        return np.where(old.astype(np.uint64) >= np.asarray(v).astype(np.uint64), 0, old + 1).astype(old.dtype)
    if op == "udec_wrap":
        return np.where((old == 0) | (old.astype(np.uint64) > np.asarray(v).astype(np.uint64)), v, old - 1).astype(old.dtype)
    if op == "cmpxchg":
        return np.where(same_bits(old, compare), v, old)
    raise IRError(f"unsupported atomic operation {op}")


def same_bits(a, b):
    """The compare of a compare-and-exchange: equal object representations (C11 7.17.7.4),
    so for floats -0.0 differs from 0.0 and a NaN matches the same NaN."""
    a = np.asarray(a)
    b = np.asarray(b).astype(a.dtype)
    if a.dtype.kind == "f":
        u = UINT_DTYPES[a.dtype.itemsize * 8]
        return a.view(u) == b.view(u)
    return a == b


def op_atomicrmw(ex, vals, ins, bmask, full):
    op, t = ins.data
    L = ex.lane_count
    addrs = bcast(vals[ins.args[0]], L)
    v = bcast(vals[ins.args[1]], L)
    lanes = active_lanes(ex, bmask, full)
    if lanes is not None:
        addrs, v = addrs[lanes], v[lanes]
    with_provenance(ex, vals, ins, lanes)
    try:
        old = atomic_apply(ex, addrs, v, t, op, lanes)
    finally:
        ex.memory.provenance = None
    return expand_lanes(ex, lanes, old.astype(scalar_dtype(t)))


def op_cmpxchg(ex, vals, ins, bmask, full):
    t = ins.data
    L = ex.lane_count
    addrs = bcast(vals[ins.args[0]], L)
    cmp = bcast(vals[ins.args[1]], L)
    new = bcast(vals[ins.args[2]], L)
    lanes = active_lanes(ex, bmask, full)
    if lanes is not None:
        addrs, cmp, new = addrs[lanes], cmp[lanes], new[lanes]
    with_provenance(ex, vals, ins, lanes)
    try:
        old = atomic_apply(ex, addrs, new, t, "cmpxchg", lanes, compare=cmp)
    finally:
        ex.memory.provenance = None
    old = old.astype(scalar_dtype(t))
    ok = same_bits(old, cmp)
    return (expand_lanes(ex, lanes, old), expand_lanes(ex, lanes, ok))


# ---------------------------------------------------------------- built-ins
# OpenCL 1.x atomic_* / atom_* and OpenCL C 2.0+ atomics (OpenCL C 3.0, 6.15.12) on the
# atomic types. Each work-item's operation is atomic; work-items of a batch on one address
# act in lane order (atomic_apply). atomic_flag is an atomic int, 0 clear / 1 set.

_ATOMIC_OPS = {"add": "add", "sub": "sub", "xchg": "xchg", "min": "min", "max": "max",
               "and": "and", "or": "or", "xor": "xor", "inc": "add", "dec": "sub",
               "fetch_add": "add", "fetch_sub": "sub", "fetch_min": "min", "fetch_max": "max",
               "fetch_and": "and", "fetch_or": "or", "fetch_xor": "xor", "exchange": "xchg"}

_FLAG_T = Ty("int", 32)


def _atomic(op):
    def make(base, params, arg_types, ret_ty):
        val_t = ret_ty
        signed = True
        if params and params[0][0] == "ptr":
            p = params[0][2]
            signed = p[0] != "int" or p[2]
        rmw = _ATOMIC_OPS[op]
        if rmw in ("min", "max") and val_t.kind == "int" and not signed:
            rmw = "u" + rmw
        implicit_one = op in ("inc", "dec")

        def h(ex, args, bmask, full, ins):
            lanes, (ptr, v) = active_operands(ex, [args[0], 1 if implicit_one else args[1]],
                                               bmask, full)
            old = atomic_apply(ex, ptr, v, val_t, rmw, lanes)
            return expand_lanes(ex, lanes, old.astype(scalar_dtype(val_t)))
        return h
    return make


def _atomic_cmpxchg(base, params, arg_types, ret_ty):

    def h(ex, args, bmask, full, ins):
        lanes, (ptr, cmp, new) = active_operands(ex, args[:3], bmask, full)
        old = atomic_apply(ex, ptr, new, ret_ty, "cmpxchg", lanes, compare=cmp)
        return expand_lanes(ex, lanes, old.astype(scalar_dtype(ret_ty)))
    return h


def _atomic_load(base, params, arg_types, ret_ty):

    def h(ex, args, bmask, full, ins):
        lanes, (ptr,) = active_operands(ex, args[:1], bmask, full)
        return expand_lanes(ex, lanes, read_typed(ex, ptr, ret_ty))
    return h


def _atomic_store(base, params, arg_types, ret_ty):
    """atomic_store / atomic_init, and atomic_flag_clear (which stores 0 to the flag)."""
    flag = base.startswith("atomic_flag")
    t = _FLAG_T if flag else arg_types[1]

    def h(ex, args, bmask, full, ins):
        lanes, (ptr, v) = active_operands(ex, [args[0], 0 if flag else args[1]], bmask, full)
        write_typed(ex, ptr, v, t)
        return None
    return h


def _atomic_flag_test_and_set(base, params, arg_types, ret_ty):
    out = scalar_dtype(ret_ty)

    def h(ex, args, bmask, full, ins):
        lanes, (ptr,) = active_operands(ex, args[:1], bmask, full)
        old = atomic_apply(ex, ptr, np.ones(ptr.shape, np.int32), _FLAG_T, "xchg", lanes)
        return expand_lanes(ex, lanes, (old != 0).astype(out))
    return h


def _atomic_compare_exchange(base, params, arg_types, ret_ty):
    """atomic_compare_exchange_{strong,weak}[_explicit](object, expected, desired, ...):
    compares *object with *expected; equal: stores desired and returns true; else writes the
    value seen to *expected and returns false. Weak never fails spuriously here."""
    val_t = pointee_type(params[0] if params else None, arg_types[2])
    out = scalar_dtype(ret_ty)

    def exchange(ex, lanes, ptr, expected_ptr, desired):
        expected = read_typed(ex, expected_ptr, val_t)
        old = atomic_apply(ex, ptr, desired, val_t, "cmpxchg", lanes, compare=expected)
        ok = same_bits(old, expected)
        if not ok.all():
            ex.cur_lanes = lanes[~ok]
            write_typed(ex, expected_ptr[~ok], old[~ok], val_t)
        return ok

    def h(ex, args, bmask, full, ins):
        lanes, (ptr, expected_ptr, desired) = active_operands(ex, args[:3], bmask, full)
        active = ex.cur_lanes
        if np.unique(expected_ptr).size == expected_ptr.size:
            ok = exchange(ex, active, ptr, expected_ptr, desired)
        else:       # work-items sharing *expected: one after the other, in lane order
            ok = np.concatenate([exchange(ex, active[k:k + 1], ptr[k:k + 1], expected_ptr[k:k + 1],
                                          desired[k:k + 1]) for k in range(ptr.size)])
        return expand_lanes(ex, lanes, ok.astype(out))
    return h


def check_enums(checks, base, handler):
    """The handler, first checking the memory_order / memory_scope arguments of the active
    work-items (the memory is one serial memory, so valid ones need nothing more)."""
    def h(ex, args, bmask, full, ins):
        for k, kind, allowed, rule in checks:
            v = np.asarray(args[k])
            if v.ndim == 0 and int(v) in allowed:
                continue
            v = bcast(v, ex.lane_count)
            bad = bmask & ~np.isin(v, list(allowed))
            if bad.any():
                lane = int(np.argmax(bad))
                value = int(v[lane])
                names = MEMORY_ORDERS if kind == "memory_order" else MEMORY_SCOPES
                if value in names:
                    why = f"{names[value]} is not allowed as {rule} (OpenCL C 6.15.12)"
                else:
                    valid = ", ".join(f"{n} ({i})" for i, n in allowed.items())
                    why = f"invalid {kind} value {value} (valid here: {valid})"
                ex.fault(f"{base}: argument {k + 1}: {why}", lane=lane)
        return handler(ex, args, bmask, full, ins)
    return h


def add_atomic_builtins(t):
    """Enter the atomic built-ins into ocl_builtins' table (name -> handler maker)."""
    for op in ("add", "sub", "xchg", "min", "max", "and", "or", "xor", "inc", "dec"):
        t["atomic_" + op] = t["atom_" + op] = _atomic(op)
    for op in ("fetch_add", "fetch_sub", "fetch_min", "fetch_max", "fetch_and", "fetch_or",
               "fetch_xor", "exchange"):
        t["atomic_" + op] = t["atomic_" + op + "_explicit"] = _atomic(op)
    t["atomic_cmpxchg"] = t["atom_cmpxchg"] = _atomic_cmpxchg
    t["atomic_load"] = t["atomic_load_explicit"] = _atomic_load
    t["atomic_store"] = t["atomic_store_explicit"] = t["atomic_init"] = _atomic_store
    t["atomic_flag_clear"] = t["atomic_flag_clear_explicit"] = _atomic_store
    t["atomic_flag_test_and_set"] = t["atomic_flag_test_and_set_explicit"] = _atomic_flag_test_and_set
    for strength in ("strong", "weak"):
        for suffix in ("", "_explicit"):
            t[f"atomic_compare_exchange_{strength}{suffix}"] = _atomic_compare_exchange
