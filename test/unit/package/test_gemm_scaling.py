"""scripts/gemm_scaling.py (bench.py --gemm-scaling, issue 29): the thread counts it measures,
its table and its verdicts on the issue's targets, and one real run at a small size (a child
process restricted to one CPU, NumPy on one thread)."""
import os
import subprocess
import sys

import pytest
from script_modules import SCRIPTS, load_script


def row(threads, n, native, numpy):
    timing = lambda s: {"median": s, "min": s * 0.9, "runs": 3}  # noqa: E731
    return {"n": n, "threads": threads, "engine_threads": threads, "mode": "subgroup", "match": True,
            "native": timing(native), "numpy": timing(numpy)}


def test_thread_counts_double_up_to_every_usable_cpu():
    scaling = load_script("gemm_scaling.py")
    assert scaling.default_thread_counts(1) == [1]
    assert scaling.default_thread_counts(2) == [1, 2]
    assert scaling.default_thread_counts(16) == [1, 2, 4, 8, 16]
    assert scaling.default_thread_counts(12) == [1, 2, 4, 8, 12]


def test_verdicts_name_each_target_met_or_not():
    scaling = load_script("gemm_scaling.py")
    rows = [row(1, 512, 0.003, 0.003), row(1, 1024, 0.030, 0.022), row(1, 2048, 0.40, 0.17),
            row(16, 1024, 0.004, 0.0024), row(16, 2048, 0.030, 0.016)]
    lines = scaling.verdicts(rows)
    assert lines[0].startswith("target 1 thread(s), 512^3, 1024^3, 2048^3: <= 1.5x NumPy: NOT met")
    assert "2048^3 2.35x" in lines[0]
    assert lines[1].startswith("target 16 thread(s), 1024^3, 2048^3: <= 2x NumPy: met")
    # A size not measured is never 'met'.
    assert "not every size measured" in scaling.verdicts(rows[:1])[0]
    table = scaling.table(rows)
    assert "| 1 | 2048^3 | 400.0 (360.0) | 170.0 (153.0) | 2.35x (2.35x) |" in table
    rows[2]["copies"] = ["B"]
    assert "| subgroup, B, True |" in scaling.table(rows)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform")
def test_one_small_run_prints_the_table():
    done = subprocess.run([sys.executable, str(SCRIPTS / "bench.py"), "--gemm-scaling", "--sizes", "64",
                           "--threads", "1", "--rounds", "3"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # 64 floats a row: no padded copy (docs/native.md, "Packed loads").
    assert "| 1 | 64^3 |" in done.stdout and "subgroup, none, True |" in done.stdout


def test_each_timed_call_follows_a_pause_and_a_call_of_its_own(monkeypatch):
    """Both sides' worker threads spin after a call (OpenBLAS's thread timeout, the native
    pool's adaptive spin): a call timed right after the other side's shares the cores with
    them (45 against 23-25 ms at 2048^3 on 16 cores). Each timed call comes after a pause
    longer than the native pool's longest spin, and after an untimed call of its own."""
    scaling = load_script("gemm_scaling.py")
    from clcoop.native import pool
    assert scaling.IDLE_SECONDS > pool.SPIN_MAX_NS / 1e9
    events = []
    monkeypatch.setattr(scaling.time, "sleep", lambda s: events.append(("sleep", s)))
    clock = iter([10.0, 10.5])
    monkeypatch.setattr(scaling.time, "perf_counter", lambda: next(clock))
    assert scaling.timed_after_the_other_idles(lambda: events.append("call")) == 0.5
    assert events == [("sleep", scaling.IDLE_SECONDS), "call", "call"]
    # One thread: no workers spin on either side; the calls alternate without a pause.
    events.clear()
    clock = iter([20.0, 20.25])
    assert scaling.timed_after_the_other_idles(lambda: events.append("call"), idle=False) == 0.25
    assert events == ["call"]
