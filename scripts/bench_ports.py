"""The llama.cpp ports (examples/llama/) natively against the interpreter, at the sizes
test/unit/examples/test_llama_ports.py uses (issue 29's target: at least 30x), in one run:
for each case the two engines alternate (interpreter, native, interpreter, ...) after a
warm-up launch each (the native module is compiled at build time, not timed), and the
native result must be the interpreter's bit for bit. Prints one line per case: medians and
minima of the wall time per launch and the ratio of medians (and of minima).

    python3 scripts/bench_ports.py [--rounds N] [--slow]    # --slow: the slow-marked sizes too
    python3 scripts/bench_ports.py --operations             # flash attention's operations alone
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

import clcoop

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


# --operations: each workgroup-scope operation of flash attention at HS 128, Bc 32, Br 16 and
# 64 work-items (the slow-marked size where the ratio falls), R times in a loop of 14
# work-groups; its time per work-group and operation is (t(R=11) - t(R=1)) / 10 / 14.
OPERATIONS_KERNEL = r"""
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define WG CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP
#define ACC CLK_COOPERATIVE_MATRIX_ACCUMULATOR
typedef half  q_a_t    __attribute__((coop_mat(WG, 16, 128, CLK_COOPERATIVE_MATRIX_A)));
typedef half  k_t      __attribute__((coop_mat(WG, 128, 32, CLK_COOPERATIVE_MATRIX_B)));
typedef float s_t      __attribute__((coop_mat(WG, 16, 32, ACC)));
typedef half  p_a_t    __attribute__((coop_mat(WG, 16, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef half  v_t      __attribute__((coop_mat(WG, 32, 128, CLK_COOPERATIVE_MATRIX_B)));
typedef float o_t      __attribute__((coop_mat(WG, 16, 128, ACC)));
typedef half  pv_t     __attribute__((coop_mat(WG, 16, 128, ACC)));
typedef coop_tensor_layout_t layout_t __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
typedef coop_tensor_view_t transpose_t __attribute__((coop_tensor_view(2, false, 1, 0)));
static float add_reduce(float x, float y) { return x + y; }
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void k(__global const half *data_k, __global float *out, uint KV, uint R) {
    layout_t layout_k = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), KV, 128);
    layout_k = coop_tensor_layout_set_stride(layout_k, 128, 1);
    const transpose_t transpose = coop_tensor_view_create();
    s_t S = coop_mat_init(0.0f);
    o_t O = coop_mat_init(0.0f);
    q_a_t Q = coop_mat_init((half)0.5f);
    p_a_t PA = coop_mat_init((half)0.25f);
    k_t K_T = coop_mat_init((half)0.5f);
    v_t V = coop_mat_init((half)0.5f);
    for (uint j = 0; j < R; ++j) {
        BODY
    }
    coop_mat_store(out + get_group_id(0) * 16 * 128, O, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)128);
    coop_mat_store(out + 100000 + get_group_id(0) * 16 * 32, S, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)32);
}
"""
OPERATIONS = {
  "nothing": "S = S + S;",
  "load K_T (128x32 transposed view)": "K_T = coop_mat_load_tensor(data_k, coop_tensor_layout_slice(layout_k, (j % 9) * 32, 32, 0, 128), transpose); S = S + S;",
  "load V (32x128)": "V = coop_mat_load_tensor(data_k, coop_tensor_layout_slice(layout_k, (j % 9) * 32, 32, 0, 128)); S = S + S;",
  "mulAdd 16x128x32": "S = coop_mat_mulAdd(Q, K_T, S);",
  "mulAdd 16x32x128 half acc + convert": "pv_t PV = coop_mat_mulAdd(PA, V, (pv_t)coop_mat_init((half)0)); O = O + (o_t)PV;",
  "convert P->A": "PA = (p_a_t)S; S = S + S;",
  "reduce row 16x32": "S = coop_mat_reduce(S, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add_reduce);",
}


def measure_operations():
    kdata = np.random.default_rng(0).standard_normal((300, 128)).astype(np.float16)
    for name, body in OPERATIONS.items():
        program = clcoop.Program(OPERATIONS_KERNEL.replace("BODY", body)).build(engine="auto")
        if program.kernel("k").engine != "native":
            raise SystemExit(f"{name}: not native: {program.kernel('k').fallback_reason}")
        out = np.zeros(200000, np.float32)

        def best(R):
            times = []
            for _ in range(4):
                started = time.perf_counter()
                program.k((14 * 64,), (64,), kdata, out, np.uint32(300), np.uint32(R))
                times.append(time.perf_counter() - started)
            return min(times[1:])
        one, eleven = best(1), best(11)
        print(f"{name}: {(eleven - one) / 10 / 14 * 1e6:.1f} us per work-group and operation", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--slow", action="store_true", help="also the slow-marked (larger) cases")
    parser.add_argument("--operations", action="store_true",
                        help="only the workgroup-scope operations of flash attention, one by one")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if args.operations:
        return measure_operations()
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
