"""clcoop/private_buffers.py: a native launch's private copies of its writable buffers come
from the program's pool and go back to it when the launch cache drops the launch, whatever
its outcome; a reused copy starts as the caller's array, never as what an earlier launch
left in it. (The kernel reads
its shift from a buffer: launches the engine proves fault-free in advance run in place,
without copies: docs/native.md, "In-place launches".)"""
import numpy as np
import pytest

import clcoop
from clcoop.private_buffers import PER_SIZE, PrivateBuffers

SOURCE = """
__kernel void k(__global const float *a, __global float *c, __global const int *shift) {
    size_t i = get_global_id(0);
    c[i + shift[0]] = c[i + shift[0]] + a[i];
}"""


def shift(n):
    return np.array([n], np.int32)


def _kept(pool):
    return [raw.ctypes.data for raws in pool._free.values() for raw in raws]


def test_a_launch_takes_its_copy_from_the_pool_and_the_launch_cache_gives_it_back():
    # A launch's entry in the launch cache (launch_cache.py) owns its copies while it is
    # kept; dropped, they go back to the pool, where the next launch of that size finds them.
    prog = clcoop.Program(SOURCE).build(engine="native")
    pool = prog._private_buffers
    a = np.arange(256, dtype=np.float32)
    c = np.ones(256, np.float32)
    prog.k((256,), (64,), a, c, shift(0))
    assert prog._native.in_place_launches == {}
    assert _kept(pool) == []
    prog._launches.clear()
    kept = _kept(pool)
    assert len(kept) == 1
    c2 = np.full(256, 3.0, np.float32)
    prog.k((256,), (64,), a, c2, shift(0))
    assert _kept(pool) == []                      # taken again
    prog._launches.clear()
    assert _kept(pool) == kept
    assert c.tobytes() == (1 + a).tobytes() and c2.tobytes() == (3 + a).tobytes()


def test_after_a_faulting_launch_the_next_starts_from_the_callers_array():
    prog = clcoop.Program(SOURCE).build(engine="native")
    a = np.arange(256, dtype=np.float32)
    c = np.ones(256, np.float32)
    with pytest.raises(clcoop.RuntimeFault):
        prog.k((256,), (64,), a, c, shift(1))        # the last work-item writes past c
    assert (c == 1).all()
    prog.k((256,), (64,), a, c, shift(0))
    assert c.tobytes() == (1 + a).tobytes()
    with pytest.raises(clcoop.RuntimeFault):
        prog.k((256,), (64,), a, c, shift(1))        # the same launch again, from its cache entry
    assert c.tobytes() == (1 + a).tobytes()
    entries = len(prog._launches._entries)      # shift(n) arrays may reuse an address
    prog._launches.clear()
    assert sum(len(v) for v in prog._private_buffers._free.values()) == min(entries, PER_SIZE)


def test_pool_keeps_a_few_copies_per_size():
    pool = PrivateBuffers()
    arrays = [np.full(10, i, np.int32) for i in range(PER_SIZE + 2)]
    copies = [(arr, pool.take(arr)) for arr in arrays]
    pool.give(copies)
    assert len(pool._free[40]) == PER_SIZE
    again = pool.take(np.arange(10, dtype=np.float32))      # same size, other dtype
    assert again.dtype == np.float32 and again.tolist() == list(range(10))


def test_a_native_launch_writes_the_callers_array_and_keeps_a_backup():
    # One copy per launch (the backup), not two (in and back): the region table maps the
    # caller's array itself; the backup is restored only when the launch fails.
    prog = clcoop.Program(SOURCE).build(engine="native")
    a = np.arange(256, dtype=np.float32)
    c = np.ones(256, np.float32)
    prog.k((256,), (64,), a, c, shift(0))
    [entry] = prog._launches._entries.values()
    [(param, backup)] = entry.copies
    assert param == 1 and backup.ctypes.data != c.ctypes.data
    table = entry.plan.states[0].table
    assert c.ctypes.data in [int(lo) for lo in table[:, 0]]
    assert backup.tobytes() == np.ones(256, np.float32).tobytes()     # as c was before


def test_an_error_during_a_launch_restores_the_callers_array(monkeypatch):
    from clcoop.native import runtime
    prog = clcoop.Program(SOURCE).build(engine="native")
    a = np.arange(256, dtype=np.float32)
    c = np.ones(256, np.float32)
    real = runtime._run_driver

    def interrupted(driver, lp, nthreads):
        real(driver, lp, nthreads)             # c is written ...
        raise KeyboardInterrupt                # ... and then the launch is interrupted
    monkeypatch.setattr(runtime, "_run_driver", interrupted)
    with pytest.raises(KeyboardInterrupt):
        prog.k((256,), (64,), a, c, shift(0))
    assert (c == 1).all()
    assert prog._launches._entries == {}                    # forgotten, copies back in the pool
