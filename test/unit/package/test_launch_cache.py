"""clcoop/launch_cache.py: a native launch with the sizes and arguments of an earlier one
runs that one's plan again, and anything its preparation depends on (an address, a size, a
dtype, a flag, a scalar's bits) makes a launch of its own. Results are checked against NumPy;
every launch that must not reuse a plan is one whose reuse would give a wrong result or miss
an error."""
import threading

import numpy as np
import pytest

import clcoop
from clcoop.launch_cache import MAX_ENTRIES, launch_key

SCALE = """
__kernel void k(__global const float *a, __global float *c, float s) {
    size_t i = get_global_id(0);
    c[i] = a[i] / s;
}"""

# A loop keeps launches off the in-place path (native/ranges.py): they run on private copies.
SHIFTED_SUM = """
__kernel void k(__global const float *a, __global float *c, __global const int *shift, int n) {
    size_t i = get_global_id(0);
    float s = 0.0f;
    for (int t = 0; t < n; t++)
        s += a[i];
    c[i + shift[0]] = c[i + shift[0]] + s;
}"""


def key(*launch):
    return launch_key(*launch, clcoop.LocalMemory)


def _entries(prog):
    return list(prog._launches._entries.values())


def test_a_repeated_launch_reuses_its_plan_and_sees_new_contents():
    prog = clcoop.Program(SCALE).build(engine="native")
    a = np.arange(256, dtype=np.float32)
    c = np.zeros(256, np.float32)
    prog.k(256, 64, a, c, np.float32(2))
    [entry] = _entries(prog)
    plan = entry.plan
    a[:] = np.arange(256, 0, -1, dtype=np.float32)
    prog.k(256, 64, a, c, np.float32(2))
    assert [e.plan for e in _entries(prog)] == [plan]
    np.testing.assert_array_equal(c, a / np.float32(2))


def test_other_arrays_and_other_scalars_get_plans_of_their_own():
    prog = clcoop.Program(SCALE).build(engine="native")
    a = np.arange(256, dtype=np.float32)
    c1, c2 = np.zeros(256, np.float32), np.zeros(256, np.float32)
    prog.k(256, 64, a, c1, np.float32(2))
    prog.k(256, 64, a, c2, np.float32(4))
    assert len(_entries(prog)) == 2
    np.testing.assert_array_equal(c1, a / np.float32(2))
    np.testing.assert_array_equal(c2, a / np.float32(4))


def test_plus_and_minus_zero_are_different_scalars():
    # 0.0 == -0.0 and their hashes agree: a key by value would run 1/-0 as 1/+0.
    prog = clcoop.Program(SCALE).build(engine="native")
    a = np.ones(64, np.float32)
    c = np.zeros(64, np.float32)
    prog.k(64, 64, a, c, 0.0)
    assert (c == np.inf).all()
    prog.k(64, 64, a, c, -0.0)
    assert (c == -np.inf).all()


def test_launch_keys_tell_apart_what_preparation_depends_on():
    a = np.zeros(16, np.float32)
    base = key(16, 16, (a,), None, 1000, None)
    assert base == key(16, 16, (a,), None, 1000, None)
    read_only = a.view()
    read_only.flags.writeable = False
    assert key(16, 16, (read_only,), None, 1000, None) != base          # writeable
    assert key(16, 16, (a.view(np.int32),), None, 1000, None) != base   # dtype
    assert key(16, 16, (a[:8],), None, 1000, None) != base              # size
    assert key(16, 16, (a[1:9],), None, 1000, None) != key(16, 16, (a[:8],), None, 1000, None)
    assert key(16, 16, (a[::2],), None, 1000, None) != key(16, 16, (a[:8],), None, 1000, None)
    assert key(16, 16, (True,), None, 1000, None) != key(16, 16, (1,), None, 1000, None)
    assert key(16, 8, (a,), None, 1000, None) != base
    assert key(16, 16, (a,), None, 2000, None) != base
    assert key(16, 16, (a,), 8, 1000, None) != base
    assert key(16, 16, (a,), None, 1000, (16,)) != base
    assert key(16, 16, (object(),), None, 1000, None) is None           # not keyed


def test_a_read_only_view_of_the_same_memory_is_refused_not_run_with_the_writable_plan():
    prog = clcoop.Program(SCALE).build(engine="native")
    a = np.arange(64, dtype=np.float32)
    c = np.zeros(64, np.float32)
    prog.k(64, 64, a, c, np.float32(1))
    frozen = c.view()
    frozen.flags.writeable = False
    c[:] = 7
    with pytest.raises(clcoop.ArgumentError, match="read-only"):   # (prepare.py, before the launch)
        prog.k(64, 64, a, frozen, np.float32(1))
    assert (c == 7).all()


def test_a_view_with_another_dtype_is_refused_as_on_a_first_launch():
    prog = clcoop.Program(SCALE).build(engine="native")
    a = np.arange(64, dtype=np.float32)
    c = np.zeros(64, np.float32)
    prog.k(64, 64, a, c, np.float32(1))
    with pytest.raises(clcoop.ArgumentError, match="needs a float32 array, got int32"):
        prog.k(64, 64, a, c.view(np.int32), np.float32(1))


def test_private_copies_start_from_the_callers_array_at_each_launch():
    prog = clcoop.Program(SHIFTED_SUM).build(engine="native")
    a = np.arange(256, dtype=np.float32)
    c = np.ones(256, np.float32)
    zero = np.zeros(1, np.int32)
    prog.k(256, 64, a, c, zero, 2)
    assert prog._native.in_place_launches == {} and len(_entries(prog)) == 1
    c[:] = 5
    prog.k(256, 64, a, c, zero, 2)
    np.testing.assert_array_equal(c, 5 + 2 * a)


def test_a_fault_leaves_the_arrays_untouched_and_the_entry_usable():
    prog = clcoop.Program(SHIFTED_SUM).build(engine="native")
    a = np.arange(256, dtype=np.float32)
    c = np.ones(256, np.float32)
    shift = np.zeros(1, np.int32)
    prog.k(256, 64, a, c, shift, 1)
    shift[0] = 1                       # the same arrays: the same entry; the last item writes past c
    with pytest.raises(clcoop.RuntimeFault, match="out-of-bounds"):
        prog.k(256, 64, a, c, shift, 1)
    np.testing.assert_array_equal(c, 1 + a)
    shift[0] = 0
    prog.k(256, 64, a, c, shift, 1)
    np.testing.assert_array_equal(c, 1 + 2 * a)
    assert len(_entries(prog)) == 1


def test_the_cache_keeps_a_bounded_number_of_launches():
    prog = clcoop.Program(SCALE).build(engine="native")
    a = np.arange(64, dtype=np.float32)
    outs = [np.zeros(64, np.float32) for _ in range(MAX_ENTRIES + 3)]
    for k, c in enumerate(outs):
        prog.k(64, 64, a, c, np.float32(k + 1))
    assert len(_entries(prog)) == MAX_ENTRIES
    for k, c in enumerate(outs):
        np.testing.assert_array_equal(c, a / np.float32(k + 1))


def test_a_rebuild_forgets_the_launches_of_the_old_build():
    prog = clcoop.Program(SCALE).build(engine="native")
    a = np.arange(64, dtype=np.float32)
    c = np.zeros(64, np.float32)
    prog.k(64, 64, a, c, np.float32(2))
    prog.build(engine="native")
    assert _entries(prog) == []
    prog.k(64, 64, a, c, np.float32(4))
    np.testing.assert_array_equal(c, a / np.float32(4))


def test_concurrent_launches_of_one_key_do_not_share_a_plan_at_once():
    # Threads launching with the same arguments: one runs the cached entry, the others plan
    # anew (an entry runs one launch at a time; its private copies are its own). The kernel
    # writes the same values each time, so every interleaving ends with them.
    prog = clcoop.Program(SHIFTED_SUM.replace("c[i + shift[0]] + s", "s")).build(engine="native")
    a = np.arange(4096, dtype=np.float32)
    c = np.zeros(4096, np.float32)
    zero = np.zeros(1, np.int32)
    errors = []

    def run():
        try:
            for _ in range(25):
                prog.k(4096, 256, a, c, zero, 3)
                np.testing.assert_array_equal(c, 3 * a)
        except Exception as error:      # reported below
            errors.append(error)
    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(_entries(prog)) == 1


TRANSPOSE = """
__kernel void k(__global const float *a, __global float *c) {
    size_t x = get_global_id(0), y = get_global_id(1), n = get_global_size(0);
    c[x * n + y] = a[y * n + x] * 2.0f;
}"""


def test_a_launch_on_a_narrower_build_is_cached_with_that_build():
    # 16 x 16 work-groups of a 64-lane kernel run on a build with 16 lanes (runtime._narrower).
    prog = clcoop.Program(TRANSPOSE).build(engine="native")
    a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    c = np.zeros_like(a)
    prog.k((64, 64), (16, 16), a, c)
    [entry] = _entries(prog)
    assert entry.plan.build is not prog._native
    a *= -1
    prog.k((64, 64), (16, 16), a, c)
    np.testing.assert_array_equal(c, a.T * 2)
    assert prog._native.fast_launches == {"k": 2}


def test_a_cooperative_matrix_launch_at_another_subgroup_size_is_cached_with_its_build():
    from pathlib import Path
    source = (Path(__file__).resolve().parents[3] / "examples" / "gemm_f32.cl").read_text()
    prog = clcoop.Program(source).build(engine="native")
    M, N, K, S = 16, 32, 32, 8
    rng = np.random.default_rng(5)
    A, B, C = np.zeros((M, K), np.float32), np.zeros((K, N), np.float32), np.zeros((M, N), np.float32)
    for _ in range(2):
        A[:] = rng.standard_normal((M, K))
        B[:] = rng.standard_normal((K, N))
        prog.gemm_f32((N // 16 * S, M // 8), (S, 1), A, B, C, M, N, K, 0, subgroup_size=S)
        np.testing.assert_allclose(C, A @ B, rtol=1e-5, atol=1e-4)
    [entry] = _entries(prog)
    assert entry.plan.build is not prog._native and entry.plan.build.subgroup_size == S


def test_a_zero_dimensional_array_as_a_scalar_is_keyed_by_its_value_too():
    # The plan's argument block holds the scalar's value: the same array with a new value
    # in it is another launch.
    prog = clcoop.Program(SCALE).build(engine="native")
    a = np.arange(64, dtype=np.float32)
    c = np.zeros(64, np.float32)
    s = np.array(2, np.float32)
    prog.k(64, 64, a, c, s)
    s[()] = 4
    prog.k(64, 64, a, c, s)
    np.testing.assert_array_equal(c, a / np.float32(4))


def test_the_last_launch_is_taken_again_but_never_once_evicted():
    # The cache hands the last launch put back to a launch with its key without looking it
    # up (LaunchCache._last); once evicted its backups went back to the private-buffer pool
    # (another launch may hold them), so a launch with its key plans anew.
    prog = clcoop.Program(SHIFTED_SUM).build(engine="native")
    a = np.arange(256, dtype=np.float32)
    zero = np.zeros(1, np.int32)
    c = np.zeros(256, np.float32)
    prog.k(256, 64, a, c, zero, 2)
    prog.k(256, 64, a, c, zero, 2)
    [first] = _entries(prog)
    assert prog._launches._last[2] is first
    assert prog._launches.take("k", prog._launches._last[1]) is first
    prog._launches.put("k", prog._launches._last[1], first)
    others = [np.zeros(256, np.float32) for _ in range(MAX_ENTRIES)]
    for other in others:
        prog.k(256, 64, a, other, zero, 1)
    assert first.dropped and first not in _entries(prog)
    prog.k(256, 64, a, c, zero, 2)
    assert first not in _entries(prog)
    np.testing.assert_array_equal(c, 3 * (2 * a))
    for other in others:
        np.testing.assert_array_equal(other, a)
