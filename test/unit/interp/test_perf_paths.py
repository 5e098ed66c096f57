"""The interpreter's fast paths (docs/performance.md) against the plain reference
computations they replace: relayouts as transposes vs np.take over the index tables,
the cached logical form, loads of distinct tiles, integer mul-add through float BLAS,
and the half -> float table."""
import itertools

import numpy as np
import pytest

from clcoop import coopmat_spec
from clcoop.errors import RuntimeFault
from clcoop.interp import coop_calls, coopmat
from clcoop.ir.layout import COMPONENT_DTYPES, get_layout
from clcoop.interp.matrix_value import MatrixValue

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
    from clcoop.ir.layout import _bit_transpose_plan
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
    value = coop_calls.execute_coop_call(ctx, name, [pointer, np.int32(0), np.int64(16)],
                                         'target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)')
    assert not value.flags.writeable and not np.asarray(value).flags.writeable
    layout = get_layout(8, 16, 2, "float", 16)
    groups = coop_calls.Subgroups(ctx, "test")
    kept = groups.gather_matrix(value, layout)                       # the value's own form
    fresh = groups.gather_matrix(np.array(value), layout)            # a plain copy: relayout
    np.testing.assert_array_equal(kept, fresh)
    np.testing.assert_array_equal(fresh, layout.to_logical(np.array(value).reshape(4, 16, -1)))
    assert not kept.flags.writeable


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


# ---------------------------------------------------------------- factored mul-add

def expanded_mul_add(a_tiles, a_index, b_tiles, b_index, c, operands, result_dtype):
    return coopmat.mul_add(a_tiles[a_index], b_tiles[b_index], c, operands, result_dtype)


def index_orders(Da, Db):
    """Grid orders (A outer, A inner) and a shuffled one, each covering every pair."""
    a_outer, b_inner = np.repeat(np.arange(Da), Db), np.tile(np.arange(Db), Da)
    shuffled = RNG.permutation(Da * Db)
    a_inner, b_outer = np.tile(np.arange(Da), Db), np.repeat(np.arange(Db), Da)
    return [(a_outer, b_inner), (a_inner, b_outer), (a_outer[shuffled], b_inner[shuffled]),
            (RNG.integers(0, Da, Da * Db - 3), RNG.integers(0, Db, Da * Db - 3))]


@pytest.mark.parametrize("a_dtype,c_dtype", [(np.float32, np.float32), (np.float16, np.float32),
                                             (np.float16, np.float16), (np.float64, np.float64)])
def test_factored_float_mul_add_matches_per_subgroup_mul_add(a_dtype, c_dtype):
    Da, Db, M, K, N = 5, 3, 8, 16, 16
    a_tiles = RNG.standard_normal((Da, M, K)).astype(a_dtype)
    b_tiles = RNG.standard_normal((Db, K, N)).astype(a_dtype)
    for a_index, b_index in index_orders(Da, Db):
        c = RNG.standard_normal((a_index.size, M, N)).astype(c_dtype)
        got = coopmat.mul_add_factored((a_tiles, a_index), (b_tiles, b_index), c, 0, c_dtype)
        want = expanded_mul_add(a_tiles, a_index, b_tiles, b_index, c, 0, c_dtype)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)    # the per-tile order, bit for bit


@pytest.mark.parametrize("elem,result", [("char", np.int32), ("uchar", np.int32),
                                         ("short", np.int32), ("char", np.int8)])
@pytest.mark.parametrize("operands", [0, 1, 2, 3, 7, 15])
def test_factored_integer_mul_add_is_exact(elem, result, operands):
    dtype = np.dtype(COMPONENT_DTYPES[elem])
    info = np.iinfo(dtype)
    Da, Db, M, K, N = 4, 3, 8, 32, 8
    a_tiles = RNG.integers(info.min, info.max, (Da, M, K), endpoint=True).astype(dtype)
    b_tiles = RNG.integers(info.min, info.max, (Db, K, N), endpoint=True).astype(dtype)
    a_tiles[0, 0, :] = info.max if operands & 1 == 0 else info.min     # extreme products
    b_tiles[0, :, 0] = info.max if operands & 2 == 0 else info.min
    for a_index, b_index in index_orders(Da, Db):
        c_info = np.iinfo(result)
        c = RNG.integers(c_info.min, c_info.max, (a_index.size, M, N), endpoint=True).astype(result)
        got = coopmat.mul_add_factored((a_tiles, a_index), (b_tiles, b_index), c, operands, result)
        A, B = a_tiles[a_index], b_tiles[b_index]
        np.testing.assert_array_equal(got, reference_integer_mul_add(A, B, c, operands, result))


@pytest.mark.parametrize("c_dtype", [np.float32, np.float16])
def test_grid_accumulators_chain_like_plain_mul_adds(c_dtype):
    """A mul-add over a grid of subgroups (A's tile index outer) keeps its result in the
    product's Grid order; the next mul-add adds it in place. Each step, and a Grid handed
    to a mul-add in another order, must equal the plain per-subgroup mul-add."""
    Da, Db, M, K, N = 5, 3, 8, 16, 16
    (a_outer, b_inner), (a_inner, b_outer) = index_orders(Da, Db)[:2]
    c = RNG.standard_normal((Da * Db, M, N)).astype(c_dtype)
    want = c
    got = c
    for step in range(3):
        a_tiles = RNG.standard_normal((Da, M, K)).astype(np.float16)
        b_tiles = RNG.standard_normal((Db, K, N)).astype(np.float16)
        got = coopmat.mul_add_factored((a_tiles, a_outer), (b_tiles, b_inner), got, 0, c_dtype,
                                       keep_grid=True)
        assert isinstance(got, coopmat.Grid) and got.dtype == c_dtype
        want = expanded_mul_add(a_tiles, a_outer, b_tiles, b_inner, want, 0, c_dtype)
        np.testing.assert_array_equal(got.logical(), want)
    a_tiles = RNG.standard_normal((Da, M, K)).astype(np.float32)
    b_tiles = RNG.standard_normal((Db, K, N)).astype(np.float32)
    other = coopmat.mul_add_factored((a_tiles, a_inner), (b_tiles, b_outer), got, 0, c_dtype,
                                     keep_grid=True)
    assert isinstance(other, np.ndarray)
    np.testing.assert_array_equal(other, expanded_mul_add(a_tiles, a_inner, b_tiles, b_outer,
                                                          got.logical(), 0, c_dtype))


def test_factored_mul_add_declines_where_it_does_not_apply():
    a_tiles = np.ones((8, 4, 4), np.float32)
    b_tiles = np.ones((8, 4, 4), np.float32)
    index = np.arange(8)
    c = np.zeros((8, 4, 4), np.float32)
    # 64 pairs for 8 results: too many unused products.
    assert coopmat.mul_add_factored((a_tiles, index), (b_tiles, index), c, 0, np.float32) is None
    ints = np.ones((2, 4, 4), np.int8)
    small = np.array([0, 1, 0, 1])
    c_int = np.zeros((4, 4, 4), np.int32)
    # Saturating accumulation and 64-bit products go through mul_add.
    assert coopmat.mul_add_factored((ints, small), (ints, small), c_int,
                                    coopmat_spec.Operand.SATURATING_ACCUMULATION, np.int32) is None
    wide = np.ones((2, 4, 4), np.int64)
    assert coopmat.mul_add_factored((wide, small), (wide, small), c_int.astype(np.int64), 0,
                                    np.int64) is None


@pytest.mark.parametrize("m,k,n", [(512, 16, 512), (520, 16, 512), (8, 16, 16), (3, 4, 70000)])
def test_blocked_matmul_matches_matmul(m, k, n):
    x = RNG.standard_normal((m, k)).astype(np.float32)
    y = RNG.standard_normal((k, n)).astype(np.float32)
    np.testing.assert_allclose(coopmat.blocked_matmul(x, y), x @ y, rtol=1e-5, atol=1e-4)


def mul_add_name():
    return ("_Z34__spirv_CooperativeMatrixMulAddKHRIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi0E"
            "fLi3ELi16ELi16ELi1EfLi3ELi8ELi16ELi2EEvi")


def test_mul_add_of_repeated_tiles_through_calls_matches_plain_mul_add(monkeypatch):
    """Loads of a grid of GEMM tiles (few distinct A and B tiles) then a mul-add: the
    factored path gives what the per-subgroup mul-add of the gathered operands gives."""
    memory = ArrayMemory(2 * 64 * 64 * 4)
    A = RNG.standard_normal((64, 16)).astype(np.float32)      # 8 row tiles of 8 x 16
    B = RNG.standard_normal((16, 64)).astype(np.float32)      # 4 column tiles of 16 x 16
    memory.put(0, A)
    b_base = memory.put(64 * 64 * 4, B)
    rows, cols = np.meshgrid(np.arange(8), np.arange(4), indexing="ij")
    rows, cols = rows.reshape(-1), cols.reshape(-1)            # G = 32 subgroups, row outer
    G, S = rows.size, 16
    ctx = Ctx(G * S, memory)
    a_ptr = np.repeat(rows * 8 * 16 * 4, S).astype(np.int64)
    b_ptr = np.repeat(b_base + cols * 16 * 4, S).astype(np.int64)
    a_type = 'target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 0)'
    b_type = 'target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 1)'
    c_type = 'target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)'
    a = coop_calls.execute_coop_call(
        ctx, "_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi0EEvPU3AS1fim",
        [a_ptr, np.int32(0), np.int64(16)], a_type)
    b = coop_calls.execute_coop_call(
        ctx, "_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi16ELi16ELi1EEvPU3AS1fim",
        [b_ptr, np.int32(0), np.int64(64)], b_type)
    layouts = [get_layout(8, 16, 0, "float", S), get_layout(16, 16, 1, "float", S),
               get_layout(8, 16, 2, "float", S)]
    groups = coop_calls.Subgroups(ctx, "test")
    assert isinstance(a, MatrixValue) and a.factored() is not None
    c_logical = RNG.standard_normal((G, 8, 16)).astype(np.float32)
    c = layouts[2].from_logical(c_logical).reshape(G * S, -1)
    factored_results = []
    real_factored = coopmat.mul_add_factored

    def spy(*args, **kwargs):
        factored_results.append(real_factored(*args, **kwargs))
        return factored_results[-1]

    monkeypatch.setattr(coopmat, "mul_add_factored", spy)
    got = coop_calls.execute_coop_call(ctx, mul_add_name(), [a, b, c, np.int32(0)], c_type)
    assert len(factored_results) == 1 and factored_results[0] is not None
    got_logical = layouts[2].to_logical(np.array(got).reshape(G, S, -1))
    # The plain path on copies (no cached forms) and the lazily built logical forms.
    a_logical = layouts[0].to_logical(np.array(a).reshape(G, S, -1))
    b_logical = layouts[1].to_logical(np.array(b).reshape(G, S, -1))
    np.testing.assert_array_equal(groups.gather_matrix(a, layouts[0]), a_logical)
    for g in range(G):
        np.testing.assert_array_equal(a_logical[g], A[rows[g] * 8:rows[g] * 8 + 8])
        np.testing.assert_array_equal(b_logical[g], B[:, cols[g] * 16:cols[g] * 16 + 16])
    want = coopmat.mul_add(a_logical, b_logical, c_logical, 0, np.float32)
    np.testing.assert_allclose(got_logical, want, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- batches

PRIVATE_KERNEL = """
__kernel void k(__global int *out, int n)
{
    int p[4];
    __local int first[1];
    for (int i = 0; i < 4; i++)
        p[i] = (int)get_global_id(0) + i;
    if (get_local_id(0) == 0)
        first[0] = (int)get_group_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    int index = (int)get_global_id(0) < n ? (int)get_global_id(0) : 1 << 20;
    out[index] = p[3] + 1000 * first[0];
}
"""


def test_kernels_with_private_memory_run_in_smaller_batches(monkeypatch):
    """Batches of kernels with allocas are split (bounded memory); results and fault
    locations are those of one big batch."""
    import clcoop
    from clcoop.interp import execute
    monkeypatch.setattr(execute, "PRIVATE_MEMORY_MAX_LANES", 64)
    ran = []
    real_run = execute.Executor._run_one_batch

    def counting_run(self, first, count, *rest):
        ran.append((first, count))
        return real_run(self, first, count, *rest)

    monkeypatch.setattr(execute.Executor, "_run_one_batch", counting_run)
    kernel = clcoop.Program(PRIVATE_KERNEL).build("-cl-opt-disable").k
    out = np.zeros(1024, np.int32)
    kernel(1024, 16, out, 1024, max_lanes=1 << 15)
    ids = np.arange(1024)
    np.testing.assert_array_equal(out, ids + 3 + 1000 * (ids // 16))
    assert ran == [(first, 4) for first in range(0, 64, 4)]     # 64 lanes = 4 groups each
    with pytest.raises(RuntimeFault) as info:
        kernel(1024, 16, out, 700, max_lanes=1 << 15)
    assert info.value.work_item == (700,) and info.value.buffer == "out"


def test_only_kernels_with_private_memory_are_split():
    import clcoop
    from clcoop.interp import translate
    for options, expected in [("-cl-opt-disable", True), ("-O2", False)]:
        program = clcoop.Program("__kernel void k(__global int *o) { int x = 1; o[0] = x; }")
        program.build(options)
        assert translate.uses_private_memory(translate.Translator(program._module)) == expected


@pytest.mark.parametrize("pattern", ["runs", "period", "runs_repeating", "random", "single"])
def test_distinct_tile_search_matches_np_unique(pattern):
    for _ in range(200):
        n = int(RNG.integers(1, 30))
        if pattern == "runs":
            values = np.repeat(RNG.integers(0, 6, n), int(RNG.integers(1, 5)))
        elif pattern == "period":
            values = np.tile(RNG.integers(0, 6, n), int(RNG.integers(1, 5)))
        elif pattern == "runs_repeating":
            values = np.tile(np.repeat(RNG.integers(0, 4, n), 2), 3)
        elif pattern == "random":
            values = RNG.integers(0, 8, n)
        else:
            values = np.full(n, 7)
        values = values.astype(np.int64) * 64
        _, first, inverse = np.unique(values, return_index=True, return_inverse=True)
        for search in (coop_calls._repeated_runs, coop_calls._unique_first_inverse):
            got_first, got_inverse = search(values)
            if got_first is None:
                assert search is coop_calls._repeated_runs
                continue
            np.testing.assert_array_equal(got_first, first)
            np.testing.assert_array_equal(got_inverse, inverse.reshape(-1))


def test_distinct_tile_search_reused_only_when_pointers_shift_together():
    site = ("test-site", 0)
    strides = np.full(24, 64, np.int64)
    bases = np.repeat(np.array([5, 1, 9]), 8).astype(np.int64) * 512
    shifts = [np.full(24, 64), np.full(24, -64),                       # a K loop: reused
              np.where(np.arange(24) < 8, 4 * 512, 0),                    # tiles 5 and 9 merge
              np.where(np.arange(24) == 3, 4096, 0)]                     # one pointer leaves
    for shift in shifts:
        bases = bases + shift
        got = coop_calls._distinct_tiles_at(site, bases, strides)
        want = coop_calls._distinct_tiles(bases, strides)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    other_strides = strides.copy()
    other_strides[0] = 32
    got = coop_calls._distinct_tiles_at(site, bases + 64, other_strides)
    want = coop_calls._distinct_tiles(bases + 64, other_strides)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_a_load_feeding_a_mul_add_never_builds_its_lane_form():
    """MatrixValue: the loads' factored forms and the accumulator's logical form are all a
    mul-add needs; the lane forms are built only when something else reads the value."""
    memory = ArrayMemory(4096 * 4)
    memory.put(0, RNG.standard_normal((64, 16)).astype(np.float32))
    ctx = Ctx(16 * 4, memory)
    pointer = np.repeat(np.array([0, 512, 1024, 0]), 16).astype(np.int64)
    types = ['target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 0)',
             'target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 1)',
             'target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)']
    a = coop_calls.execute_coop_call(ctx, load_name(8, 16, 0), [pointer, np.int32(0), np.int64(16)],
                                     types[0])
    b = coop_calls.execute_coop_call(ctx, load_name(16, 16, 1), [pointer, np.int32(0), np.int64(16)],
                                     types[1])
    c = coop_calls.execute_coop_call(ctx, load_name(8, 16, 2), [pointer, np.int32(0), np.int64(16)],
                                     types[2])
    d = coop_calls.execute_coop_call(ctx, mul_add_name(), [a, b, c, np.int32(0)], types[2])
    assert all(v._lanes is None for v in (a, b, c, d)), [a, b, c, d]
    lanes = np.asarray(d)                       # a reader of the lane form builds it once
    built = d._lanes
    assert np.shares_memory(lanes, built) and np.shares_memory(np.asarray(d), built)
    assert d._lanes is built
    groups = coop_calls.Subgroups(ctx, "test")
    want = coopmat.mul_add(*(groups.gather_matrix(np.array(v), get_layout(r, 16, u, "float", 16))
                             for v, r, u in ((a, 8, 0), (b, 16, 1), (c, 8, 2))), 0, np.float32)
    np.testing.assert_allclose(groups.gather_matrix(lanes, get_layout(8, 16, 2, "float", 16)), want,
                               rtol=1e-5, atol=1e-5)


FORWARD_KERNEL = """
typedef float fmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16,
                                           CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
__kernel void k(__global const float *X, __global float *out, int poke)
{
    fmat m = coop_mat_load(X, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
    fmat copy = m;
    if (poke && get_sub_group_local_id() == 3)
        m[1] = -1.0f;                   /* a partial write through an element pointer */
    coop_mat_store(out, m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
    coop_mat_store(out + 128, copy + m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
}
"""


@pytest.mark.parametrize("poke", [0, 1])
def test_o0_matrix_variables_are_forwarded_only_while_memory_holds_them(poke, monkeypatch):
    import clcoop
    from clcoop.interp import instructions
    forwarded = []
    real = instructions._stored_matrix

    def spy(*args):
        value = real(*args)
        forwarded.append(value is not None)
        return value

    monkeypatch.setattr(instructions, "_stored_matrix", spy)
    X = RNG.standard_normal((8, 16)).astype(np.float32)
    out = np.zeros(256, np.float32)
    clcoop.Program(FORWARD_KERNEL).build("-cl-opt-disable").k(16, 16, X, out, poke,
                                                               subgroup_size=16)
    expected = X.copy()
    if poke:
        layout = get_layout(8, 16, "accumulator", "float", 16)
        row, col = layout.row_col(3, 1)
        expected[row, col] = -1.0
    np.testing.assert_array_equal(out[:128].reshape(8, 16), expected)
    np.testing.assert_array_equal(out[128:].reshape(8, 16), X + expected)
    assert any(forwarded)                   # whole-matrix round trips are forwarded
    if poke:
        assert not all(forwarded)           # the poked variable is read back from memory
