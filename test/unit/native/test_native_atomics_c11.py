"""OpenCL C 2.0+ atomics (OpenCL C 3.0, 6.15.12.7) on the native engine: the interpreter's
tests of them (test_interp_atomics_c11.py, clang-22 -O0 and -O2 IR), run on the native
engine with one thread, so that work-items act in the interpreter's serial order (groups in
order, work-items in local id order) and the same NumPy expectations hold. Each kernel
either runs natively or falls back for the reason named here; clcoop's own IR too."""
import numpy as np
import pytest

import clcoop
import test_interp_atomics_c11 as c11
from clcoop.native import runtime
from interp_helpers import clang_ir_text

# Kernels that stay in the interpreter, and why (everything else runs natively).
FALLS_BACK = {
    c11.ORDERS: "memory_order that is not a constant",
}


def native_kernel(source, opt):
    prog = clcoop.Program.from_ir(clang_ir_text(source, opt), engine="auto")
    reason = prog.k.fallback_reason
    if source in FALLS_BACK:
        assert reason is not None and FALLS_BACK[source] in reason, reason
    else:
        assert reason is None, reason
    return prog.k


@pytest.fixture(autouse=True)
def on_the_native_engine(monkeypatch):
    monkeypatch.setattr(runtime, "default_threads", lambda: 1)
    monkeypatch.setattr(c11, "kernel", native_kernel)


@c11.OPT
@pytest.mark.parametrize("max_lanes", [64])
def test_counters(opt, max_lanes):
    c11.test_counters_of_many_work_items_across_groups_and_batches(opt, max_lanes)


@c11.OPT
def test_fetch_min_max_signed_unsigned_and_float(opt):
    c11.test_fetch_min_max_signed_unsigned_and_float(opt)


def test_float_fetch_max_orders_the_zeros_and_ignores_nans():
    # interp/float_order.py's rule in a compare-exchange loop: -0.0 < +0.0, a NaN loses.
    src = """kernel void k(global atomic_float *m, global const float *x, global float *old) {
      int i = get_global_id(0);
      old[2 * i] = atomic_fetch_max(&m[0], x[i]);
      old[2 * i + 1] = atomic_fetch_min(&m[1], x[i]); }"""
    prog = clcoop.Program(src).build(engine="native")
    x = np.array([-0.0, 0.0, np.nan, -0.0, -1.0, np.nan], np.float32)
    m = np.array([-0.0, 0.0], np.float32)
    old = np.zeros(2 * x.size, np.float32)
    prog.k(x.size, x.size, m, x, old)
    assert not np.signbit(m[0]) and m[0] == 0 and m[1] == -1.0
    o = old.reshape(-1, 2)
    np.testing.assert_array_equal(np.signbit(o[:, 0]), [True, True, False, False, False, False])
    np.testing.assert_array_equal(o[:, 1], [0, -0.0, -0.0, -0.0, -0.0, -1.0])
    np.testing.assert_array_equal(np.signbit(o[:4, 1]), [False, True, True, True])


@c11.OPT
def test_compare_exchange(opt):
    c11.test_compare_exchange_success_failure_and_expected(opt)


@c11.OPT
def test_exchange_and_flags(opt):
    # The interpreter's test expects its lock-step order after the second barrier (every
    # work-item's test-and-set, then work-item 0's clear of flag 3). Here each work-item
    # runs to the end in turn: work-item 0 clears flag 3 before work-item 3 sets it again.
    n = 16
    slot, old = np.full(1, -5, np.int32), np.zeros(n, np.int32)
    flags, was_set = np.zeros(4, np.int32), np.full(2 * n, 9, np.int32)
    c11.kernel(c11.EXCHANGE_AND_FLAG, opt)(n, 16, slot, old, flags, was_set)
    assert slot[0] == n
    np.testing.assert_array_equal(old, np.r_[-5, np.arange(1, n)])
    w = was_set.reshape(n, 2)
    np.testing.assert_array_equal(w[:, 0], np.arange(n) >= 4)
    np.testing.assert_array_equal(w[:, 1], (np.arange(n) >= 1) & (np.arange(n) != 3))
    np.testing.assert_array_equal(flags, [1, 1, 1, 1])


@c11.OPT
def test_local_memory_atomics(opt):
    c11.test_local_memory_atomics_with_barriers(opt)


@c11.OPT
def test_floats_and_doubles(opt):
    # As the interpreter's test, but in this serial order work-item 0's compare-exchange
    # (d[0]: 0.25 -> 1.0) comes before the others' atomic_load of d[0].
    n = 8
    f = np.array([0, 0, 0, -0.0], np.float32)
    d = np.zeros(2, np.float64)
    fo, dout, ok = np.zeros(2 * n, np.float32), np.zeros(n), np.zeros(2 * n, np.int32)
    c11.kernel(c11.FLOATS, opt)(n, n, f, d, fo, dout, ok)
    fo, ok = fo.reshape(n, 2), ok.reshape(n, 2)
    np.testing.assert_array_equal(fo[:, 0], np.r_[0.5, np.arange(n - 1)])
    assert f[0] == n - 1 and f[1] == -1.5 and f[2] == n and d[1] == 0.5 * n
    np.testing.assert_array_equal(fo[:, 1], np.arange(n))
    np.testing.assert_array_equal(dout, np.r_[0.25, np.ones(n - 1)])
    np.testing.assert_array_equal(ok[:, 0], 2)          # -0.0 is not 0.0 to a compare-exchange
    assert np.signbit(f[3])
    np.testing.assert_array_equal(ok[:, 1], np.arange(n) == 0)
    assert d[0] == 1.0


@c11.OPT
@pytest.mark.parametrize("which, buffer, item", [(0, "counters", 4), (1, "expected", 2),
                                                  (2, "flags", 3)])
def test_out_of_bounds(opt, which, buffer, item):
    c11.test_out_of_bounds_atomic_is_a_fault(opt, which, buffer, item)


def test_a_read_only_expected_faults_only_when_the_exchange_fails():
    # *expected is written back only on failure (checked only then), as in the interpreter.
    src = """kernel void k(global atomic_int *a, global const int *want, int fail) {
      int *expected = (int *)want;
      atomic_compare_exchange_strong(a, expected, fail ? 1 : 2); }"""
    prog = clcoop.Program(src).build(engine="native")
    a, want = np.array([5], np.int32), np.array([5], np.int32)
    prog.k(1, 1, a, want, 0)
    assert a[0] == 2 and want[0] == 5
    with pytest.raises(clcoop.RuntimeFault, match="read-only"):
        prog.k(1, 1, a, want, 1)                    # 2 != 5: writes 2 to *expected
    assert a[0] == 2 and want[0] == 5


def test_clcoops_own_ir_runs_natively_and_agrees_with_the_interpreter():
    src = """kernel void k(global atomic_int *c, global atomic_uint *u, global atomic_long *l,
                          global int *out) {
      int i = get_global_id(0);
      int a = atomic_fetch_add_explicit(&c[0], 3, memory_order_relaxed, memory_scope_device);
      atomic_fetch_sub(&c[1], i);
      atomic_fetch_or(&c[2], 1 << (i % 31));
      atomic_fetch_xor(&c[3], i);
      atomic_fetch_and(&c[4], ~(1 << (i % 31)));
      uint m = atomic_fetch_max(&u[0], (uint)(i * 2654435761u));
      atomic_fetch_min(&u[1], (uint)(i * 2654435761u));
      long x = atomic_exchange(&l[i], (long)i << 40);
      out[i] = a + (int)m + (int)x;
    }"""
    n = 64
    outs = {}
    for engine in ("native", "interp"):
        prog = clcoop.Program(src).build(engine=engine)
        c = np.array([0, 0, 0, 0, -1], np.int32)
        u = np.array([0, 2**32 - 1], np.uint32)
        l = np.arange(n, dtype=np.int64)
        out = np.zeros(n, np.int32)
        prog.k(n, 16, c, u, l, out)
        outs[engine] = (c, u, l, out)
    c, u, l, out = outs["native"]
    i = np.arange(n, dtype=np.int64)
    h = (i * 2654435761) % 2**32
    assert c[0] == 3 * n and c[1] == -(n * (n - 1) // 2)
    assert c[2] == np.bitwise_or.reduce(1 << (i % 31)).astype(np.int32)
    assert c[3] == np.bitwise_xor.reduce(i)
    assert c[4] == ~np.bitwise_or.reduce(1 << (i % 31)).astype(np.int32)
    assert u[0] == h.max() and u[1] == h.min()
    np.testing.assert_array_equal(l, i << 40)
    for got, want in zip(outs["native"], outs["interp"]):
        np.testing.assert_array_equal(got, want)         # one thread: the same serial order


def test_counters_on_two_threads_are_a_permutation(monkeypatch):
    # Work-groups on two threads: the order between them is free, the counts are not.
    monkeypatch.setattr(runtime, "default_threads", lambda: 2)
    prog = clcoop.Program(c11.COUNTERS).build(engine="native")
    n = 4096
    count, down, cas = np.zeros(1, np.int32), np.full(1, 100, np.uint32), np.zeros(1, np.int64)
    tickets, cas_tickets = np.full(n, -1, np.int32), np.full(n, -1, np.int64)
    prog.k(n, 64, count, down, cas, tickets, cas_tickets)
    assert count[0] == n and cas[0] == n and down[0] == (100 - 2 * n) % 2**32
    np.testing.assert_array_equal(np.sort(tickets), np.arange(n))
    np.testing.assert_array_equal(np.sort(cas_tickets), np.arange(n))
