"""OpenCL C built-in functions and LLVM intrinsics for the interpreter.

Built-ins arrive as calls to Itanium-mangled declarations, as clang names them
(`_Z13get_global_idj`, `_Z4sqrtf`, `_Z6vload4mPU3AS4Kf`, ...). A small demangler
recovers the base name and the parameter types (signedness of integers, pointee types),
and `resolve` returns a handler `h(ex, args, bmask, full, ins) -> value` computing the
result for all lanes at once.
"""
import math
import re

import numpy as np

from clcoop import float8 as float8_names
from clcoop.errors import IRError
from clcoop.interp import float8, float_order, fused, integer_dot, math_edges, printf
from clcoop.interp.atomics import add_atomic_builtins, check_enums
from clcoop.ir.atomic_enums import enum_checks
from clcoop.ir.demangle import demangle, pointee_type, signed_param  # noqa: F401 (demangle: native/codegen)
from clcoop.interp.intrinsics import (clz, ctz, exact_int, popcount, resolve_intrinsic,
                                      round_half_away)
from clcoop.interp.lanes import active_lanes, bcast, expand_lanes
from clcoop.ir.scalars import INT_DTYPES, as_unsigned, float_to_int, scalar_dtype
from clcoop.interp.extended_bit_ops import add_extended_bit_ops
from clcoop.interp.subgroup_ballot import add_ballot_builtins
from clcoop.interp.typed_memory import write_typed


# ============================================================================ helpers

def _elementwise(fn, unsigned_args=False, float_result=False):
    def make(base, params, arg_types, ret_ty):
        out = scalar_dtype(ret_ty)
        uns = unsigned_args and not signed_param(params, 0)
        splat = _scalar_operands_of_vector_call(arg_types, ret_ty)

        def h(ex, args, bmask, full, ins):
            with np.errstate(all="ignore"):
                a = [(as_unsigned(x) if uns else np.asarray(x)) for x in args]
                return np.asarray(fn(*_splat(a, splat))).astype(out)
        return h
    return make


def _scalar_operands_of_vector_call(arg_types, ret_ty):
    """Indices of the scalar operands of a built-in returning a vector (max(float4, float),
    clamp(int4, int, int), ldexp(float4, int): OpenCL C 3.0 6.15's sgentype overloads)."""
    if ret_ty.kind != "vec":
        return ()
    return tuple(k for k, t in enumerate(arg_types) if t.kind != "vec")


def _splat(args, scalar_operands):
    """A scalar operand's lane values (shape (lanes,)) against the vectors' (lanes, n)."""
    for k in scalar_operands:
        if args[k].ndim == 1:
            args[k] = args[k][:, None]
    return args


def _float_fn(fn):
    return _elementwise(fn)


# ============================================================================ work-items

def _dim_value(ex, dim, per_dim, default):
    """per_dim(d) for d < 3 else default (OpenCL: out-of-range dimindx)."""
    if np.ndim(dim) == 0:
        d = int(dim)
        return per_dim(d) if 0 <= d < 3 else default
    dim = np.asarray(dim)
    res = np.full(ex.lane_count, default, np.int64)
    for d in range(3):
        sel = dim == d
        if sel.any():
            res = np.where(sel, per_dim(d), res)
    return res


def _workitem(kind):
    def make(base, params, arg_types, ret_ty):
        out = scalar_dtype(ret_ty)

        def h(ex, args, bmask, full, ins):
            nd, ids = ex.nd, ex.lane_ids
            dim = args[0] if args else 0
            if kind == "global_id":
                v = _dim_value(ex, dim, ids.global_id, 0)
            elif kind == "local_id":
                v = _dim_value(ex, dim, ids.local_id, 0)
            elif kind == "group_id":
                v = _dim_value(ex, dim, ids.group_id, 0)
            elif kind in ("global_size",):
                v = _dim_value(ex, dim, lambda d: nd.global_size[d], 1)
            elif kind in ("local_size", "enqueued_local_size"):
                v = _dim_value(ex, dim, lambda d: nd.local_size[d], 1)
            elif kind == "num_groups":
                v = _dim_value(ex, dim, lambda d: nd.num_groups[d], 1)
            elif kind == "global_offset":
                v = _dim_value(ex, dim, lambda d: nd.offset[d], 0)
            elif kind == "work_dim":
                v = nd.dims
            elif kind == "global_linear_id":
                gs = nd.global_size
                v = (ids.global_id(0) - nd.offset[0]) + (ids.global_id(1) - nd.offset[1]) * gs[0] + \
                    (ids.global_id(2) - nd.offset[2]) * gs[0] * gs[1]
            elif kind == "local_linear_id":
                v = ids.llid
            elif kind == "sub_group_size":
                S = ex.subgroup_size
                v = np.minimum(S, nd.wg_size - (ids.llid // S) * S)
            elif kind == "max_sub_group_size":
                v = min(ex.subgroup_size, nd.wg_size)
            elif kind in ("num_sub_groups", "enqueued_num_sub_groups"):
                v = -(-nd.wg_size // ex.subgroup_size)
            elif kind == "sub_group_id":
                v = ids.llid // ex.subgroup_size
            elif kind == "sub_group_local_id":
                v = ids.llid % ex.subgroup_size
            else:
                raise IRError(f"unknown work-item function {kind}")
            return np.asarray(v).astype(out)[()] if np.ndim(v) == 0 else np.asarray(v).astype(out)
        return h
    return make


def _barrier(scope):
    def make(base, params, arg_types, ret_ty):
        def h(ex, args, bmask, full, ins):
            check_convergence(ex, bmask, scope, base)
            return None
        return h
    return make


def check_convergence(ex, bmask, scope, what):
    """All work-items of each work-group (or sub-group) must reach a barrier together."""
    if scope == "work_group":
        if ex.runs_part_of_work_groups():
            ex.fault(f"{what}: a work-group barrier or collective cannot run when the sub-groups "
                     f"of a work-group run one at a time (serial_subgroups=True); run such kernels "
                     f"with one sub-group per work-group, or without serial_subgroups",
                     lane=int(np.argmax(bmask)))
        size = ex.nd.wg_size
        per = bmask.reshape(-1, size)
        counts = per.sum(axis=1)
        bad = (counts > 0) & (counts < size)
        if bad.any():
            g = int(np.argmax(bad))
            missing = int(np.argmax(~per[g])) + g * size
            arrived = int(np.argmax(per[g])) + g * size
            mid = ex.lane_ids.describe(missing)[0]
            ex.fault(f"{what}: barrier reached under divergent control flow: work-item "
                     f"{ex.lane_ids.describe(arrived)[0]} arrived but work-item {mid} "
                     f"of the same work-group did not", lane=arrived)
    else:
        S = ex.subgroup_size
        per_wg = -(-ex.nd.wg_size // S)
        sg = (ex.lane_ids.group_linear - ex.lane_ids.first_group) * per_wg + ex.lane_ids.llid // S
        active_sg = np.unique(sg[bmask])
        inactive_in_active = np.isin(sg, active_sg) & ~bmask
        if inactive_in_active.any():
            lane = int(np.argmax(inactive_in_active))
            ex.fault(f"{what}: sub-group operation reached under divergent control flow: "
                     f"work-item {ex.lane_ids.describe(lane)[0]} of the sub-group is not active",
                     lane=int(np.argmax(bmask & (sg == sg[lane]))))   # (a work-item of that sub-group)


def _nothing(base, params, arg_types, ret_ty):
    return lambda ex, args, bmask, full, ins: None


# ============================================================================ sub-groups

def _subgroup_matrix(ex, values, fill):
    """(n_subgroups_total, S) padded table of per-lane values, and the index of each lane."""
    S = ex.subgroup_size
    wg = ex.nd.wg_size
    per_wg = -(-wg // S)
    llid = ex.lane_ids.llid
    g = ex.lane_ids.group_linear - ex.lane_ids.first_group
    rows = g * per_wg + llid // S
    cols = llid % S
    values = bcast(values, ex.lane_count)
    table = np.full((ex.group_count * per_wg, S) + values.shape[1:], fill, values.dtype)
    table[rows, cols] = values
    return table, rows, cols


def _sub_group_collective(kind, op):
    def make(base, params, arg_types, ret_ty):
        out = scalar_dtype(ret_ty) if ret_ty.kind != "void" else None
        signed = signed_param(params, 0)

        def h(ex, args, bmask, full, ins):
            check_convergence(ex, bmask, "sub_group", base)
            x = np.asarray(args[0]) if args else None
            if x is not None and x.dtype.kind == "i" and not signed:
                x = as_unsigned(x)
            if kind == "broadcast":
                table, rows, cols = _subgroup_matrix(ex, x, 0)
                idx = bcast(args[1], ex.lane_count).astype(np.int64) % ex.subgroup_size
                return table[rows, idx].astype(out)
            if kind == "shuffle":
                table, rows, cols = _subgroup_matrix(ex, x, 0)
                idx = bcast(args[1], ex.lane_count).astype(np.int64)
                if op == "xor":
                    idx = cols ^ idx
                elif op == "up":
                    idx = cols - idx
                elif op == "down":
                    idx = cols + idx
                idx = np.clip(idx, 0, ex.subgroup_size - 1)
                return table[rows, idx].astype(out)
            if kind in ("all", "any"):
                table, rows, cols = _subgroup_matrix(ex, (x != 0).astype(np.int8), 1 if kind == "all" else 0)
                r = table.all(axis=1) if kind == "all" else table.any(axis=1)
                return r[rows].astype(out)
            identity = _identity(op, x.dtype)
            active = bmask
            xm = np.where(active, bcast(x, ex.lane_count), identity)
            table, rows, cols = _subgroup_matrix(ex, xm, identity)
            if kind == "reduce":
                r = _reduce(op, table, axis=1)
                return r[rows].astype(out)
            scan = _scan(op, table)
            if kind == "scan_inclusive":
                return scan[rows, cols].astype(out)
            excl = np.concatenate([np.full((table.shape[0], 1), identity, table.dtype), scan[:, :-1]], axis=1)
            return excl[rows, cols].astype(out)
        return h
    return make


def _work_group_collective(kind, op):
    def make(base, params, arg_types, ret_ty):
        out = scalar_dtype(ret_ty)
        signed = signed_param(params, 0)

        def h(ex, args, bmask, full, ins):
            check_convergence(ex, bmask, "work_group", base)
            wg = ex.nd.wg_size
            x = bcast(np.asarray(args[0]), ex.lane_count)
            if x.dtype.kind == "i" and not signed:
                x = as_unsigned(x)
            table = x.reshape(ex.group_count, wg)
            if kind == "broadcast":
                ids = [np.asarray(a) for a in args[1:]]
                lin = bcast(ids[0], ex.lane_count).astype(np.int64)
                if len(ids) > 1:
                    lin = lin + bcast(ids[1], ex.lane_count).astype(np.int64) * ex.nd.local_size[0]
                if len(ids) > 2:
                    lin = lin + bcast(ids[2], ex.lane_count).astype(np.int64) * ex.nd.local_size[0] * ex.nd.local_size[1]
                g = np.repeat(np.arange(ex.group_count), wg)
                return table[g, lin % wg].astype(out)
            if kind in ("all", "any"):
                r = (table != 0).all(axis=1) if kind == "all" else (table != 0).any(axis=1)
                return np.repeat(r, wg).astype(out)
            if kind == "reduce":
                return np.repeat(_reduce(op, table, axis=1), wg).astype(out)
            scan = _scan(op, table)
            if kind == "scan_inclusive":
                return scan.reshape(-1).astype(out)
            identity = _identity(op, table.dtype)
            excl = np.concatenate([np.full((table.shape[0], 1), identity, table.dtype), scan[:, :-1]], axis=1)
            return excl.reshape(-1).astype(out)
        return h
    return make


def _identity(op, dtype):
    if op == "add":
        return dtype.type(0)
    if op == "mul":
        return dtype.type(1)
    if op in ("min", "max"):
        if dtype.kind == "f":
            return dtype.type(np.inf if op == "min" else -np.inf)
        info = np.iinfo(dtype)
        return dtype.type(info.max if op == "min" else info.min)
    if op in ("and", "logical_and"):
        return dtype.type(-1) if dtype.kind == "i" else dtype.type(np.iinfo(dtype).max)
    return dtype.type(0)


def _reduce(op, table, axis):
    return {"add": np.sum, "mul": np.prod, "min": np.min, "max": np.max,
            "and": np.bitwise_and.reduce, "or": np.bitwise_or.reduce,
            "xor": np.bitwise_xor.reduce}[op](table, axis=axis).astype(table.dtype)


def _scan(op, table):
    ufunc = {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum,
             "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    return ufunc.accumulate(table, axis=1, dtype=table.dtype)


# ============================================================================ vload/vstore

def _vload(n, half=False):
    def make(base, params, arg_types, ret_ty):
        pointee = params[1][2] if params and len(params) > 1 and params[1][0] == "ptr" else None
        elem_t = ret_ty.elem if ret_ty.kind == "vec" else ret_ty
        mem_dtype = np.dtype(np.float16) if half else scalar_dtype(elem_t)
        if pointee is not None and pointee[0] == "int" and not half:
            mem_dtype = INT_DTYPES[pointee[1]]
        out = scalar_dtype(ret_ty)

        def h(ex, args, bmask, full, ins):
            offset = bcast(args[0], ex.lane_count).astype(np.int64)
            ptr = bcast(args[1], ex.lane_count)
            lanes = active_lanes(ex, bmask, full)
            if lanes is not None:
                offset, ptr = offset[lanes], ptr[lanes]
            es = mem_dtype.itemsize
            addrs = ptr + offset * (n * es)
            if n > 1:
                addrs = addrs[:, None] + np.arange(n) * es
            v = ex.memory.load(addrs, mem_dtype).astype(out)
            return expand_lanes(ex, lanes, v)
        return h
    return make


def _vstore(n, half=False):
    def make(base, params, arg_types, ret_ty):
        mem_dtype = np.dtype(np.float16) if half else scalar_dtype(arg_types[0].elem if arg_types[0].kind == "vec" else arg_types[0])

        def h(ex, args, bmask, full, ins):
            L = ex.lane_count
            data = bcast(args[0], L)
            offset = bcast(args[1], L).astype(np.int64)
            ptr = bcast(args[2], L)
            lanes = active_lanes(ex, bmask, full)
            if lanes is not None:
                data, offset, ptr = data[lanes], offset[lanes], ptr[lanes]
            es = mem_dtype.itemsize
            addrs = ptr + offset * (n * es)
            if n > 1:
                addrs = addrs[:, None] + np.arange(n) * es
            ex.memory.store(addrs, data.astype(mem_dtype), mem_dtype)
            return None
        return h
    return make


# ============================================================================ math

def _clamp(x, lo, hi):
    x = np.asarray(x)
    if x.dtype.kind == "f":
        # OpenCL C 3.0 6.15.4: fmin(fmax(x, minval), maxval) (a NaN x gives minval).
        return float_order.fmin(float_order.fmax(x, lo), hi)
    return np.minimum(np.maximum(x, lo), hi)


def _mul_hi(a, b):
    a, b = np.asarray(a), np.asarray(b)
    bits = a.dtype.itemsize * 8
    if bits < 64:
        wide = np.int64 if a.dtype.kind == "i" else np.uint64
        return ((a.astype(wide) * np.asarray(b).astype(wide)) >> bits).astype(a.dtype)
    return exact_int(lambda x, y: (x * y) >> 64, a, b, a.dtype)


def _sat_op(fn):
    def op(a, b):
        a = np.asarray(a)
        info = np.iinfo(a.dtype)
        if a.dtype.itemsize == 8:
            return exact_int(lambda x, y: min(max(fn(x, y), info.min), info.max), a, b, a.dtype)
        r = fn(a.astype(np.int64), np.asarray(b).astype(np.int64))
        return np.clip(r, info.min, info.max).astype(a.dtype)
    return op


def _mad_sat(a, b, c):
    """a * b + c computed exactly, then saturated (OpenCL C 6.15.3)."""
    a, b, c = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(c))
    info = np.iinfo(a.dtype)
    res = [min(max(int(x) * int(y) + int(z), info.min), info.max)
           for x, y, z in zip(a.ravel().tolist(), b.ravel().tolist(), c.ravel().tolist())]
    return np.array(res, dtype=object).astype(a.dtype).reshape(a.shape)


def _rotate(a, s):
    bits = a.dtype.itemsize * 8
    u = as_unsigned(a)
    s = (np.asarray(s).astype(np.int64) % bits).astype(u.dtype)
    r = (u << s) | (u >> ((bits - s) % bits).astype(u.dtype))
    r = np.where(s == 0, u, r)
    return r.astype(a.dtype)


def _dot(a, b):
    return np.sum(np.asarray(a) * np.asarray(b), axis=-1) if np.ndim(a) >= 1 else a * b


def _length(a):
    return np.sqrt(_dot(a, a))


_FLOAT_MATH = {
    "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "fabs": np.abs, "exp": np.exp,
    "exp2": np.exp2, "exp10": lambda x: np.power(10.0, x).astype(np.asarray(x).dtype),
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "expm1": np.expm1,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "cbrt": math_edges.cbrt, "floor": np.floor,
    "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint, "round": round_half_away,
    "atan2": np.arctan2, "pow": np.power, "powr": math_edges.powr, "fmod": np.fmod,
    "hypot": math_edges.hypot, "copysign": np.copysign, "fmin": float_order.fmin, "fmax": float_order.fmax,
    "fdim": math_edges.fdim, "fma": fused.fma,
    "mad": lambda a, b, c: a * b + c, "pown": math_edges.pown, "rootn": math_edges.rootn,
    "recip": lambda x: 1 / x,
    "divide": lambda a, b: a / b, "degrees": np.degrees, "radians": np.radians,
    "sign": lambda x: np.where(np.isnan(x), 0 * x, np.sign(x)),
    "step": lambda e, x: np.where(x < e, 0.0, 1.0),
    "smoothstep": lambda e0, e1, x: (lambda t: t * t * (3 - 2 * t))(_clamp((x - e0) / (e1 - e0), 0, 1)),
    "mix": lambda x, y, a: x + (y - x) * a, "dot": _dot, "length": _length,
    "distance": lambda a, b: _length(np.asarray(a) - np.asarray(b)),
    "normalize": lambda a: np.asarray(a) / (_length(a)[..., None] if np.ndim(a) > 1 else np.abs(a)),
    "cross": lambda a, b: _cross(a, b),
    "ldexp": lambda x, n: np.ldexp(x, np.asarray(n).astype(np.int32)),
    "remainder": math_edges.remainder, "nextafter": math_edges.nextafter,
    "logb": math_edges.logb, "ilogb": math_edges.ilogb,
    "sinpi": math_edges.sinpi, "cospi": math_edges.cospi, "tanpi": math_edges.tanpi,
    "asinpi": lambda x: np.arcsin(x) / np.pi,
    "acospi": lambda x: np.arccos(x) / np.pi, "atanpi": lambda x: np.arctan(x) / np.pi,
    "atan2pi": lambda y, x: np.arctan2(y, x) / np.pi,
    "erf": lambda x: _py_math("erf", x), "erfc": lambda x: _py_math("erfc", x),
    "tgamma": math_edges.tgamma, "lgamma": lambda x: _py_math("lgamma", x),
    "maxmag": lambda x, y: np.where(np.abs(x) > np.abs(y), x, np.where(np.abs(y) > np.abs(x), y, float_order.fmax(x, y))),
    "minmag": lambda x, y: np.where(np.abs(x) < np.abs(y), x, np.where(np.abs(y) < np.abs(x), y, float_order.fmin(x, y))),
}


# Transcendental functions whose NumPy float32/float16 loops are not the nearest value.
_ROUNDED_IN_DOUBLE = ("rsqrt", "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "expm1",
                      "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
                      "acosh", "atanh", "atan2", "pow", "powr", "asinpi",
                      "acospi", "atanpi", "atan2pi")
for _name in _ROUNDED_IN_DOUBLE:
    _FLOAT_MATH[_name] = math_edges.in_double(_FLOAT_MATH[_name])


def _py_math(name, x):
    """Functions NumPy lacks, element by element through Python's math module."""
    fn = getattr(math, name)

    def safe(v):
        try:
            return fn(v)
        except (ValueError, OverflowError):
            return math.inf if name == "lgamma" else math.nan
    x = np.asarray(x)
    return np.array([safe(float(v)) for v in x.ravel()], np.float64).reshape(x.shape)


def _geometric(name):
    """dot/length/distance/normalize/cross (OpenCL C 6.15.5): over the components of
    vector arguments; on scalars they are plain arithmetic."""
    def make(base, params, arg_types, ret_ty):
        out = scalar_dtype(ret_ty)
        vector = arg_types[0].kind == "vec"

        def h(ex, args, bmask, full, ins):
            a = [np.asarray(x) for x in args]
            with np.errstate(all="ignore"):
                if not vector:
                    r = {"dot": lambda: a[0] * a[1], "length": lambda: np.abs(a[0]),
                         "distance": lambda: np.abs(a[0] - a[1]),
                         "normalize": lambda: np.sign(a[0])}[name]()
                else:
                    r = _FLOAT_MATH[name](*a)
            return np.asarray(r).astype(out)
        return h
    return make


def _dot_builtin(base, params, arg_types, ret_ty):
    """`dot` of float vectors (6.15.5) or of char4/uchar4 (cl_khr_integer_dot_product)."""
    if integer_dot.is_integer_dot(base, arg_types):
        return integer_dot.make(base, params, arg_types, ret_ty)
    return _geometric("dot")(base, params, arg_types, ret_ty)


def _cross(a, b):
    a, b = np.asarray(a), np.asarray(b)
    r = np.zeros(np.broadcast(a, b).shape, np.result_type(a, b))
    r[..., :3] = np.cross(a[..., :3], b[..., :3])
    return r


_INT_MATH = {
    "abs": lambda x: np.abs(x), "abs_diff": lambda a, b: np.where(a > b, a - b, b - a),
    "add_sat": _sat_op(lambda x, y: x + y), "sub_sat": _sat_op(lambda x, y: x - y),
    "hadd": lambda a, b: (a >> 1) + (b >> 1) + (a & b & 1),
    "rhadd": lambda a, b: (a >> 1) + (b >> 1) + ((a | b) & 1),
    "mul24": lambda a, b: a * b, "mad24": lambda a, b, c: a * b + c,
    "mul_hi": _mul_hi, "mad_hi": lambda a, b, c: _mul_hi(a, b) + c,
    "clz": clz, "ctz": ctz, "popcount": popcount, "rotate": _rotate,
    "mad_sat": lambda a, b, c: _mad_sat(a, b, c),
}


def _min_max(fn):
    def make(base, params, arg_types, ret_ty):
        out = scalar_dtype(ret_ty)
        uns = not signed_param(params, 0)
        splat = _scalar_operands_of_vector_call(arg_types, ret_ty)

        def h(ex, args, bmask, full, ins):
            a = _splat([(as_unsigned(x) if uns else np.asarray(x)) for x in args], splat)
            if out.kind == "f" and base in ("min", "max"):
                f = float_order.fmin if base == "min" else float_order.fmax
                return f(a[0], a[1]).astype(out)
            return fn(*a).astype(out)
        return h
    return make


def _relational(fn):
    def make(base, params, arg_types, ret_ty):
        out = scalar_dtype(ret_ty)
        vector = arg_types[0].kind == "vec"

        def h(ex, args, bmask, full, ins):
            r = fn(*[np.asarray(a) for a in args])
            # Scalars return 1 for true, vectors -1 (all bits set), OpenCL C 6.15.6.
            return (-r.astype(out) if vector else r.astype(out))
        return h
    return make


def _any_all(kind):
    def make(base, params, arg_types, ret_ty):
        def h(ex, args, bmask, full, ins):
            x = np.asarray(args[0])
            neg = x < 0
            r = (neg.any(axis=-1) if kind == "any" else neg.all(axis=-1)) if x.ndim and arg_types[0].kind == "vec" \
                else neg
            return r.astype(np.int32)
        return h
    return make


def _select_builtin(base, params, arg_types, ret_ty):
    out = scalar_dtype(ret_ty)
    vector = arg_types[2].kind == "vec"

    def h(ex, args, bmask, full, ins):
        a, b, c = (np.asarray(x) for x in args)
        cond = (c < 0) if vector and c.dtype.kind == "i" and signed_param(params, 2) else \
            ((as_unsigned(c) >> (c.dtype.itemsize * 8 - 1)) != 0) if vector else (c != 0)
        return np.where(cond, b, a).astype(out)
    return h


def _element_bytes(p):
    if p[0] == "vec":
        n = p[1]
        return (4 if n == 3 else n) * _element_bytes(p[2])
    if p[0] in ("int", "float"):
        return p[1] // 8
    raise IRError(f"unsupported element type {p} in an async copy")


def _async_copy(strided):
    """async_work_group_copy / _strided_copy (OpenCL C 6.15.11): every work-item of the
    work-group passes the same arguments; the copy is done once per work-group, here at
    the call (wait_group_events is then a work-group barrier)."""
    def make(base, params, arg_types, ret_ty):
        if not params or params[0][0] != "ptr":
            raise IRError(f"cannot read the element type of {base}")
        es = _element_bytes(params[0][2])
        dst_local = params[0][1] == 3

        def h(ex, args, bmask, full, ins):
            check_convergence(ex, bmask, "work_group", base)
            L = ex.lane_count
            dst, src, n = (bcast(a, L) for a in args[:3])
            stride = bcast(args[3], L) if strided else None
            wg = ex.nd.wg_size
            for g in range(ex.group_count):
                lanes = np.nonzero(bmask[g * wg:(g + 1) * wg])[0]
                if lanes.size == 0:
                    continue
                lane = g * wg + int(lanes[0])
                count = int(n[lane]) % (1 << 64)      # num_elements is a size_t
                step = int(stride[lane]) if strided else 1
                byte = np.arange(es, dtype=np.int64)
                if count:   # the last elements first: a count past every buffer faults there
                    ex.cur_lanes = np.array([lane])
                    for ptr, scale in ((src, step if dst_local else 1), (dst, 1 if dst_local else step)):
                        last = (int(ptr[lane]) + (count - 1) * es * scale + (1 << 63)) % (1 << 64) - (1 << 63)
                        ex.memory.load(np.int64(last) + byte[None], np.uint8)
                idx = np.arange(count, dtype=np.int64)
                src_off = idx * es * (step if dst_local else 1)
                dst_off = idx * es * (1 if dst_local else step)
                ex.cur_lanes = np.full(count, lane)   # every row is the copying work-item's
                data = ex.memory.load(int(src[lane]) + src_off[:, None] + byte, np.uint8)
                ex.memory.store(int(dst[lane]) + dst_off[:, None] + byte, data, np.uint8)
            return np.zeros(L, scalar_dtype(ret_ty)) if ret_ty.kind != "void" else None
        return h
    return make


def _with_out_pointer(fn):
    """Built-ins returning one result and writing a second through their last operand, a
    pointer (fract, modf, sincos, frexp, remquo: OpenCL C 6.15.2)."""
    def make(base, params, arg_types, ret_ty):
        out_t = pointee_type(params[-1] if params else None, arg_types[0])
        out = scalar_dtype(ret_ty)

        def h(ex, args, bmask, full, ins):
            L = ex.lane_count
            with np.errstate(all="ignore"):
                result, second = fn(*[np.asarray(a) for a in args[:-1]])
            ptr = bcast(args[-1], L)
            second = bcast(second, L)
            lanes = active_lanes(ex, bmask, full)
            if lanes is not None:
                ptr, second = ptr[lanes], second[lanes]
            write_typed(ex, ptr, second, out_t)
            return np.asarray(result).astype(out)
        return h
    return make


def _nan_builtin(base, params, arg_types, ret_ty):
    """nan(nancode) (OpenCL C 3.0 6.15.2): a quiet NaN of the return type holding the code."""
    out = scalar_dtype(ret_ty)

    def h(ex, args, bmask, full, ins):
        return math_edges.nan_with_code(as_unsigned(np.asarray(args[0])), out)
    return h


def _vector_shuffle(two):
    """shuffle(x, mask) / shuffle2(x, y, mask): component selection (OpenCL C 6.15.13)."""
    def make(base, params, arg_types, ret_ty):
        out = scalar_dtype(ret_ty)

        def h(ex, args, bmask, full, ins):
            L = ex.lane_count
            src = bcast(args[0], L)
            if two:
                src = np.concatenate([src, bcast(args[1], L)], axis=1)
            mask = bcast(args[-1], L)
            n_in = bcast(args[0], L).shape[1]
            idx = as_unsigned(mask).astype(np.int64) % (2 * n_in if two else n_in)
            return np.take_along_axis(src, idx, axis=1).astype(out)
        return h
    return make


def _upsample(base, params, arg_types, ret_ty):
    """upsample(hi, lo) = ((wide)hi << bits(lo)) | lo (OpenCL C 6.15.3)."""
    out = scalar_dtype(ret_ty)

    def h(ex, args, bmask, full, ins):
        hi, lo = np.asarray(args[0]), np.asarray(args[1])
        lo_bits = lo.dtype.itemsize * 8
        return (hi.astype(np.int64) << lo_bits | as_unsigned(lo).astype(np.int64)).astype(out)
    return h


def _bitselect(base, params, arg_types, ret_ty):
    out = scalar_dtype(ret_ty)

    def h(ex, args, bmask, full, ins):
        a, b, c = (np.asarray(x) for x in args)
        if out.kind == "f":
            it = {2: np.int16, 4: np.int32, 8: np.int64}[out.itemsize]
            a, b, c = (np.ascontiguousarray(x).view(it) for x in (a, b, c))
            return ((a & ~c) | (b & c)).view(out)
        return ((a & ~c) | (b & c)).astype(out)
    return h


# ---------------------------------------------------------------- conversions

_CONVERT_RE = re.compile(r"convert_([a-z]+?)(\d*)(_sat)?(_rte|_rtz|_rtp|_rtn)?$")


def _convert(base, params, arg_types, ret_ty):
    m = _CONVERT_RE.match(base)
    target = m.group(1)
    sat = bool(m.group(3))
    rounding = m.group(4)
    out = scalar_dtype(ret_ty)
    unsigned_target = target.startswith("u") or target == "uchar"
    src_signed = signed_param(params, 0)

    def h(ex, args, bmask, full, ins):
        x = np.asarray(args[0])
        if x.dtype.kind == "i" and not src_signed:
            x = as_unsigned(x)
        if out.kind == "f":
            return x.astype(out)
        if x.dtype.kind == "f":
            # Rounded as asked (default: toward zero), then saturating with NaN -> 0, with
            # or without _sat (scalars.float_to_int: out of range is undefined without it,
            # OpenCL C 3.0 6.4.3.3; both engines saturate).
            r = {"_rte": np.rint, "_rtp": np.ceil, "_rtn": np.floor}.get(rounding, np.trunc)(x)
            rng = np.dtype(out).str.replace("i", "u") if unsigned_target else out
            return float_to_int(r, rng).astype(out)
        if sat:
            lo, hi = _target_info(out, unsigned_target)
            xi = x.astype(np.int64) if x.dtype != np.uint64 else x
            if x.dtype == np.uint64:
                r = np.minimum(x, np.uint64(hi)).astype(out)
            else:
                r = np.clip(xi, max(lo, np.iinfo(np.int64).min), min(hi, np.iinfo(np.int64).max)).astype(out)
                if unsigned_target and out.itemsize == 8:
                    r = np.where(xi < 0, 0, xi).astype(out)
            return r
        return x.astype(out)
    return h


def _target_info(out, unsigned_target):
    bits = out.itemsize * 8
    if unsigned_target:
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


# ============================================================================ resolution

def _table():
    t = {}
    for k in ("global_id", "local_id", "group_id", "global_size", "local_size", "num_groups",
              "global_offset", "work_dim", "global_linear_id", "local_linear_id",
              "enqueued_local_size", "sub_group_size", "max_sub_group_size", "num_sub_groups",
              "enqueued_num_sub_groups", "sub_group_id", "sub_group_local_id"):
        t["get_" + k] = _workitem(k)
    t["barrier"] = t["work_group_barrier"] = _barrier("work_group")
    t["sub_group_barrier"] = _barrier("sub_group")
    for k in ("mem_fence", "read_mem_fence", "write_mem_fence", "atomic_work_item_fence"):
        t[k] = _nothing
    for name, fn in _FLOAT_MATH.items():
        t[name] = _float_fn(fn)
        t["native_" + name] = _float_fn(fn)
        t["half_" + name] = _float_fn(fn)
    for name in ("dot", "length", "distance", "normalize", "cross"):
        t[name] = t["fast_" + name] = _geometric(name)
    t["dot"] = _dot_builtin
    t["dot_acc_sat"] = integer_dot.make
    for acc in ("", "_acc_sat"):
        for signs, result in (("uu", "uint"), ("ss", "int"), ("us", "int"), ("su", "int")):
            t[f"dot{acc}_4x8packed_{signs}_{result}"] = integer_dot.make
    for name, fn in _INT_MATH.items():
        t[name] = _elementwise(fn, unsigned_args=True)
    t["min"] = _min_max(np.minimum)
    t["max"] = _min_max(np.maximum)
    t["clamp"] = _min_max(_clamp)
    for name, fn in {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
                     "isnormal": lambda x: np.isfinite(x) & (np.abs(x) >= np.finfo(x.dtype).tiny),
                     "signbit": np.signbit, "isequal": np.equal, "isnotequal": np.not_equal,
                     "isgreater": np.greater, "isgreaterequal": np.greater_equal,
                     "isless": np.less, "islessequal": np.less_equal,
                     "isordered": lambda a, b: ~(np.isnan(a) | np.isnan(b)),
                     "isunordered": lambda a, b: np.isnan(a) | np.isnan(b)}.items():
        t[name] = _relational(fn)
    t["any"] = _any_all("any")
    t["all"] = _any_all("all")
    t["select"] = _select_builtin
    t["upsample"] = _upsample
    t["printf"] = printf.make_handler
    t["fract"] = _with_out_pointer(math_edges.fract)
    t["modf"] = _with_out_pointer(math_edges.modf)
    t["sincos"] = _with_out_pointer(math_edges.in_double(lambda x: (np.sin(x), np.cos(x))))
    t["frexp"] = _with_out_pointer(math_edges.frexp)
    t["remquo"] = _with_out_pointer(math_edges.remquo)
    t["lgamma_r"] = _with_out_pointer(lambda x: (_py_math("lgamma", x), math_edges.gamma_sign(x)))
    t["nan"] = _nan_builtin
    t["shuffle"] = _vector_shuffle(two=False)
    t["shuffle2"] = _vector_shuffle(two=True)
    t["async_work_group_copy"] = _async_copy(strided=False)
    t["async_work_group_strided_copy"] = _async_copy(strided=True)
    t["wait_group_events"] = _barrier("work_group")
    t["prefetch"] = _nothing
    t["bitselect"] = _bitselect
    for n in ("", "2", "3", "4", "8", "16"):
        k = int(n or 1)
        if n:
            t["vload" + n] = _vload(k)
            t["vstore" + n] = _vstore(k)
            t["vload_half" + n] = t["vloada_half" + n] = _vload(k, half=True)
        else:
            t["vload_half"] = _vload(1, half=True)
        for rnd in ("", "_rte", "_rtz", "_rtp", "_rtn"):
            t["vstore_half" + n + rnd] = t["vstorea_half" + n + rnd] = _vstore(k, half=True)
    add_atomic_builtins(t)
    add_ballot_builtins(t)
    add_extended_bit_ops(t)
    t["sub_group_broadcast"] = _sub_group_collective("broadcast", None)
    t["sub_group_all"] = _sub_group_collective("all", None)
    t["sub_group_any"] = _sub_group_collective("any", None)
    t["sub_group_shuffle"] = t["intel_sub_group_shuffle"] = _sub_group_collective("shuffle", "idx")
    t["sub_group_shuffle_xor"] = t["intel_sub_group_shuffle_xor"] = _sub_group_collective("shuffle", "xor")
    t["sub_group_shuffle_up"] = _sub_group_collective("shuffle", "up")
    t["sub_group_shuffle_down"] = _sub_group_collective("shuffle", "down")
    t["work_group_broadcast"] = _work_group_collective("broadcast", None)
    t["work_group_all"] = _work_group_collective("all", None)
    t["work_group_any"] = _work_group_collective("any", None)
    for op in ("add", "min", "max", "mul", "and", "or", "xor"):
        for kind in ("reduce", "scan_inclusive", "scan_exclusive"):
            t[f"sub_group_{kind}_{op}"] = _sub_group_collective(kind, op)
            t[f"sub_group_non_uniform_{kind}_{op}"] = _sub_group_collective(kind, op)
            t[f"work_group_{kind}_{op}"] = _work_group_collective(kind, op)
    for name, space in (("__to_global", 1), ("__to_local", 3), ("__to_private", 0)):
        t[name] = _to_space(space)
    return t


def _to_space(space):
    """to_global/to_local/to_private (OpenCL C 3.0 6.15.10, clang's `__to_global(ptr)`): the
    generic pointer if it points into that address space, else null."""
    def make(base, params, arg_types, ret_ty):
        def h(ex, args, bmask, full, ins):
            ptr = np.asarray(args[0], np.int64)
            return np.where(ex.memory.spaces_at(ptr) == space, ptr, np.int64(0))
        return h
    return make


_TABLE = _table()


def resolve(name, arg_types, ret_ty, text):
    """Handler for a call to the declared function `name`; IRError if unknown."""
    if name.startswith("llvm."):
        return resolve_intrinsic(name, arg_types, ret_ty, text)
    base, params = demangle(name)
    maker = _TABLE.get(base)
    if maker is None and base.startswith("convert_") and _CONVERT_RE.match(base):
        maker = _convert
    if maker is None and (conversion := float8_names.parse_conversion(base)) is not None:
        return float8.conversion_handler(conversion, arg_types[0], ret_ty)
    if maker is None:
        raise IRError(f"call to the undefined function '{name}' (not an OpenCL built-in the "
                      f"interpreter knows): {text}")
    handler = maker(base, params, arg_types, ret_ty)
    checks = enum_checks(base, params)
    return check_enums(checks, base, handler) if checks else handler


