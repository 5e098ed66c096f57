"""SPV_NV_cooperative_matrix2 / SPV_EXT_cooperative_matrix_maintenance1 semantics on
logical matrices: reductions, per-element functions, use conversions, transpose,
coordinates, and bf16 (SPV_KHR_bfloat16) conversions and mul-add.

Pure NumPy (and ml_dtypes for bfloat16), like coopmat.py: every function takes G
matrices at once as a (G, rows, cols) array, one per subgroup. Reductions, per-element
functions and coordinates are wired (coop_function_calls.py), and so are use conversions,
transpose and bf16 (coop_calls.py, instructions.py, api.py); docs/coopmat2-semantics.md has
the rules.
"""
import ml_dtypes
import numpy as np

from clcoop.coopmat_spec import Reduce
from clcoop.errors import RuntimeFault
from clcoop.interp import coopmat, float8
from clcoop.ir.rounding import to_bfloat16
from clcoop.ir.rounding import is_float8

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


class Coopmat2Error(RuntimeFault):
    """Operands the operation cannot take (a shape the mode forbids, a combine function
    that returns the wrong number of values, an index outside coop_mat_length)."""


# ---------------------------------------------------------------- reductions

def combine_tree(values, combine):
    """Reduces the last axis of `values` with the pairwise tree of
    docs/coopmat2-semantics.md: each level combines neighbours (x[2i], x[2i+1]) in one
    call of `combine` over every pair of every sequence; an odd last element moves up a
    level unchanged. `combine(x, y)` takes and returns 1-D arrays of equal length."""
    values = np.asarray(values)
    dtype = values.dtype
    while values.shape[-1] > 1:
        n = values.shape[-1]
        pairs = n // 2
        left = values[..., 0:2 * pairs:2]
        right = values[..., 1:2 * pairs:2]
        combined = _call_combine(combine, left.reshape(-1), right.reshape(-1), dtype)
        combined = combined.reshape(left.shape)
        if n % 2:
            combined = np.concatenate([combined, values[..., n - 1:]], axis=-1)
        values = combined
    return values[..., 0]


def _call_combine(combine, x, y, dtype):
    result = np.asarray(combine(x, y))
    if result.shape != x.shape:
        raise Coopmat2Error(f"reduction combine function returned {result.size} values "
                            f"for {x.size} pairs")
    return result.astype(dtype, copy=False)


def reduce(m, mode, combine, result_shape):
    """OpCooperativeMatrixReduceNV (= ReduceEXT) on (G, R, C) -> (G, *result_shape).

    Row: every column of result row r holds the reduction of row r (any column count);
    Column: every row of result column c holds the reduction of column c (EXT text; NV2
    rev 2 says "row" by mistake); Row|Column: every element holds the reduction of the
    whole matrix, in row-major order; 2x2: result (r, c) reduces (2r, 2c), (2r, 2c+1),
    (2r+1, 2c), (2r+1, 2c+1) in that order. Each sequence goes through combine_tree."""
    m = np.asarray(m)
    G, R, C = m.shape
    out_rows, out_cols = (int(n) for n in result_shape)
    problem = _reduce_shape_problem(int(mode), R, C, out_rows, out_cols)
    if problem:
        raise Coopmat2Error(problem)
    mode = int(mode)
    if mode == Reduce.ROW:
        rows = combine_tree(m, combine)                              # (G, R)
        return _broadcast(rows[:, :, None], (G, out_rows, out_cols))
    if mode == Reduce.COLUMN:
        cols = combine_tree(m.transpose(0, 2, 1), combine)            # (G, C)
        return _broadcast(cols[:, None, :], (G, out_rows, out_cols))
    if mode == Reduce.ROW | Reduce.COLUMN:
        whole = combine_tree(m.reshape(G, R * C), combine)            # (G,)
        return _broadcast(whole[:, None, None], (G, out_rows, out_cols))
    quads = m.reshape(G, R // 2, 2, C // 2, 2).transpose(0, 1, 3, 2, 4)
    return np.ascontiguousarray(combine_tree(quads.reshape(G, R // 2, C // 2, 4), combine))


def _reduce_shape_problem(mode, R, C, out_rows, out_cols):
    """The shape rules of coopmat_spec.reduce_problem, on plain numbers (the interpreter
    checks types at load time; this guards direct callers)."""
    if mode not in (1, 2, 3, 4):
        return f"invalid reduce mode {mode} (ROW, COLUMN, ROW | COLUMN or 2X2)"
    if out_rows < 1 or out_cols < 1:
        return f"reduction result shape {out_rows}x{out_cols} is empty"
    if mode == Reduce.ROW and out_rows != R:
        return f"a row reduction keeps the number of rows: {R} rows reduce to {out_rows}"
    if mode == Reduce.COLUMN and out_cols != C:
        return f"a column reduction keeps the number of columns: {C} reduce to {out_cols}"
    if mode == Reduce.TWO_BY_TWO and (R % 2 or C % 2 or (out_rows, out_cols) != (R // 2, C // 2)):
        return f"a 2x2 reduction halves both dimensions: {R}x{C} cannot reduce to {out_rows}x{out_cols}"
    return None


def _broadcast(values, shape):
    return np.ascontiguousarray(np.broadcast_to(values, shape))


# ---------------------------------------------------------------- per-element functions

def element_coordinates(G, rows, cols):
    """(row, col) uint32 arrays of shape (G*rows*cols,), row-major within each matrix."""
    row = np.repeat(np.arange(rows, dtype=np.uint32), cols)
    col = np.tile(np.arange(cols, dtype=np.uint32), rows)
    return np.tile(row, G), np.tile(col, G)


def per_element(m, fn, extras=()):
    """OpCooperativeMatrixPerElementOpNV (= PerElementOpEXT) on (G, R, C).

    Calls fn(row, col, x, *extras) once, over all G*R*C elements as 1-D arrays (row and
    col uint32, x of m's dtype, element (g, r, c) at position (g*R + r)*C + c). Each
    extra is a matrix of m's shape (its element at the same position is passed), a
    per-matrix array of shape (G,) (repeated over that matrix's elements), or a scalar
    (passed as is). The result has m's shape and dtype. NV2: "calls are considered
    unordered ... and may occur more than once"; here each element is visited once."""
    m = np.asarray(m)
    G, R, C = m.shape
    row, col = element_coordinates(G, R, C)
    args = [_flat_extra(extra, m.shape, k) for k, extra in enumerate(extras)]
    result = np.asarray(fn(row, col, m.reshape(-1), *args))
    if result.size != m.size:
        raise Coopmat2Error(f"per-element function returned {result.size} values for "
                            f"{m.size} elements")
    return result.astype(m.dtype, copy=False).reshape(m.shape)


def _flat_extra(extra, shape, position):
    G, R, C = shape
    array = np.asarray(extra)
    if array.ndim == 0:
        return extra
    if array.shape == shape:
        return array.reshape(-1)
    if array.shape == (G,):
        return np.repeat(array, R * C)
    raise Coopmat2Error(f"per-element extra operand {position} has shape {array.shape}; "
                        f"expected a scalar, ({G},) or {shape}")


# ---------------------------------------------------------------- use conversion, transpose

def convert_use(m, dtype=None, op="FConvert"):
    """OpCooperativeMatrixConvertNV / ConvertUseEXT (only the use changes: the logical
    values are unchanged; the lane form changes through the target use's layout), or with
    a new component `dtype`, the KHR conversion `op` (coopmat.convert) applied to each
    element. bf16 on either side goes through to_bfloat16 / from_bfloat16."""
    m = np.asarray(m)
    if dtype is None or np.dtype(dtype) == m.dtype:
        return m.copy()
    dtype = np.dtype(dtype)
    if is_float8(dtype) or is_float8(m.dtype):
        return float8.convert(m, dtype)
    if dtype == BFLOAT16 or m.dtype == BFLOAT16:
        return convert_bfloat16(m, dtype)
    return coopmat.convert(op, m, dtype)


def transpose(m):
    """OpCooperativeMatrixTransposeNV (Accumulator -> B) and the EXT transpose decoration
    (Accumulator -> A): result (c, r) = source (r, c); (G, R, C) -> (G, C, R)."""
    return np.ascontiguousarray(np.asarray(m).transpose(0, 2, 1))


# ---------------------------------------------------------------- coordinates

def get_coordinate(layout, index):
    """OpCooperativeMatrixGetCoordinateEXT for every work-item of G subgroups.

    `layout` is a clcoop.ir.layout.MatrixLayout (or a wg_layout.WorkgroupLayout:
    anything with rows, cols, length and an index table (items, length) of flat logical
    indices, -1 for padding); `index` is (G, items) (one index per work-item).
    Returns (row, col, padding): uint32 arrays (G, items) and a bool mask of the
    components that are padding, which lie outside the matrix and get (rows, cols),
    one past the last row and column. An index outside [0, length) is a fault (EXT:
    "the resulting value is undefined"; we report it)."""
    index = np.asarray(index, dtype=np.int64)
    items = layout.index.shape[0]
    if index.ndim != 2 or index.shape[1] != items:
        raise Coopmat2Error(f"coordinate indices of shape {index.shape}; expected (G, {items})")
    bad = (index < 0) | (index >= layout.length)
    if bad.any():
        g, p = (int(v) for v in np.argwhere(bad)[0])
        raise Coopmat2Error(f"coop_mat_get_coord index {int(index[g, p])} is outside the "
                            f"matrix's {layout.length} components (work-item {p} of "
                            f"subgroup {g})")
    flat = np.take_along_axis(np.broadcast_to(layout.index, (index.shape[0],) + layout.index.shape),
                              index[:, :, None], axis=2)[:, :, 0]
    padding = flat < 0
    row = np.where(padding, layout.rows, flat // layout.cols).astype(np.uint32)
    col = np.where(padding, layout.cols, flat % layout.cols).astype(np.uint32)
    return row, col, padding


# ---------------------------------------------------------------- bfloat16


def from_bfloat16(x, dtype):
    """bfloat16 -> float/half/double: exact to float32 and double; to half, one
    nearest-even rounding of the exact value (bf16 has fewer significand bits but a wider
    exponent than half, so large values become inf)."""
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(np.float32).astype(dtype)


def convert_bfloat16(x, dtype):
    """FConvert with bfloat16 on either side; integer targets and sources go through
    coopmat.convert on the exact float32 value (bf16 -> int truncates; int -> bf16
    rounds once: int -> double is exact up to 2**53, then to_bfloat16)."""
    x = np.asarray(x)
    dtype = np.dtype(dtype)
    if dtype == BFLOAT16:
        if x.dtype.kind in "iu":
            op = "ConvertSToF" if x.dtype.kind == "i" else "ConvertUToF"
            if x.dtype.itemsize == 8:
                return to_bfloat16(_int64_to_float64_round_to_odd(x))
            return to_bfloat16(coopmat.convert(op, x, np.float64))
        return to_bfloat16(x)
    if x.dtype != BFLOAT16:
        raise Coopmat2Error(f"convert_bfloat16 from {x.dtype} to {dtype}")
    if dtype.kind in "iu":
        op = "ConvertFToS" if dtype.kind == "i" else "ConvertFToU"
        return coopmat.convert(op, x.astype(np.float32), dtype)
    return from_bfloat16(x, dtype)


def _int64_to_float64_round_to_odd(x):
    """64-bit integers above 2**53 are inexact in a double; round-to-odd keeps the
    following bf16 rounding single (as for doubles)."""
    exact = [int(v) for v in x.reshape(-1)]
    out = np.empty(len(exact), dtype=np.float64)
    for k, value in enumerate(exact):
        nearest = float(value)
        if int(nearest) != value:
            if abs(int(nearest)) > abs(value):
                nearest = float(np.nextafter(nearest, 0.0))
            bits = np.float64(nearest).view(np.uint64) | np.uint64(1)
            nearest = float(bits.view(np.float64))
        out[k] = nearest
    return out.reshape(x.shape)


def bfloat16_mul_add(a, b, c, result_dtype):
    """bf16 A x bf16 B + C (float or bf16 accumulator) on (G, M, K) x (G, K, N) + (G, M, N).

    Each product of two bf16 values (8-bit significands) is exact in float32; the products
    and C are summed as coopmat's float mul-add sums (float32 work type, BLAS order), and
    the sum is rounded once to the result type (to_bfloat16 for a bf16 result)."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    for name, x in (("A", a), ("B", b)):
        if x.dtype != BFLOAT16:
            raise Coopmat2Error(f"bfloat16 mul-add with {name} of {x.dtype}")
    work_c = c.astype(np.float32) if c.dtype == BFLOAT16 else c
    result_dtype = np.dtype(result_dtype)
    total = coopmat._float_mul_add(a.astype(np.float32), b.astype(np.float32), work_c,
                                   np.float64 if result_dtype == np.float64 else np.float32)
    return to_bfloat16(total) if result_dtype == BFLOAT16 else total.astype(result_dtype)
