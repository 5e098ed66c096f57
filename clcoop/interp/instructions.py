"""Instruction handlers of the SIMT interpreter.

Each op is fn(ex, vals, ins, bmask, full) -> value (or None). Inactive lanes may compute
garbage; only operations with side effects or faults restrict themselves to bmask.
"""
import re

import numpy as np

from clcoop import coop_names
from clcoop.errors import IRError
from clcoop.interp import asm_calls, ocl_builtins
from clcoop.ir import call_signatures
from clcoop.interp.atomics import op_atomicrmw, op_cmpxchg
from clcoop.interp.coop_calls import execute_coop_call
from clcoop.interp.coopmat2 import convert_bfloat16
from clcoop.ir.rounding import is_float8
from clcoop.interp.tensor_calls import execute_tensor_call, is_tensor_call
from clcoop.interp.lanes import active_lanes, bcast, expand_lanes
from clcoop.ir.wg_layout import matrix_length
from clcoop.ir.loader import TokenStream, parse_type, parse_typed_constant, value_kind
from clcoop.interp.provenance import pointer_origin, provenance_of, with_provenance
from clcoop.ir.scalars import (float_to_int, BFLOAT16, INT_DTYPES, UINT_DTYPES, odd_int_bits, scalar_dtype,
                                   storage_bits, uint_bits, wrap_int)
from clcoop.interp.typed_memory import (access_shape, all_zero, is_aggregate, map_leaves,
                                        mem_dtype, read_typed, write_typed)


def prepare(tr, ins, rec, operands):
    op = rec.op
    handler = _SIMPLE_OPS.get(op)
    if handler is not None:
        rec.fn = handler
        if op == "store":
            rec.data = tr._type(str(operands[0].type))
        ptr = operands[0] if op == "load" else operands[1] if op == "store" else None
        if ptr is not None and _is_alloca(ptr):
            rec.alloca = rec.args[0] if op == "load" else rec.args[1]
        if ptr is not None:
            rec.base, rec.root = pointer_origin(tr, ptr)
    elif op in _BINARY:
        rec.fn = op_binary
        rec.data = _binary_fn(op, tr._type(str(operands[0].type)))
    elif op in ("icmp", "fcmp"):
        rec.fn = op_compare
        words = rec.text.split(op, 1)[1].split()
        pred = next(w for w in words if w in _PREDICATES)
        rec.data = _compare_fn(op, pred, tr._type(str(operands[0].type)))
    elif op in _CASTS:
        rec.fn = op_cast
        rec.data = (tr._type(str(operands[0].type)), op)
    elif op == "getelementptr":
        rec.fn = op_gep
        rec.data = _prepare_gep(tr, rec, operands)
    elif op == "alloca":
        rec.fn = op_alloca
        ts = TokenStream(rec.text.split("alloca", 1)[1], tr.module.structs)
        rec.data = parse_type(ts)
    elif op == "shufflevector":
        rec.fn = op_shuffle
        rec.data = _shuffle_mask(tr, rec.text)
        rec.args = rec.args[:2]
    elif op == "atomicrmw":
        rec.fn = op_atomicrmw
        words = rec.text.split("atomicrmw", 1)[1].split()
        words = [w for w in words if w != "volatile"]
        rec.data = (words[0], tr._type(str(operands[1].type)))
        if rec.data[1].kind == "vec":
            # LLVM takes floating-point vectors here; OpenCL C's atomics are scalar (6.15.12).
            raise IRError(f"atomic operations on vectors are not supported: {rec.text}")
        rec.base, rec.root = pointer_origin(tr, operands[0])
    elif op == "cmpxchg":
        rec.fn = op_cmpxchg
        rec.data = tr._type(str(operands[1].type))
        rec.base, rec.root = pointer_origin(tr, operands[0])
    elif op in ("extractvalue", "insertvalue"):
        rec.fn = op_extractvalue if op == "extractvalue" else op_insertvalue
        rec.data = [int(x) for x in re.findall(r",\s*(\d+)(?=\s*(?:,|$))", rec.text)]
    elif op == "fence":
        rec.fn = op_nothing
    else:
        raise IRError(f"the interpreter does not support the instruction: {rec.text}")
    bits = odd_int_bits(rec.ty) if rec.ty is not None else None
    if bits is not None:
        rec.fn = _wrapped(rec.fn, bits)


def _wrapped(fn, bits):
    """An op whose iN result (N not 8/16/32/64) is brought back to canonical form: the
    storage dtype computes modulo its own width, iN modulo 2**N (see scalars.wrap_int)."""
    def op(ex, vals, ins, bmask, full):
        return wrap_int(fn(ex, vals, ins, bmask, full), bits)
    return op


def _is_alloca(v):
    # llvmlite's is_instruction is False for operands; read the value kind and the text.
    kind = value_kind(v)
    if kind != "instruction":
        return False
    text = str(v).strip()
    return "=" in text and text.split("=", 1)[1].lstrip().startswith("alloca ")


def op_nothing(ex, vals, ins, bmask, full):
    return None


# ---------------------------------------------------------------- memory

def op_alloca(ex, vals, ins, bmask, full):
    t = ins.data
    if t.kind == "matrix":
        size = matrix_length(t, ex.subgroup_size, ex.nd.wg_size) * ex.layout.size(t.elem)
    else:
        size = ex.layout.size(t)
    count = vals[ins.args[0]] if ins.args else 1
    size *= int(np.max(count)) if np.ndim(count) else int(count)
    # One object per work-item of the batch, each checked on its own (memory.Slots).
    region = ex.memory.allocate_slots(f"private variable {ins.text.split('=')[0].strip()} "
                                      f"in {ex.frame.fn_name}", size, ex.work_item_keys(), "work-item",
                                      8, space=0)
    stride = region.slots.stride
    frame = ex.frame
    frame.allocas.append(region)
    # Direct loads/stores of this alloca use a strided view (no address checks needed);
    # only when it ran once in the frame, so every lane's pointer is in this region.
    frame.alloca_regions[ins.dst] = None if ins.dst in frame.alloca_regions else (region, stride, size)
    return region.base + np.arange(ex.lane_count, dtype=np.int64) * stride


def _alloca_view(ex, ins, t):
    """Strided (L,) or (L, n) view of a private alloca accessed by a load/store, or None
    (cached per frame: a loop body reuses the view)."""
    frame = ex.frame
    key = id(ins)
    cached = frame.alloca_views.get(key, _MISSING)
    if cached is _MISSING or (cached is not None and cached[3] is not frame.alloca_regions.get(ins.alloca)):
        cached = _make_alloca_view(ex, ins, t)
        frame.alloca_views[key] = cached
    return cached


_MISSING = object()


def _make_alloca_view(ex, ins, t):
    entry = ex.frame.alloca_regions.get(ins.alloca)
    if entry is None or is_aggregate(t) or t.kind not in ("int", "float", "ptr", "event", "vec", "matrix"):
        return None
    region, stride, size = entry
    dtype, n, es = access_shape(ex, t)
    mdt = mem_dtype(ex, t, dtype)
    if (n or 1) * mdt.itemsize > size or (n is not None and mdt.itemsize != es) or stride % mdt.itemsize:
        return None
    shape = (ex.lane_count,) if n is None else (ex.lane_count, n)
    strides = (stride,) if n is None else (stride, mdt.itemsize)
    if is_float8(mdt):
        # NumPy's as_strided cannot rebuild an ml_dtypes float8 array (its type string '<f1'
        # is unknown to the array interface): stride over the bytes, then view them.
        bytes_view = np.lib.stride_tricks.as_strided(region.view(np.dtype(np.uint8)), shape=shape, strides=strides)
        return bytes_view.view(mdt), dtype, mdt, entry
    view = region.view(mdt)
    return np.lib.stride_tricks.as_strided(view, shape=shape, strides=strides), dtype, mdt, entry


def op_load(ex, vals, ins, bmask, full):
    L = ex.lane_count
    if ins.alloca is not None:
        direct = _alloca_view(ex, ins, ins.ty)
        if direct is not None:
            view, dtype, mdt, _ = direct
            if ins.ty.kind == "matrix":
                stored = _stored_matrix(ex, ins, view, dtype, mdt)
                if stored is not None:
                    return stored
            return view.astype(dtype) if mdt == dtype or dtype != np.bool_ else view != 0
    addrs = bcast(vals[ins.args[0]], L)
    lanes = active_lanes(ex, bmask, full)
    if lanes is not None:
        addrs = addrs[lanes]
    with_provenance(ex, vals, ins, lanes)
    try:
        value = read_typed(ex, addrs, ins.ty)
    finally:
        ex.memory.provenance = None
    if isinstance(value, tuple):
        return map_leaves(lambda v: expand_lanes(ex, lanes, v), value)
    return expand_lanes(ex, lanes, value)


def _stored_matrix(ex, ins, view, dtype, mdt):
    """-O0 code keeps matrix variables in allocas: a load of the matrix last stored
    whole to the alloca returns that very value (no copy; its cached logical form stays
    usable, clcoop.interp.coop_calls) when memory still holds its exact bits, whoever
    wrote in between."""
    stored = ex.frame.stored_matrices.get(ins.alloca)
    if stored is None or mdt != dtype:
        return None
    lanes = np.asarray(stored)
    if lanes.dtype != dtype or lanes.shape != view.shape:
        return None
    bits = np.dtype(f"u{dtype.itemsize}") if dtype.itemsize in (1, 2, 4, 8) else None
    if bits is None or not np.array_equal(view.view(bits), lanes.view(bits)):
        return None
    return stored


def op_store(ex, vals, ins, bmask, full):
    L = ex.lane_count
    value = vals[ins.args[0]]
    if ins.alloca is not None and not isinstance(value, tuple):
        direct = _alloca_view(ex, ins, ins.data)
        if direct is not None:
            view, dtype, mdt, _ = direct
            ex.frame.stored_matrices.pop(ins.alloca, None)
            if full:
                view[...] = np.asarray(value).astype(mdt, copy=False)
                if ins.data.kind == "matrix":
                    ex.frame.stored_matrices[ins.alloca] = value
            else:
                lanes = np.nonzero(bmask)[0]
                view[lanes] = bcast(value, L)[lanes].astype(mdt, copy=False)
            return None
    addrs = bcast(vals[ins.args[1]], L)
    lanes = active_lanes(ex, bmask, full)
    if isinstance(value, tuple):
        if not all_zero(value):
            value = map_leaves(lambda v: bcast(v, L) if lanes is None else bcast(v, L)[lanes], value)
        if lanes is not None:
            addrs = addrs[lanes]
    else:
        value = bcast(value, L)
        if lanes is not None:
            addrs, value = addrs[lanes], value[lanes]
    with_provenance(ex, vals, ins, lanes)
    try:
        write_typed(ex, addrs, value, ins.data)
    finally:
        ex.memory.provenance = None
    return None



def _prepare_gep(tr, rec, operands):
    text = rec.text.split("getelementptr", 1)[1]
    ts = TokenStream(text, tr.module.structs)
    while ts.peek() in ("inbounds", "nuw", "nusw", "inrange"):
        ts.next()
    src = parse_type(ts)
    layout = tr.module.layout
    const_off = 0
    terms = []          # (slot, stride)
    t = src
    for k, v in enumerate(operands[1:]):
        slot = rec.args[k + 1]
        cv = tr.fn.template[slot]
        if k == 0:
            stride = layout.size(src)
        elif t.kind == "struct":
            offsets, _ = layout.struct_layout(t)
            field = int(cv)
            const_off += offsets[field]
            t = t.fields[field]
            continue
        else:
            t = t.elem
            stride = layout.size(t)
        if cv is not None and np.ndim(cv) == 0:
            const_off += int(cv) * stride
        else:
            terms.append((slot, stride))
    # (address arithmetic wraps at the pointer's width, LangRef getelementptr: an offset
    # past 64 bits is an address like any other, faulting where it lands)
    return np.int64((const_off + (1 << 63)) % (1 << 64) - (1 << 63)), terms


def op_gep(ex, vals, ins, bmask, full):
    const_off, terms = ins.data
    addr = vals[ins.args[0]]
    for slot, stride in terms:
        idx = vals[slot]
        if np.ndim(idx) > 1:
            raise IRError(f"vector GEPs are not supported: {ins.text}")
        addr = addr + idx.astype(np.int64) * np.int64(stride)
    if const_off:
        addr = addr + const_off
    return addr


# ---------------------------------------------------------------- arithmetic

def _sdiv(a, b):
    r = np.fmod(a, b)
    return (a - r) // b


def _div_guard(ex, ins, b, bmask, full):
    zero = b == 0
    if np.ndim(zero) == 0:
        if zero:
            ex.fault("integer division by zero", bmask)
        return b
    bad = zero if full else zero & (bmask if zero.ndim == 1 else bmask[:, None])
    if bad.any():
        lanes = bad if bad.ndim == 1 else bad.any(axis=1)
        ex.fault("integer division by zero", lanes)
    return np.where(zero, np.ones_like(b), b)


_BINARY = {"add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr",
           "and", "or", "xor", "fadd", "fsub", "fmul", "fdiv", "frem"}


def _binary_fn(op, t):
    elem = t.elem if t.kind == "vec" else t
    if elem.kind == "int" and elem.bits == 1:
        return {"add": np.logical_xor, "sub": np.logical_xor, "mul": np.logical_and,
                "and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor,
                "udiv": lambda a, b: a, "sdiv": lambda a, b: a,
                "urem": lambda a, b: np.zeros_like(a), "srem": lambda a, b: np.zeros_like(a),
                "shl": lambda a, b: a, "lshr": lambda a, b: a, "ashr": lambda a, b: a}[op]
    bits = elem.bits if elem.kind == "int" else None
    if op in ("add", "fadd"):
        return np.add
    if op in ("sub", "fsub"):
        return np.subtract
    if op in ("mul", "fmul"):
        return np.multiply
    if op == "fdiv":
        return np.divide
    if op == "frem":
        return np.fmod
    if op == "and":
        return np.bitwise_and
    if op == "or":
        return np.bitwise_or
    if op == "xor":
        return np.bitwise_xor
    # Non-standard iN: operands are canonical (sign-extended), so signed ops work on the
    # storage dtype; unsigned ones read the low N bits. Shifts by N or more are poison.
    sdt, udt = INT_DTYPES[storage_bits(bits)], UINT_DTYPES[storage_bits(bits)]
    shift_mask = storage_bits(bits) - 1
    if op == "shl":
        return lambda a, b: np.left_shift(a, (b & shift_mask).astype(sdt))
    if op == "ashr":
        return lambda a, b: np.right_shift(a, (b & shift_mask).astype(sdt))
    if op == "lshr":
        return lambda a, b: np.right_shift(uint_bits(a, bits), (np.asarray(b) & shift_mask).astype(udt)).astype(sdt)
    if op == "udiv":
        return lambda a, b: (uint_bits(a, bits) // uint_bits(b, bits)).astype(sdt)
    if op == "urem":
        return lambda a, b: (uint_bits(a, bits) % uint_bits(b, bits)).astype(sdt)
    if op == "sdiv":
        return lambda a, b: _sdiv(np.asarray(a), np.asarray(b)).astype(sdt)
    if op == "srem":
        return lambda a, b: np.fmod(np.asarray(a), np.asarray(b)).astype(sdt)
    raise IRError(f"unsupported binary operator {op}")


def op_binary(ex, vals, ins, bmask, full):
    a, b = vals[ins.args[0]], vals[ins.args[1]]
    if ins.op in ("udiv", "sdiv", "urem", "srem") and b is not None and np.asarray(b).dtype != np.bool_:
        b = _div_guard(ex, ins, b, bmask, full)
    return ins.data(a, b)


def op_fneg(ex, vals, ins, bmask, full):
    return np.negative(vals[ins.args[0]])


def op_freeze(ex, vals, ins, bmask, full):
    return vals[ins.args[0]]


_PREDICATES = {"eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle", "false",
               "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "une", "uno", "true"}


def _compare_fn(op, pred, t):
    if op == "icmp":
        elem = t.elem if t.kind == "vec" else t
        if pred in ("eq", "ne", "sgt", "sge", "slt", "sle") or elem.kind == "ptr" or elem.bits == 1:
            base = {"eq": np.equal, "ne": np.not_equal, "sgt": np.greater, "sge": np.greater_equal,
                    "slt": np.less, "sle": np.less_equal, "ugt": np.greater, "uge": np.greater_equal,
                    "ult": np.less, "ule": np.less_equal}[pred]
            return base
        bits = elem.bits
        base = {"ugt": np.greater, "uge": np.greater_equal, "ult": np.less, "ule": np.less_equal}[pred]
        return lambda a, b: base(uint_bits(a, bits), uint_bits(b, bits))
    # fcmp: ordered predicates are false when either operand is NaN (LangRef "fcmp").
    def unordered(a, b):
        return np.isnan(a) | np.isnan(b)
    table = {
        "false": lambda a, b: np.zeros(np.broadcast(a, b).shape, bool),
        "true": lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
        "oeq": np.equal, "ogt": np.greater, "oge": np.greater_equal, "olt": np.less,
        "ole": np.less_equal, "one": lambda a, b: np.not_equal(a, b) & ~unordered(a, b),
        "ord": lambda a, b: ~unordered(a, b), "uno": unordered,
        "ueq": lambda a, b: np.equal(a, b) | unordered(a, b),
        "ugt": lambda a, b: np.greater(a, b) | unordered(a, b),
        "uge": lambda a, b: np.greater_equal(a, b) | unordered(a, b),
        "ult": lambda a, b: np.less(a, b) | unordered(a, b),
        "ule": lambda a, b: np.less_equal(a, b) | unordered(a, b),
        "une": np.not_equal,
    }
    return table[pred]


def op_compare(ex, vals, ins, bmask, full):
    return ins.data(vals[ins.args[0]], vals[ins.args[1]])


def op_select(ex, vals, ins, bmask, full):
    c, a, b = vals[ins.args[0]], vals[ins.args[1]], vals[ins.args[2]]
    if isinstance(a, tuple):
        return tuple(np.where(_cond_shape(c, x), x, y) for x, y in zip(a, b))
    if np.ndim(c) == 0:
        return a if c else b
    return np.where(_cond_shape(c, a, b), a, b)


def _cond_shape(c, a, b=None):
    c = np.asarray(c)
    target = max(np.ndim(a), np.ndim(b) if b is not None else 0)
    if c.ndim == 1 and target == 2:
        return c[:, None]
    return c


# ---------------------------------------------------------------- casts

_CASTS = {"trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
          "ptrtoint", "inttoptr", "bitcast", "addrspacecast"}


def _to_bfloat16(op, v, src_elem):
    """fptrunc/sitofp/uitofp to bfloat: one nearest-even rounding of the exact source value
    (clang-22 rounds double -> __bf16 once; NumPy/ml_dtypes would go through float32)."""
    if v.dtype == np.bool_:
        v = -(v.astype(np.int8)) if op == "sitofp" else v.astype(np.uint8)
    elif op == "uitofp":
        v = uint_bits(v, src_elem.bits)
    return convert_bfloat16(v, BFLOAT16)


def op_cast(ex, vals, ins, bmask, full):
    src_t, op = ins.data
    v = np.asarray(vals[ins.args[0]])
    dst_t = ins.ty
    dst = scalar_dtype(dst_t)
    src_elem = src_t.elem if src_t.kind == "vec" else src_t
    if op == "addrspacecast":
        return v
    if v.dtype == BFLOAT16 and op != "bitcast":
        v = v.astype(np.float32)     # exact (SPV_KHR_bfloat16: the significand is padded with 0s)
    if dst == BFLOAT16 and op in ("fptrunc", "sitofp", "uitofp"):
        return _to_bfloat16(op, v, src_elem)
    if op == "trunc":
        if dst == np.bool_:
            return (v & 1).astype(bool)
        return v.astype(dst)
    if op == "zext":
        if v.dtype == np.bool_:
            return v.astype(dst)
        return uint_bits(v, src_elem.bits).astype(dst)
    if op == "sext":
        if v.dtype == np.bool_:
            return -(v.astype(dst))
        return v.astype(dst)
    if op in ("fptrunc", "fpext", "sitofp"):
        if op == "sitofp" and v.dtype == np.bool_:
            # i1 true is -1; negate in integers so false stays +0.0, not -0.0
            return (-(v.astype(np.int8))).astype(dst)
        return v.astype(dst)
    if op == "uitofp":
        if v.dtype == np.bool_:
            return v.astype(dst)
        return uint_bits(v, src_elem.bits).astype(dst)
    if op in ("fptosi", "fptoui"):
        if dst == np.bool_:
            return v != 0
        # Saturating, NaN -> 0 (scalars.float_to_int: out of range is poison in LLVM,
        # undefined in C; one rule for both engines). fptoui saturates to the unsigned
        # range, whose bits the signless dtype holds.
        rng = dst if op == "fptosi" else np.dtype(dst).str.replace("i", "u")
        return float_to_int(v, rng).astype(dst)
    if op == "ptrtoint":
        return v.astype(dst)
    if op == "inttoptr":
        if src_elem.bits < 64:
            return uint_bits(v, src_elem.bits).astype(np.int64)
        return v.astype(np.int64)
    if op == "bitcast":
        return _bitcast(v, src_t, dst_t, ex.lane_count)
    raise IRError(f"unsupported cast {op}")


def _bitcast(v, src_t, dst_t, L):
    if src_t == dst_t or (src_t.kind == "ptr" and dst_t.kind == "ptr"):
        return v
    if _narrow(src_t) or _narrow(dst_t):
        return _bitcast_bits(v, src_t, dst_t)
    dst = scalar_dtype(dst_t)
    per_lane = v.ndim > (1 if src_t.kind == "vec" else 0)
    if not per_lane:
        out = np.ascontiguousarray(v).view(dst)
        return out[0] if dst_t.kind != "vec" else out
    v = np.ascontiguousarray(v.reshape(v.shape[0], -1))
    out = v.view(dst)
    return out[:, 0] if dst_t.kind != "vec" else out


def _bitcast_bits(v, src_t, dst_t):
    """A bitcast where a side holds integers narrower than their storage (<8 x i1> to i8,
    <3 x i8> to i24): LLVM keeps the bits (LangRef "bitcast": a store then a load, element
    0 in the low bits), which NumPy's view of whole storage words does not."""
    (s_elem, s_n), (d_elem, d_n) = _elements(src_t), _elements(dst_t)
    rows = np.asarray(v)
    per_lane = rows.ndim > (1 if src_t.kind == "vec" else 0)
    rows = np.ascontiguousarray(rows.reshape(-1, s_n))
    raw = rows.view(UINT_DTYPES[rows.dtype.itemsize * 8]).astype(object) & ((1 << s_elem.bits) - 1)
    totals = sum(raw[:, i] << (i * s_elem.bits) for i in range(s_n))
    storage = scalar_dtype(d_elem)
    mask = (1 << d_elem.bits) - 1
    words = np.array([[(int(t) >> (j * d_elem.bits)) & mask for j in range(d_n)] for t in totals],
                     UINT_DTYPES[storage.itemsize * 8])
    out = words.view(storage)
    if odd_int_bits(d_elem):
        out = wrap_int(out, d_elem.bits)
    out = out if dst_t.kind == "vec" else out[:, 0]
    return out if per_lane else out[0]


def _elements(t):
    return (t.elem, t.n) if t.kind == "vec" else (t, 1)


def _narrow(t):
    """Integers (or vector elements) of fewer bits than their storage: i1 (bool), i24, ..."""
    elem = _elements(t)[0]
    return elem.kind == "int" and elem.bits != scalar_dtype(elem).itemsize * 8


# ---------------------------------------------------------------- vectors and aggregates

def op_extractelement(ex, vals, ins, bmask, full):
    v, idx = vals[ins.args[0]], vals[ins.args[1]]
    v = np.asarray(v)
    if np.ndim(idx) == 0:   # (an index past the end gives poison, LangRef: any element does)
        return v[..., int(idx) % v.shape[-1]] if v.ndim else v
    idx = bcast(np.asarray(idx).astype(np.int64) % v.shape[-1], ex.lane_count)
    v = bcast(v, ex.lane_count)
    return v[np.arange(v.shape[0]), idx]


def op_insertelement(ex, vals, ins, bmask, full):
    v, x, idx = vals[ins.args[0]], vals[ins.args[1]], vals[ins.args[2]]
    v = np.asarray(v)
    if np.ndim(idx) == 0:   # (an index past the end gives poison, LangRef: any vector does)
        idx = int(idx) % v.shape[-1]
    if v.shape[0] == 1 and np.ndim(x) == 0 and np.ndim(idx) == 0 and ex.lane_count != 1:
        out = v.copy()              # still a constant (1, n) vector
        out[:, idx] = x
        return out
    out = np.array(bcast(v, ex.lane_count))
    if np.ndim(idx) == 0:
        out[:, idx] = x
    else:
        idx = np.asarray(idx).astype(np.int64) % out.shape[1]
        out[np.arange(out.shape[0]), idx] = bcast(x, ex.lane_count)
    return out


def _shuffle_mask(tr, text):
    # "... , <4 x i32> <i32 0, i32 poison, ...>" or "<4 x i32> zeroinitializer" or poison
    m = re.search(r",\s*(<\d+ x i32>\s*(?:<[^<>]*>|zeroinitializer|poison|undef))\s*$", text)
    if not m:
        raise IRError(f"cannot read the shuffle mask of: {text}")
    ts = TokenStream(m.group(1), tr.module.structs)
    c = parse_typed_constant(ts)
    n = c.ty.n
    if c.kind in ("zero",):
        return np.zeros(n, np.int64)
    if c.kind == "undef":
        return np.zeros(n, np.int64)
    return np.array([0 if e.kind == "undef" else int(e.value) for e in c.value], np.int64)


def op_shuffle(ex, vals, ins, bmask, full):
    a, b = np.asarray(vals[ins.args[0]]), np.asarray(vals[ins.args[1]])
    if a.shape[0] != b.shape[0]:
        a, b = bcast(a, ex.lane_count), bcast(b, ex.lane_count)
    both = np.concatenate([a, b], axis=-1)
    return both[..., ins.data]


def op_extractvalue(ex, vals, ins, bmask, full):
    v = vals[ins.args[0]]
    for i in ins.data:
        v = v[i]
    return v


def op_insertvalue(ex, vals, ins, bmask, full):
    agg, x = vals[ins.args[0]], vals[ins.args[1]]
    return _insert_path(agg, ins.data, x)


def _insert_path(agg, path, x):
    items = list(agg)
    if len(path) == 1:
        items[path[0]] = x
    else:
        items[path[0]] = _insert_path(items[path[0]], path[1:], x)
    return tuple(items)


# ---------------------------------------------------------------- calls

def resolve_call(tr, callee, arg_values, rec, result_type):
    """Pre-resolve a call: ('function', name) | ('builtin', handler) | ('coop', name).
    result_type: the call's llvmlite result type (its signature is checked against the
    callee's, call_signatures.py)."""
    name = callee.name
    kind = value_kind(callee)
    if kind == "inline_asm":      # checked when the module was loaded (load_module)
        return ("builtin", asm_calls.handler(str(callee)))
    if kind != "function" or not name:
        raise IRError(f"indirect calls are not supported: {rec.text}")
    f = tr.module.functions.get(name)
    reason = call_signatures.mismatch(f, f.global_value_type, result_type, [a.type for a in arg_values],
                                      tr.module.structs)
    if reason is not None:
        raise IRError(f"in @{tr.fn.name}: {reason}: {rec.text}")
    if f is not None and not f.is_declaration:
        if name in _recursive(tr.module):
            raise IRError(f"in @{tr.fn.name}: recursion through @{name} (OpenCL C 3.0 6.11: "
                          f"functions may not call themselves): {rec.text}")
        return ("function", name)
    if coop_names.names_spirv_operation(name):
        # Function operands (`ptr @f`) are called as the operation calls them: check them.
        reason = call_signatures.function_operand_mismatch(
            name, tr._type(str(result_type)), [tr._type(str(a.type)) for a in arg_values], arg_values,
            tr.module.functions, tr.module.kernels)
        if reason is not None:
            raise IRError(f"in @{tr.fn.name}: {reason}: {rec.text}")
        return ("tensor" if is_tensor_call(name) else "coop", name)
    arg_types = [tr._type(str(a.type)) for a in arg_values]
    handler = ocl_builtins.resolve(name, arg_types, rec.ty, rec.text)
    if name.startswith(_MEMORY_INTRINSICS):
        # Each pointer is checked against the object it was derived from, as a load's or a
        # store's (provenance.py), whatever else the bytes it reaches belong to.
        pointers = arg_values[:1] if name.startswith("llvm.memset") else arg_values[:2]
        rec.origins = [pointer_origin(tr, p) for p in pointers]
    return ("builtin", handler)


_MEMORY_INTRINSICS = ("llvm.memset", "llvm.memcpy", "llvm.memmove")


def _recursive(module):
    """The module's recursive functions, found once (call_signatures.recursive_functions)."""
    found = getattr(module, "_recursive_functions", None)
    if found is None:
        found = module._recursive_functions = call_signatures.recursive_functions(module.functions)
    return found


def op_call(ex, vals, ins, bmask, full):
    kind, target = ins.data
    args = [vals[a] for a in ins.args]
    if kind == "function":
        saved = ex.current
        result = ex.call(target, args, bmask)
        ex.current = saved
        return result
    ex.mask = bmask
    if kind in ("coop", "tensor"):
        ex.cur_lanes = None
        L = ex.lane_count
        args = [bcast(a, L) if a is not None and not isinstance(a, tuple) else a for a in args]
        return (execute_coop_call if kind == "coop" else execute_tensor_call)(ex, target, args, ins.ty)
    origins = ins.origins
    if origins is None:
        return target(ex, args, bmask, full, ins)
    lanes = active_lanes(ex, bmask, full)
    ex.pointer_provenance = [provenance_of(ex, vals, base, root, lanes) for base, root in origins]
    try:
        return target(ex, args, bmask, full, ins)
    finally:
        ex.pointer_provenance = None


_SIMPLE_OPS = {
    "load": op_load, "store": op_store, "fneg": op_fneg, "freeze": op_freeze,
    "select": op_select, "extractelement": op_extractelement,
    "insertelement": op_insertelement,
}

