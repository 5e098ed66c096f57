"""OpenCL C 2.0+ atomic functions (OpenCL C 3.0, 6.15.12) in the interpreter, as clang-22
lowers them (calls of mangled built-ins such as _Z16atomic_fetch_addPU3AS1VU7_Atomicii):
each work-item's operation is atomic and work-items hitting one address act in some serial
order (the interpreter's is lane order); compare_exchange writes the value seen to
*expected when it fails; atomic_flag; local memory; float and double; memory orders and
scopes (accepted, invalid ones are faults); out-of-bounds atomics fault."""
import functools

import numpy as np
import pytest

import clcoop
from clcoop.errors import RuntimeFault
from interp_helpers import clang_ir_text

OPT = pytest.mark.parametrize("opt", [0, 2])


@functools.lru_cache(maxsize=None)
def _program(source, opt):
    return clcoop.Program.from_ir(clang_ir_text(source, opt))


def kernel(source, opt):
    """The kernel 'k' of an OpenCL C source compiled by clang-22."""
    return _program(source, opt).k


COUNTERS = """
kernel void k(global atomic_int *count, global atomic_uint *down, global atomic_long *cas,
              global int *tickets, global long *cas_tickets) {
  int i = get_global_id(0);
  tickets[i] = atomic_fetch_add(count, 1);
  atomic_fetch_sub_explicit(down, 2u, memory_order_relaxed, memory_scope_device);
  long seen = atomic_load(cas);
  while (!atomic_compare_exchange_weak(cas, &seen, seen + 1))
    ;                                   // seen is now the current value: try again
  cas_tickets[i] = seen;
}
"""


@OPT
@pytest.mark.parametrize("max_lanes", [64, 4096])
def test_counters_of_many_work_items_across_groups_and_batches(opt, max_lanes):
    n = 256
    count, down, cas = np.zeros(1, np.int32), np.full(1, 100, np.uint32), np.zeros(1, np.int64)
    tickets, cas_tickets = np.full(n, -1, np.int32), np.full(n, -1, np.int64)
    kernel(COUNTERS, opt)(n, 32, count, down, cas, tickets, cas_tickets, max_lanes=max_lanes)
    assert count[0] == n and cas[0] == n
    assert down[0] == (100 - 2 * n) % 2**32             # wraps below zero
    np.testing.assert_array_equal(np.sort(tickets), np.arange(n))
    np.testing.assert_array_equal(np.sort(cas_tickets), np.arange(n))
    # Work-items of one batch act in lane order.
    np.testing.assert_array_equal(tickets[:64], np.arange(64))


MIN_MAX = """
kernel void k(global atomic_int *s, global atomic_uint *u, global atomic_long *sl,
              global atomic_ulong *ul, global atomic_float *f, global const int *x,
              global const float *y, global int *old) {
  int i = get_global_id(0);
  old[4*i+0] = atomic_fetch_min(&s[0], x[i]) + 0 * atomic_fetch_max(&s[1], x[i]);
  old[4*i+1] = atomic_fetch_min(&u[0], (uint)x[i]) + 0 * atomic_fetch_max(&u[1], (uint)x[i]);
  old[4*i+2] = (int)(atomic_fetch_min_explicit(&sl[0], (long)x[i], memory_order_relaxed)
                     + 0 * atomic_fetch_max(&sl[1], (long)x[i]));
  atomic_fetch_min(&ul[0], (ulong)(long)x[i]);
  atomic_fetch_max_explicit(&ul[1], (ulong)(long)x[i], memory_order_relaxed, memory_scope_device);
  old[4*i+3] = (int)atomic_fetch_min(&f[0], y[i]);
  atomic_fetch_max(&f[1], y[i]);
}
"""


@OPT
def test_fetch_min_max_signed_unsigned_and_float(opt):
    x = np.array([5, -7, 3, 2**31 - 1, -2**31, 0, 9, -1], np.int32)
    y = np.array([1.5, np.nan, -2.5, 4.0, np.nan, 0.25, 3.0, -1.0], np.float32)
    s, u = np.array([0, 0], np.int32), np.array([100, 100], np.uint32)
    sl, ul = np.array([0, 0], np.int64), np.array([100, 100], np.uint64)
    f = np.array([0.0, 0.0], np.float32)
    old = np.zeros(4 * x.size, np.int32)
    kernel(MIN_MAX, opt)(x.size, 4, s, u, sl, ul, f, x, y, old)
    np.testing.assert_array_equal(s, [-2**31, 2**31 - 1])
    np.testing.assert_array_equal(u, [0, 2**32 - 1])               # -1 is UINT_MAX
    np.testing.assert_array_equal(sl, [-2**31, 2**31 - 1])
    np.testing.assert_array_equal(ul, [0, 2**64 - 1])
    np.testing.assert_array_equal(f, [-2.5, 4.0])                  # a NaN operand loses
    o = old.reshape(-1, 4)
    np.testing.assert_array_equal(o[:, 0], np.minimum.accumulate(np.r_[0, x[:-1]]))
    uns = np.minimum.accumulate(np.r_[100, x[:-1].astype(np.int64) % 2**32])
    np.testing.assert_array_equal(o[:, 1], uns.astype(np.uint32).view(np.int32))
    np.testing.assert_array_equal(o[:, 2], np.minimum.accumulate(np.r_[0, x[:-1]]))
    np.testing.assert_array_equal(o[:, 3], [0, 0, 0, -2, -2, -2, -2, -2])


COMPARE_EXCHANGE = """
kernel void k(global atomic_int *a, global const int *want, global int *seen,
              global int *ok, global atomic_uint *one, global uint *first, global int *gexp) {
  int i = get_global_id(0);
  int e = want[i];
  ok[3*i] = atomic_compare_exchange_strong(&a[i], &e, 100 + i);
  seen[i] = e;
  // One address, expected 0 for everyone: the first work-item wins, the others see it.
  uint z = 0;
  ok[3*i+1] = atomic_compare_exchange_strong_explicit(one, &z, (uint)i + 7,
                  memory_order_acq_rel, memory_order_acquire);
  first[i] = z;
  // *expected in global memory (mangled PU3AS1i), the weak form with a scope.
  ok[3*i+2] = atomic_compare_exchange_weak_explicit(&a[i], &gexp[i], -1,
                  memory_order_seq_cst, memory_order_relaxed, memory_scope_work_group);
}
"""


@OPT
def test_compare_exchange_success_failure_and_expected(opt):
    n = 16
    a = np.arange(n, dtype=np.int32) * 10
    want = np.where(np.arange(n) % 3 == 0, a, a + 1).astype(np.int32)     # every third matches
    seen, ok = np.zeros(n, np.int32), np.zeros(3 * n, np.int32)
    one, first = np.zeros(1, np.uint32), np.zeros(n, np.uint32)
    gexp = (np.arange(n, dtype=np.int32) + 100)            # matches where the first CAS won
    kernel(COMPARE_EXCHANGE, opt)(n, 8, a, want, seen, ok, one, first, gexp)
    o = ok.reshape(n, 3)
    won = np.arange(n) % 3 == 0
    np.testing.assert_array_equal(o[:, 0], won)
    np.testing.assert_array_equal(seen, np.where(won, want, np.arange(n) * 10))
    np.testing.assert_array_equal(o[:, 1], np.arange(n) == 0)
    assert one[0] == 7
    np.testing.assert_array_equal(first, np.where(np.arange(n) == 0, 0, 7))
    np.testing.assert_array_equal(o[:, 2], won)
    np.testing.assert_array_equal(a, np.where(won, -1, np.arange(n) * 10))
    np.testing.assert_array_equal(gexp, np.where(won, np.arange(n) + 100, np.arange(n) * 10))


EXCHANGE_AND_FLAG = """
kernel void k(global atomic_int *slot, global int *old, global atomic_flag *flags,
              global int *was_set) {
  int i = get_global_id(0);
  old[i] = atomic_exchange(slot, i + 1);
  was_set[2*i] = atomic_flag_test_and_set(&flags[i % 4]);
  work_group_barrier(CLK_GLOBAL_MEM_FENCE);
  if (get_local_id(0) == 0)
    atomic_flag_clear_explicit(&flags[get_group_id(0)], memory_order_release);
  work_group_barrier(CLK_GLOBAL_MEM_FENCE);
  was_set[2*i+1] = atomic_flag_test_and_set_explicit(&flags[i % 4], memory_order_acquire);
  if (i == 0)
    atomic_flag_clear_explicit(&flags[3], memory_order_seq_cst, memory_scope_device);
}
"""


@OPT
def test_exchange_chain_and_flag_test_and_set_clear(opt):
    n = 16
    slot, old = np.full(1, -5, np.int32), np.zeros(n, np.int32)
    flags, was_set = np.zeros(4, np.int32), np.full(2 * n, 9, np.int32)
    kernel(EXCHANGE_AND_FLAG, opt)(n, 16, slot, old, flags, was_set)
    assert slot[0] == n
    np.testing.assert_array_equal(old, np.r_[-5, np.arange(1, n)])     # lane order
    w = was_set.reshape(n, 2)
    np.testing.assert_array_equal(w[:, 0], np.arange(n) >= 4)          # first of each flag
    np.testing.assert_array_equal(w[:, 1], np.arange(n) >= 1)          # only flag 0 was cleared
    np.testing.assert_array_equal(flags, [1, 1, 1, 0])


LOCAL = """
kernel void k(global int *out, local atomic_uint *arg_counter) {
  local atomic_int sum;
  local atomic_flag once;
  int lid = get_local_id(0);
  if (lid == 0) {
    atomic_init(&sum, 0);
    atomic_init(arg_counter, 0u);
    atomic_flag_clear(&once);
  }
  work_group_barrier(CLK_LOCAL_MEM_FENCE);
  atomic_fetch_add_explicit(&sum, lid, memory_order_relaxed, memory_scope_work_group);
  uint t = atomic_fetch_add(arg_counter, 1u);
  work_group_barrier(CLK_LOCAL_MEM_FENCE);
  int e = 0;
  bool swapped = atomic_compare_exchange_strong(&sum, &e, -1);     // sum is not 0 by now
  bool leader = !atomic_flag_test_and_set(&once);
  work_group_barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = (int)t + 1000 * swapped + 10000 * leader;
  if (lid == 0)
    out[get_global_size(0) + get_group_id(0)] = atomic_load(&sum) + (int)atomic_load(arg_counter);
}
"""


@OPT
def test_local_memory_atomics_with_barriers(opt):
    groups, wg = 4, 32
    out = np.zeros(groups * wg + groups, np.int32)
    kernel(LOCAL, opt)(groups * wg, wg, out, clcoop.LocalMemory(4), max_lanes=64)
    per_item = out[:groups * wg].reshape(groups, wg)
    lid = np.arange(wg)
    want = lid + 10000 * (lid == 0)     # tickets in lane order, work-item 0 sets the flag first
    np.testing.assert_array_equal(per_item, np.broadcast_to(want, (groups, wg)))
    np.testing.assert_array_equal(out[groups * wg:], wg * (wg - 1) // 2 + wg)


FLOATS = """
kernel void k(global atomic_float *f, global atomic_double *d, global float *fo,
              global double *dout, global int *ok) {
  int i = get_global_id(0);
  if (i == 0) { atomic_init(&f[0], 0.5f); atomic_store(&d[0], 0.25); }
  work_group_barrier(CLK_GLOBAL_MEM_FENCE);
  fo[2*i] = atomic_exchange(&f[0], (float)i);
  dout[i] = atomic_load_explicit(&d[0], memory_order_acquire, memory_scope_device);
  atomic_store_explicit(&f[1], -1.5f, memory_order_release);
  fo[2*i+1] = atomic_fetch_add(&f[2], 1.0f);
  atomic_fetch_add_explicit(&d[1], 0.5, memory_order_relaxed);
  float e = 0.0f;      // f[3] holds -0.0f: a compare of the representation fails
  ok[2*i] = atomic_compare_exchange_strong(&f[3], &e, 2.0f) ? 1 : (e == 0.0f && signbit(e)) ? 2 : 3;
  double de = 0.25;
  ok[2*i+1] = atomic_compare_exchange_weak(&d[0], &de, 1.0 + i);
}
"""


@OPT
def test_float_and_double_load_store_exchange_add_and_compare_exchange(opt):
    n = 8
    f = np.array([0, 0, 0, -0.0], np.float32)
    d = np.zeros(2, np.float64)
    fo, dout, ok = np.zeros(2 * n, np.float32), np.zeros(n), np.zeros(2 * n, np.int32)
    kernel(FLOATS, opt)(n, n, f, d, fo, dout, ok)
    fo, ok = fo.reshape(n, 2), ok.reshape(n, 2)
    np.testing.assert_array_equal(fo[:, 0], np.r_[0.5, np.arange(n - 1)])
    assert f[0] == n - 1 and f[1] == -1.5 and f[2] == n and d[1] == 0.5 * n
    np.testing.assert_array_equal(np.sort(fo[:, 1]), np.arange(n))
    np.testing.assert_array_equal(dout, 0.25)
    np.testing.assert_array_equal(ok[:, 0], 2)
    assert np.signbit(f[3])
    np.testing.assert_array_equal(ok[:, 1], np.arange(n) == 0)      # the first one wins
    assert d[0] == 1.0


ORDERS = """
kernel void k(global atomic_int *a, global int *out, int order, int scope, int load_order) {
  int i = get_global_id(0);
  atomic_fetch_add_explicit(&a[0], 1, (memory_order)order, (memory_scope)scope);
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_work_item);
  int e = 5;
  atomic_compare_exchange_strong_explicit(&a[1], &e, 6, memory_order_seq_cst,
                                          (memory_order)load_order, (memory_scope)scope);
  out[i] = atomic_load_explicit(&a[0], (memory_order)load_order);
}
"""


@OPT
@pytest.mark.parametrize("order", [0, 2, 3, 4, 5])
def test_every_valid_memory_order_and_scope_is_accepted(opt, order):
    for scope in (1, 2, 3, 4):
        a, out = np.array([0, 5], np.int32), np.zeros(8, np.int32)
        kernel(ORDERS, opt)(8, 4, a, out, order, scope, 2)
        assert a[0] == 8 and a[1] == 6
        assert ((out >= 1) & (out <= 8)).all()


@OPT
@pytest.mark.parametrize("order, scope, load_order, message", [
    (1, 2, 0, "argument 3: invalid memory_order value 1"),             # no consume in OpenCL
    (9, 2, 0, "invalid memory_order value 9 (valid here: memory_order_relaxed (0),"),
    (0, 7, 0, "argument 4: invalid memory_scope value 7"),
    (0, 0, 0, "memory_scope_work_item is not allowed as the scope of an atomic operation"),
    (0, 2, 4, "memory_order_acq_rel is not allowed as the failure order"),
    (0, 2, 3, "memory_order_release is not allowed as the failure order"),
])
def test_invalid_memory_order_or_scope_is_a_fault(opt, order, scope, load_order, message):
    a, out = np.zeros(2, np.int32), np.zeros(8, np.int32)
    with pytest.raises(RuntimeFault) as info:
        kernel(ORDERS, opt)(8, 4, a, out, order, scope, load_order)
    assert message in str(info.value)
    assert info.value.kernel == "k" and info.value.work_item == (0,)
    assert "explicit" in info.value.instruction
    assert (a == 0).all()


def test_a_store_order_on_a_load_is_a_fault():
    src = """kernel void k(global atomic_int *a, global atomic_flag *f, global int *o, int order) {
      if (get_global_id(0) == 3) o[0] = atomic_load_explicit(a, (memory_order)order);
      else atomic_flag_clear_explicit(f, (memory_order)order); }"""
    with pytest.raises(RuntimeFault) as info:
        kernel(src, 0)(4, 4, np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32), 3)
    assert "memory_order_release is not allowed as the order of a load" in str(info.value)
    assert info.value.work_item == (3,)
    with pytest.raises(RuntimeFault) as info:
        kernel(src, 0)(4, 4, np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32), 2)
    assert "memory_order_acquire is not allowed as the order of a store" in str(info.value)
    assert info.value.work_item == (0,)


OUT_OF_BOUNDS = """
kernel void k(global atomic_int *counters, global int *expected, global atomic_flag *flags,
              int which) {
  int i = get_global_id(0);
  if (which == 0) {
    int e = 0;
    atomic_compare_exchange_strong(&counters[i], &e, 1);
  } else if (which == 1) {
    atomic_compare_exchange_strong(&counters[0], &expected[i], 1);    // reads *expected
  } else {
    atomic_flag_test_and_set(&flags[i]);
  }
}
"""


@OPT
@pytest.mark.parametrize("which, buffer, item", [(0, "counters", 4), (1, "expected", 2),
                                                  (2, "flags", 3)])
def test_out_of_bounds_atomic_is_a_fault(opt, which, buffer, item):
    counters, expected, flags = np.full(4, 9, np.int32), np.zeros(2, np.int32), np.zeros(3, np.int32)
    with pytest.raises(RuntimeFault) as info:
        kernel(OUT_OF_BOUNDS, opt)(8, 8, counters, expected, flags, which)
    err = info.value
    assert "out-of-bounds" in str(err) and err.buffer == buffer
    assert err.kernel == "k" and err.work_item == (item,)
    assert "atomic_" in err.instruction
    assert (counters == 9).all() and (expected == 0).all() and (flags == 0).all()
