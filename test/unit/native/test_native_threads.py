"""How many threads a native launch uses (runtime.NativeProgram._threads_for): short
launches of a kernel move to one thread (waking another core costs more than it saves),
long ones keep every core, and the choice follows the measured wall time per work-group."""
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import clcoop
from clcoop.native import runtime

VADD = """
__kernel void k(__global const float *a, __global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] * 2.0f;
}"""


def launches(monkeypatch):
    """The thread count of every driver run from now on (two cores, whatever the machine)."""
    monkeypatch.setattr(runtime, "default_threads", lambda: 2)
    counts = []
    real = runtime._run_driver

    def spy(driver, lp, nthreads):
        counts.append(nthreads)
        return real(driver, lp, nthreads)
    monkeypatch.setattr(runtime, "_run_driver", spy)
    return counts


def test_a_short_kernel_moves_to_one_thread(monkeypatch):
    counts = launches(monkeypatch)
    # "Short" by a bound no launch of this kernel exceeds, even on a loaded machine (the
    # default, 2 ms, made the test depend on the machine's load).
    monkeypatch.setattr(runtime, "SMALL_LAUNCH_SECONDS", 60.0)
    prog = clcoop.Program(VADD).build(engine="native")
    a = np.arange(4096, dtype=np.float32)
    for _ in range(4):
        c = np.zeros_like(a)
        prog.k((4096,), (64,), a, c)
        assert c.tobytes() == (a * 2).tobytes()
    assert counts[:3] == [2, 2, 1]       # two launches on all cores (the first pays page faults)
    # From then on the measured faster count.
    nat = prog._native
    assert set(nat._group_seconds["k"]) == {1, 2}
    best = min(nat._group_seconds["k"], key=lambda count: min(nat._group_seconds["k"][count]))
    prog.k((4096,), (64,), a, np.zeros_like(a))
    assert counts[-1] == best


def test_a_long_launch_keeps_both_threads(monkeypatch):
    counts = launches(monkeypatch)
    prog = clcoop.Program(VADD).build(engine="native")
    nat = prog._native
    # As if the kernel's launches took 1 ms per work-group on two threads.
    nat._group_seconds["k"] = {2: [1e-3]}
    a = np.arange(4096, dtype=np.float32)
    prog.k((4096,), (64,), a, np.zeros_like(a))
    assert counts == [2]


def test_kernels_whose_local_memory_is_shared_use_one_thread(monkeypatch):
    counts = launches(monkeypatch)
    prog = clcoop.Program(VADD).build(engine="native")
    prog._native.native.plans["k"].single_thread = True
    a = np.arange(4096, dtype=np.float32)
    prog.k((4096,), (64,), a, np.zeros_like(a))
    assert counts == [1]


def test_groups_taken_in_chunks_each_run_once(monkeypatch):
    """Threads take work-groups in chunks (drivers.group_head); with a count that is
    no multiple of the chunk, every group still runs exactly once."""
    counts = launches(monkeypatch)
    source = """
    __kernel void k(__global int *hits) {
        if (get_local_id(0) == 0) atomic_inc(&hits[get_group_id(0)]);
    }"""
    for fast in (True, False):
        prog = clcoop.Program(source).build(engine="native")
        if not fast:
            prog._native.subgroup_drivers.clear()
        groups = 16 * 2 * 7 + 5          # chunks of 7 groups, and 5 over
        hits = np.zeros(groups, np.int32)
        prog.k((64 * groups,), (64,), hits)
        assert (hits == 1).all()
    assert counts[0] == 2


def test_concurrent_launches_share_the_pool(monkeypatch):
    """Launches from several Python threads at once, each on two threads of the pool,
    all give NumPy's result."""
    import threading
    monkeypatch.setattr(runtime, "default_threads", lambda: 2)
    prog = clcoop.Program(VADD).build(engine="native")
    n = 1 << 16
    inputs = [np.random.default_rng(s).standard_normal(n).astype(np.float32) for s in range(4)]
    outputs = [np.zeros(n, np.float32) for _ in inputs]
    errors = []

    def run(k):
        try:
            for _ in range(5):
                prog.k(n, 256, inputs[k], outputs[k])
        except Exception as error:       # reported below, with the thread's index
            errors.append((k, error))
    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for a, c in zip(inputs, outputs):
        np.testing.assert_array_equal(c, a * np.float32(2))


def test_the_slower_count_is_measured_again_now_and_then(monkeypatch):
    # One slow launch on two threads (a busy machine) must not keep the kernel on one thread
    # for good: every PROBE_EVERY launches the other count runs once.
    counts = launches(monkeypatch)
    prog = clcoop.Program(VADD).build(engine="native")
    nat = prog._native
    nat._group_seconds["k"] = {1: [1e-9], 2: [1e-3]}
    a = np.arange(4096, dtype=np.float32)
    for _ in range(2 * runtime.PROBE_EVERY):
        c = np.zeros_like(a)
        prog.k((4096,), (64,), a, c)
        assert c.tobytes() == (a * 2).tobytes()
    assert counts.count(2) == 2 and counts[runtime.PROBE_EVERY - 1] == 2
    assert min(nat._group_seconds["k"][2]) < 1e-3     # the new measurements count


def test_one_slow_launch_does_not_outweigh_the_recent_fast_ones(monkeypatch):
    # A launch is only ever slowed by something else (a first write's page faults, another
    # process): the choice compares each count's least recent wall time, not an average an
    # outlier drags for many launches.
    monkeypatch.setattr(runtime, "default_threads", lambda: 2)
    prog = clcoop.Program(VADD).build(engine="native")
    nat, plan = prog._native, prog._native.native.plans["k"]
    total = 64
    for seconds in (2e-3, 2e-3):
        nat._record_wall("k", 1, total, seconds)
    for seconds in (1e-3, 1e-3, 50e-3):      # the last: an outlier on two threads
        nat._record_wall("k", 2, total, seconds)
    picks = [nat._threads_for("k", plan, total, None) for _ in range(runtime.PROBE_EVERY)]
    assert picks.count(2) == runtime.PROBE_EVERY - 1 and picks.count(1) == 1
    # Only the last RECENT_LAUNCHES launches count: once two threads are slow for good,
    # the choice moves.
    for _ in range(runtime.RECENT_LAUNCHES):
        nat._record_wall("k", 2, total, 50e-3)
    assert nat._threads_for("k", plan, total, None) == 1


AFFINITY_CHILD = """
import os, sys
import numpy as np
import clcoop
from clcoop.native import runtime
cpu = min(os.sched_getaffinity(0))
os.sched_setaffinity(0, {cpu})
counts = []
real = runtime._run_driver
def spy(driver, lp, nthreads):
    counts.append(nthreads)
    return real(driver, lp, nthreads)
runtime._run_driver = spy
prog = clcoop.Program(sys.argv[1]).build(engine="native")
prog._native._group_seconds["k"] = {1: [1.0]}      # long launches: every usable core
a = np.arange(4096, dtype=np.float32)
c = np.zeros_like(a)
prog.k((4096,), (64,), a, c)
assert c.tobytes() == (a * 2).tobytes()
print(runtime.default_threads(), counts)
"""


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform")
def test_a_process_restricted_to_one_cpu_launches_on_one_thread():
    """default_threads follows the affinity mask (taskset, a container's cpuset), not the
    machine's CPU count: a child pinned to one CPU runs its long launches on one thread."""
    done = subprocess.run([sys.executable, "-c", AFFINITY_CHILD, VADD], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "[1]"]


def test_the_thread_count_has_no_fixed_cap(monkeypatch):
    """Every usable CPU, even past the 8 of the old cap (a 16-core machine used 8)."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(32)))
    assert runtime.default_threads() == 32
    prog = clcoop.Program(VADD).build(engine="native")
    nat = prog._native
    plan = nat.native.plans["k"]
    nat._group_seconds["k"] = {32: [1.0]}            # long launches: every usable core
    assert nat._threads_for("k", plan, 64, None) == 32
    assert nat._threads_for("k", plan, 5, None) == 5  # at most one per work-group
