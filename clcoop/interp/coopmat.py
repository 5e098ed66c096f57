"""SPV_KHR_cooperative_matrix semantics on logical matrices, batched over subgroups.

Every function works on NumPy arrays of shape (G, rows, cols): one logical matrix per
subgroup. The layout (who holds what) is clcoop.ir.layout's business; the bridge
from IR calls is clcoop.interp.coop_calls. Faults are raised as RuntimeFault.
"""
import functools

import numpy as np

from clcoop.coopmat_spec import OPERAND_ALL, Layout, Operand
from clcoop.errors import RuntimeFault
from clcoop.interp import fused_chain
from clcoop.ir.scalars import float_to_int


def _is_int(dtype):
    return np.dtype(dtype).kind in "iu"


def _is_float(dtype):
    return np.dtype(dtype).kind == "f"


# ---------------------------------------------------------------- load / store

def element_addresses(base, layout, stride, pointee_size, component_size, rows, cols):
    """(G, rows, cols) byte addresses. "Elements (row,*) ... are taken in order from
    contiguous locations starting at Pointer[row*Stride]" (RowMajorKHR; ColumnMajorKHR
    likewise with columns). Stride counts pointee elements (SPV_KHR issues 3 and 8)."""
    r = np.arange(rows, dtype=np.int64).reshape(rows, 1)
    c = np.arange(cols, dtype=np.int64).reshape(1, cols)
    return _addresses(base, layout, stride, pointee_size, component_size, r, c)


def _addresses(base, layout, stride, pointee_size, component_size, r, c):
    """Addresses of elements (r, c) (broadcast together) for each of G subgroups:
    shape (G,) + broadcast shape of r and c."""
    extra = (1,) * max(np.ndim(r), np.ndim(c))
    base = np.asarray(base, dtype=np.int64).reshape((-1,) + extra)
    stride = np.asarray(stride, dtype=np.int64).reshape((-1,) + extra)
    if layout not in (Layout.ROW_MAJOR, Layout.COLUMN_MAJOR):
        raise RuntimeFault(f"cooperative matrix memory layout must be 0 (row-major) or "
                           f"1 (column-major), got {layout}")
    strided, contiguous = (r, c) if layout == Layout.ROW_MAJOR else (c, r)
    if stride.size and (stride == stride.flat[0]).all():
        # The usual case, one stride for all subgroups: one (G, n) addition. In int64, as
        # below and as the native engine's i64 arithmetic: a stride near 2**63 wraps
        # instead of overflowing a Python int into NumPy (an OverflowError before).
        step = stride.reshape(-1)[:1] * np.int64(pointee_size)
        offsets = strided * step[0] + contiguous * component_size
        return base + offsets
    return base + (strided * pointee_size) * stride + contiguous * component_size


def _ordered_addresses(base, layout, stride, pointee_size, component_size, rows, cols, order):
    """(G, n) addresses: of all elements row by row (order None), or of the non-padding
    entries of `order` (flat logical indices row*cols+col, -1 = padding) in order."""
    if order is None:
        addrs = element_addresses(base, layout, stride, pointee_size, component_size, rows, cols)
        return addrs.reshape(addrs.shape[0], -1)
    flat = order[order >= 0]
    return _addresses(base, layout, stride, pointee_size, component_size,
                      flat // cols, flat % cols)


def memory_rows(layout, rows, cols):
    """How many contiguous runs ("memory rows") one subgroup's matrix occupies: its rows
    for row-major, its columns for column-major. Memories with load_rows/store_rows get
    G * memory_rows(...) runs, subgroup by subgroup."""
    return rows if layout == Layout.ROW_MAJOR else cols


def _run_starts(base, layout, stride, pointee_size, rows, cols):
    """(G * runs,) start addresses of the contiguous runs, subgroup-major."""
    runs = memory_rows(layout, rows, cols)
    starts = _addresses(base, layout, stride, pointee_size, 0,
                        np.arange(runs, dtype=np.int64) if layout == Layout.ROW_MAJOR else 0,
                        np.arange(runs, dtype=np.int64) if layout == Layout.COLUMN_MAJOR else 0)
    return starts.reshape(-1)


def _check_load_stride(stride):
    if (stride < 0).any():
        raise RuntimeFault(f"cooperative matrix load with negative stride {int(stride.min())} "
                           f"(Stride must be >= 0 for OpCooperativeMatrixLoadKHR)")


def _check_store_stride(stride):
    if (stride <= 0).any():
        raise RuntimeFault(f"cooperative matrix store with stride {int(stride.min())} "
                           f"(Stride must be greater than 0 for OpCooperativeMatrixStoreKHR)")


def load(memory, base_addrs, layout, stride, pointee_size, dtype, rows, cols, order=None):
    """OpCooperativeMatrixLoadKHR for G subgroups: (G, rows, cols) of dtype.
    Stride may be 0 on loads (every row, or column, reads the same memory).

    With `order` (flat logical indices row*cols+col, -1 for padding; e.g. a layout's
    index table), returns (G, len(order)) instead: the elements in that order, 0 for
    padding.

    A memory with `load_rows(starts, n, dtype)` is read one contiguous row (column for
    column-major) at a time, which checks bounds per row; otherwise element by element,
    one row of addresses per subgroup."""
    stride = np.asarray(stride, dtype=np.int64)
    _check_load_stride(stride)
    dtype = np.dtype(dtype)
    G = np.size(base_addrs)
    if hasattr(memory, "load_rows"):
        starts = _run_starts(base_addrs, layout, stride, pointee_size, rows, cols)
        run = cols if layout == Layout.ROW_MAJOR else rows
        values = np.asarray(memory.load_rows(starts, run, dtype), dtype=dtype)
        mats = values.reshape(G, rows, cols) if layout == Layout.ROW_MAJOR else \
            values.reshape(G, cols, rows).transpose(0, 2, 1)
        return mats if order is None else _in_order(mats.reshape(G, -1), order)
    addrs = _ordered_addresses(base_addrs, layout, stride, pointee_size, dtype.itemsize, rows,
                               cols, order)
    values = np.asarray(memory.load(addrs, dtype), dtype=dtype)
    if order is None:
        return values.reshape(G, rows, cols)
    if (order >= 0).all():
        return values.reshape(G, order.size)
    out = np.zeros((G, order.size), dtype=dtype)
    out[:, order >= 0] = values.reshape(G, -1)
    return out


def _in_order(flat, order):
    """(G, rows*cols) -> (G, len(order)), 0 where order is -1 (C-contiguous result)."""
    if (order >= 0).all():
        return np.take(flat, order, axis=1)
    padded = np.concatenate([flat, np.zeros((flat.shape[0], 1), dtype=flat.dtype)], axis=1)
    return np.take(padded, np.where(order >= 0, order, flat.shape[1]), axis=1)


def store(memory, base_addrs, mats, layout, stride, pointee_size):
    """OpCooperativeMatrixStoreKHR for G subgroups of (G, rows, cols). Stride must be > 0.
    Uses `store_rows(starts, values, dtype)` when the memory has it (see load)."""
    stride = np.asarray(stride, dtype=np.int64)
    _check_store_stride(stride)
    mats = np.asarray(mats)
    G, rows, cols = mats.shape
    if hasattr(memory, "store_rows"):
        starts = _run_starts(base_addrs, layout, stride, pointee_size, rows, cols)
        runs = mats if layout == Layout.ROW_MAJOR else mats.transpose(0, 2, 1)
        memory.store_rows(starts, np.ascontiguousarray(runs).reshape(starts.size, -1), mats.dtype)
        return
    addrs = _ordered_addresses(base_addrs, layout, stride, pointee_size, mats.dtype.itemsize,
                               rows, cols, None)
    memory.store(addrs, mats.reshape(G, -1), mats.dtype)


# ---------------------------------------------------------------- mul-add

def _extend(values, signed, dtype=None):
    """Sign- or zero-extends integer components by reinterpreting their bits as signed or
    unsigned (then a widening astype extends them): int64 for up to 32-bit components,
    Python integers (object) for 64-bit ones, or `dtype` when given."""
    size = values.dtype.itemsize
    reinterpreted = values.view(f"i{size}" if signed else f"u{size}")
    if dtype is not None:
        return reinterpreted.astype(dtype)
    return reinterpreted.astype(np.int64 if size < 8 else object)


def _wrap(values, result_dtype):
    """Low-order N bits of an exact (int64 or object) integer array, as result_dtype."""
    result_dtype = np.dtype(result_dtype)
    unsigned = np.dtype(f"u{result_dtype.itemsize}")
    if values.dtype == object:
        mask = (1 << 64) - 1
        values = np.array([int(x) & mask for x in values.reshape(-1)],
                          dtype=np.uint64).reshape(values.shape)
    # Integer-to-integer astype keeps the low-order bits (modular), like a C cast.
    return values.astype(unsigned).view(result_dtype)


def _saturate(values, result_dtype, signed):
    """Clamps an exact integer array to the range of result_dtype's width and the
    given signedness ("with the signedness of the saturation being that of the
    components of Result Type"), then stores the bits as result_dtype."""
    result_dtype = np.dtype(result_dtype)
    bits = result_dtype.itemsize * 8
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if values.dtype == object:
        clamped = np.vectorize(lambda x: min(max(int(x), low), high), otypes=[object])(values)
        return _wrap(clamped, result_dtype)
    return _wrap(np.clip(values, low, high), result_dtype)


def _product_bound(a, b):
    """An upper bound of |A*B| for any extended components of a and b."""
    return a.shape[-1] * (1 << (a.dtype.itemsize * 8)) * (1 << (b.dtype.itemsize * 8))


def _product(a, b, a_wide, b_wide, exact):
    """A*B as int64 (exact when the bound allows, else modulo 2**64), or, with `exact`
    and a bound too large for int64, as Python integers."""
    bound = _product_bound(a, b)
    if bound < (1 << 53):
        # Small integers (e.g. int8 x int8): float64 matmul (BLAS) is exact and much
        # faster than NumPy's integer matmul.
        return np.matmul(a_wide.astype(np.float64), b_wide.astype(np.float64)).astype(np.int64)
    if bound < (1 << 62) or not exact:
        # int64 arithmetic is exact modulo 2**64 even when it overflows.
        return np.matmul(_as_int64_bits(a_wide), _as_int64_bits(b_wide))
    return np.matmul(a_wide.astype(object), b_wide.astype(object))


def _small_product(a, b, operands, matmul=np.matmul):
    """A*B through a float matmul (BLAS), exact because every partial sum is an integer
    below the bound: float32 below 2**24 (e.g. int8 x int8 with K <= 256), else float64
    below 2**53; None when the bound is larger."""
    bound = _product_bound(a, b)
    if bound >= (1 << 53):
        return None
    work = np.float32 if bound < (1 << 24) else np.float64
    product = matmul(_extend(a, operands & Operand.MATRIX_A_SIGNED, work),
                     _extend(b, operands & Operand.MATRIX_B_SIGNED, work))
    return product.astype(np.int64)


def _integer_mul_add(a, b, c, operands, result_dtype):
    c_wide = _extend(c, operands & Operand.MATRIX_C_SIGNED)
    if not operands & Operand.SATURATING_ACCUMULATION:
        # Wrapping: the result keeps the low N <= 64 bits of the exact A*B + C, which
        # arithmetic modulo 2**64 gives.
        product = _small_product(a, b, operands)
        if product is None:
            product = _product(a, b, _extend(a, operands & Operand.MATRIX_A_SIGNED),
                               _extend(b, operands & Operand.MATRIX_B_SIGNED), exact=False)
        return _wrap(product + _as_int64_bits(c_wide), result_dtype)
    a_wide = _extend(a, operands & Operand.MATRIX_A_SIGNED)
    b_wide = _extend(b, operands & Operand.MATRIX_B_SIGNED)
    # The A*B intermediate is computed exactly (SPV_KHR leaves its overflow undefined);
    # only its addition to C saturates, to the signedness of Result.
    product = _product(a, b, a_wide, b_wide, exact=True)
    if product.dtype != object and (c.dtype.itemsize == 8 or _product_bound(a, b) >= (1 << 62)):
        product = product.astype(object)        # the sum could leave int64
    total = product + (c_wide.astype(object) if product.dtype == object else c_wide)
    return _saturate(total, result_dtype, bool(operands & Operand.MATRIX_RESULT_SIGNED))


def _as_int64_bits(wide):
    """int64 view of an extended array (object arrays of 64-bit values wrap to int64)."""
    if wide.dtype == object:
        return np.vectorize(lambda x: ((int(x) + (1 << 63)) % (1 << 64)) - (1 << 63),
                            otypes=[np.int64])(wide)
    return wide


_HALF_TO_FLOAT = None


def _widen(x, work):
    """x as `work`; half -> float32 through a 65536-entry table of NumPy's own conversion
    (same bits, NaN payloads included), ~2x faster than astype."""
    global _HALF_TO_FLOAT
    if x.dtype == np.float16 and work == np.float32:
        if _HALF_TO_FLOAT is None:
            _HALF_TO_FLOAT = np.arange(65536, dtype=np.uint32).astype(np.uint16) \
                .view(np.float16).astype(np.float32)
        return np.take(_HALF_TO_FLOAT, x.view(np.uint16))
    return x.astype(work, copy=False)


def tile_products(a, b, work):
    """(G, M, K) x (G, K, N) in `work` (float32 or float64) in the reference order of a float
    mul-add: each element one fused multiply-add chain over k from +0 (fused_chain; docs/
    design.md, "Float mul-add summation order"). NumPy's matmul (BLAS) computes it where
    this host's BLAS was shown to sum the tile's shape in exactly that order
    (_blas_sums_in_chain_order); the bits are the same either way, on every host."""
    work = np.dtype(work)
    if _blas_sums_in_chain_order(work, a.shape[-2], b.shape[-1], a.shape[-1]):
        # One BLAS call per tile, of the tile's own shape (NumPy's matmul calls gemm once
        # per matrix of a contiguous stack; a strided operand could take its non-BLAS loop).
        return np.matmul(np.ascontiguousarray(_widen(a, work)), np.ascontiguousarray(_widen(b, work)))
    return fused_chain.tile_chain(a, b, work)


def _probe_tiles(work, shapes, seed):
    """Probe data for an order check, one stack of tiles per shape: random significands
    (products inexact in `work`), magnitudes spread over 2^-8..2^8, so that any other order,
    fused or not, rounds differently in some sums."""
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(shape) * np.exp2(rng.integers(-8, 9, shape))).astype(work) for shape in shapes]


@functools.lru_cache(maxsize=256)
def _blas_sums_in_chain_order(work, M, N, K):
    """Whether NumPy's matmul of (3, M, K) x (3, K, N) in `work` gives the fused chain's bits
    on probe data (_probe_tiles): measured once per shape in this process. The order of a
    BLAS call depends on its shape and the host's kernel only (OpenBLAS's AVX-512 sgemm sums
    the examples' 8x16x16 and 16x16x16 in one chain; its AVX2 kernel sums tiles of at most 8
    rows in two interleaved chains, which the chain's emulation then replaces)."""
    a, b = _probe_tiles(work, [(3, M, K), (3, K, N)], ((M * 131 + N) * 131 + K) * 7 + work.itemsize)
    # The third tile: zeros times negative values (-0 products), so that a chain must start
    # from +0 (each tile is its own BLAS call: the others still probe every row).
    a[2] = 0.0
    b[2] = -np.abs(b[2])
    with np.errstate(all="ignore"):
        blas = np.matmul(a, b)
        want = fused_chain.tile_chain(a, b, work)
    return _same_bits(blas, want)


def _same_bits(x, y):
    return x.shape == y.shape and np.array_equal(x.view(_BITS[x.dtype]), y.view(_BITS[y.dtype]))


def _float_mul_add(a, b, c, result_dtype):
    """At least the component precision; half inputs accumulate in float32 at least: the
    products' chain in the work type, then + C in the work type, rounded to the result."""
    work = np.result_type(a.dtype, b.dtype, c.dtype, np.float32)
    with np.errstate(all="ignore"):   # overflow to inf and NaN are IEEE results, not faults
        total = tile_products(a, b, work)
        total += c
        return total.astype(result_dtype, copy=False)


def mul_add(a, b, c, operands, result_dtype):
    """OpCooperativeMatrixMulAddKHR on (G, M, K) x (G, K, N) + (G, M, N), one batched matmul.

    Integer components are extended per the operand flags (1/2/4 A/B/C signed),
    the result wraps, or with Operand.SATURATING_ACCUMULATION (16) the addition of A*B to C
    saturates to the signedness of Result (flag 8).
    """
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    operands = int(operands)
    if operands & ~OPERAND_ALL:
        raise RuntimeFault(f"unknown cooperative matrix operands 0x{operands:x}")
    if a.shape[-1] != b.shape[-2] or a.shape[-2] != c.shape[-2] or b.shape[-1] != c.shape[-1]:
        raise RuntimeFault(f"cooperative matrix mul-add with incompatible shapes "
                           f"{a.shape[-2:]} x {b.shape[-2:]} + {c.shape[-2:]}")
    result_dtype = np.dtype(result_dtype)
    if _is_int(result_dtype):
        if not (_is_int(a.dtype) and _is_int(b.dtype) and _is_int(c.dtype)):
            raise RuntimeFault("cooperative matrix mul-add mixes integer and floating-point matrices")
        return _integer_mul_add(a, b, c, operands, result_dtype)
    return _float_mul_add(a, b, c, result_dtype)


# OpenBLAS runs a GEMM on several threads when M*N*K exceeds 4 * 65536
# (GEMM_MULTITHREAD_THRESHOLD * SMP_THRESHOLD_MIN in interface/gemm.c); for the short K of
# a tile product the threads cost far more than they save (measured: 512x16x512 f32 takes
# 0.15 ms in one thread, 1-7 ms on two busy cores), so the rows go in blocks below it.
_SINGLE_THREAD_GEMM_SIZE = 4 * 65536


def blocked_matmul(x, y):
    """x @ y for 2-D arrays, in row blocks small enough for one BLAS thread each."""
    m, k = x.shape
    n = y.shape[1]
    rows = _SINGLE_THREAD_GEMM_SIZE // max(k * n, 1)
    if rows >= m:
        return np.matmul(x, y)
    rows = 1 << max(rows, 1).bit_length() - 1      # a power of two: divides m usually
    if m % rows == 0:
        return np.matmul(x.reshape(m // rows, rows, k), y).reshape(m, n)
    out = np.empty((m, n), dtype=np.result_type(x.dtype, y.dtype))
    for start in range(0, m, rows):
        np.matmul(x[start:start + rows], y, out=out[start:start + rows])
    return out


def _pairwise_products(a_tiles, b_tiles, product):
    """Every distinct A tile times every distinct B tile as one 2-D matmul:
    (Da, M, K) x (Db, K, N) -> (Da, M, Db, N), a fresh array in Grid order (its
    [i, :, j, :] is a_tiles[i] @ b_tiles[j]); product(x, y) multiplies 2-D arrays."""
    Da, M, K = a_tiles.shape
    Db, _, N = b_tiles.shape
    stacked_a = a_tiles.reshape(Da * M, K)
    side_by_side_b = b_tiles.transpose(1, 0, 2).reshape(K, Db * N)
    return product(stacked_a, side_by_side_b).reshape(Da, M, Db, N)


def _stacked_products(a_tiles, b_tiles):
    """_pairwise_products by B tile: the A tiles stacked, (Da*M, K), times each B tile,
    one BLAS call of N columns per B tile (row blocks below the threading size). Narrow
    tiles keep their per-tile order this way where one (Da*M, Db*N) product does not."""
    Da, M, K = a_tiles.shape
    Db, _, N = b_tiles.shape
    stacked_a = a_tiles.reshape(Da * M, K)
    rows = max(_SINGLE_THREAD_GEMM_SIZE // max(K * N, 1), 1)
    out = np.empty((Db, Da * M, N), dtype=np.result_type(a_tiles.dtype, b_tiles.dtype))
    for start in range(0, Da * M, rows):
        np.matmul(stacked_a[None, start:start + rows], b_tiles, out=out[:, start:start + rows])
    return np.ascontiguousarray(out.reshape(Db, Da, M, N).transpose(1, 2, 0, 3))


# The BLAS factorings a float mul-add may use, tried in this order; each must give the
# fused chain's bits (_factoring_for), which depends on the BLAS kernel each call shape
# selects (OpenBLAS's AVX-512 small-matrix sgemm sums tiles of at most 8 columns with
# K >= 32 in 16 interleaved chains, its large-matrix kernel in one).
_FACTORINGS = (lambda a, b: _pairwise_products(a, b, blocked_matmul), _stacked_products)


@functools.lru_cache(maxsize=256)
def _factoring_for(work, M, N, K, Da, Db):
    """How to compute the pairwise products of (Da, M, K) x (Db, K, N) tiles of dtype `work`:
    the first of _FACTORINGS that gives the fused chain's bits on probe data (measured once
    per shape), else the chain's own pairwise emulation (fused_chain.pairwise_chain)."""
    a_tiles, b_tiles = _probe_tiles(work, [(Da, M, K), (Db, K, N)],
                                    ((M * 131 + N) * 131 + K) * 131 + Da * 7 + Db)
    with np.errstate(all="ignore"):
        want = fused_chain.pairwise_chain(a_tiles, b_tiles, work)
        for factoring in _FACTORINGS:
            if _same_bits(factoring(a_tiles, b_tiles), want):
                return factoring
    return lambda a, b: fused_chain.pairwise_chain(a, b, work)


_BITS = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


class Grid:
    """Matrices i * Db + j for every pair (i, j) of a Da x Db grid, stored as the
    (Da, M, Db, N) array a pairwise product yields ([i, :, j, :] is matrix i * Db + j).
    The accumulators of a GEMM's subgroup grid stay in this order between mul-adds, so
    adding C is one contiguous in-place add; `logical()` gives the usual (G, M, N)."""
    __slots__ = ("pairs",)

    def __init__(self, pairs):
        self.pairs = pairs

    @property
    def dtype(self):
        return self.pairs.dtype

    @property
    def shape(self):
        Da, M, Db, N = self.pairs.shape
        return (Da * Db, M, N)

    def logical(self, selected=None):
        """(G, M, N); with `selected` (matrix indices), those matrices only."""
        Da, M, Db, N = self.pairs.shape
        if selected is not None:
            selected = np.asarray(selected)
            return self.pairs.transpose(0, 2, 1, 3)[selected // Db, selected % Db]
        return np.ascontiguousarray(self.pairs.transpose(0, 2, 1, 3)).reshape(Da * Db, M, N)


def _grid_order(a_index, b_index, Da, Db):
    """'a-outer' when the G results are every (A tile, B tile) pair with A's index outer
    (result g = i * Db + j: Grid order), 'b-outer' when B's is outer, else None."""
    if a_index.size != Da * Db:
        return None
    outer_a, inner_b = _grid_indices(Da, Db)
    if np.array_equal(a_index, outer_a) and np.array_equal(b_index, inner_b):
        return "a-outer"
    inner_a, outer_b = _grid_indices(Db, Da)[::-1]
    if np.array_equal(a_index, inner_a) and np.array_equal(b_index, outer_b):
        return "b-outer"
    return None


@functools.lru_cache(maxsize=16)
def _grid_indices(outer, inner):
    """(repeat(arange(outer), inner), tile(arange(inner), outer)), read-only, cached."""
    result = (np.repeat(np.arange(outer), inner), np.tile(np.arange(inner), outer))
    for array in result:
        array.flags.writeable = False
    return result


# A pairwise product computes Da * Db tiles for G results: worth it while few are wasted.
FACTORED_WASTE_LIMIT = 2


def mul_add_factored(a_factored, b_factored, c, operands, result_dtype, keep_grid=False):
    """mul_add when A = a_tiles[a_index] and B = b_tiles[b_index] (subgroups that loaded
    the same tiles, e.g. a row of GEMM tiles sharing its A tile): the products of the
    distinct tiles come from one large matmul (BLAS at full speed) instead of G tiny
    ones, then each subgroup picks its pair. Same arithmetic per component (a K-long dot
    product in the work type, then + C); a float BLAS product is used only where it sums in
    the fused chain's order, bit for bit, else the chain's pairwise emulation
    (_factoring_for). Returns None where it does not apply (too many unused pairs,
    saturating or wide integer arithmetic); mul_add then runs.

    c is (G, M, N) or a Grid. With keep_grid, a float result in Grid order (the subgroups
    are every pair, A's index outer) is returned as a Grid; otherwise as (G, M, N)."""
    (a_tiles, a_index), (b_tiles, b_index) = a_factored, b_factored
    c = c if isinstance(c, Grid) else np.asarray(c)
    operands = int(operands)
    result_dtype = np.dtype(result_dtype)
    Da, Db = a_tiles.shape[0], b_tiles.shape[0]
    if operands & ~OPERAND_ALL or a_tiles.shape[-1] != b_tiles.shape[-2] \
            or c.shape[-2:] != (a_tiles.shape[-2], b_tiles.shape[-1]) \
            or c.shape[0] != a_index.size or a_index.size != b_index.size:
        return None     # mul_add reports the error
    if Da * Db > FACTORED_WASTE_LIMIT * c.shape[0]:
        return None
    float_product = None
    if not _is_int(result_dtype):
        if _is_int(a_tiles.dtype) or _is_int(b_tiles.dtype) or _is_int(c.dtype):
            return None
        work = np.result_type(a_tiles.dtype, b_tiles.dtype, c.dtype, np.float32)
        float_product = _factoring_for(work, a_tiles.shape[-2], b_tiles.shape[-1],
                                       a_tiles.shape[-1], Da, Db)
    order = _grid_order(a_index, b_index, Da, Db)
    if isinstance(c, Grid) and (order != "a-outer" or _is_int(result_dtype)):
        c = c.logical()
    if _is_int(result_dtype):
        if not (_is_int(a_tiles.dtype) and _is_int(b_tiles.dtype) and _is_int(c.dtype)) \
                or operands & Operand.SATURATING_ACCUMULATION:
            return None
        if _product_bound(a_tiles, b_tiles) >= (1 << 53):
            return None
        grid = _pairwise_products(a_tiles, b_tiles,
                                  lambda x, y: _small_product(x, y, operands, blocked_matmul))
        product = grid.transpose(0, 2, 1, 3)[a_index, b_index]
        return _wrap(product + _as_int64_bits(_extend(c, operands & Operand.MATRIX_C_SIGNED)),
                     result_dtype)
    M, N = c.shape[-2:]
    with np.errstate(all="ignore"):
        grid = float_product(_widen(a_tiles, work), _widen(b_tiles, work))
        if order == "a-outer":
            # In place into the fresh product: one pass, contiguous when C is a Grid too.
            grid += c.pairs if isinstance(c, Grid) else c.reshape(Da, Db, M, N).transpose(0, 2, 1, 3)
            result = Grid(grid.astype(result_dtype, copy=False))
            return result if keep_grid else result.logical()
        pairs = grid.transpose(0, 2, 1, 3)            # (Da, Db, M, N)
        if order == "b-outer":
            total = pairs.transpose(1, 0, 2, 3) + c.reshape(Db, Da, M, N)
            return total.reshape(c.shape).astype(result_dtype, copy=False)
        total = pairs[a_index, b_index]
        total += c
        return total.astype(result_dtype, copy=False)


# ---------------------------------------------------------------- element-wise

def _check_integer_divisor(b):
    if (b == 0).any():
        raise RuntimeFault("integer division by zero in a cooperative matrix division")


def divide(a, b):
    """Element-wise a / b: floats IEEE, integers truncating toward zero as in C (OpSDiv /
    OpUDiv by the dtype's signedness); integer division by zero faults."""
    if _is_float(a.dtype):
        with np.errstate(all="ignore"):
            return (a / b).astype(a.dtype)
    _check_integer_divisor(b)
    if a.dtype.kind == "u":
        return (a // b).astype(a.dtype)
    # C truncation toward zero, computed wide so INT_MIN / -1 wraps instead of raising.
    wide_a, wide_b = a.astype(np.int64), b.astype(np.int64)
    if a.dtype.itemsize == 8:
        wide_a, wide_b = a.astype(object), b.astype(object)
    quotient = np.abs(wide_a) // np.abs(wide_b)
    negative = (wide_a < 0) != (wide_b < 0)
    quotient = np.where(negative, -quotient, quotient)
    return _wrap(np.asarray(quotient), a.dtype)


def binary(op, a, b):
    """'add' 'sub' 'mul' 'div' on same-typed matrices (integer results wrap)."""
    a, b = np.asarray(a), np.asarray(b)
    if op == "div":
        return divide(a, b)
    with np.errstate(all="ignore"):
        if op == "add":
            return (a + b).astype(a.dtype)
        if op == "sub":
            return (a - b).astype(a.dtype)
        if op == "mul":
            return (a * b).astype(a.dtype)
    raise ValueError(f"unknown cooperative matrix operator {op}")


def negate(a):
    a = np.asarray(a)
    with np.errstate(all="ignore"):
        if _is_int(a.dtype):
            return (np.zeros_like(a) - a).astype(a.dtype)
        return -a


def scalar_mul(a, s):
    """Matrix times scalar; s (broadcastable, e.g. (G,1,1)) is converted to the component type."""
    a = np.asarray(a)
    if _is_int(a.dtype) and _is_float(np.asarray(s).dtype):
        scalar = float_to_int(s, a.dtype)     # C conversion of the scalar (truncation)
    else:
        with np.errstate(all="ignore"):
            scalar = np.asarray(s).astype(a.dtype)
    with np.errstate(all="ignore"):
        return (a * scalar).astype(a.dtype)


def splat(value, dtype, shape):
    """coop_mat_init / OpCompositeConstruct: every element = value (per subgroup (G,))."""
    value = np.asarray(value).astype(dtype).reshape(-1, 1, 1)
    return np.broadcast_to(value, (value.shape[0],) + tuple(shape[-2:])).copy()


# ---------------------------------------------------------------- conversions

def convert(op, x, dtype):
    """FConvert, SConvert, UConvert, ConvertFToS/FToU, ConvertSToF/UToF.

    SConvert sign-extends (or truncates) the source bits, UConvert zero-extends them,
    whatever the NumPy signedness of the source array (the IR loses it)."""
    x = np.asarray(x)
    dtype = np.dtype(dtype)
    if op == "FConvert":
        with np.errstate(all="ignore"):   # e.g. float -> half overflow gives inf, as IEEE says
            return x.astype(dtype)
    if op in ("SConvert", "UConvert"):
        wide = _extend(x, op == "SConvert")
        return _wrap(_as_int64_bits(wide), dtype)
    if op in ("ConvertFToS", "ConvertFToU"):
        return float_to_int(x, dtype)
    if op in ("ConvertSToF", "ConvertUToF"):
        wide = _extend(x, op == "ConvertSToF")
        if wide.dtype == object:
            return np.vectorize(float, otypes=[np.float64])(wide).astype(dtype)
        return wide.astype(dtype)
    raise ValueError(f"unknown cooperative matrix conversion {op}")
