"""LLVM intrinsics (llvm.*) in the interpreter."""
import re

import numpy as np

from clcoop.interp import float_order, fused
from clcoop.interp.math_edges import in_double, pown
from clcoop.interp.lanes import active_operands
from clcoop.interp.provenance import provenance_row
from clcoop.errors import IRError
from clcoop.ir.scalars import (INT_DTYPES, UINT_DTYPES, as_unsigned, odd_int_bits, scalar_dtype, uint_bits,
                                   wrap_int)

# Integer bit helpers, shared with the OpenCL C built-ins (ocl_builtins.py).

def round_half_away(x):
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


def exact_int(fn, a, b, out_dtype):
    """fn on exact Python integers (64-bit products and sums do not fit in NumPy types)."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    res = [fn(int(x), int(y)) for x, y in zip(a.ravel().tolist(), b.ravel().tolist())]
    bits = np.dtype(out_dtype).itemsize * 8
    res = [(r + (1 << bits)) % (1 << bits) for r in res]          # two's complement bits
    return np.array(res, dtype=np.uint64).astype(UINT_DTYPES[bits]).view(out_dtype).reshape(a.shape)


def clz(a):
    bits = a.dtype.itemsize * 8
    u = as_unsigned(a).astype(np.uint64)
    out = np.full(u.shape, bits, np.int64)
    for b in range(bits):
        hit = (u >> np.uint64(bits - 1 - b)) & np.uint64(1)
        out = np.where((hit == 1) & (out == bits), b, out)
    return out


def ctz(a):
    bits = a.dtype.itemsize * 8
    u = as_unsigned(a).astype(np.uint64)
    out = np.full(u.shape, bits, np.int64)
    for b in range(bits - 1, -1, -1):
        hit = (u >> np.uint64(b)) & np.uint64(1)
        out = np.where(hit == 1, b, out)
    return out


def popcount(a):
    u = as_unsigned(a).astype(np.uint64)
    out = np.zeros(u.shape, np.int64)
    for b in range(a.dtype.itemsize * 8):
        out += ((u >> np.uint64(b)) & np.uint64(1)).astype(np.int64)
    return out


_TYPE_SUFFIX = re.compile(r"^(?:[ifv]\d+.*|bf16|p\d+|f\d+|nxv.*)$")     # bf16: LLVM bfloat


def intrinsic_base(name):
    """'llvm.memcpy.p0.p1.i64' -> 'memcpy', 'llvm.vector.reduce.add.v4i32' -> 'vector.reduce.add'."""
    parts = name.split(".")[1:]
    while len(parts) > 1 and _TYPE_SUFFIX.match(parts[-1]):
        parts.pop()
    return ".".join(parts)


def _bitreverse(x):
    bits = x.dtype.itemsize * 8
    u = as_unsigned(x).astype(np.uint64)
    out = np.zeros(u.shape, np.uint64)
    for b in range(bits):
        out |= ((u >> np.uint64(b)) & np.uint64(1)) << np.uint64(bits - 1 - b)
    return out.astype(UINT_DTYPES[bits]).view(x.dtype) if x.ndim else \
        np.asarray(out).astype(UINT_DTYPES[bits]).view(x.dtype)


def _fmuladd(a, b, c):
    """llvm.fmuladd: LLVM lets it be fused or not; the interpreter rounds the product, then
    the sum, exactly as `fmul` then `fadd` (docs/ir-conventions.md, "Floating-point
    contraction"), so a kernel's results do not depend on -ffp-contract: clang's IR with
    -ffp-contract=off stays the bit-exact baseline of clcoop's default (contracted) IR."""
    a = np.asarray(a)
    return np.add(np.multiply(a, np.asarray(b, a.dtype)), np.asarray(c, a.dtype))


def _is_fpclass(x, mask):
    """llvm.is.fpclass: bit 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -subnormal, 5 -0, 6 +0,
    7 +subnormal, 8 +normal, 9 +inf (LangRef)."""
    x = np.asarray(x)
    mask = int(mask)
    info = np.finfo(x.dtype)
    bits = x.dtype.itemsize * 8
    quiet_bit = np.asarray(1 << (info.nmant - 1), UINT_DTYPES[bits])
    nan = np.isnan(x)
    quiet = (x.view(UINT_DTYPES[bits]) & quiet_bit) != 0
    neg = np.signbit(x)
    mag = np.abs(x)
    finite_nonzero = np.isfinite(x) & (mag != 0)
    normal = finite_nonzero & (mag >= info.tiny)
    subnormal = finite_nonzero & (mag < info.tiny)
    classes = [nan & ~quiet, nan & quiet, np.isinf(x) & neg, normal & neg, subnormal & neg,
               (x == 0) & neg, (x == 0) & ~neg, subnormal & ~neg, normal & ~neg, np.isinf(x) & ~neg]
    out = np.zeros(x.shape, bool)
    for bit, cls in enumerate(classes):
        if mask & (1 << bit):
            out |= cls
    return out


def _unsigned_pair(fn):
    def f(a, b):
        a = np.asarray(a)
        return fn(as_unsigned(a), as_unsigned(b)).astype(a.dtype)
    return f


def _fsh(left):
    def f(a, b, s):
        a = np.asarray(a)
        bits = a.dtype.itemsize * 8
        ua, ub = as_unsigned(a).astype(np.uint64), as_unsigned(b).astype(np.uint64)
        s = (np.asarray(s).astype(np.int64) % bits).astype(np.uint64)
        mask = np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
        wide_shift = lambda x, k: np.where(k >= 64, np.uint64(0), x << np.minimum(k, 63))
        wide_rshift = lambda x, k: np.where(k >= 64, np.uint64(0), x >> np.minimum(k, 63))
        if left:
            r = (wide_shift(ua, s) | wide_rshift(ub, np.uint64(bits) - s)) & mask
            r = np.where(s == 0, ua, r)
        else:
            r = (wide_rshift(ub, s) | wide_shift(ua, np.uint64(bits) - s)) & mask
            r = np.where(s == 0, ub, r)
        return r.astype(UINT_DTYPES[bits]).astype(a.dtype)
    return f


def _with_overflow(kind, signed):
    def f(a, b):
        a, b = np.asarray(a), np.asarray(b)
        bits = a.dtype.itemsize * 8
        if signed:
            wa, wb = a.astype(object), b.astype(object)
            lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        else:
            wa, wb = as_unsigned(a).astype(object), as_unsigned(b).astype(object)
            lo, hi = 0, (1 << bits) - 1
        exact = {"add": wa + wb, "sub": wa - wb, "mul": wa * wb}[kind]
        over = np.vectorize(lambda v: not (lo <= v <= hi), otypes=[bool])(exact) if np.ndim(exact) else \
            not (lo <= exact <= hi)
        wrapped = {"add": a + b, "sub": a - b, "mul": a * b}[kind]
        return (wrapped, np.asarray(over))
    return f


def _sat(kind, signed):
    def f(a, b):
        a = np.asarray(a)
        bits = a.dtype.itemsize * 8
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        op = (lambda x, y: x + y) if kind == "add" else (lambda x, y: x - y)
        if not signed:
            a, b = as_unsigned(a), as_unsigned(np.asarray(b))
        res = exact_int(lambda x, y: min(max(op(x, y), lo), hi), a, b, a.dtype)
        return res.view(INT_DTYPES[bits])      # LLVM integers are kept in signed dtypes
    return f


def _reduce_vec(op):
    def f(*args):
        v = np.asarray(args[-1])
        start = args[0] if len(args) == 2 else None
        if op in ("umax", "umin"):
            r = (np.max if op == "umax" else np.min)(as_unsigned(v), axis=-1).astype(v.dtype)
        else:
            r = {"add": np.sum, "mul": np.prod, "fadd": np.sum, "fmul": np.prod,
                 "and": np.bitwise_and.reduce, "or": np.bitwise_or.reduce,
                 "xor": np.bitwise_xor.reduce, "smax": np.max, "smin": np.min,
                 "fmax": np.nanmax, "fmin": np.nanmin, "fmaximum": np.max,
                 "fminimum": np.min}[op](v, axis=-1).astype(v.dtype)
        if start is not None:
            r = (r + start) if op == "fadd" else (r * start)
        return r
    return f


_INTRINSIC_FNS = {
    "fmuladd": _fmuladd, "fma": fused.fma, "is.fpclass": _is_fpclass, "fabs": np.abs, "sqrt": np.sqrt, "floor": np.floor,
    "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint, "nearbyint": np.rint,
    "round": round_half_away, "roundeven": np.rint, "minnum": float_order.fmin, "maxnum": float_order.fmax,
    "minimum": float_order.minimum, "maximum": float_order.maximum, "minimumnum": float_order.fmin,
    "maximumnum": float_order.fmax,
    # The transcendental functions as OpenCL C's (interp/ocl_builtins.py): in double, rounded
    # once; powi's integer exponent exact (a float exponent from 2^24 up loses its parity).
    "copysign": np.copysign, "exp": in_double(np.exp), "exp2": in_double(np.exp2),
    "exp10": in_double(lambda x: np.power(10.0, x)), "log": in_double(np.log), "log2": in_double(np.log2),
    "log10": in_double(np.log10), "pow": in_double(np.power), "powi": pown,
    "sin": in_double(np.sin), "cos": in_double(np.cos), "tan": in_double(np.tan), "canonicalize": lambda x: x,
    "smax": np.maximum, "smin": np.minimum, "umax": _unsigned_pair(np.maximum),
    "umin": _unsigned_pair(np.minimum), "abs": lambda x, poison: np.abs(x),
    "ctpop": lambda x: popcount(np.asarray(x)).astype(np.asarray(x).dtype),
    "ctlz": lambda x, z: clz(np.asarray(x)).astype(np.asarray(x).dtype),
    "cttz": lambda x, z: ctz(np.asarray(x)).astype(np.asarray(x).dtype),
    "fshl": _fsh(True), "fshr": _fsh(False),
    "bswap": lambda x: np.asarray(x).byteswap(),
    "bitreverse": lambda x: _bitreverse(np.asarray(x)),
    "sadd.with.overflow": _with_overflow("add", True), "uadd.with.overflow": _with_overflow("add", False),
    "ssub.with.overflow": _with_overflow("sub", True), "usub.with.overflow": _with_overflow("sub", False),
    "smul.with.overflow": _with_overflow("mul", True), "umul.with.overflow": _with_overflow("mul", False),
    "sadd.sat": _sat("add", True), "uadd.sat": _sat("add", False),
    "ssub.sat": _sat("sub", True), "usub.sat": _sat("sub", False),
}
for _op in ("add", "mul", "fadd", "fmul", "and", "or", "xor", "smax", "smin", "umax", "umin",
            "fmax", "fmin", "fmaximum", "fminimum"):
    _INTRINSIC_FNS["vector.reduce." + _op] = _reduce_vec(_op)

_NO_EFFECT = {"lifetime.start", "lifetime.end", "assume", "experimental.noalias.scope.decl",
              "dbg.declare", "dbg.value", "dbg.label", "donothing", "invariant.start",
              "invariant.end", "sideeffect", "var.annotation", "codeview.annotation"}


def resolve_intrinsic(name, arg_types, ret_ty, text):
    base = intrinsic_base(name)
    if base in _NO_EFFECT:
        return lambda ex, args, bmask, full, ins: None
    if base in ("memcpy", "memmove", "memcpy.inline"):
        return _memcpy
    if base in ("memset", "memset.inline"):
        return _memset
    if base in ("expect", "ptr.annotation", "launder.invariant.group", "strip.invariant.group"):
        return lambda ex, args, bmask, full, ins: args[0]
    fn = _INTRINSIC_FNS.get(base)
    if fn is None:
        raise IRError(f"the interpreter does not support the intrinsic '{name}': {text}")
    bits = next((b for b in map(odd_int_bits, [ret_ty, *arg_types]) if b), None)
    if bits is not None:
        fn = _odd_width_intrinsic(base, bits, name, text)
    out = scalar_dtype(ret_ty) if ret_ty.kind in ("int", "float", "vec", "ptr") else None

    def h(ex, args, bmask, full, ins):
        with np.errstate(all="ignore"):
            r = fn(*args)
        return r.astype(out) if out is not None and not isinstance(r, tuple) else r
    return h


def _odd_width_intrinsic(base, bits, name, text):
    """An integer intrinsic on iN of non-standard width: its operands are canonical
    (scalars.wrap_int), so the signed ones apply as they are; the unsigned ones read the
    low N bits. The others (bit counts, byte swaps, overflow) count the storage width."""
    if base in ("smax", "smin", "abs"):
        fn = _INTRINSIC_FNS[base]
    elif base in ("umax", "umin"):
        pick = np.maximum if base == "umax" else np.minimum
        fn = lambda a, b: pick(uint_bits(a, bits), uint_bits(b, bits))
    else:
        raise IRError(f"the interpreter does not support the intrinsic '{name}' on i{bits}: {text}")
    return lambda *args: wrap_int(fn(*args), bits)


def _byte_counts(ex, n, pointers):
    """The lengths of llvm.memcpy/memmove/memset: unsigned (LangRef: i64 -1 is 2**64 - 1
    bytes), and at most one byte past the end of the farthest region a pointer lies in: an
    access that long faults at the first byte any longer one would (faults name the first
    element outside), and 2**40 offsets would not fit in memory."""
    n = n.astype(np.int64)
    if n.size == 0 or (n.min() >= 0 and n.max() <= _SHORT_COPY):
        return n
    reach = 1
    for addr in np.unique(np.concatenate(pointers)):
        region = ex.memory.region_at(int(addr))
        if region is not None:
            reach = max(reach, region.base + region.size - int(addr) + 1)
    return np.minimum(n.view(np.uint64), np.uint64(reach)).astype(np.int64)


_SHORT_COPY = 1 << 16       # lengths up to this are taken as they are (no region lookups)


def _memcpy(ex, args, bmask, full, ins):
    _, (dst, src, n) = active_operands(ex, args[:3], bmask, full)
    n = _byte_counts(ex, n, [dst, src])
    if n.size == 0:
        return None
    nmax = int(n.max())
    if nmax == 0:
        return None
    try:
        if (n == nmax).all():
            offs = np.arange(nmax, dtype=np.int64)
            _pointer(ex, 1)
            data = ex.memory.load(src[:, None] + offs, np.uint8)
            _pointer(ex, 0)
            ex.memory.store(dst[:, None] + offs, data, np.uint8)
            return None
        active = ex.cur_lanes
        for k in range(n.size):   # lanes copying different lengths, one row (lane) each
            offs = np.arange(int(n[k]), dtype=np.int64)[None]
            ex.cur_lanes = active[k:k + 1]
            _pointer(ex, 1, k)
            data = ex.memory.load(src[k] + offs, np.uint8)
            _pointer(ex, 0, k)
            ex.memory.store(dst[k] + offs, data, np.uint8)
    finally:
        ex.memory.provenance = None
    return None


def _memset(ex, args, bmask, full, ins):
    _, (dst, val, n) = active_operands(ex, args[:3], bmask, full)
    n = _byte_counts(ex, n, [dst])
    if n.size == 0 or int(n.max()) == 0:
        return None
    try:
        if (n == n.max()).all():
            offs = np.arange(int(n.max()), dtype=np.int64)
            _pointer(ex, 0)
            ex.memory.store(dst[:, None] + offs, np.broadcast_to(val.astype(np.uint8)[:, None], (dst.size, offs.size)),
                            np.uint8)
            return None
        active = ex.cur_lanes
        for k in range(n.size):   # one row (lane) each
            offs = np.arange(int(n[k]), dtype=np.int64)[None]
            ex.cur_lanes = active[k:k + 1]
            _pointer(ex, 0, k)
            ex.memory.store(dst[k] + offs, np.full(offs.shape, val[k]).astype(np.uint8), np.uint8)
    finally:
        ex.memory.provenance = None
    return None


def _pointer(ex, which, row=None):
    """Check the next access against the object the call's pointer `which` (0: the
    destination, 1: the source) was derived from (op_call's ex.pointer_provenance)."""
    origins = getattr(ex, "pointer_provenance", None)
    provenance = origins[which] if origins else None
    ex.memory.provenance = provenance if row is None else provenance_row(provenance, row)

