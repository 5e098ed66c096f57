"""Ctrl-C during a long native launch (clcoop/native/interrupt.py): the launch stops at
its next safe point, the caller's arrays are restored as for a fault, and the caller gets
KeyboardInterrupt. A child process runs the launch; the test sends it SIGINT."""
import signal
import subprocess
import sys
import textwrap
import time

import pytest

CHILD = textwrap.dedent('''
    import sys, time
    import numpy as np
    import clcoop
    SOURCES = {
        "loop": """kernel void k(global float *a, global const int *n) {
            size_t i = get_global_id(0);
            float x = a[i];
            for (int t = 0; t < n[0]; t++) x = x * 0.999999f + 1.0f;
            a[i] = x; }""",
        "barrier": """kernel void k(global float *a, global const int *n) {
            local float t[64];
            size_t l = get_local_id(0);
            t[l] = a[get_global_id(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            float x = t[(l + 1) % get_local_size(0)];
            for (int s = 0; s < n[0]; s++) x = x * 0.999999f + 1.0f;
            a[get_global_id(0)] = x; }""",
        "groups": """kernel void k(global float *a, global const int *n) {
            size_t i = get_global_id(0);
            a[(i + n[0]) % 64] += 1.0f; }""",
    }
    kind, local = sys.argv[1], int(sys.argv[2])
    prog = clcoop.Program(SOURCES[kind]).build(engine="native")
    assert prog.k.fallback_reason is None
    prog.k(64, local, np.zeros(64, np.float32), np.array([10], np.int32))    # compiled, warm
    a = np.arange(64, dtype=np.float32)
    before = a.copy()
    size = 1 << 40 if kind == "groups" else 64
    print("ready", flush=True)
    try:
        prog.k(size, local, a, np.array([2_000_000_000], np.int32), instruction_limit=1 << 62)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", time.time(), bool((a == before).all()), flush=True)
''')


@pytest.mark.parametrize("kind, local", [
    ("loop", 16),
    # About 6 s each (a child process builds and warms the kernel): slow.
    pytest.param("loop", 2, marks=pytest.mark.slow),
    pytest.param("barrier", 16, marks=pytest.mark.slow),
    pytest.param("groups", 64, marks=pytest.mark.slow)])
def test_ctrl_c_stops_a_long_native_launch(kind, local):
    """The loop kernel runs 2e9 iterations per work-item (minutes): on the subgroup-wide
    path (local 16) and per work-item (local 2); with a barrier (a coroutine); and a kernel
    of 2^40 work-items whose work-groups are short (the drivers' check between groups; its
    index is loaded, so the launch is not proven in place: an in-place launch has no
    backup to restore, docs/native.md "Safety contract")."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, kind, str(local)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        time.sleep(0.5)
        sent = time.time()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        child.kill()
    words = out.split()
    assert words and words[0] == "interrupted", out + err
    # From the signal to the KeyboardInterrupt in the caller (the wall clock is the
    # machine's, shared by both processes). The process's exit after it (the pool's and
    # the optimizer's shutdown) is bounded by communicate's timeout above: under a heavy
    # load it alone took 10-20 s, which is not the launch's stop.
    assert float(words[1]) - sent < 10
    assert words[2] == "True"          # the caller's array as it was before the launch


RACE_CHILD = textwrap.dedent('''
    import os, signal, sys, time
    import numpy as np
    import clcoop
    from clcoop.native import pool
    SOURCE = """kernel void k(global float *a, global const int *n) {
        size_t i = get_global_id(0);
        float x = a[i];
        for (int t = 0; t < n[0]; t++) x = x * 0.999999f + 1.0f;
        a[i] = x; }"""
    prog = clcoop.Program(SOURCE).build(engine="native")
    assert prog.k.fallback_reason is None
    prog.k(64, 16, np.zeros(64, np.float32), np.array([10], np.int32))    # compiled, warm
    launch = pool.NativePool.launch

    def interrupted_launch(self, *args):
        # Ctrl-C after the launch was armed, before the foreign call starts its drivers.
        os.kill(os.getpid(), signal.SIGINT)
        return launch(self, *args)

    pool.NativePool.launch = interrupted_launch
    a = np.arange(64, dtype=np.float32)
    started = time.time()
    try:
        prog.k(64, 16, a, np.array([2_000_000_000], np.int32), instruction_limit=1 << 62)
        print("finished", time.time() - started, flush=True)
    except KeyboardInterrupt:
        print("interrupted", time.time() - started, flush=True)
''')


def test_ctrl_c_just_before_the_drivers_start_stops_the_launch():
    """A SIGINT that lands after the launch is armed but before the pool's foreign call
    starts the drivers. The pool used to zero the abort flag there, wiping the signal out:
    the launch (about 40 s here) then ran to its end before the KeyboardInterrupt."""
    child = subprocess.run([sys.executable, "-c", RACE_CHILD], capture_output=True, text=True, timeout=120)
    words = child.stdout.split()
    assert words and words[0] == "interrupted", child.stdout + child.stderr
    assert float(words[1]) < 10, child.stdout
