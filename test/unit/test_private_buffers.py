"""clcoop/private_buffers.py: a native launch's private copies of its writable buffers come
from the program's pool and go back to it, whatever the launch's outcome; a reused copy
starts as the caller's array, never as what an earlier launch left in it. (The kernel reads
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


def test_the_second_launch_reuses_the_first_launchs_copy():
    prog = clcoop.Program(SOURCE).build(engine="native")
    pool = prog._private_buffers
    a = np.arange(256, dtype=np.float32)
    c = np.ones(256, np.float32)
    prog.k((256,), (64,), a, c, shift(0))
    assert prog._native.in_place_launches == {}
    kept = [raw.ctypes.data for raws in pool._free.values() for raw in raws]
    assert len(kept) == 1
    c2 = np.full(256, 3.0, np.float32)
    prog.k((256,), (64,), a, c2, shift(0))
    assert [raw.ctypes.data for raws in pool._free.values() for raw in raws] == kept
    assert c.tobytes() == (1 + a).tobytes() and c2.tobytes() == (3 + a).tobytes()


def test_a_faulting_launch_gives_its_copy_back_and_the_next_starts_from_the_callers_array():
    prog = clcoop.Program(SOURCE).build(engine="native")
    a = np.arange(256, dtype=np.float32)
    c = np.ones(256, np.float32)
    with pytest.raises(clcoop.RuntimeFault):
        prog.k((256,), (64,), a, c, shift(1))        # the last work-item writes past c
    assert (c == 1).all()
    assert sum(len(v) for v in prog._private_buffers._free.values()) == 1
    prog.k((256,), (64,), a, c, shift(0))
    assert c.tobytes() == (1 + a).tobytes()


def test_pool_keeps_a_few_copies_per_size():
    pool = PrivateBuffers()
    arrays = [np.full(10, i, np.int32) for i in range(PER_SIZE + 2)]
    copies = [(arr, pool.take(arr)) for arr in arrays]
    pool.give(copies)
    assert len(pool._free[40]) == PER_SIZE
    again = pool.take(np.arange(10, dtype=np.float32))      # same size, other dtype
    assert again.dtype == np.float32 and again.tolist() == list(range(10))
