"""The llama.cpp ports (examples/llama/) natively against the interpreter, at the sizes
test/unit/examples/test_llama_ports.py uses (issue 29's target: at least 30x), in one run:
for each case the two engines alternate (interpreter, native, interpreter, ...) after a
warm-up launch each (the native module is compiled at build time, not timed), and the
native result must be the interpreter's bit for bit. Prints one line per case: medians and
minima of the wall time per launch and the ratio of medians (and of minima).

    python3 scripts/bench_ports.py [--rounds N] [--slow]    # --slow: the slow-marked sizes too
"""
import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for folder in ("examples", "support"):
    sys.path.insert(0, str(ROOT / "test" / "unit" / folder))
import test_llama_ports as ports  # noqa: E402  (the cases, problems and checks of the tests)


def gemm_case(case):
    qtype, M, N, K, bm, bn, wg, batches = case
    A, B, D, scalars = ports.gemm_problem(np.random.default_rng(1), qtype, M, N, K, batches)
    options = ports.gemm_options(qtype, bm, bn, wg)
    label = f"{qtype} M={M} N={N} K={K} tile {bm}x{bn} wg {wg} batches {batches}"
    return "mul_mm_q", label, options, lambda program: (ports.run_gemm(program, A, B, D, scalars, bm, bn, wg), D)[1]


def attention_case(case):
    N, KV, n_head, n_head_kv, hsk, hsv, causal, br, bc, wg = case
    problem = ports.Attention(np.random.default_rng(1), N, KV, n_head, n_head_kv, hsk, hsv, causal)
    options = ports.attention_options(hsk, hsv, br, bc, wg)
    label = (f"N={N} KV={KV} heads {n_head}/{n_head_kv} HSK={hsk} HSV={hsv} {'causal' if causal else 'full'} "
             f"Br={br} Bc={bc} wg {wg}")
    return "flash_attn", label, options, lambda program: (problem.run(program, br, wg), problem.O)[1]


def measure(name, options, launch, rounds):
    programs = {engine: ports.build(name, options, engine) for engine in ("interp", "auto")}
    kernel = programs["auto"].kernel(name)
    if kernel.engine != "native":
        raise SystemExit(f"{name} {options}: not native: {kernel.fallback_reason}")
    outputs = {engine: launch(program).copy() for engine, program in programs.items()}     # warm-up
    if outputs["interp"].tobytes() != outputs["auto"].tobytes():
        raise SystemExit(f"{name} {options}: the native result is not the interpreter's")
    times = {engine: [] for engine in programs}
    for _ in range(rounds):
        for engine, program in programs.items():
            started = time.perf_counter()
            launch(program)
            times[engine].append(time.perf_counter() - started)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--slow", action="store_true", help="also the slow-marked (larger) cases")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    cases = [gemm_case(c) for c in ports.GEMM_CASES] + [attention_case(c) for c in ports.ATTENTION_CASES]
    if args.slow:
        cases += [gemm_case(c) for c in ports.SLOW_GEMM_CASES] + [attention_case(c) for c in ports.SLOW_ATTENTION_CASES]
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}; ms per launch, median (min)")
    for name, label, options, launch in cases:
        times = measure(name, options, launch, args.rounds)
        i, n = (statistics.median(times[e]) for e in ("interp", "auto"))
        i_min, n_min = (min(times[e]) for e in ("interp", "auto"))
        print(f"{name} {label}: interpreter {i * 1e3:.1f} ({i_min * 1e3:.1f}), native {n * 1e3:.2f} "
              f"({n_min * 1e3:.2f}): {i / n:.0f}x (of minima {i_min / n_min:.0f}x)", flush=True)


if __name__ == "__main__":
    main()
