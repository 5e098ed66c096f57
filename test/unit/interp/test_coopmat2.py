"""clcoop/interp/coopmat2.py against NumPy and independent oracles: reductions (every mode,
float and integer types, integer wrap-around, the documented combination tree),
per-element functions, transpose, use conversion, coordinates, and bf16."""
import math

import ml_dtypes
import numpy as np
import pytest

from clcoop.coopmat_spec import Reduce
from clcoop.interp import coopmat, coopmat2
from clcoop.ir.rounding import to_bfloat16
from clcoop.ir.layout import get_layout

BF16 = np.dtype(ml_dtypes.bfloat16)
ROW, COLUMN, WHOLE, QUAD = int(Reduce.ROW), int(Reduce.COLUMN), int(Reduce.ROW | Reduce.COLUMN), \
    int(Reduce.TWO_BY_TWO)


def random_matrices(rng, dtype, shape):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    return rng.standard_normal(shape).astype(dtype) * 10


# ---------------------------------------------------------------- reductions

def tree_reference(sequence, combine):
    """The documented tree, one pair at a time on Python values (independent of the
    vectorized implementation): neighbours pair up, an odd last element moves up."""
    values = list(sequence)
    while len(values) > 1:
        paired = [combine(values[k], values[k + 1]) for k in range(0, len(values) - 1, 2)]
        if len(values) % 2:
            paired.append(values[-1])
        values = paired
    return values[0]


def sequences(m, mode):
    """The sequences each result element reduces, as the spec defines them (for
    Row|Column the row-major order of the whole matrix)."""
    G, R, C = m.shape
    if mode == ROW:
        return [[m[g, r, :] for r in range(R)] for g in range(G)]
    if mode == COLUMN:
        return [[m[g, :, c] for c in range(C)] for g in range(G)]
    if mode == WHOLE:
        return [[m[g].reshape(-1)] for g in range(G)]
    return [[[m[g, 2 * r, 2 * c], m[g, 2 * r, 2 * c + 1], m[g, 2 * r + 1, 2 * c], m[g, 2 * r + 1, 2 * c + 1]]
             for r in range(R // 2) for c in range(C // 2)] for g in range(G)]


def result_shapes(mode, R, C):
    return {ROW: [(R, 1), (R, C), (R, 64)], COLUMN: [(1, C), (R, C), (5, C)],
            WHOLE: [(1, 1), (3, 7), (R, C)], QUAD: [(R // 2, C // 2)]}[mode]


OPS = {"max": (np.maximum, max, np.max), "min": (np.minimum, min, np.min),
       "sum": (lambda x, y: x + y, None, None)}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int32", "uint16", "int64"])
@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("mode", [ROW, COLUMN, WHOLE, QUAD])
@pytest.mark.parametrize("shape", [(8, 16), (6, 10), (16, 32)])
def test_reduce_against_numpy(dtype, op, mode, shape):
    rng = np.random.default_rng(hash((dtype, op, mode, shape)) % 2**32)
    R, C = shape
    m = random_matrices(rng, dtype, (3, R, C))
    vector_op, _, numpy_reduce = OPS[op]
    for out_shape in result_shapes(mode, R, C):
        with np.errstate(over="ignore"):
            got = coopmat2.reduce(m, mode, vector_op, out_shape)
        assert got.shape == (3,) + out_shape and got.dtype == m.dtype
        for g, seqs in enumerate(sequences(m, mode)):
            if op != "sum":
                expected = [numpy_reduce(np.asarray(s)) for s in seqs]
            elif m.dtype.kind in "iu":
                # Integer sums wrap: the exact sum modulo 2**bits, as the combine's + does.
                bits = 8 * m.dtype.itemsize
                exact = [sum(int(v) for v in s) % (1 << bits) for s in seqs]
                expected = np.array(exact, dtype=np.uint64).astype(f"u{m.dtype.itemsize}").view(m.dtype)
            else:
                # Floats: the documented tree, element by element in the component type.
                expected = [tree_reference(s, lambda x, y: m.dtype.type(x + y)) for s in seqs]
            expected = np.asarray(expected, dtype=m.dtype)
            if mode == ROW:
                want = np.broadcast_to(expected[:, None], out_shape)
            elif mode == COLUMN:
                want = np.broadcast_to(expected[None, :], out_shape)
            elif mode == WHOLE:
                want = np.broadcast_to(expected.reshape(1, 1), out_shape)
            else:
                want = expected.reshape(out_shape)
            np.testing.assert_array_equal(got[g], want)


def test_integer_sum_wraps_around():
    m = np.full((1, 4, 8), 100, dtype=np.int8)            # row sums of 800 wrap to 800 - 768 = 32
    got = coopmat2.reduce(m, ROW, lambda x, y: x + y, (4, 1))
    assert got.reshape(-1).tolist() == [32] * 4
    u = np.full((1, 2, 2), 0xFFFFFFFF, dtype=np.uint32)
    assert coopmat2.reduce(u, WHOLE, lambda x, y: x + y, (1, 1))[0, 0, 0] == 0xFFFFFFFC


def test_combination_order_is_the_documented_tree():
    def concat(x, y):
        return np.array([f"({a}{b})" for a, b in zip(x, y)], dtype=object)
    m = np.array([[[str(k) for k in range(5)]]], dtype=object)
    assert coopmat2.reduce(m, ROW, concat, (1, 1))[0, 0, 0] == "(((01)(23))4)"
    square = np.array([[["a", "b"], ["c", "d"]]], dtype=object)
    assert coopmat2.reduce(square, QUAD, concat, (1, 1))[0, 0, 0] == "((ab)(cd))"
    assert coopmat2.reduce(square, WHOLE, concat, (2, 3))[0, 1, 2] == "((ab)(cd))"
    assert coopmat2.reduce(square, COLUMN, concat, (1, 2))[0, 0].tolist() == ["(ac)", "(bd)"]


def test_float_sum_depends_on_the_tree_not_on_numpy():
    # 1e8 + 1 + ... is order-sensitive in float32: the tree result is the documented one.
    m = np.array([[[1e8, 1, 1, 1, -1e8, 1, 1, 1]]], dtype=np.float32)
    got = coopmat2.reduce(m, ROW, lambda x, y: x + y, (1, 1))[0, 0, 0]
    assert got == tree_reference(m[0, 0], lambda x, y: np.float32(x + y))


def test_combine_is_called_once_per_tree_level_over_all_matrices():
    calls = []

    def add(x, y):
        calls.append(x.size)
        return x + y
    coopmat2.reduce(np.ones((4, 8, 16), dtype=np.float32), ROW, add, (8, 1))
    assert calls == [4 * 8 * 8, 4 * 8 * 4, 4 * 8 * 2, 4 * 8]


@pytest.mark.parametrize("mode, shape, message", [
    (ROW, (4, 1), "keeps the number of rows"),
    (COLUMN, (2, 3), "keeps the number of columns"),
    (QUAD, (8, 4), "halves both dimensions"),
    (QUAD | ROW, (4, 4), "invalid reduce mode"),
    (0, (1, 1), "invalid reduce mode"),
    (WHOLE, (0, 1), "empty"),
])
def test_reduce_shape_errors(mode, shape, message):
    with pytest.raises(coopmat2.Coopmat2Error, match=message):
        coopmat2.reduce(np.zeros((1, 8, 8), dtype=np.float32), mode, np.add, shape)


def test_reduce_rejects_a_combine_of_the_wrong_length():
    with pytest.raises(coopmat2.Coopmat2Error, match="returned 1 values"):
        coopmat2.reduce(np.zeros((1, 4, 4), dtype=np.float32), ROW, lambda x, y: x[:1], (4, 1))


def test_odd_2x2_source_is_rejected():
    with pytest.raises(coopmat2.Coopmat2Error, match="halves"):
        coopmat2.reduce(np.zeros((1, 5, 4), dtype=np.float32), QUAD, np.add, (2, 2))


# ---------------------------------------------------------------- per-element

def test_per_element_with_coordinates_and_extras():
    rng = np.random.default_rng(1)
    m = rng.standard_normal((3, 8, 16)).astype(np.float32)
    other = rng.standard_normal((3, 8, 16)).astype(np.float32)
    per_matrix = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    calls = []

    def fn(row, col, x, scale, y, bias):
        calls.append(x.size)
        assert row.dtype == np.uint32 and col.dtype == np.uint32
        return x * scale + y + bias + row * 100 + col
    got = coopmat2.per_element(m, fn, (np.float32(0.5), other, per_matrix))
    rows = np.arange(8)[None, :, None]
    cols = np.arange(16)[None, None, :]
    expected = (m * np.float32(0.5) + other + per_matrix[:, None, None] + rows * 100 + cols).astype(np.float32)
    np.testing.assert_array_equal(got, expected)
    assert calls == [3 * 8 * 16] and got.dtype == np.float32


def test_per_element_causal_mask():
    m = np.ones((2, 16, 16), dtype=np.float16)
    got = coopmat2.per_element(m, lambda r, c, x: np.where(c > r, np.float16(-np.inf), x))
    expected = np.where(np.triu(np.ones((16, 16), bool), 1), -np.inf, 1).astype(np.float16)
    np.testing.assert_array_equal(got, np.broadcast_to(expected, (2, 16, 16)))


def test_per_element_result_keeps_the_component_type():
    m = np.full((1, 2, 2), 250, dtype=np.uint8)
    got = coopmat2.per_element(m, lambda r, c, x: x + np.uint8(10))
    assert got.dtype == np.uint8 and got.reshape(-1).tolist() == [4] * 4


def test_per_element_rejects_an_extra_of_another_shape():
    with pytest.raises(coopmat2.Coopmat2Error, match="extra operand 0"):
        coopmat2.per_element(np.zeros((1, 4, 4)), lambda r, c, x, y: x, (np.zeros((4, 5)),))


# ---------------------------------------------------------------- transpose, use conversion

def test_transpose_swaps_rows_and_columns():
    m = np.arange(2 * 8 * 16, dtype=np.float32).reshape(2, 8, 16)
    got = coopmat2.transpose(m)
    assert got.shape == (2, 16, 8) and got.flags.c_contiguous
    np.testing.assert_array_equal(got, np.swapaxes(m, 1, 2))


def test_use_conversion_keeps_values_and_composes_with_khr_conversions():
    rng = np.random.default_rng(2)
    acc = rng.standard_normal((2, 8, 16)).astype(np.float32)
    same = coopmat2.convert_use(acc)
    np.testing.assert_array_equal(same, acc)
    assert same is not acc
    np.testing.assert_array_equal(coopmat2.convert_use(acc, np.float16), acc.astype(np.float16))
    ints = rng.integers(-300, 300, (1, 4, 4)).astype(np.int32)
    np.testing.assert_array_equal(coopmat2.convert_use(ints, np.int8, "SConvert"),
                                  coopmat.convert("SConvert", ints, np.int8))
    np.testing.assert_array_equal(coopmat2.convert_use(acc, BF16), to_bfloat16(acc))


# ---------------------------------------------------------------- coordinates

@pytest.mark.parametrize("rows, cols, use, elem, S", [
    (8, 16, 2, "float", 8), (16, 16, 0, "half", 16), (32, 8, 1, "char", 32),
    (12, 20, 2, "float", 16), (64, 16, 1, "half", 16), (8, 32, 0, "char", 8), (3, 5, 2, "int", 32),
])
def test_get_coordinate_agrees_with_the_layout(rows, cols, use, elem, S):
    layout = get_layout(rows, cols, use, elem, S)
    for v in range(layout.length):
        index = np.full((2, S), v)
        row, col, padding = coopmat2.get_coordinate(layout, index)
        for p in range(S):
            expected = layout.row_col(p, v)
            if expected is None:
                assert padding[1, p] and (row[1, p], col[1, p]) == (rows, cols)
            else:
                assert not padding[1, p] and (int(row[1, p]), int(col[1, p])) == expected
    # Different indices per work-item.
    index = np.arange(S)[None, :] % layout.length
    row, col, _ = coopmat2.get_coordinate(layout, index)
    for p in range(S):
        if layout.row_col(p, index[0, p]) is not None:
            assert (row[0, p], col[0, p]) == layout.row_col(p, index[0, p])


def test_get_coordinate_index_out_of_range_names_the_work_item():
    layout = get_layout(8, 8, 2, "float", 8)
    index = np.zeros((1, 8), dtype=np.int64)
    index[0, 5] = layout.length
    with pytest.raises(coopmat2.Coopmat2Error, match=r"index 8 .*\(work-item 5 of subgroup 0\)"):
        coopmat2.get_coordinate(layout, index)


# ---------------------------------------------------------------- bfloat16

def _bf16_table():
    """Every non-negative finite bf16 as float64, plus 2**128 standing for +inf (bits
    0x7F80, even), so that nearest-even rounding into it is the IEEE overflow rule."""
    bits = np.arange(0x7F80, dtype=np.uint16)
    values = bits.view(BF16).astype(np.float64)
    return np.append(values, 2.0 ** 128), np.append(bits, np.uint16(0x7F80))


TABLE_VALUES, TABLE_BITS = _bf16_table()


def nearest_even_bf16_bits(x):
    """Oracle: the bf16 nearest to each float64 value (ties to the even bit pattern),
    from the table of all bf16 values; NaN and infinities map to themselves."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty(x.shape, dtype=np.uint16)
    for k, value in np.ndenumerate(x):
        if math.isnan(value):
            out[k] = 0x7FC0
            continue
        magnitude = abs(value)
        if magnitude >= 2.0 ** 128:
            bits = 0x7F80
        else:
            hi = int(np.searchsorted(TABLE_VALUES, magnitude))
            lo = max(hi - 1, 0)
            if TABLE_VALUES[hi] == magnitude:
                bits = int(TABLE_BITS[hi])
            else:
                down, up = magnitude - TABLE_VALUES[lo], TABLE_VALUES[hi] - magnitude
                if down < up or (down == up and TABLE_BITS[lo] % 2 == 0):
                    bits = int(TABLE_BITS[lo])
                else:
                    bits = int(TABLE_BITS[hi])
        out[k] = bits | (0x8000 if math.copysign(1.0, value) < 0 else 0)
    return out


def interesting_doubles(rng):
    exact_ties = TABLE_VALUES[1:-2] + (TABLE_VALUES[2:-1] - TABLE_VALUES[1:-2]) / 2
    picks = rng.choice(exact_ties, 2000)
    nudged = np.concatenate([picks, np.nextafter(picks, 0), np.nextafter(picks, np.inf),
                             picks + picks * 2.0 ** -30])
    scales = 2.0 ** rng.integers(-140, 128, 3000)
    random = rng.uniform(1, 2, 3000) * scales
    specials = np.array([0.0, -0.0, 1 + 2 ** -8 + 2 ** -30, 1 + 2 ** -8, 1 + 3 * 2 ** -8,
                         3.3895313892515355e38, 3.3961775292304172e38, 3.39e38, 1e39, 2.0 ** -133,
                         2.0 ** -134, 2.0 ** -134 * 1.0000001, 1e-45, 5e-324, 2.0 ** -126])
    values = np.concatenate([nudged, random, specials])
    return np.concatenate([values, -values])


def test_double_to_bf16_rounds_once_to_nearest_even():
    rng = np.random.default_rng(3)
    doubles = interesting_doubles(rng)
    got = to_bfloat16(doubles)
    assert got.dtype == BF16
    np.testing.assert_array_equal(got.view(np.uint16), nearest_even_bf16_bits(doubles))
    # The double rounding that a conversion through float32 would make:
    assert float(to_bfloat16(np.array([1 + 2 ** -8 + 2 ** -30]))[0]) == 1 + 2 ** -7


@pytest.mark.parametrize("source", [np.float32, np.float16])
def test_float_and_half_to_bf16_round_once(source):
    rng = np.random.default_rng(4)
    with np.errstate(over="ignore"):
        values = interesting_doubles(rng).astype(source)     # exact in the source type
    values = values[np.isfinite(values)]
    got = to_bfloat16(values)
    np.testing.assert_array_equal(got.view(np.uint16), nearest_even_bf16_bits(values.astype(np.float64)))


def test_bf16_specials_and_nan():
    x = np.array([np.nan, np.inf, -np.inf, -0.0], dtype=np.float64)
    got = to_bfloat16(x)
    assert np.isnan(float(got[0])) and float(got[1]) == np.inf and float(got[2]) == -np.inf
    assert got.view(np.uint16)[3] == 0x8000


def test_bf16_to_wider_floats_is_exact_and_to_half_rounds_once():
    every = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(BF16)
    finite = every[np.isfinite(every.astype(np.float32))]
    exact = finite.astype(np.float64)       # a bf16 value is exact in double
    for wide in (np.float32, np.float64):
        np.testing.assert_array_equal(coopmat2.from_bfloat16(finite, wide), exact.astype(wide))
    # NumPy's double -> half conversion is a single correctly rounded step.
    with np.errstate(over="ignore"):
        half = exact.astype(np.float16)
    np.testing.assert_array_equal(coopmat2.from_bfloat16(finite, np.float16).view(np.uint16),
                                  half.view(np.uint16))
    back = to_bfloat16(coopmat2.from_bfloat16(finite, np.float32))
    np.testing.assert_array_equal(back.view(np.uint16), finite.view(np.uint16))


def test_integers_to_and_from_bf16():
    values = np.array([0, 1, -1, 255, 257, 259, 65535, 2 ** 31 - 1, -2 ** 31], dtype=np.int64)
    for dtype in (np.int32, np.int64):
        got = coopmat2.convert_bfloat16(values.astype(dtype), BF16)
        np.testing.assert_array_equal(got.view(np.uint16), nearest_even_bf16_bits(values.astype(np.float64)))
    big = np.array([2 ** 62 + 2 ** 54 + 1, -(2 ** 62 + 2 ** 54 + 1), 2 ** 63 - 1], dtype=np.int64)
    exact = [int(v) for v in big]
    got = coopmat2.convert_bfloat16(big, BF16).astype(np.float64)
    # 2**62 + 2**54 + 1 lies just above the tie between two bf16 values: up, not even.
    assert [float(v) for v in got] == [2.0 ** 62 + 2.0 ** 55, -(2.0 ** 62 + 2.0 ** 55), 2.0 ** 63]
    assert exact[0] > 2 ** 62 + 2 ** 54
    floats = to_bfloat16(np.array([3.75, -3.75, 300.0, 1e10], dtype=np.float32))
    assert coopmat2.convert_bfloat16(floats, np.int32).tolist() == [3, -3, 300, 2 ** 31 - 1]
    assert coopmat2.convert_bfloat16(floats[:3], np.uint8).tolist() == [3, 0, 255]


def test_bf16_mul_add_into_float_and_bf16():
    rng = np.random.default_rng(5)
    # Small integers: every product and sum is exact, so the result is fully determined.
    a = rng.integers(-8, 8, (2, 8, 16)).astype(np.float32).astype(BF16)
    b = rng.integers(-8, 8, (2, 16, 8)).astype(np.float32).astype(BF16)
    c = rng.integers(-100, 100, (2, 8, 8)).astype(np.float32)
    exact = np.matmul(a.astype(np.int64), b.astype(np.int64)) + c.astype(np.int64)
    got = coopmat2.bfloat16_mul_add(a, b, c, np.float32)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, exact.astype(np.float32))
    got16 = coopmat2.bfloat16_mul_add(a, b, c.astype(BF16), BF16)
    assert got16.dtype == BF16
    np.testing.assert_array_equal(got16.view(np.uint16), nearest_even_bf16_bits(exact.astype(np.float64)))


def test_bf16_mul_add_products_are_exact_in_float32():
    # (1 + 2**-7)**2 = 1 + 2**-6 + 2**-14: exact in float32, lost in bf16.
    x = to_bfloat16(np.full((1, 1, 1), 1 + 2 ** -7))
    got = coopmat2.bfloat16_mul_add(x, x, np.zeros((1, 1, 1), np.float32), np.float32)
    assert float(got[0, 0, 0]) == 1 + 2 ** -6 + 2 ** -14
    rng = np.random.default_rng(6)
    a = to_bfloat16(rng.standard_normal((3, 16, 32)))
    b = to_bfloat16(rng.standard_normal((3, 32, 16)))
    c = rng.standard_normal((3, 16, 16)).astype(np.float32)
    reference = np.matmul(a.astype(np.float64), b.astype(np.float64)) + c
    got = coopmat2.bfloat16_mul_add(a, b, c, np.float32)
    np.testing.assert_allclose(got, reference, rtol=0, atol=32 * 2 ** -20 * np.abs(reference).max())


def test_bf16_mul_add_rejects_other_operands():
    with pytest.raises(coopmat2.Coopmat2Error, match="A of float32"):
        coopmat2.bfloat16_mul_add(np.zeros((1, 2, 2), np.float32), np.zeros((1, 2, 2), BF16),
                                  np.zeros((1, 2, 2), np.float32), np.float32)

