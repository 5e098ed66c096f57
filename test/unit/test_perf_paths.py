"""The interpreter's fast paths (docs/performance.md) against the plain reference
computations they replace: relayouts as transposes vs np.take over the index tables,
the cached logical form, loads of distinct tiles, integer mul-add through float BLAS,
and the half -> float table."""
import itertools

import numpy as np
import pytest

from clcoop.errors import RuntimeFault
from clcoop.interp import coop_calls, coopmat
from clcoop.interp.layout import COMPONENT_DTYPES, get_layout

RNG = np.random.default_rng(7)
SHAPES = [(1, 16), (2, 8), (8, 16), (16, 16), (32, 16), (8, 32), (16, 8), (4, 12), (8, 10),
          (64, 4)]


def reference_to_logical(layout, lanes):
    G = lanes.shape[0]
    return lanes.reshape(G, -1)[:, layout.slot_of_logical].reshape(G, layout.rows, layout.cols)


def reference_from_logical(layout, mats):
    G = mats.shape[0]
    flat = np.concatenate([mats.reshape(G, -1), np.zeros((G, 1), mats.dtype)], axis=1)
    return flat[:, layout.logical_of_slot].reshape(G, layout.subgroup_size, layout.length)


@pytest.mark.parametrize("use,elem,S", list(itertools.product(
    ["a", "b", "accumulator"], ["char", "half", "float", "double"], [8, 16, 32])))
def test_relayouts_match_index_tables(use, elem, S):
    planned = 0
    for rows, cols in SHAPES:
        if rows & (rows - 1):
            continue
        layout = get_layout(rows, cols, use, elem, S)
        planned += layout._from_logical_plan is not None
        dtype = layout.dtype
        mats = (RNG.standard_normal((5, rows, cols)) * 50).astype(dtype)
        lanes = layout.from_logical(mats)
        np.testing.assert_array_equal(lanes, reference_from_logical(layout, mats))
        np.testing.assert_array_equal(layout.to_logical(lanes), reference_to_logical(layout, lanes))
        np.testing.assert_array_equal(layout.to_logical(lanes), mats)
        assert layout.to_logical(lanes).flags.c_contiguous
    assert planned, "some shapes must take the transpose path"


def test_bit_transpose_plan_rejects_other_permutations():
    from clcoop.interp.layout import _bit_transpose_plan
    assert _bit_transpose_plan(np.array([0, 2, 1, 3])) is not None
    assert _bit_transpose_plan(np.array([0, 1, 3, 2])) is None      # not a bit permutation
    assert _bit_transpose_plan(np.arange(6)) is None                # not a power of two


class ArrayMemory:
    """One flat byte buffer at address 0 with the load_rows/store_rows interface."""

    def __init__(self, nbytes):
        self.data = np.zeros(nbytes, np.uint8)

    def put(self, addr, array):
        raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        self.data[addr:addr + raw.size] = raw
        return addr

    def load(self, addrs, dtype):
        dtype = np.dtype(dtype)
        addrs = np.asarray(addrs, np.int64)
        if (addrs < 0).any() or (addrs + dtype.itemsize > self.data.size).any():
            raise RuntimeFault("out of bounds")
        return self.data.view(dtype)[addrs // dtype.itemsize]

    def load_rows(self, starts, n, dtype):
        dtype = np.dtype(dtype)
        return self.load(np.asarray(starts)[:, None] + np.arange(n) * dtype.itemsize, dtype)

    def store(self, addrs, values, dtype):
        self.data.view(dtype)[np.asarray(addrs, np.int64) // np.dtype(dtype).itemsize] = values

    def store_rows(self, starts, values, dtype):
        dtype = np.dtype(dtype)
        addrs = np.asarray(starts)[:, None] + np.arange(values.shape[1]) * dtype.itemsize
        self.store(addrs, values, dtype)


class Ctx:
    def __init__(self, lane_count, memory, S=16):
        self.memory, self.subgroup_size, self.lane_count = memory, S, lane_count
        self.work_group_size = None
        self.mask = np.ones(lane_count, dtype=bool)

    def fault(self, message, lanes_mask=None):
        raise RuntimeFault(message, kernel="k")


def load_name(rows, cols, use):
    return (f"_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi{rows}ELi{cols}ELi{use}E"
            f"EvPU3AS1fim")


def test_load_of_repeated_tiles_matches_per_subgroup_loads():
    memory = ArrayMemory(64 * 64 * 4)
    matrix = RNG.standard_normal((64, 64)).astype(np.float32)
    memory.put(0, matrix)
    G = 24
    # Subgroups of a row of C tiles read the same A tile: 3 distinct tiles, 8 times each.
    tile = np.repeat(np.array([2, 0, 1]), 8)
    pointer = np.repeat(tile * 8 * 64 * 4, 16).astype(np.int64)
    ctx = Ctx(G * 16, memory)
    name = load_name(8, 16, 2)
    lanes = coop_calls.execute_coop_call(ctx, name, [pointer, np.int32(0), np.int64(64)],
                                         'target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)')
    layout = get_layout(8, 16, 2, "float", 16)
    logical = layout.to_logical(np.asarray(lanes).reshape(G, 16, -1))
    for g in range(G):
        r = tile[g] * 8
        np.testing.assert_array_equal(logical[g], matrix[r:r + 8, :16])


def test_results_are_read_only_and_cached_forms_agree():
    memory = ArrayMemory(16 * 16 * 4)
    memory.put(0, RNG.standard_normal((16, 16)).astype(np.float32))
    ctx = Ctx(16 * 4, memory)
    pointer = np.repeat(np.array([0, 256, 512, 0]), 16).astype(np.int64)
    name = load_name(8, 16, 2)
    lanes = coop_calls.execute_coop_call(ctx, name, [pointer, np.int32(0), np.int64(16)],
                                         'target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)')
    assert not lanes.flags.writeable
    layout = get_layout(8, 16, 2, "float", 16)
    groups = coop_calls.Subgroups(ctx, "test")
    cached = groups.gather_matrix(np.asarray(lanes), layout)        # a plain view: cache hit
    fresh = layout.to_logical(np.array(lanes).reshape(4, 16, -1))   # a copy: recomputed
    np.testing.assert_array_equal(cached, fresh)
    assert not cached.flags.writeable
    copy = np.array(lanes)
    assert coop_calls._cached_logical(copy, coop_calls._cache_key(layout, groups)) is None


def reference_integer_mul_add(a, b, c, operands, result_dtype):
    def ext(x, signed):
        size = x.dtype.itemsize
        return [[int(v) for v in row] for row in x.view(f"i{size}" if signed else f"u{size}")]
    out = np.zeros(c.shape, dtype=object)
    for g in range(a.shape[0]):
        A = np.array(ext(a[g], operands & 1), dtype=object)
        B = np.array(ext(b[g], operands & 2), dtype=object)
        C = np.array(ext(c[g], operands & 4), dtype=object)
        out[g] = A.dot(B) + C
    bits = np.dtype(result_dtype).itemsize * 8
    wrapped = [(int(v) % (1 << bits)) for v in out.reshape(-1)]
    return np.array(wrapped, dtype=f"u{bits // 8}").view(result_dtype).reshape(c.shape)


@pytest.mark.parametrize("elem,K", [("char", 32), ("uchar", 32), ("char", 256), ("short", 16),
                                    ("int", 8)])
@pytest.mark.parametrize("operands", [0, 1, 2, 3, 7])
def test_integer_mul_add_matches_exact_arithmetic(elem, K, operands):
    dtype = np.dtype(COMPONENT_DTYPES[elem])
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max, (2, 4, K), endpoint=True).astype(dtype)
    b = RNG.integers(info.min, info.max, (2, K, 3), endpoint=True).astype(dtype)
    a[0, 0, :] = info.max if operands & 1 == 0 else info.min     # extreme products
    b[0, :, 0] = info.max if operands & 2 == 0 else info.min
    c = RNG.integers(-1000, 1000, (2, 4, 3)).astype(np.int32)
    got = coopmat.mul_add(a, b, c, operands, np.int32)
    np.testing.assert_array_equal(got, reference_integer_mul_add(a, b, c, operands, np.int32))


def test_half_to_float_table_matches_astype_bit_for_bit():
    every_half = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    widened = coopmat._widen(every_half, np.dtype(np.float32))
    np.testing.assert_array_equal(widened.view(np.uint32),
                                  every_half.astype(np.float32).view(np.uint32))
