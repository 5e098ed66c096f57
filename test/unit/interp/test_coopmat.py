"""SPV_KHR_cooperative_matrix semantics (clcoop.interp.coopmat) against references
written here with Python integers / plain loops."""
import numpy as np
import pytest

from clcoop.errors import RuntimeFault
from clcoop.interp import coopmat


class ByteMemory:
    """Flat little-endian memory starting at address `base`; out of bounds faults."""

    def __init__(self, nbytes, base=4096):
        self.bytes = np.zeros(nbytes, dtype=np.uint8)
        self.base = base

    def _offsets(self, addrs, dtype):
        size = np.dtype(dtype).itemsize
        offsets = np.asarray(addrs, dtype=np.int64) - self.base
        if ((offsets < 0) | (offsets + size > self.bytes.size)).any():
            raise RuntimeFault("out of bounds")
        return offsets[:, None] + np.arange(size)

    def load(self, addrs, dtype):
        """Like clcoop's Memory: addresses of any shape, values of the same shape."""
        flat = np.asarray(addrs).reshape(-1)
        return self.bytes[self._offsets(flat, dtype)].copy().view(dtype).reshape(np.shape(addrs))

    def store(self, addrs, values, dtype):
        flat = np.asarray(addrs).reshape(-1)
        raw = np.ascontiguousarray(values, dtype=dtype).view(np.uint8).reshape(flat.size, -1)
        self.bytes[self._offsets(flat, dtype)] = raw

    def put(self, offset, array):
        raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        self.bytes[offset:offset + raw.size] = raw
        return self.base + offset

    def get(self, offset, dtype, count):
        size = np.dtype(dtype).itemsize
        return self.bytes[offset:offset + size * count].copy().view(dtype)


class RowsByteMemory(ByteMemory):
    """ByteMemory with the row interface of clcoop's Memory (load_rows/store_rows):
    coopmat then reads and writes one contiguous row (or column) at a time."""

    def load_rows(self, starts, n, dtype):
        size = np.dtype(dtype).itemsize
        return self.load(np.asarray(starts)[:, None] + np.arange(n) * size, dtype)

    def store_rows(self, starts, values, dtype):
        size = np.dtype(dtype).itemsize
        n = values.shape[1]
        self.store(np.asarray(starts)[:, None] + np.arange(n) * size, values, dtype)


def both_memories(test):
    return pytest.mark.parametrize("memory_class", [ByteMemory, RowsByteMemory])(test)


# ---------------------------------------------------------------- integer mul-add

def reference_mul_add(a, b, c, operands, result_bits, result_signed_dtype):
    """Per-element Python-int reference of OpCooperativeMatrixMulAddKHR."""
    def extend(x, bits, signed):
        x = int(x) & ((1 << bits) - 1)
        return x - (1 << bits) if signed and x >= 1 << (bits - 1) else x

    a_bits, b_bits, c_bits = (8 * m.dtype.itemsize for m in (a, b, c))
    G, M, K = a.shape
    N = b.shape[2]
    out = np.zeros((G, M, N), dtype=result_signed_dtype)
    mask = (1 << result_bits) - 1
    for g in range(G):
        for i in range(M):
            for j in range(N):
                product = sum(extend(a[g, i, k], a_bits, operands & 1) *
                              extend(b[g, k, j], b_bits, operands & 2) for k in range(K))
                total = product + extend(c[g, i, j], c_bits, operands & 4)
                if operands & 16:
                    if operands & 8:
                        low, high = -(1 << (result_bits - 1)), (1 << (result_bits - 1)) - 1
                    else:
                        low, high = 0, mask
                    total = min(max(total, low), high)
                out[g, i, j] = np.array(total & mask, dtype=np.uint64).astype(
                    f"u{result_bits // 8}").view(result_signed_dtype)
    return out


def random_ints(rng, shape, dtype):
    info = np.iinfo(dtype)
    return rng.integers(info.min, int(info.max) + 1, size=shape, dtype=np.int64).astype(dtype)


@pytest.mark.parametrize("operands", [0, 1, 2, 3, 4, 7, 8, 15, 16, 16 | 8, 16 | 15, 16 | 3])
@pytest.mark.parametrize("a_type, c_type", [(np.int8, np.int32), (np.int8, np.int8),
                                            (np.uint8, np.int16), (np.int16, np.int32),
                                            (np.int32, np.int32), (np.int8, np.int64),
                                            (np.uint32, np.uint32), (np.int64, np.int64)])
def test_integer_mul_add_matches_reference(operands, a_type, c_type):
    rng = np.random.default_rng(operands * 7 + np.dtype(a_type).itemsize)
    a = random_ints(rng, (2, 4, 8), a_type)
    b = random_ints(rng, (2, 8, 3), a_type)
    c = random_ints(rng, (2, 4, 3), c_type)
    bits = 8 * np.dtype(c_type).itemsize
    expected = reference_mul_add(a, b, c, operands, bits, np.dtype(c_type))
    got = coopmat.mul_add(a, b, c, operands, c_type)
    assert got.dtype == np.dtype(c_type)
    np.testing.assert_array_equal(got, expected)


def test_int8_to_int32_signed_example():
    a = np.array([[[-128, 127]]], dtype=np.int8)
    b = np.array([[[-128], [127]]], dtype=np.int8)
    c = np.array([[[5]]], dtype=np.int32)
    signed = coopmat.mul_add(a, b, c, 1 | 2 | 4 | 8, np.int32)
    assert signed[0, 0, 0] == 16384 + 16129 + 5
    # Without the signed flags the same bits are zero-extended: 128*128 + 127*127 + 5.
    unsigned = coopmat.mul_add(a, b, c, 0, np.int32)
    assert unsigned[0, 0, 0] == 128 * 128 + 127 * 127 + 5


def test_uchar_zero_extension():
    a = np.full((1, 1, 4), 255, dtype=np.uint8)
    b = np.full((1, 4, 1), 255, dtype=np.uint8)
    c = np.zeros((1, 1, 1), dtype=np.uint32)
    assert coopmat.mul_add(a, b, c, 0, np.uint32)[0, 0, 0] == 4 * 255 * 255
    # The same bits sign-extended are -1 each.
    assert coopmat.mul_add(a.view(np.int8), b.view(np.int8), c.view(np.int32), 1 | 2,
                           np.int32)[0, 0, 0] == 4


def test_int8_result_wraps_by_default_and_saturates_with_flag():
    a = np.full((1, 1, 2), 100, dtype=np.int8)
    b = np.full((1, 2, 1), 1, dtype=np.int8)
    c = np.full((1, 1, 1), 100, dtype=np.int8)
    # 100 + 100 + 100 = 300: wraps to 44, saturates (signed result) to 127.
    assert coopmat.mul_add(a, b, c, 1 | 2 | 4 | 8, np.int8)[0, 0, 0] == 300 - 256
    assert coopmat.mul_add(a, b, c, 1 | 2 | 4 | 8 | 16, np.int8)[0, 0, 0] == 127
    # Unsigned saturation of a negative sum is 0; of a large one 255 (bits 0xff).
    neg_c = np.full((1, 1, 1), -100, dtype=np.int8)
    neg_a = np.full((1, 1, 2), -100, dtype=np.int8)
    assert coopmat.mul_add(neg_a, b, neg_c, 1 | 2 | 4 | 16, np.int8)[0, 0, 0] == 0
    assert coopmat.mul_add(a, b, c, 1 | 2 | 4 | 16, np.uint8)[0, 0, 0] == 255


def test_saturation_uses_exact_intermediate():
    # A*B = 254 does not fit int8, but A*B + C = 254 - 128 = 126 does (computed exactly,
    # not clamped to 127 before the addition).
    a = np.full((1, 1, 2), 127, dtype=np.int8)
    b = np.full((1, 2, 1), 1, dtype=np.int8)
    c = np.full((1, 1, 1), -128, dtype=np.int8)
    result = coopmat.mul_add(a, b, c, 1 | 2 | 4 | 8 | 16, np.int8)
    assert result[0, 0, 0] == 126


def test_int32_saturating_needs_more_than_int64():
    # 64 products of (2^31-1)^2 overflow int64; the exact sum saturates to INT32_MAX.
    a = np.full((1, 1, 64), 2**31 - 1, dtype=np.int32)
    b = np.full((1, 64, 1), 2**31 - 1, dtype=np.int32)
    c = np.zeros((1, 1, 1), dtype=np.int32)
    assert coopmat.mul_add(a, b, c, 31, np.int32)[0, 0, 0] == 2**31 - 1
    expected = (64 * (2**31 - 1) ** 2) & 0xFFFFFFFF
    wrapped = coopmat.mul_add(a, b, c, 15, np.int32)[0, 0, 0]
    assert int(np.int32(wrapped).view(np.uint32)) == expected


def test_unknown_operand_bits_fault():
    a = np.zeros((1, 1, 1), np.int8)
    with pytest.raises(RuntimeFault, match="operands"):
        coopmat.mul_add(a, a, a, 64, np.int8)


# ---------------------------------------------------------------- float mul-add

def test_half_inputs_accumulate_in_float():
    a = np.full((1, 1, 4), 300, dtype=np.float16)
    b = np.full((1, 4, 1), 300, dtype=np.float16)
    c = np.zeros((1, 1, 1), dtype=np.float32)
    # 4 * 90000 = 360000: not representable in half (max 65504), exact in float.
    result = coopmat.mul_add(a, b, c, 0, np.float32)
    assert result.dtype == np.float32 and result[0, 0, 0] == 360000.0


def test_half_accumulate_rounds_to_half_at_the_end():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 8, 16)).astype(np.float16)
    b = rng.standard_normal((3, 16, 8)).astype(np.float16)
    c = rng.standard_normal((3, 8, 8)).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64) + c).astype(np.float16)
    got = coopmat.mul_add(a, b, c, 0, np.float16)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), expected.astype(np.float32), rtol=2e-3,
                               atol=2e-3)


def test_double_mul_add_is_double_precision():
    a = np.full((1, 1, 2), 1 + 2**-40, dtype=np.float64)
    b = np.ones((1, 2, 1), dtype=np.float64)
    c = np.zeros((1, 1, 1), dtype=np.float64)
    assert coopmat.mul_add(a, b, c, 0, np.float64)[0, 0, 0] == 2 + 2**-39


# ---------------------------------------------------------------- load / store

@both_memories
def test_row_major_load_with_stride(memory_class):
    memory = memory_class(4096)
    data = np.arange(64, dtype=np.float32)
    base = memory.put(0, data)
    mats = coopmat.load(memory, np.array([base, base + 4]), 0, np.array([10, 10]), 4,
                        np.float32, 4, 3)
    for g, start in enumerate((0, 1)):
        expected = np.array([[data[start + r * 10 + c] for c in range(3)] for r in range(4)])
        np.testing.assert_array_equal(mats[g], expected)


@pytest.mark.parametrize("layout", [0, 1])
@both_memories
def test_load_with_a_different_stride_per_subgroup(layout, memory_class):
    memory = memory_class(4096)
    data = np.arange(200, dtype=np.int32)
    base = memory.put(0, data)
    strides = [10, 7, 0]
    mats = coopmat.load(memory, np.array([base, base + 8, base]), layout, np.array(strides), 4,
                        np.int32, 3, 4)
    starts = [0, 2, 0]
    for g in range(3):
        if layout == 0:
            expected = [[data[starts[g] + r * strides[g] + c] for c in range(4)] for r in range(3)]
        else:
            expected = [[data[starts[g] + c * strides[g] + r] for c in range(4)] for r in range(3)]
        np.testing.assert_array_equal(mats[g], expected)


@both_memories
def test_load_in_layout_order(memory_class):
    # order = a layout's index table: elements in that order, padding 0.
    memory = memory_class(1024)
    data = np.arange(1, 61, dtype=np.float32)
    base = memory.put(0, data)
    order = np.array([0, 14, -1, 59, 15])
    values = coopmat.load(memory, np.array([base]), 0, np.array([15]), 4, np.float32, 4, 15,
                          order=order)
    np.testing.assert_array_equal(values, [[1, 15, 0, 60, 16]])


@both_memories
def test_column_major_load_with_stride(memory_class):
    memory = memory_class(4096)
    data = np.arange(100, dtype=np.int16)
    base = memory.put(0, data)
    mats = coopmat.load(memory, np.array([base]), 1, np.array([7]), 2, np.int16, 2, 5)
    expected = np.array([[data[c * 7 + r] for c in range(5)] for r in range(2)])
    np.testing.assert_array_equal(mats[0], expected)


@both_memories
def test_stride_counts_pointee_elements(memory_class):
    # Pointer to a 16-byte type (e.g. uint4), component uchar: row r starts at r*stride*16.
    memory = memory_class(4096)
    data = np.arange(256, dtype=np.uint8)
    base = memory.put(0, data)
    mats = coopmat.load(memory, np.array([base]), 0, np.array([2]), 16, np.uint8, 2, 4)
    np.testing.assert_array_equal(mats[0], [[0, 1, 2, 3], [32, 33, 34, 35]])


@both_memories
def test_stride_zero_load_repeats_row(memory_class):
    memory = memory_class(1024)
    base = memory.put(0, np.array([5, 6, 7], dtype=np.int32))
    mats = coopmat.load(memory, np.array([base]), 0, np.array([0]), 4, np.int32, 4, 3)
    np.testing.assert_array_equal(mats[0], np.tile([5, 6, 7], (4, 1)))


@both_memories
def test_store_row_and_column_major_round_trip(memory_class):
    memory = memory_class(4096)
    mats = np.arange(2 * 4 * 3, dtype=np.float32).reshape(2, 4, 3)
    bases = np.array([memory.base, memory.base + 1024])
    coopmat.store(memory, bases, mats, 1, np.array([6, 6]), 4)
    back = coopmat.load(memory, bases, 1, np.array([6, 6]), 4, np.float32, 4, 3)
    np.testing.assert_array_equal(back, mats)
    stored = memory.get(0, np.float32, 3 * 6)
    assert stored[6 * 2 + 1] == mats[0, 1, 2]     # column 2 starts at 2*stride


@pytest.mark.parametrize("stride", [0, -1])
def test_store_requires_positive_stride(stride):
    memory = ByteMemory(1024)
    with pytest.raises(RuntimeFault, match="greater than 0"):
        coopmat.store(memory, np.array([memory.base]), np.zeros((1, 2, 2), np.float32), 0,
                      np.array([stride]), 4)


def test_bad_memory_layout_faults():
    with pytest.raises(RuntimeFault, match="layout"):
        coopmat.load(ByteMemory(64), np.array([4096]), 2, np.array([1]), 4, np.float32, 1, 1)


# ---------------------------------------------------------------- element-wise, conversions

def test_elementwise_integer_ops_wrap():
    a = np.array([[[120, -128]]], dtype=np.int8)
    b = np.array([[[10, 1]]], dtype=np.int8)
    np.testing.assert_array_equal(coopmat.binary("add", a, b), [[[-126, -127]]])
    np.testing.assert_array_equal(coopmat.binary("sub", a, b), [[[110, 127]]])
    np.testing.assert_array_equal(coopmat.binary("mul", a, b), [[[-80, -128]]])
    np.testing.assert_array_equal(coopmat.negate(a), [[[-120, -128]]])


def test_integer_division_truncates_and_respects_signedness():
    a = np.array([-7, 7, -7, -128], dtype=np.int8)
    b = np.array([2, -2, -2, -1], dtype=np.int8)
    np.testing.assert_array_equal(coopmat.binary("div", a, b), [-3, -3, 3, -128])
    ua, ub = a.view(np.uint8), b.view(np.uint8)
    np.testing.assert_array_equal(coopmat.binary("div", ua, ub), [249 // 2, 7 // 254, 0, 128 // 255])


def test_integer_division_by_zero_faults():
    with pytest.raises(RuntimeFault, match="division by zero"):
        coopmat.binary("div", np.array([1, 2], np.int32), np.array([1, 0], np.int32))


def test_float_division_by_zero_is_ieee():
    result = coopmat.binary("div", np.array([1.0, -1.0], np.float32), np.zeros(2, np.float32))
    np.testing.assert_array_equal(result, [np.inf, -np.inf])


def test_scalar_mul_converts_scalar_to_component_type():
    a = np.array([[[1.5, 2.0]]], dtype=np.float16)
    result = coopmat.scalar_mul(a, np.array([2.0]).reshape(1, 1, 1))
    assert result.dtype == np.float16
    np.testing.assert_array_equal(result, [[[3.0, 4.0]]])
    ints = coopmat.scalar_mul(np.array([[[3, 4]]], np.int32), np.array([2.9]).reshape(1, 1, 1))
    np.testing.assert_array_equal(ints, [[[6, 8]]])      # 2.9 -> (int) 2


def test_splat_per_subgroup():
    mats = coopmat.splat(np.array([1, 2]), np.int16, (3, 4))
    assert mats.shape == (2, 3, 4) and mats.dtype == np.int16
    assert (mats[0] == 1).all() and (mats[1] == 2).all()


def test_conversions():
    x = np.array([-1, 127, -128], dtype=np.int8)
    np.testing.assert_array_equal(coopmat.convert("SConvert", x, np.int32), [-1, 127, -128])
    np.testing.assert_array_equal(coopmat.convert("UConvert", x, np.int32), [255, 127, 128])
    np.testing.assert_array_equal(coopmat.convert("SConvert", np.array([300], np.int32), np.int8),
                                  [44])
    np.testing.assert_array_equal(coopmat.convert("ConvertSToF", x, np.float32), [-1, 127, -128])
    np.testing.assert_array_equal(coopmat.convert("ConvertUToF", x, np.float32), [255, 127, 128])
    f = np.array([2.7, -2.7, 1e10, -1e10, np.nan], dtype=np.float32)
    np.testing.assert_array_equal(coopmat.convert("ConvertFToS", f, np.int32),
                                  [2, -2, 2**31 - 1, -2**31, 0])
    np.testing.assert_array_equal(coopmat.convert("ConvertFToU", f, np.uint8), [2, 0, 255, 0, 0])
    np.testing.assert_array_equal(coopmat.convert("FConvert", np.array([1.5], np.float32),
                                                  np.float16), [1.5])
    big = coopmat.convert("ConvertFToS", np.array([1e30, -1e30]), np.int64)
    np.testing.assert_array_equal(big, [2**63 - 1, -2**63])
    u64 = coopmat.convert("ConvertUToF", np.array([-1], np.int64), np.float64)
    assert u64[0] == 2.0**64
