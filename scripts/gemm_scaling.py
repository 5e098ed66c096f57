#!/usr/bin/env python3
"""The native engine's f32 GEMM against NumPy at each thread count (issue 29's targets).

    python3 scripts/bench.py --gemm-scaling [--sizes 512,1024,2048] [--threads 1,2,16]
    python3 scripts/gemm_scaling.py [--sizes ...] [--threads ...] [--rounds N]

For every thread count t a child process restricted to t CPUs of this process's affinity
mask (os.sched_setaffinity: the native engine uses every CPU of the mask, runtime.
default_threads) with OPENBLAS_NUM_THREADS=t (NumPy's BLAS on as many threads) times
examples/gemm_f32.cl on the native engine (8 x 16 tiles, one subgroup of 16 per
work-group, as scripts/bench.py's GEMM rows) and `A @ B` alternating, each timed call after
a pause in which the other side's spinning threads go to sleep and an untimed call of its
own (IDLE_SECONDS; on one thread the calls simply alternate), and checks the native C against NumPy. One table: size x threads, native and
NumPy ms (median and min), ratio native / NumPy (of medians and of minima), native GFLOP/s,
the path and the operands read from padded copies (docs/native.md, "Packed loads"), then each of the issue's targets met or not (1 thread, 512^3 to 2048^3: <= 1.5x; 16
threads, 1024^3 and 2048^3: <= 2x). Writes nothing.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "gemm_f32.cl"
SUBGROUP = 16
# Issue 29's targets: (threads, sizes, ratio at most).
TARGETS = [(1, (512, 1024, 2048), 1.5), (16, (1024, 2048), 2.0)]


def default_thread_counts(cpus):
    """1, 2, 4, ... up to the usable CPUs, and that count itself."""
    counts, t = [], 1
    while t < cpus:
        counts.append(t)
        t *= 2
    return counts + [cpus]


# Both sides' worker threads keep spinning after a call: OpenBLAS's for about 2^28 cycles
# (its thread timeout), the native pool's for up to pool.SPIN_MAX_NS. A call made while the
# other side's threads still spin shares every core with them: at 16 threads on the GPU
# machine's Xeon the native 2048^3 launch took 45 ms right after `A @ B` and 23-25 ms
# alone. So each timed call comes after a pause longer than both spins, and after one
# untimed call of its own side (which wakes its own threads, as in a run of calls). On one
# thread neither side has workers to wait out, and the pause only cost both (the GPU
# machine's one-thread runs read 10-25% slower with it): there the calls simply alternate.
IDLE_SECONDS = 0.3


def timed_after_the_other_idles(run, idle=True):
    """Seconds of one call of `run`, once the other side's threads have gone to sleep and
    `run`'s own are awake (idle=False: right away, for one-thread runs)."""
    if not idle:
        start = time.perf_counter()
        run()
        return time.perf_counter() - start
    time.sleep(IDLE_SECONDS)
    run()
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def rounds_for(n, rounds):
    return max(3, rounds // 2) if n >= 2048 else rounds


def child(threads, sizes, rounds):
    """Runs in the child: restricts itself to `threads` CPUs, then times each size; prints
    one JSON line per size."""
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, set(cpus[:threads]))
    sys.path.insert(0, str(ROOT))
    import clcoop
    from clcoop.native import runtime
    kernel = clcoop.Program(EXAMPLE.read_text()).build(engine="native").gemm_f32
    for n in sizes:
        rng = np.random.default_rng(n)
        a = rng.standard_normal((n, n)).astype(np.float32)
        b = rng.standard_normal((n, n)).astype(np.float32)
        c = np.zeros((n, n), np.float32)
        grid, local = (n // 16 * SUBGROUP, n // 8), (SUBGROUP, 1)

        def native():
            kernel(grid, local, a, b, c, n, n, n, 0, subgroup_size=SUBGROUP)
        native()
        expected = a @ b
        samples = {"native": [], "numpy": []}
        sides = {"native": native, "numpy": lambda: a @ b}
        for _ in range(rounds_for(n, rounds)):
            for name, run in sides.items():
                samples[name].append(timed_after_the_other_idles(run, idle=threads > 1))
        nat = kernel.program._native
        print(json.dumps({
            "n": n, "threads": threads, "engine_threads": runtime.default_threads(),
            "mode": nat.execution_mode(kernel.name, SUBGROUP),
            # The operands read from padded copies (native/packed_loads.py): A, B by name.
            "copies": [("A", "B", "C")[i] for i in nat.packed_params.get(kernel.name, ())],
            "match": bool(np.allclose(c, expected, rtol=1e-4, atol=1e-3 * np.sqrt(n))),
            **{name: {"median": statistics.median(v), "min": min(v), "runs": len(v)}
               for name, v in samples.items()}}), flush=True)


def measure(threads, sizes, rounds):
    """The child's rows for `threads` threads."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, __file__, "--child", str(threads),
                           "--sizes", ",".join(map(str, sizes)), "--rounds", str(rounds)],
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"the {threads}-thread run failed:\n{done.stderr}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def table(rows):
    lines = ["| threads | n | native ms, median (min) | NumPy ms, median (min) | ratio (of minima) | "
             "native GFLOP/s | path, padded copies, match |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        nat, ref = r["native"], r["numpy"]
        lines.append(f"| {r['threads']} | {r['n']}^3 | {nat['median'] * 1e3:.1f} ({nat['min'] * 1e3:.1f}) | "
                     f"{ref['median'] * 1e3:.1f} ({ref['min'] * 1e3:.1f}) | "
                     f"{nat['median'] / ref['median']:.2f}x ({nat['min'] / ref['min']:.2f}x) | "
                     f"{2 * r['n'] ** 3 / nat['min'] / 1e9:.0f} | {r['mode']}, {'+'.join(r.get('copies') or ()) or 'none'}, "
                     f"{r['match']} |")
    return "\n".join(lines)


def verdicts(rows):
    """One line per target whose thread count and sizes were measured."""
    out = []
    for threads, sizes, bound in TARGETS:
        found = {r["n"]: r for r in rows if r["threads"] == threads and r["n"] in sizes}
        if not found:
            continue
        ratios = {n: r["native"]["median"] / r["numpy"]["median"] for n, r in sorted(found.items())}
        met = all(v <= bound for v in ratios.values()) and len(found) == len(sizes)
        out.append(f"target {threads} thread(s), {', '.join(f'{n}^3' for n in sizes)}: <= {bound:g}x NumPy: "
                   f"{'met' if met else 'NOT met'} ("
                   + ", ".join(f"{n}^3 {v:.2f}x" for n, v in ratios.items())
                   + ("" if len(found) == len(sizes) else ", not every size measured") + ")")
    return out


def run(sizes, thread_counts, rounds):
    cpus = len(os.sched_getaffinity(0))
    print(f"f32 GEMM, examples/gemm_f32.cl natively vs NumPy {np.__version__} at the same thread "
          f"count; {os.uname().machine}, {cpus} usable CPUs ({cpu_name()}), load average "
          f"{os.getloadavg()[0]:.1f} at the start", flush=True)
    rows = []
    for threads in thread_counts:
        if threads > cpus:
            print(f"  {threads} threads: skipped, this process may use {cpus} CPUs", flush=True)
            continue
        for r in measure(threads, sizes, rounds):
            rows.append(r)
            print(f"  {threads} thread(s), {r['n']}^3: native {r['native']['median'] * 1e3:.1f} ms, NumPy "
                  f"{r['numpy']['median'] * 1e3:.1f} ms, {r['native']['median'] / r['numpy']['median']:.2f}x",
                  flush=True)
    print(table(rows))
    print("\n".join(verdicts(rows)))
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return rows


def cpu_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU model unknown"


def numbers(text):
    return [int(x) for x in text.split(",") if x.strip()]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=numbers, default=[512, 1024, 2048],
                        help="n of the n^3 GEMMs, comma-separated (multiples of 16)")
    parser.add_argument("--threads", type=numbers, default=None,
                        help="thread counts, comma-separated (default 1, 2, 4, ... and every usable CPU)")
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds per size (2048: half)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if any(n <= 0 or n % 16 for n in options.sizes):
        parser.error("every size must be a positive multiple of 16")
    if options.child:
        child(options.child, options.sizes, options.rounds)
        return 0
    counts = options.threads or default_thread_counts(len(os.sched_getaffinity(0)))
    run(options.sizes, counts, options.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
