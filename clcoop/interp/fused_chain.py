"""The reference arithmetic of a float cooperative-matrix mul-add's products: each element
of A*B is one chain of fused multiply-adds over k in order, from +0, each step rounded once
to the work type (float32, or float64 when an operand is double):

    acc = +0;  acc = fma(a[i, k], b[k, j], acc) for k = 0 .. K-1

SPV_KHR_cooperative_matrix leaves the order of a mul-add's sums open (OpCooperativeMatrix-
MulAddKHR specifies none). This one is fixed by the project so that results are the same
bits on every host (docs/design.md, "Float mul-add summation order"): it is what the native
engine computes (native/coop_ir.py) and what one chain of FMA instructions gives. NumPy has
no fused multiply-add, so each step is computed exactly:

- where every product is exact in the work type (half, bf16 or fp8 factors into float32
  while no product leaves float32's normal range; float32 or narrower factors into
  float64), the fused step is one correctly rounded addition, NumPy's own (`_add_chain`);
- otherwise by fused.fma, the once-rounded fma of OpenCL C's built-in (rounding to odd in
  double for float32, Boldo and Melquiond's emulated FMA for double, exact rationals where
  that algorithm's range ends).

All arrays broadcast: `chain(a_steps, b_steps, shape, work)` takes the k-th factors as
arrays broadcastable to the result shape, so a per-tile product and a pairwise product of
distinct tiles (coopmat.mul_add_factored) compute the same chain element by element.
"""
import numpy as np

from clcoop.interp import fused

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)


def tile_chain(a, b, work):
    """(..., M, K) x (..., K, N) -> (..., M, N) in `work`: each element one fused chain."""
    a = np.asarray(a)
    b = np.asarray(b)
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    a_steps = np.moveaxis(a, -1, 0)[..., None]           # (K, ..., M, 1)
    b_steps = np.moveaxis(b, -2, 0)[..., None, :]        # (K, ..., 1, N)
    return chain(a_steps, b_steps, shape, work)


def pairwise_chain(a_tiles, b_tiles, work):
    """(Da, M, K) x (Db, K, N) -> (Da, M, Db, N): every A tile times every B tile ([i, :, j, :]
    is tile_chain(a_tiles[i], b_tiles[j])), the layout of coopmat.Grid."""
    a_steps = np.moveaxis(np.asarray(a_tiles), -1, 0)[:, :, :, None, None]   # (K, Da, M, 1, 1)
    b_steps = np.moveaxis(np.asarray(b_tiles), -2, 0)[:, None, None, :, :]   # (K, 1, 1, Db, N)
    Da, M = a_tiles.shape[:2]
    Db, N = b_tiles.shape[0], b_tiles.shape[2]
    return chain(a_steps, b_steps, (Da, M, Db, N), work)


def chain(a_steps, b_steps, shape, work):
    """The fused chain over k of a_steps[k] * b_steps[k] (each broadcastable to `shape`),
    from +0, in `work` (float32 or float64)."""
    work = np.dtype(work)
    if work not in (F32, F64):
        raise ValueError(f"a fused mul-add chain works in float32 or float64, not {work}")
    if len(a_steps) == 0:
        return np.zeros(shape, work)
    # half (or narrower) factors widened once, exactly: the exactness test and the chain
    # both read float32 values.
    a_steps, b_steps = _at_least_float32(a_steps), _at_least_float32(b_steps)
    with np.errstate(all="ignore"):      # infinities and NaNs are IEEE results here
        if _products_exact(a_steps, b_steps, work):
            return _add_chain(a_steps.astype(work, copy=False), b_steps.astype(work, copy=False), shape, work)
        return _fma_chain(a_steps.astype(work, copy=False), b_steps.astype(work, copy=False), shape, work)


def _products_exact(a, b, work):
    """Whether every product of a component of `a` and one of `b` is exact in `work`, so
    that a fused step is one rounded addition. float32 factors in float64: always (48 of 53
    bits, exponents within float64's normal range). In float32: when both sides' finite
    components are float32 values with significands of at most 12 bits (half, bf16, fp8
    decoded) and magnitudes in [2^-62, 2^62] (the product then a normal float32 of at most
    24 bits; +-0, infinities and NaNs multiply exactly too)."""
    if a.dtype.itemsize > 4 or b.dtype.itemsize > 4:
        return False
    if work == F64:
        return True
    return _narrow_significands(a) and _narrow_significands(b)


def _at_least_float32(x):
    return x.astype(F32) if x.dtype.itemsize < 4 else x


def _narrow_significands(x):
    """float32 components: every finite non-zero one has its low 12 significand bits zero
    and a magnitude in [2^-62, 2^62]."""
    if x.size == 0:
        return True
    bits = x.view(np.uint32)
    exponent = (bits >> 23) & 0xFF
    special = (exponent == 0xFF) | ((bits & 0x7FFFFFFF) == 0)
    # Biased exponents 127-62 .. 127+61 hold magnitudes 2^-62 .. just under 2^62.
    in_range = (exponent >= 65) & (exponent <= 188)
    return bool(np.all(special | (in_range & ((bits & 0xFFF) == 0))))


def _add_chain(a_steps, b_steps, shape, work):
    """acc = acc + a*b with exact products: the fused step is NumPy's rounded addition."""
    acc = np.zeros(shape, work)
    product = np.empty(shape, work)
    for a_k, b_k in zip(a_steps, b_steps):
        np.multiply(a_k, b_k, out=product)
        acc += product
    return acc


def _fma_chain(a_steps, b_steps, shape, work):
    """acc = fma(a, b, acc), each step rounded once (fused.fma)."""
    acc = np.zeros(shape, work)
    for a_k, b_k in zip(a_steps, b_steps):
        acc = fused.fma(a_k, b_k, acc)
    return acc
