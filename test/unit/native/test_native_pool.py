"""The worker threads parked in native code (clcoop/native/pool.py): a launch on several
threads is one foreign call; a worker joins only an open launch; a busy pool makes a
launch run alone; forked children and interpreter exit are safe."""
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import clcoop
from clcoop.native import pool, runtime

# Long enough (milliseconds) that a parked worker is awake before the launch ends.
LONG = """
__kernel void k(__global const float *a, __global float *c) {
    size_t i = get_global_id(0);
    float x = a[i];
    for (int t = 0; t < 2000; t++)
        x = x * 0.999f + 0.5f;
    c[i] = x;
}"""


def oracle(a):
    x = a.copy()
    for _ in range(2000):
        x = x * np.float32(0.999) + np.float32(0.5)
    return x


def two_threads(monkeypatch):
    """Launches ask for two threads (the pool has at least one worker), and record how many
    ran each."""
    monkeypatch.setattr(runtime, "default_threads", lambda: 2)
    monkeypatch.setattr(runtime.NativeProgram, "_threads_for", lambda self, *args: 2)
    ran = []
    real = runtime._run_driver

    def spy(driver, lp, nthreads):
        faults = real(driver, lp, nthreads)
        ran.append(lp.ran_threads)
        return faults
    monkeypatch.setattr(runtime, "_run_driver", spy)
    return ran


def wait_until(condition, seconds=10.0, poll=0.001):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out; pool control block {pool.get().control[:14].tolist()}"
        time.sleep(poll)


def test_a_worker_joins_a_launch(monkeypatch):
    ran = two_threads(monkeypatch)
    prog = clcoop.Program(LONG).build(engine="native")
    a = np.random.default_rng(0).standard_normal(1 << 14).astype(np.float32)
    want = oracle(a)
    for _ in range(50):
        c = np.zeros_like(a)
        prog.k(a.size, 64, a, c)
        np.testing.assert_array_equal(c, want)
        if ran[-1] == 2:
            break
    assert 2 in ran


def test_a_launch_on_a_busy_pool_runs_alone(monkeypatch):
    ran = two_threads(monkeypatch)
    prog = clcoop.Program(LONG).build(engine="native")
    a = np.random.default_rng(1).standard_normal(1 << 12).astype(np.float32)
    control = pool.get().control
    assert control[pool.BUSY] == 0
    control[pool.BUSY] = 1            # as while another Python thread's launch runs
    try:
        c = np.zeros_like(a)
        prog.k(a.size, 64, a, c)
    finally:
        control[pool.BUSY] = 0
    assert ran == [1]
    np.testing.assert_array_equal(c, oracle(a))


def test_a_worker_woken_for_a_closed_launch_runs_nothing():
    p = pool.get()
    p.reserve(1)
    control = p.control
    wait_until(lambda: control[pool.SLEEPERS] >= 1)      # parked after its spin
    done, gen = int(control[pool.DONE]), int(control[pool.GEN])
    p.wake()                                             # a job nobody may join
    assert control[pool.GEN] == gen + 1
    assert control[pool.CLAIM] & pool.CLOSED
    wait_until(lambda: control[pool.SLEEPERS] >= 1)      # back to sleep, having joined nothing
    assert control[pool.DONE] == done
    assert control[pool.CLAIM] & (pool.CLOSED - 1) == 0


def test_a_fault_on_two_threads_is_reported_and_restores_the_arrays(monkeypatch):
    ran = two_threads(monkeypatch)
    source = """
    __kernel void k(__global const float *a, __global float *c, int bad) {
        size_t i = get_global_id(0);
        float x = a[i];
        for (int t = 0; t < 2000; t++)
            x = x * 0.999f + 0.5f;
        c[i == bad ? i + 100000 : i] = x;
    }"""
    prog = clcoop.Program(source).build(engine="native")
    a = np.ones(1 << 14, np.float32)
    c = np.full_like(a, 7)
    with pytest.raises(clcoop.RuntimeFault, match="out-of-bounds"):
        prog.k(a.size, 64, a, c, np.int32(a.size - 1))
    assert (c == 7).all()
    assert ran


def _child_launches_on_two_threads():
    prog = clcoop.Program(LONG).build(engine="native")
    a = np.arange(1 << 13, dtype=np.float32)
    c = np.zeros_like(a)
    prog.k(a.size, 64, a, c)
    return bool((c == oracle(a)).all())


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_a_forked_child_gets_its_own_pool(monkeypatch):
    two_threads(monkeypatch)
    parent = pool.get()
    parent.reserve(1)
    pid = os.fork()
    if pid == 0:                      # the child: the parent's worker is not here
        try:
            ok = pool.get() is not parent and _child_launches_on_two_threads()
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


@pytest.mark.parametrize("close", [False, True])
def test_the_process_exits_cleanly_with_parked_workers(close):
    # The workers spin in the pool's compiled code: at exit they must leave it before an
    # engine's finalizer frees it (a crash at exit otherwise).
    script = textwrap.dedent(f"""
        import numpy as np, clcoop
        from clcoop.native import pool, runtime
        runtime.default_threads = lambda: 2
        runtime.NativeProgram._threads_for = lambda self, *args: 2
        prog = clcoop.Program({LONG!r}).build(engine="native")
        pool.get().control[pool.SPIN] = 1 << 60      # the worker spins, awake, at exit
        a = np.ones(1 << 14, np.float32)
        c = np.zeros_like(a)
        for _ in range(3):
            prog.k(a.size, 64, a, c)
        if {close}:
            prog._native.close()
        print("ok", len(pool.get().threads))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", "1"]
    assert done.stderr == ""


def test_a_kernel_that_last_ran_on_several_threads_wakes_the_workers_first(monkeypatch):
    counts = [2]
    monkeypatch.setattr(runtime, "default_threads", lambda: 2)
    monkeypatch.setattr(runtime.NativeProgram, "_threads_for", lambda self, *args: counts[-1])
    woken = []
    monkeypatch.setattr(pool.NativePool, "wake", lambda self: woken.append(1))
    prog = clcoop.Program(LONG).build(engine="native")
    a = np.ones(1 << 12, np.float32)
    c = np.zeros_like(a)
    prog.k(a.size, 64, a, c)            # no launch before it: nothing to go by
    assert woken == [] and prog._native.wide_kernels == {"k"}
    prog.k(a.size, 64, a, c)
    assert woken == [1]
    counts.append(1)
    prog.k(a.size, 64, a, c)            # woken (the last asked for two); this one asks for one
    assert woken == [1, 1] and prog._native.wide_kernels == set()
    prog.k(a.size, 64, a, c)
    assert woken == [1, 1]
    np.testing.assert_array_equal(c, oracle(a))


def test_the_spin_adapts_to_the_gaps_between_launches():
    # Woken after a gap shorter than the bound, a worker next spins for twice the gap
    # (launches in a loop find it awake); after a longer gap, for the minimum again.
    p = pool.get()
    p.reserve(1)
    control = p.control
    saved = int(control[pool.SPIN_MIN]), int(control[pool.SPIN_MAX])
    try:
        # A known start, whatever earlier launches left: a wake-up (a job nobody may join)
        # with a bound below any gap sets the spin to the minimum, here 30 ms: long enough
        # to see the worker awake, however late the wake-up reaches it.
        control[pool.SPIN_MIN], control[pool.SPIN_MAX] = 30_000_000, 1
        control[pool.SPIN] = 30_000_000
        p._code.wake(p.address)
        wait_until(lambda: control[pool.SLEEPERS] == 0)
        wait_until(lambda: control[pool.SLEEPERS] >= 1)
        assert control[pool.SPIN] == 30_000_000
        control[pool.SPIN_MIN], control[pool.SPIN_MAX] = saved[0], 200_000_000
        time.sleep(0.02)
        p.wake()
        wait_until(lambda: control[pool.SPIN] >= 100_000_000)      # 2 x (30 ms spin + 20 ms)
        assert control[pool.SPIN] <= 200_000_000
        time.sleep(0.005)
        assert control[pool.SLEEPERS] == 0                         # spinning, not asleep
        control[pool.SPIN_MAX] = 5_000_000
        wait_until(lambda: control[pool.SLEEPERS] >= 1)
        time.sleep(0.02)
        p.wake()
        wait_until(lambda: control[pool.SPIN] == saved[0])
    finally:
        control[pool.SPIN_MIN], control[pool.SPIN_MAX] = saved


def test_the_spin_bound_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("CLCOOP_WORKER_SPIN_MS", raising=False)
    monkeypatch.setattr(pool, "usable_cpus", lambda: 2)
    assert pool.spin_max_ns() == pool.SPIN_MAX_NS
    monkeypatch.setattr(pool, "usable_cpus", lambda: 1)      # it would spin on our own CPU
    assert pool.spin_max_ns() == pool.SPIN_MIN_NS
    monkeypatch.setenv("CLCOOP_WORKER_SPIN_MS", "20")
    assert pool.spin_max_ns() == 20_000_000
    monkeypatch.setenv("CLCOOP_WORKER_SPIN_MS", "0")
    assert pool.spin_max_ns() == pool.SPIN_MIN_NS
    monkeypatch.setenv("CLCOOP_WORKER_SPIN_MS", "lots")
    with pytest.warns(RuntimeWarning, match="CLCOOP_WORKER_SPIN_MS"):
        assert pool.spin_max_ns() == pool.SPIN_MAX_NS
