#!/usr/bin/env python3
"""Benchmarks: the interpreter's GEMMs against NumPy (and PoCL when
pyopencl is installed), the native engine against the interpreter, NumPy and PoCL, clcoop's compile latency and throughput against clang-22, and the
interpreter's peak memory.

    python3 scripts/bench.py            # full run (a few minutes on 2 cores)
    python3 scripts/bench.py --quick    # smoke run: small sizes, 3 repetitions, writes nothing
    python3 scripts/bench.py --native-only [--quick]   # only the native engine's rows
    python3 scripts/bench.py --gemm-scaling [--sizes 512,1024,2048] [--threads 1,2,16]
                                        # only the native f32 GEMM vs NumPy per thread count
                                        # (scripts/gemm_scaling.py; issue 29's targets)
    python3 scripts/bench.py --compile-latency [ROUNDS] # only a small kernel's compile vs clang-22
    python3 scripts/bench.py --compile-throughput [ROUNDS] [--source FILE|DIR]...
                                        # only large compiles vs clang-22, with the time per stage
    (both take --against DIR: another clcoop checkout timed in the same rounds, before/after)

Every timing is the median of the repetitions with min and max; ratios are taken
between figures measured in the same run, interleaved, so that a noisy machine hurts
both sides alike. Writes docs/performance.json, the table between the markers of
docs/performance.md, and docs/performance.png when matplotlib is importable.
"""
import argparse
import concurrent.futures
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# The checkout's clcoop, installed or not (the memory child and PoCL runs import it too).
sys.path.insert(0, str(ROOT))
EXAMPLES = ROOT / "examples"
DOCS = ROOT / "docs"
TABLE_BEGIN = "<!-- bench:begin (written by scripts/bench.py) -->"
TABLE_END = "<!-- bench:end -->"
CLANG_FLAGS = ["-cc1", "-triple", "spir64-unknown-unknown", "-cl-std=CL3.0",
               "-finclude-default-header", "-emit-llvm", "-O0"]
SUBGROUP = 16
PLAIN_KERNEL = """\
__kernel void saxpy(__global const float *x, __global float *y, float a, int n)
{
    size_t i = get_global_id(0);
    if (i < (size_t)n)
        y[i] = a * x[i] + y[i];
}
"""


# ---------------------------------------------------------------- timing helpers

def summarize(samples):
    """Median, min, max (seconds) and the repetition count."""
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples),
            "runs": len(samples)}


# A timing whose repetitions differ by more than this factor (max / min) says little: something
# else had the CPU during some of them. A load average above BUSY_LOAD per core at the start
# says the same of the whole run.
NOISY_SPREAD = 2.0
BUSY_LOAD = 0.5


def noisy_timings(results, where="results"):
    """[(where, summary)] of the timing summaries in `results` (nested dicts and lists) whose
    slowest repetition took more than NOISY_SPREAD times the fastest."""
    if isinstance(results, list):
        return [found for i, value in enumerate(results)
                for found in noisy_timings(value, f"{where}[{i}]")]
    if not isinstance(results, dict):
        return []
    if {"median", "min", "max"} <= results.keys():
        low, high = results["min"], results["max"]
        return [(where, results)] if low > 0 and high / low > NOISY_SPREAD else []
    return [found for key, value in results.items() for found in noisy_timings(value, f"{where}.{key}")]


def count_timings(results):
    if isinstance(results, list):
        return sum(count_timings(value) for value in results)
    if not isinstance(results, dict):
        return 0
    if {"median", "min", "max"} <= results.keys():
        return 1
    return sum(count_timings(value) for value in results.values())


def noise_warning(results, load_average, cores):
    """The warning to print when the machine was too noisy for the figures to mean much, or
    None: a load average above BUSY_LOAD per core at the start, or timings whose repetitions
    spread more than NOISY_SPREAD times."""
    noisy = noisy_timings(results)
    busy = load_average > BUSY_LOAD * cores
    if not noisy and not busy:
        return None
    reasons = []
    if busy:
        reasons.append(f"load average {load_average:.1f} on {cores} cores at the start")
    if noisy:
        where, worst = max(noisy, key=lambda found: found[1]["max"] / found[1]["min"])
        reasons.append(f"{len(noisy)} of {count_timings(results)} timings varied more than "
                       f"{NOISY_SPREAD:g}x between repetitions (worst: {where.removeprefix('results.')} "
                       f"{worst['min'] * 1e3:.3g}-{worst['max'] * 1e3:.3g} ms)")
    return (f"warning: the machine was too busy for these figures to mean much ({'; '.join(reasons)}): "
            f"their ratios can be off by any factor. Run again on a quiet machine.")


def report_noise(results, load_average):
    """Prints noise_warning to stderr and records it in `results` (None: no warning)."""
    warning = noise_warning(results, load_average, os.cpu_count() or 1)
    results["noise_warning"] = warning
    if warning:
        print(warning, file=sys.stderr, flush=True)
    return warning


def times(ratio):
    """A ratio as text: '12.3x', or two significant digits below 1 ('0.042x', never '0.0x')."""
    return f"{ratio:.1f}x" if ratio >= 0.95 else f"{ratio:.2g}x"


def time_interleaved(functions, repetitions):
    """Runs each function once per round, `repetitions` rounds, after one warm-up round:
    {name: summary}. Interleaving keeps the ratios fair on a shared machine."""
    for function in functions.values():
        function()
    samples = {name: [] for name in functions}
    cpu = {name: [] for name in functions}
    for _ in range(repetitions):
        for name, function in functions.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            function()
            samples[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    # CPU time (all threads of this process) is less sensitive to other users of the
    # machine than wall time for the single-threaded interpreter; BLAS threads that spin
    # inflate NumPy's.
    return {name: dict(summarize(values), cpu_median=statistics.median(cpu[name]))
            for name, values in samples.items()}


def gflops(n, seconds):
    return 2.0 * n ** 3 / seconds / 1e9


# ---------------------------------------------------------------- a, b: GEMMs

def gemm_grid(n):
    """NDRange of the examples' GEMMs: one subgroup per 8 x 16 tile of C."""
    return (n // 16 * SUBGROUP, n // 8), (SUBGROUP, 1)


def gemm_case(kind, n, rng, engine="interp"):
    """(run closure, numpy closure, check closure, C) for one element type; the kernel is
    built for `engine`."""
    import clcoop
    if kind == "f32":
        A = rng.standard_normal((n, n)).astype(np.float32)
        B = rng.standard_normal((n, n)).astype(np.float32)
        C = np.zeros((n, n), np.float32)
        kernel = clcoop.Program((EXAMPLES / "gemm_f32.cl").read_text()).build(engine=engine).gemm_f32
        args = (A, B, C, n, n, n, 0)
        reference = lambda: np.matmul(A, B)
        tolerance = dict(rtol=1e-4, atol=1e-3 * np.sqrt(n))
    elif kind == "f16_f32":
        A = rng.standard_normal((n, n)).astype(np.float16)
        B = rng.standard_normal((n, n)).astype(np.float16)
        B_col_major = np.ascontiguousarray(B.T)
        C = np.zeros((n, n), np.float32)
        kernel = clcoop.Program((EXAMPLES / "gemm_f16_f32.cl").read_text()).build(engine=engine).gemm_f16_f32
        args = (A, B_col_major, C, n, n, n)
        reference = lambda: np.matmul(A.astype(np.float32), B.astype(np.float32))
        tolerance = dict(rtol=1e-3, atol=1e-3 * np.sqrt(n))
    elif kind == "i8_i32":
        A = rng.integers(-128, 128, (n, n), dtype=np.int8)
        B = rng.integers(-128, 128, (n, n), dtype=np.int8)
        C = np.zeros((n, n), np.int32)
        kernel = clcoop.Program((EXAMPLES / "gemm_i8_i32.cl").read_text()).build(engine=engine).gemm_i8_i32
        args = (A, B, C, n, n, n)
        reference = lambda: np.matmul(A.astype(np.int32), B.astype(np.int32))
        tolerance = None
    else:
        raise ValueError(kind)
    gsize, lsize = gemm_grid(n)

    def interpreter():
        kernel(gsize, lsize, *args, subgroup_size=SUBGROUP)
    interpreter.kernel = kernel

    def check():
        expected = reference()
        if tolerance is None:
            return bool(np.array_equal(C, expected))
        return bool(np.allclose(C, expected, **tolerance))

    return interpreter, reference, check, C


def bench_gemm(kind, n, repetitions, rng):
    interpreter, reference, check, _ = gemm_case(kind, n, rng)
    timings = time_interleaved({"interpreter": interpreter, "numpy": reference}, repetitions)
    ok = check()
    result = {"kind": kind, "n": n, "interpreter": timings["interpreter"],
              "numpy": timings["numpy"], "matches_numpy": ok,
              "ratio": timings["interpreter"]["median"] / timings["numpy"]["median"],
              "ratio_of_minima": timings["interpreter"]["min"] / timings["numpy"]["min"],
              "gflops_interpreter": gflops(n, timings["interpreter"]["median"]),
              "gflops_numpy": gflops(n, timings["numpy"]["median"])}
    print(f"  {kind:8s} {n:5d}^3  interp {timings['interpreter']['median'] * 1e3:9.1f} ms  "
          f"numpy {timings['numpy']['median'] * 1e3:8.2f} ms  ratio {times(result['ratio']):>8s}  "
          f"(of minima {times(result['ratio_of_minima'])})  interp CPU "
          f"{timings['interpreter']['cpu_median'] * 1e3:.1f} ms  "
          f"{result['gflops_interpreter']:6.2f} GFLOP/s  match={ok}  "
          f"({repetitions} runs)", flush=True)
    return result


# ---------------------------------------------------------------- c: PoCL

POCL_TILED = """\
#define T 16
__kernel void gemm_tiled(__global const float *A, __global const float *B, __global float *C, int n)
{
    __local float As[T][T], Bs[T][T];
    int lr = get_local_id(1), lc = get_local_id(0);
    int row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < n; k += T) {
        As[lr][lc] = A[row * n + k + lc];
        Bs[lr][lc] = B[(k + lr) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int t = 0; t < T; ++t)
            acc += As[lr][t] * Bs[t][lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}
"""
POCL_NAIVE = """\
__kernel void gemm_naive(__global const float *A, __global const float *B, __global float *C, int n)
{
    int row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
        acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
}
"""


def pocl_queue():
    """(pyopencl, context, queue) on the first OpenCL CPU device (PoCL on this machine);
    None when pyopencl is not importable. Raises when there is no CPU device."""
    try:
        import pyopencl as cl
    except ImportError:
        return None
    devices = [device for platform in cl.get_platforms()
               for device in platform.get_devices(device_type=cl.device_type.CPU)]
    if not devices:
        raise RuntimeError("no OpenCL CPU device")
    context = cl.Context(devices[:1])
    return cl, context, cl.CommandQueue(context)


def pocl_device_name(context):
    device = context.devices[0]
    return f"{device.platform.name} / {device.name}"


def bench_pocl(sizes, repetitions, rng):
    """PoCL's tiled and naive kernels through pyopencl; None when not installed."""
    try:
        found = pocl_queue()
        if found is None:
            print("  PoCL: not installed (pyopencl is not importable)")
            return None
        cl, context, queue = found
        program = cl.Program(context, POCL_TILED + POCL_NAIVE).build()
        kernels = {"tiled": cl.Kernel(program, "gemm_tiled"), "naive": cl.Kernel(program, "gemm_naive")}
    except Exception as error:   # no platform / no device: report, don't fail the run
        print(f"  PoCL: unavailable ({error})")
        return {"error": str(error)}
    results = {"device": pocl_device_name(context), "runs": []}
    mf = cl.mem_flags
    for n in sizes:
        A = rng.standard_normal((n, n)).astype(np.float32)
        B = rng.standard_normal((n, n)).astype(np.float32)
        C = np.zeros((n, n), np.float32)
        a_buf = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=A)
        b_buf = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=B)
        c_buf = cl.Buffer(context, mf.WRITE_ONLY, C.nbytes)
        expected = A @ B

        def runner(kernel):
            def run():
                kernel(queue, (n, n), (16, 16), a_buf, b_buf, c_buf, np.int32(n))
                queue.finish()
            return run

        timings = time_interleaved({"tiled": runner(kernels["tiled"]),
                                    "naive": runner(kernels["naive"])}, repetitions)
        cl.enqueue_copy(queue, C, c_buf)
        ok = bool(np.allclose(C, expected, rtol=1e-4, atol=1e-3 * np.sqrt(n)))
        results["runs"].append({"n": n, "tiled": timings["tiled"], "naive": timings["naive"],
                                "matches_numpy": ok})
        print(f"  PoCL {n:5d}^3  tiled {timings['tiled']['median'] * 1e3:8.1f} ms  "
              f"naive {timings['naive']['median'] * 1e3:8.1f} ms  match={ok}", flush=True)
    return results


# ---------------------------------------------------------------- d, e: compile

def clcoop_command():
    """The `clcoop` entry point installed with this Python (a pyenv shim found first on PATH
    would add a shell script's start-up), else the one on PATH, else `python -m`."""
    beside = Path(sys.executable).parent / "clcoop"
    exe = str(beside) if beside.is_file() else shutil.which("clcoop")
    return [exe] if exe else [sys.executable, "-m", "clcoop.cli.compile_main"]


def clang_command():
    exe = shutil.which("clang-22")
    return [exe] + CLANG_FLAGS if exe else None


def compile_environment(checkout=ROOT):
    """The environment of the compile subprocesses: Python bytecode cached (in a private
    directory) as in an installed package. This machine sets PYTHONDONTWRITEBYTECODE=1,
    which makes every clcoop start recompile its modules (~0.2 s, docs/performance.md).
    `checkout`: the clcoop tree imported (another revision with --against)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # The checkout's clcoop, whatever an installed entry point was installed from.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(checkout), env.get("PYTHONPATH")) if p)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "clcoop-bench-pycache")
    return env


def run_measured(command, env):
    """(wall seconds, CPU seconds, peak RSS in MB) of one subprocess run."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed:\n"
                           f"{stderr.decode(errors='replace')[:2000]}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def time_command(command, repetitions, warm_up=True, env=None):
    """Wall time of a subprocess (median of repetitions, after one warm-up run), with its
    CPU time ("cpu") and peak memory ("rss_mb") summarized beside it."""
    samples, cpu, rss = [], [], []
    env = env or compile_environment()
    for index in range(repetitions + int(warm_up)):
        elapsed, seconds, megabytes = run_measured(command, env)
        if index or not warm_up:
            samples.append(elapsed)
            cpu.append(seconds)
            rss.append(megabytes)
    return dict(summarize(samples), cpu=summarize(cpu), rss_mb=max(rss))


def interleaved_commands(commands, repetitions):
    """{name: summary} of subprocess wall times, the commands alternating. A command is an
    argument list, or (argument list, environment)."""
    def split(command):
        return command if isinstance(command, tuple) else (command, None)
    for command in commands.values():
        time_command(*split(command)[:1], 1, env=split(command)[1])   # warm the page cache and .pyc files
    samples = {name: [] for name in commands}
    for _ in range(repetitions):
        for name, command in commands.items():
            argv, env = split(command)
            samples[name].append(time_command(argv, 1, warm_up=False, env=env))
    return {name: dict(summarize([run["median"] for run in runs]),
                       cpu=summarize([run["cpu"]["median"] for run in runs]),
                       rss_mb=max(run["rss_mb"] for run in runs))
            for name, runs in samples.items()}


# Issue 26: a small kernel compiles, from process start to output, in at most 0.8x the time of
# clang-22 -cc1 with its default header (CLANG_FLAGS).
LATENCY_TARGET = 0.8


def compile_latency_only(repetitions, against=None):
    """`bench.py --compile-latency`: only the start-up figure (section d), clcoop and clang-22
    alternating, against LATENCY_TARGET; nothing written. `against`: another clcoop checkout
    timed in the same rounds (before/after)."""
    load_at_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        result = bench_compile_latency(Path(tmp), repetitions, against)
    report_noise({"compile_latency": result}, load_at_start)
    if "ratio" not in result:
        print("  clang-22 not found: no ratio")
        return 1
    verdict = "meets" if result["ratio"] <= LATENCY_TARGET else "misses"
    print(f"  ratio {result['ratio']:.2f} {verdict} the target (<= {LATENCY_TARGET})")
    return 0


def bench_compile_latency(workdir, repetitions, against=None):
    plain = workdir / "plain.cl"
    plain.write_text(PLAIN_KERNEL)
    out = workdir / "out.ll"
    commands = {"clcoop": clcoop_command() + [str(plain), "-o", str(out)]}
    if against:
        commands["clcoop_against"] = (commands["clcoop"], compile_environment(against))
    clang = clang_command()
    if clang:
        commands["clang"] = clang + [str(plain), "-o", str(out)]
    timings = interleaved_commands(commands, repetitions)
    if against:
        print(f"  {against}: {timings['clcoop_against']['median'] * 1e3:.0f} ms "
              f"(CPU {timings['clcoop_against']['cpu']['median'] * 1e3:.0f} ms); this checkout "
              f"{timings['clcoop']['median'] * 1e3:.0f} ms (CPU {timings['clcoop']['cpu']['median'] * 1e3:.0f} ms)"
              + (f"; clang-22 CPU {timings['clang']['cpu']['median'] * 1e3:.0f} ms" if clang else ""))
    gemm = time_command(clcoop_command() + [str(EXAMPLES / "gemm_f32.cl"), "-o", str(out)],
                        repetitions)
    result = {"plain_kernel": timings, "clcoop_gemm_f32": gemm}
    line = f"  plain kernel: clcoop {timings['clcoop']['median'] * 1e3:.0f} ms"
    if clang:
        result["ratio"] = timings["clcoop"]["median"] / timings["clang"]["median"]
        line += f", clang {timings['clang']['median'] * 1e3:.0f} ms, ratio {result['ratio']:.2f}"
    print(line + f"; clcoop gemm_f32.cl {gemm['median'] * 1e3:.0f} ms", flush=True)
    return result


def generated_source(target_lines):
    """Plain OpenCL C of about `target_lines` lines: helper functions and kernels."""
    lines = []
    index = 0
    while len(lines) < target_lines:
        lines += [
            f"static float helper_{index}(float x, float y, int k)",
            "{",
            "    float acc = x;",
            "    for (int i = 0; i < k; ++i) {",
            f"        acc = acc * y + (float)i * {index % 7 + 1}.5f;",
            "        if (acc > 100.0f)",
            "            acc -= 3.0f;",
            "    }",
            "    return acc;",
            "}",
            "",
            f"__kernel void kernel_{index}(__global float *out, __global const float *in, int n)",
            "{",
            "    size_t gid = get_global_id(0);",
            "    if (gid >= (size_t)n)",
            "        return;",
            f"    float v = helper_{index}(in[gid], 0.5f, {index % 5 + 2});",
            "    out[gid] = v + (float)get_local_id(0);",
            "}",
            "",
        ]
        index += 1
    return "\n".join(lines) + "\n"


def bench_compile_throughput(workdir, repetitions, target_lines):
    source = generated_source(target_lines)
    line_count = source.count("\n")
    path = workdir / "big.cl"
    path.write_text(source)
    out = workdir / "big.ll"
    commands = {"clcoop": clcoop_command() + [str(path), "-o", str(out)],
                # -g: what Program.build() and clcoop-run always compile with
                "clcoop_g": clcoop_command() + ["-g", str(path), "-o", str(out)]}
    clang = clang_command()
    if clang:
        commands["clang"] = clang + [str(path), "-o", str(out)]
    timings = interleaved_commands(commands, repetitions)
    result = {"lines": line_count}
    for name, summary in timings.items():
        result[name] = dict(summary, lines_per_second=line_count / summary["median"])
    line = (f"  {line_count} lines: clcoop {timings['clcoop']['median'] * 1e3:.0f} ms "
            f"({result['clcoop']['lines_per_second']:.0f} lines/s)")
    line += f"; clcoop -g {timings['clcoop_g']['median'] * 1e3:.0f} ms"
    if clang:
        result["ratio"] = timings["clcoop"]["median"] / timings["clang"]["median"]
        line += (f", clang {timings['clang']['median'] * 1e3:.0f} ms "
                 f"({result['clang']['lines_per_second']:.0f} lines/s), ratio {result['ratio']:.2f}")
    print(line, flush=True)
    return result


# Where a compile's time goes: the stages run in one process (CPU seconds each, imports
# done before), the median over the rounds. `finish` is LLVM's parse, verification and printing
# (before lower.lowered_text, it also renamed the -O0 values in the printed text).
STAGES_SCRIPT = """
import json, sys, time
from clcoop.diagnostics import DiagnosticEngine
from clcoop.frontend import check, driver, lower, parse, preprocess
from clcoop.frontend.types import Target
from clcoop.options import parse_options
import llvmlite.binding
path = sys.argv[1]
options = parse_options(sys.argv[2:] + [path], for_build=False).compile_options(path)
source = open(path, "rb").read()
diag = DiagnosticEngine()
target = Target(options.triple)
spent = {}
def stage(name, run):
    start = time.process_time()
    result = run()
    spent[name] = time.process_time() - start
    return result
with driver._deep_recursion(), driver._no_cycle_collection():
    text = stage("preprocess", lambda: preprocess.preprocess(source, options.filename, list(options.include_dirs),
                 driver.predefined_macros(options), diag))
    tree = stage("parse", lambda: parse.parse(text, options.filename, diag, target))
    unit = stage("check", lambda: check.check(tree, diag, target, options.fp_contract, options.cl_std))
    def build():
        if hasattr(lower, "lowered_text"):      # built, renamed (at -O0) and printed
            return lower.lowered_text(unit, target, options.opt_level)
        lowerer = lower.Lowerer(target)
        lowerer.opt_level = options.opt_level
        lowerer.lower_unit(unit)
        return lower._fix_function_metadata(str(lowerer.module))
    ir = stage("lower", build)
    stage("finish", lambda: lower.finish(ir, options.opt_level, lower._source_name(unit)))
print(json.dumps(spent))
"""


def compile_stages(path, rounds, checkout=ROOT, build_options=()):
    """{stage: median CPU seconds} of compiling `path` with `build_options` (STAGES_SCRIPT,
    one process a round)."""
    runs = []
    for _ in range(rounds):
        done = subprocess.run([sys.executable, "-c", STAGES_SCRIPT, str(path), *build_options],
                              capture_output=True,
                              text=True, env=compile_environment(checkout), check=True)
        runs.append(json.loads(done.stdout))
    return {name: statistics.median(run[name] for run in runs) for name in runs[0]}


# Issue 26: every file of the pocl, CTS, PolyBench and Rodinia corpora compiles within 3x of
# clang-22's time (CLANG_FLAGS) and in under 300 MB.
THROUGHPUT_TARGET = 3.0
THROUGHPUT_MEMORY_MB = 300


def throughput_sources(sources):
    """{name: path} of the files --source names: a file as given (named by its file name), a
    directory as every *.cl file under it (a corpus such as pocl's tests/kernel or Rodinia's
    tree), named by its path inside the directory, sorted."""
    paths = {}
    for source in map(Path, sources):
        if source.is_dir():
            paths.update((str(path.relative_to(source)), path) for path in sorted(source.rglob("*.cl")))
        else:
            paths[source.name] = source
    return paths


def build_options_of(path):
    """The build options a corpus recorded for `path`: the OpenCL-CTS kernel dumps keep the
    options the CTS built each kernel with (e.g. -cl-std=CL2.0) in a .options file beside it.
    Both compilers get them (after their defaults, so they win)."""
    options = path.with_suffix(".options")
    return options.read_text().split() if options.is_file() else []


def throughput_verdicts(results):
    """Lines saying, per timed file, whether it meets the target: its CPU time within
    THROUGHPUT_TARGET x clang-22's and its peak memory under THROUGHPUT_MEMORY_MB."""
    lines = []
    for name, result in results.items():
        timings = result.get("timings")
        if timings is None:
            lines.append(f"    {name}: not timed ({result['error']})")
            continue
        met = meets_target(timings)
        if met is None:
            continue
        ratio = timings["clcoop"]["cpu"]["median"] / timings["clang"]["cpu"]["median"]
        peak = timings["clcoop"]["rss_mb"]
        lines.append(f"    {name}: {'meets' if met else 'misses'} the target ({ratio:.2f}x clang-22's "
                     f"CPU time, peak {peak:.0f} MB)")
    return lines


def rejections(commands):
    """Which of the compilers reject a file, each with its first error line (a file clang-22
    accepts and clcoop rejects is a missing feature, not a throughput figure)."""
    said = []
    for name, command in commands.items():
        argv, env = command if isinstance(command, tuple) else (command, compile_environment())
        try:
            run_measured(argv, env)
        except RuntimeError as exc:
            error = next((line for line in str(exc).splitlines()[1:] if "error" in line), "failed")
            said.append(f"{name} rejects it: {error.strip()}")
    return "; ".join(said) or "failed once, compiled when retried"


def meets_target(timings):
    """Whether clcoop's CPU time is within THROUGHPUT_TARGET x clang-22's and its peak memory
    under THROUGHPUT_MEMORY_MB (None without clang-22)."""
    if "clang" not in timings:
        return None
    ratio = timings["clcoop"]["cpu"]["median"] / timings["clang"]["cpu"]["median"]
    return ratio <= THROUGHPUT_TARGET and timings["clcoop"]["rss_mb"] < THROUGHPUT_MEMORY_MB


def stages_wanted(timings, all_stages):
    """Per-stage times are taken for every file with --all-stages, else only for the files
    that miss the target (a corpus of hundreds of small files would double the run)."""
    return all_stages or not meets_target(timings)


def compile_throughput_only(repetitions, sources, against=None, all_stages=False):
    """`bench.py --compile-throughput`: the generated 5,000-line source and `sources` (files, or
    directories of *.cl files, searched recursively), clcoop (and `against`, another
    checkout) and clang-22 alternating, each with the file's recorded build options
    (build_options_of): wall and CPU time, peak memory, and this checkout's time per stage
    (of the files that miss the target, or all with `all_stages`), then each file against
    the target; nothing written. A file that one of the compilers rejects is reported and
    left out."""
    load_at_start = os.getloadavg()[0]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        generated = Path(tmp) / "generated-5000.cl"
        generated.write_text(generated_source(5000))
        for name, path in {generated.name: generated, **throughput_sources(sources)}.items():
            out = Path(tmp) / "out.ll"
            build_options = build_options_of(path)
            commands = {"clcoop": clcoop_command() + build_options + [str(path), "-o", str(out)]}
            if against:
                commands["clcoop_against"] = (commands["clcoop"], compile_environment(against))
            clang = clang_command()
            if clang:
                commands["clang"] = clang + build_options + [str(path), "-o", str(out)]
            try:
                timings = interleaved_commands(commands, repetitions)
            except RuntimeError:      # a compile that fails: not a throughput figure
                results[name] = {"error": rejections(commands)}
                print(f"  {name}: not timed: {results[name]['error']}", flush=True)
                continue
            lines = path.read_text(errors="replace").count("\n")
            results[name] = {"lines": lines, "timings": timings}
            print(f"  {name} ({lines} lines{', ' + ' '.join(build_options) if build_options else ''}):")
            for compiler, summary in timings.items():
                label = {"clcoop": "clcoop", "clcoop_against": f"clcoop {against}",
                         "clang": "clang-22"}[compiler]
                print(f"    {label:28s} wall {summary['median'] * 1e3:7.0f} ms, CPU "
                      f"{summary['cpu']['median'] * 1e3:7.0f} ms ({lines / summary['cpu']['median']:6.0f} "
                      f"lines/s), peak {summary['rss_mb']:5.0f} MB")
            if clang:
                print(f"    CPU ratio clcoop / clang-22: "
                      f"{timings['clcoop']['cpu']['median'] / timings['clang']['cpu']['median']:.2f}"
                      + (f" ({against}: {timings['clcoop_against']['cpu']['median'] / timings['clang']['cpu']['median']:.2f})"
                         if against else ""))
            if not stages_wanted(timings, all_stages):
                continue
            stages = results[name]["stages"] = compile_stages(path, repetitions, build_options=build_options)
            total = sum(stages.values())
            print("    stages (CPU, in one process): " + ", ".join(
                f"{stage} {seconds * 1e3:.0f} ms ({seconds / total:.0%})" for stage, seconds in stages.items()))
    print(f"  target: within {THROUGHPUT_TARGET:g}x of clang-22's CPU time and under "
          f"{THROUGHPUT_MEMORY_MB} MB", flush=True)
    print("\n".join(throughput_verdicts(results)))
    report_noise(results, load_at_start)
    return 0


# ---------------------------------------------------------------- f: memory

def memory_child(n):
    """Runs in a subprocess: one n^3 f32 GEMM; prints JSON with the RSS high-water mark
    (resource.getrusage) before and after the launch and tracemalloc's peak during it."""
    import resource
    import tracemalloc
    import clcoop
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n, n)).astype(np.float32)
    B = rng.standard_normal((n, n)).astype(np.float32)
    C = np.zeros((n, n), np.float32)
    kernel = clcoop.Program((EXAMPLES / "gemm_f32.cl").read_text()).build().gemm_f32
    gsize, lsize = gemm_grid(n)
    tracemalloc.start()
    before_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kernel(gsize, lsize, A, B, C, n, n, n, 0, subgroup_size=SUBGROUP)
    after_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(json.dumps({"buffers_bytes": A.nbytes + B.nbytes + C.nbytes,
                      "tracemalloc_peak_bytes": peak,
                      "rss_before_bytes": before_kib * 1024, "rss_after_bytes": after_kib * 1024}))


def bench_memory(n):
    done = subprocess.run([sys.executable, __file__, "--memory-child", str(n)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"memory child failed:\n{done.stderr[-2000:]}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    buffers = data["buffers_bytes"]
    data["n"] = n
    data["tracemalloc_multiple"] = data["tracemalloc_peak_bytes"] / buffers
    # RSS already holds the user's buffers before the launch; the growth is the extra.
    data["rss_growth_multiple"] = (data["rss_after_bytes"] - data["rss_before_bytes"]) / buffers
    print(f"  {n}^3 f32 GEMM: buffers {buffers / 2**20:.1f} MiB; tracemalloc peak during the "
          f"launch {data['tracemalloc_peak_bytes'] / 2**20:.1f} MiB "
          f"({data['tracemalloc_multiple']:.2f}x); RSS high-water growth "
          f"{(data['rss_after_bytes'] - data['rss_before_bytes']) / 2**20:.1f} MiB "
          f"({data['rss_growth_multiple']:.2f}x)", flush=True)
    return data


# ---------------------------------------------------------------- outputs

NATIVE_SOURCES = {
    "vector add": """
__kernel void k(__global const float *a, __global const float *b, __global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}""",
    "stencil (5-point 1D)": """
__kernel void k(__global const float *a, __global const float *b, __global float *c) {
    int i = get_global_id(0), n = get_global_size(0);
    float s = a[i] * 0.5f;
    if (i >= 2 && i < n - 2)
        s += 0.25f * (a[i - 1] + a[i + 1]) - 0.125f * (a[i - 2] + a[i + 2]) + b[i];
    c[i] = s;
}""",
    "reduction (__local + barriers)": """
__kernel void k(__global const float *a, __global const float *b, __global float *c) {
    __local float tmp[256];
    int l = get_local_id(0);
    tmp[l] = a[get_global_id(0)] * b[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 128; s > 0; s >>= 1) {
        if (l < s) tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) c[get_group_id(0)] = tmp[0];
}""",
    "loop-heavy (256 dependent steps)": """
__kernel void k(__global const float *a, __global const float *b, __global float *c) {
    size_t i = get_global_id(0);
    float x = a[i], y = b[i];
    for (int t = 0; t < 256; t++) {
        x = x * 0.999f + y;
        y = y * 0.5f - x * 0.001f;
    }
    c[i] = x + y;
}""",
    "lane-varying loop (0-63 steps)": """
__kernel void k(__global const float *a, __global const float *b, __global float *c) {
    size_t i = get_global_id(0);
    float x = a[i], y = b[i];
    for (int t = 0; t < (i * 37) % 64; t++) {     // trip count differs between lanes: masked
        x = x * 0.999f + y;
        y = y * 0.5f - x * 0.001f;
    }
    c[i] = x + y;
}""",
}


def plain_pocl():
    """What bench_native needs of PoCL: {"device": name, "queue": (cl, context, queue)},
    {"error": reason} when pyopencl is importable but has no usable CPU device, or None
    when pyopencl is not installed."""
    try:
        found = pocl_queue()
    except Exception as error:   # no platform / no device: report, don't fail the run
        return {"error": str(error)}
    if found is None:
        return None
    return {"device": pocl_device_name(found[1]), "queue": found}


def pocl_plain_runners(pocl, source, n, a, b, out):
    """Two closures running the plain kernel `source` on PoCL over n work-items in groups
    of 256, as the native engine runs it: "device" (buffers already on the device: enqueue
    and finish) and "round_trip" (a and b copied in, the run, `out` copied back: what a
    clcoop call does with host arrays)."""
    cl, context, queue = pocl["queue"]
    # One cl.Kernel for every launch: program.k builds a new one each time (and warns).
    kernel = cl.Kernel(cl.Program(context, source).build(), "k")
    mf = cl.mem_flags
    a_buf = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    b_buf = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
    # Initialised like the native engine's output (zeros), which the reduction only
    # partly writes, so that the whole arrays compare.
    c_buf = cl.Buffer(context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)

    def device():
        kernel(queue, (n,), (256,), a_buf, b_buf, c_buf)
        queue.finish()

    def round_trip():
        cl.enqueue_copy(queue, a_buf, a)
        cl.enqueue_copy(queue, b_buf, b)
        kernel(queue, (n,), (256,), a_buf, b_buf, c_buf)
        cl.enqueue_copy(queue, out, c_buf)
        queue.finish()
    # In this order, in each interleaved round: the round trip, coming after the other
    # engines' turns, pays the wake-up of PoCL's idle worker threads (about 1 ms measured)
    # as a call from Python would; device-only then finds them awake (PoCL's best case).
    return {"pocl_round_trip": round_trip, "pocl_device": device}


def pocl_plain_figures(timings, pocl_out, native_out):
    """The PoCL entry of a plain-kernel run: its two timings, native / PoCL for each, and
    whether PoCL's output matches the native engine's (a tolerance: another compiler may
    contract or reorder floating-point operations differently)."""
    native = timings["native"]["median"]
    return {"round_trip": timings["pocl_round_trip"], "device": timings["pocl_device"],
            "ratio_round_trip": native / timings["pocl_round_trip"]["median"],
            "ratio_device": native / timings["pocl_device"]["median"],
            "match": bool(np.allclose(pocl_out, native_out, rtol=1e-4, atol=1e-5))}


# Rounds of the plain kernels (a round takes 20-70 ms): the interpreter's times move by up
# to 1.6x from one round to the next on this shared machine, more than the GEMMs' do, and
# a median of 5 moved the ratio by a quarter between runs.
PLAIN_ROUNDS = 15


def bench_native(quick, repetitions):
    """Plain kernels: the native engine (both cores) against the interpreter, results
    compared bit for bit, and against PoCL when pyopencl finds a CPU device; the engine's
    compile time (codegen + LLVM -O3 + MCJIT)."""
    import clcoop
    sizes = {"vector add": 1 << 20, "stencil (5-point 1D)": 1 << 20,
             "reduction (__local + barriers)": 1 << 18, "loop-heavy (256 dependent steps)": 1 << 14,
             "lane-varying loop (0-63 steps)": 1 << 16}
    rng = np.random.default_rng(16)
    runs = []
    load_at_start = os.getloadavg()
    pocl = plain_pocl()
    if pocl is None:
        print("  PoCL: not installed (pyopencl is not importable)")
    elif "error" in pocl:
        print(f"  PoCL: unavailable ({pocl['error']})")
    else:
        print(f"  PoCL: {pocl['device']}")
    for name, source in NATIVE_SOURCES.items():
        n = sizes[name] // (16 if quick else 1)
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        t0 = time.perf_counter()
        native = clcoop.Program(source).build(engine="native")
        build = time.perf_counter() - t0
        interp = clcoop.Program(source).build()
        outs = {"native": np.zeros(n, np.float32), "interpreter": np.zeros(n, np.float32),
                "pocl": np.zeros(n, np.float32)}

        def runner(prog, out):
            return lambda: prog.k(n, 256, a, b, out)
        # In each round the native engine follows the interpreter, not PoCL: PoCL's worker
        # threads spin for a while after a kernel, on the cores the native launch uses.
        functions = {"interpreter": runner(interp, outs["interpreter"]),
                     "native": runner(native, outs["native"])}
        pocl_error = None
        if pocl and "queue" in pocl:
            try:
                functions.update(pocl_plain_runners(pocl, source, n, a, b, outs["pocl"]))
            except Exception as error:   # PoCL refuses this kernel: report it, measure the rest
                pocl_error = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        timings = time_interleaved(functions, repetitions if quick else max(repetitions, PLAIN_ROUNDS))
        same = bool(np.array_equal(outs["native"].view(np.uint32), outs["interpreter"].view(np.uint32)))
        run = {"kernel": name, "n": n, "native": timings["native"], "interpreter": timings["interpreter"],
               "speedup": timings["interpreter"]["median"] / timings["native"]["median"],
               "compile_seconds": native._native.compile_seconds,
               "codegen_seconds": native._native.codegen_seconds, "build_seconds": build,
               "bit_identical": same, "engine": native.k.engine,
               "mode": native._native.execution_mode("k"),
               # Launches proven fault-free run on the caller's arrays (docs/native.md).
               "in_place": native._native.in_place_launches.get("k", 0) > 0}
        line = (f"  {name:34s} n={n:8d}  native {timings['native']['median'] * 1e3:8.2f} ms  "
                f"interp {timings['interpreter']['median'] * 1e3:9.1f} ms  "
                f"{run['speedup']:6.1f}x  compile {run['compile_seconds'] * 1e3:.0f} ms  same={same}  "
                f"path={run['mode']}{' in-place' if run['in_place'] else ''}")
        if pocl_error:
            run["pocl"] = {"error": pocl_error}
            line += f"\n  {'':34s} PoCL failed: {pocl_error}"
        if "pocl_device" in timings:
            run["pocl"] = pocl_plain_figures(timings, outs["pocl"], outs["native"])
            line += (f"\n  {'':34s} PoCL round trip {run['pocl']['round_trip']['median'] * 1e3:.2f} ms, "
                     f"device-only {run['pocl']['device']['median'] * 1e3:.2f} ms; native/PoCL "
                     f"{run['pocl']['ratio_round_trip']:.2f}x (round trip), "
                     f"{run['pocl']['ratio_device']:.2f}x (device-only)  match={run['pocl']['match']}")
        print(line, flush=True)
        runs.append(run)
    print("  the native cooperative-matrix mul-add routine")
    mul_add = bench_native_mul_add(quick, repetitions)
    print("  the GEMM example on the native engine")
    gemm = bench_native_gemm(quick, repetitions)
    return {"runs": runs, "threads": os.cpu_count(), "mul_add": mul_add, "gemm": gemm,
            "pocl": {key: value for key, value in pocl.items() if key != "queue"} if pocl else None,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load_average_at_start": load_at_start}


TILE_M, TILE_N, TILE_K = 8, 16, 16


def row_copy_loop(label, entry, exit, rows, width, matrix, row0, col0, tile, into_tile):
    """IR of the loop block `label` (entered from `entry`, leaving to `exit`) that copies
    `rows` rows of `width` floats between the n x n row-major `matrix`, from row `row0` and
    column `col0` on, and the contiguous `tile` (`into_tile`: matrix to tile)."""
    r = f"%{label}.r"
    element = f"%{label}.element"
    row = f"%{label}.row"
    source, destination = (element, row) if into_tile else (row, element)
    return f"""{label}:
  {r} = phi i64 [ 0, %{entry} ], [ {r}.next, %{label} ]
  {r}.abs = add i64 {row0}, {r}
  {r}.start = mul i64 {r}.abs, %n
  {r}.offset = add i64 {r}.start, {col0}
  {element} = getelementptr float, ptr {matrix}, i64 {r}.offset
  {r}.tile_offset = mul i64 {r}, {width}
  {row} = getelementptr float, ptr {tile}, i64 {r}.tile_offset
  call void @llvm.memcpy.p0.p0.i64(ptr {destination}, ptr {source}, i64 {width * 4}, i1 false)
  {r}.next = add i64 {r}, 1
  {r}.more = icmp ult i64 {r}.next, {rows}
  br i1 {r}.more, label %{label}, label %{exit}
"""


# A row-major n x n x n f32 GEMM made of the native mul-add routine on 8 x 16 x 16 tiles
# (clcoop/native/coop_ir.py), as a subgroup of examples/gemm_f32.cl steps through K: copy
# the A and B tiles, acc = a * b + acc, store the C tile. Tiles [t0, t1) per call.
TILED_GEMM_IR = f"""
define void @gemm(ptr %A, ptr %B, ptr %C, i64 %n, i64 %t0, i64 %t1) {{
entry:
  %at = alloca [{TILE_M * TILE_K} x float], align 64
  %bt = alloca [{TILE_K * TILE_N} x float], align 64
  %acc0 = alloca [{TILE_M * TILE_N} x float], align 64
  %acc1 = alloca [{TILE_M * TILE_N} x float], align 64
  %ntn = udiv i64 %n, {TILE_N}
  br label %tile
tile:
  %t = phi i64 [ %t0, %entry ], [ %tn, %tile.end ]
  %tmore = icmp ult i64 %t, %t1
  br i1 %tmore, label %tile.body, label %exit
tile.body:
  %ti = udiv i64 %t, %ntn
  %tj = urem i64 %t, %ntn
  ; the tile of C: rows ti*8.., columns tj*16..
  %crow = mul i64 %ti, {TILE_M}
  %ccol = mul i64 %tj, {TILE_N}
  call void @llvm.memset.p0.i64(ptr %acc0, i8 0, i64 {TILE_M * TILE_N * 4}, i1 false)
  br label %ks
ks:
  %k = phi i64 [ 0, %tile.body ], [ %kn, %mm ]
  %kmore = icmp ult i64 %k, %n
  br i1 %kmore, label %la, label %st
{row_copy_loop("la", "ks", "lb", TILE_M, TILE_K, "%A", "%crow", "%k", "%at", True)}\
{row_copy_loop("lb", "la", "mm", TILE_K, TILE_N, "%B", "%k", "%ccol", "%bt", True)}\
mm:
  call void @mad(ptr %at, ptr %bt, ptr %acc0, ptr %acc1)
  call void @llvm.memcpy.p0.p0.i64(ptr %acc0, ptr %acc1, i64 {TILE_M * TILE_N * 4}, i1 false)
  %kn = add i64 %k, {TILE_K}
  br label %ks
{row_copy_loop("st", "ks", "tile.end", TILE_M, TILE_N, "%C", "%crow", "%ccol", "%acc0", False)}\
tile.end:
  %tn = add i64 %t, 1
  br label %tile
exit:
  ret void
}}
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
"""


def bench_native_mul_add(quick, repetitions):
    """The native engine's mul-add routine alone (what a kernel's mul-adds cost without the
    rendezvous around them) as a tiled f32 GEMM on both cores against NumPy, checked bit for
    bit against a chain of the interpreter's coopmat.mul_add on one tile."""
    import ctypes
    from clcoop.interp import coopmat
    from clcoop.native import coop_ir
    from clcoop.native.jit import Engine
    engine = Engine(coop_ir.mul_add_ir("mad", TILE_M, TILE_N, TILE_K, ("float",) * 4) + TILED_GEMM_IR)
    gemm = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 3, ctypes.c_int64, ctypes.c_int64,
                            ctypes.c_int64)(engine.address("gemm"))
    rng = np.random.default_rng(17)
    runs = []
    helper = concurrent.futures.ThreadPoolExecutor(1)
    try:
        for n in ([128] if quick else [512, 1024]):
            a = rng.standard_normal((n, n)).astype(np.float32)
            b = rng.standard_normal((n, n)).astype(np.float32)
            c = np.zeros((n, n), np.float32)
            tiles = (n // TILE_M) * (n // TILE_N)

            def native(a_at=a.ctypes.data, b_at=b.ctypes.data, c_at=c.ctypes.data, n=n, tiles=tiles):
                # Two threads, half of the tiles each (ctypes releases the GIL): this one and
                # a waiting one (starting a thread per run cost milliseconds on a busy machine).
                other = helper.submit(gemm, a_at, b_at, c_at, n, tiles // 2, tiles)
                gemm(a_at, b_at, c_at, n, 0, tiles // 2)
                other.result()
            timings = time_interleaved({"native": native, "numpy": lambda: a @ b}, repetitions)
            tile = np.zeros((TILE_M, TILE_N), np.float32)
            for k in range(0, n, TILE_K):
                tile = coopmat.mul_add(a[None, :TILE_M, k:k + TILE_K], b[None, k:k + TILE_K, :TILE_N],
                                       tile[None], 0, np.float32)[0]
            same = bool(np.array_equal(tile.view(np.uint32), c[:TILE_M, :TILE_N].view(np.uint32)))
            run = {"n": n, "native": timings["native"], "numpy": timings["numpy"],
                   "ratio": timings["native"]["median"] / timings["numpy"]["median"],
                   "ratio_of_minima": timings["native"]["min"] / timings["numpy"]["min"],
                   "tile_matches_interpreter": same}
            print(f"  mul-add routine GEMM {n}^3: native {timings['native']['median'] * 1e3:.2f} ms, "
                  f"NumPy {timings['numpy']['median'] * 1e3:.2f} ms, {times(run['ratio'])} "
                  f"(of minima {times(run['ratio_of_minima'])}), tile same={same}")
            runs.append(run)
    finally:
        helper.shutdown()
        engine.close()
    return runs


# The native GEMM rows: (kind, n). half and int8 are compared with NumPy's f32 sgemm of the
# same size (issue 16's target), f32 with NumPy's f32 matmul.
NATIVE_GEMMS = [("f32", 256), ("f32", 512), ("f32", 1024), ("f16_f32", 512), ("i8_i32", 512)]


def bench_native_gemm(quick, repetitions):
    """The examples' GEMMs on the native engine against the interpreter and NumPy's f32
    sgemm; results checked against NumPy and compared bit for bit between the engines."""
    runs = []
    for kind, n in ([("f32", 64), ("i8_i32", 64)] if quick else NATIVE_GEMMS):
        native, _, check, c_native = gemm_case(kind, n, np.random.default_rng(n), engine="native")
        interp, _, _, c_interp = gemm_case(kind, n, np.random.default_rng(n))
        a = np.random.default_rng(1).standard_normal((n, n)).astype(np.float32)
        b = np.random.default_rng(2).standard_normal((n, n)).astype(np.float32)
        kernel = native.kernel
        timings = time_interleaved({"native": native, "interpreter": interp, "numpy": lambda: a @ b},
                                   3 if n >= 1024 else repetitions)
        same = c_native.tobytes() == c_interp.tobytes()
        nat = kernel.program._native
        run = {"kind": kind, "n": n, "native": timings["native"], "interpreter": timings["interpreter"],
               "numpy": timings["numpy"], "bit_identical": same, "match": check(),
               "engine": kernel.engine, "mode": nat.execution_mode(kernel.name, SUBGROUP),
               "compile_seconds": nat.compile_seconds,
               "ratio_numpy": timings["native"]["median"] / timings["numpy"]["median"],
               "ratio_numpy_minima": timings["native"]["min"] / timings["numpy"]["min"]}
        print(f"  native GEMM {kind} {n}^3 ({run['mode']}): native {timings['native']['median'] * 1e3:.1f} ms, "
              f"interp {timings['interpreter']['median'] * 1e3:.1f} ms, NumPy sgemm "
              f"{timings['numpy']['median'] * 1e3:.2f} ms ({times(run['ratio_numpy'])}), compile "
              f"{run['compile_seconds'] * 1e3:.0f} ms, same={same}, match={run['match']}")
        runs.append(run)
    return runs


def ms(summary):
    return (f"{summary['median'] * 1e3:.1f} ({summary['min'] * 1e3:.1f}-"
            f"{summary['max'] * 1e3:.1f})")


def markdown_table(results):
    rows = ["| benchmark | size | clcoop | reference | ratio | note |",
            "|---|---|---|---|---|---|"]
    for run in results["gemm"]:
        rows.append(f"| GEMM {run['kind']} interpreter vs NumPy | {run['n']}^3 | "
                    f"{ms(run['interpreter'])} ms (CPU {run['interpreter']['cpu_median'] * 1e3:.0f}"
                    f" ms), {run['gflops_interpreter']:.2f} GFLOP/s | "
                    f"{ms(run['numpy'])} ms, {run['gflops_numpy']:.1f} GFLOP/s | "
                    f"{run['ratio']:.1f}x (of minima {run['ratio_of_minima']:.1f}x) | "
                    f"{run['interpreter']['runs']} runs, match={run['matches_numpy']} |")
    pocl = results.get("pocl")
    if not pocl:
        rows.append("| PoCL tiled / naive | - | - | not installed | - | pyopencl not importable |")
    elif "error" in pocl:
        rows.append(f"| PoCL | - | - | unavailable | - | {pocl['error']} |")
    else:
        interpreter = {run["n"]: run["interpreter"] for run in results["gemm"] if run["kind"] == "f32"}
        for run in pocl["runs"]:
            mine = interpreter.get(run["n"])
            clcoop = f"{ms(mine)} ms" if mine else "-"
            ratio = f"{mine['median'] / run['tiled']['median']:.2f}x of tiled" if mine else "-"
            rows.append(f"| GEMM f32 interpreter vs PoCL tiled / naive | {run['n']}^3 | {clcoop} | "
                        f"{ms(run['tiled'])} / {ms(run['naive'])} ms | {ratio} | "
                        f"match={run['matches_numpy']} |")
    latency = results["compile_latency"]
    plain = latency["plain_kernel"]
    clang = ms(plain["clang"]) + " ms" if "clang" in plain else "clang-22 not found"
    ratio = f"{latency['ratio']:.2f}" if "ratio" in latency else "-"
    rows.append(f"| compile latency, plain kernel (wall, subprocess) | {PLAIN_KERNEL.count(chr(10))}"
                f" lines | {ms(plain['clcoop'])} ms | clang-22 {clang} | {ratio} | "
                f"{plain['clcoop']['runs']} runs |")
    rows.append(f"| compile latency, examples/gemm_f32.cl | - | "
                f"{ms(latency['clcoop_gemm_f32'])} ms | - | - | clcoop only |")
    throughput = results["compile_throughput"]
    clang_lps = (f"clang-22 {throughput['clang']['lines_per_second']:.0f} lines/s"
                 if "clang" in throughput else "-")
    ratio = f"{throughput['ratio']:.2f}" if "ratio" in throughput else "-"
    rows.append(f"| compile throughput | {throughput['lines']} lines | "
                f"{throughput['clcoop']['lines_per_second']:.0f} lines/s | {clang_lps} | "
                f"{ratio} (time) | {throughput['clcoop']['runs']} runs |")
    if "clcoop_g" in throughput:
        with_g = throughput["clcoop_g"]
        rows.append(f"| compile throughput with -g (as Program.build) | {throughput['lines']} lines | "
                    f"{with_g['lines_per_second']:.0f} lines/s | - | "
                    f"{with_g['median'] / throughput['clcoop']['median']:.2f} (time, vs no -g) | "
                    f"{with_g['runs']} runs |")
    native = results.get("native")
    for run in (native or {}).get("runs", []):
        rows.append(f"| native engine vs interpreter, {run['kernel']} | {run['n']} work-items | "
                    f"{ms(run['native'])} ms ({native['threads']} cores) | interpreter "
                    f"{ms(run['interpreter'])} ms | {run['speedup']:.1f}x (interpreter / native) | engine compile "
                    f"{run['compile_seconds'] * 1e3:.0f} ms (+ codegen {run['codegen_seconds'] * 1e3:.0f}"
                    f" ms), bit-identical={run['bit_identical']}, path={run.get('mode', 'work-item')} |")
        rows.append(native_pocl_row(run, native))
    for run in (native or {}).get("gemm", []):
        kind = run.get("kind", "f32")
        rows.append(f"| GEMM {kind} native engine (examples/gemm_{kind}.cl, {run.get('mode', 'work-item')} path) "
                    f"vs interpreter and NumPy f32 sgemm | {run['n']}^3 | {ms(run['native'])} ms "
                    f"({native['threads']} cores) | interpreter {ms(run['interpreter'])} ms, NumPy "
                    f"{ms(run['numpy'])} ms | {run['ratio_numpy']:.1f}x NumPy (of minima "
                    f"{run.get('ratio_numpy_minima', run['ratio_numpy']):.1f}x), "
                    f"{run['interpreter']['median'] / run['native']['median']:.1f}x faster than the interpreter | "
                    f"engine compile {run['compile_seconds'] * 1e3:.0f} ms, bit-identical={run['bit_identical']}, "
                    f"match={run.get('match', True)} |")
    for run in (native or {}).get("mul_add", []):
        rows.append(f"| native mul-add routine alone as f32 GEMM, 8x16x16 tiles | "
                    f"{run['n']}^3 | {ms(run['native'])} ms (2 threads) | NumPy {ms(run['numpy'])} ms | "
                    f"{run['ratio']:.1f}x (of minima {run['ratio_of_minima']:.1f}x) | "
                    f"tile bit-identical to the interpreter's mul-adds={run['tile_matches_interpreter']} |")
    memory = results.get("memory")
    if memory:
        rows.append(f"| interpreter peak memory, f32 GEMM | {memory['n']}^3 | "
                    f"tracemalloc {memory['tracemalloc_multiple']:.2f}x, RSS growth "
                    f"{memory['rss_growth_multiple']:.2f}x | buffers "
                    f"{memory['buffers_bytes'] / 2**20:.0f} MiB | - | multiples of the buffers |")
    load = ", ".join(f"{x:.1f}" for x in results["load_average_at_start"])
    footer = ""
    if native and native.get("date", results["date"]) != results["date"]:
        # --native-only refreshes the native rows of an earlier full run.
        native_load = ", ".join(f"{x:.1f}" for x in native["load_average_at_start"])
        footer = (f"\nThe native-engine rows are from a separate run ({native['date']}, load "
                  f"average {native_load} at its start; `scripts/bench.py --native-only`).\n")
    header = (f"Run {results['date']} on {results['machine']}, load average {load} at the start "
              f"(the machine is shared). Times in ms: median (min-max); ratio = clcoop / "
              f"reference.")
    return header + "\n\n" + "\n".join(rows) + "\n" + footer


def native_pocl_row(run, native):
    """The table row of one plain kernel on the native engine against PoCL: PoCL's round
    trip (copies in and out, as a clcoop call) and device-only times, native / PoCL."""
    head = (f"| native engine vs PoCL, {run['kernel']} | {run['n']} work-items | "
            f"{ms(run['native'])} ms ({native['threads']} cores) | ")
    figures = run.get("pocl")
    if figures and "error" in figures:
        return head + f"PoCL failed | - | {figures['error']} |"
    if figures:
        return head + (f"PoCL round trip {ms(figures['round_trip'])} ms, device-only "
                       f"{ms(figures['device'])} ms | {figures['ratio_round_trip']:.2f}x of the round "
                       f"trip, {figures['ratio_device']:.2f}x of device-only (native / PoCL) | "
                       f"{native['pocl']['device']}, match={figures['match']} |")
    pocl = native.get("pocl")
    if pocl and "error" in pocl:
        return head + f"PoCL unavailable | - | {pocl['error']} |"
    return head + "PoCL not installed | - | pyopencl not importable |"


def write_markdown(results, path):
    table = markdown_table(results)
    block = f"{TABLE_BEGIN}\n{table}{TABLE_END}"
    text = path.read_text() if path.exists() else "# Performance\n\n"
    if TABLE_BEGIN in text and TABLE_END in text:
        head, rest = text.split(TABLE_BEGIN, 1)
        tail = rest.split(TABLE_END, 1)[1]
        text = head + block + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text)


def write_plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("  plot: matplotlib not installed, no PNG written")
        return False
    native = (results.get("native") or {}).get("runs")
    if native:
        figure, (axes, native_axes) = plt.subplots(1, 2, figsize=(13, 4.5),
                                                   gridspec_kw={"width_ratios": [1, 1]})
        plot_native(native_axes, results["native"])
    else:
        figure, axes = plt.subplots(figsize=(7, 4.5))
    for kind in ("f32", "f16_f32", "i8_i32"):
        runs = [r for r in results["gemm"] if r["kind"] == kind]
        if not runs:
            continue
        sizes = [r["n"] for r in runs]
        axes.plot(sizes, [r["interpreter"]["median"] for r in runs], "o-",
                  label=f"interpreter {kind}")
        axes.plot(sizes, [r["numpy"]["median"] for r in runs], "s--", label=f"NumPy {kind}")
    pocl = results.get("pocl")
    if pocl and "runs" in pocl:
        sizes = [r["n"] for r in pocl["runs"]]
        axes.plot(sizes, [r["tiled"]["median"] for r in pocl["runs"]], "^-", label="PoCL tiled")
        axes.plot(sizes, [r["naive"]["median"] for r in pocl["runs"]], "v-", label="PoCL naive")
    # Figures measured on a quiet machine, for scale (not this run).
    axes.plot([512, 1024], [1.7e-3, 12.5e-3], "kx", label="NumPy f32, quiet machine")
    axes.plot([512], [70e-3], "k+", markersize=10, label="PoCL tiled, quiet machine")
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("n (n x n x n GEMM)")
    axes.set_ylabel("time (s, median)")
    axes.set_title("clcoop interpreter vs NumPy" + (" vs PoCL" if pocl and "runs" in pocl else ""))
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    return True


def plot_native(axes, native):
    """Bars per plain kernel: interpreter, native engine and (when measured) PoCL's round
    trip (median), the speed-up and the engine's compile time written above."""
    runs = native["runs"]
    positions = np.arange(len(runs))
    interp = [r["interpreter"]["median"] * 1e3 for r in runs]
    engine = [r["native"]["median"] * 1e3 for r in runs]
    pocl = [r["pocl"]["round_trip"]["median"] * 1e3 for r in runs if "round_trip" in r.get("pocl", {})]
    if len(pocl) != len(runs):
        pocl = []
    width = 0.27 if pocl else 0.38
    axes.bar(positions - width / 2 * (2 if pocl else 1), interp, width, label="interpreter")
    axes.bar(positions + (0 if pocl else width / 2), engine, width,
             label=f"native engine ({native['threads']} cores)")
    if pocl:
        axes.bar(positions + width, pocl, width, label="PoCL (round trip)")
    for x, run, height in zip(positions, runs, interp):
        axes.annotate(f"{run['speedup']:.1f}x\ncompile {run['compile_seconds'] * 1e3:.0f} ms",
                      (x, height), textcoords="offset points", xytext=(0, 3), ha="center", fontsize=7)
    axes.set_xticks(positions)
    axes.set_xticklabels([r["kernel"].split(" (")[0] for r in runs], fontsize=8)
    axes.set_ylabel("time (ms, median)")
    axes.set_ylim(0, max(interp + engine + pocl) * 1.25)
    axes.set_title("plain kernels: native engine vs interpreter" + (" and PoCL" if pocl else ""))
    axes.grid(True, axis="y", alpha=0.3)
    axes.legend(fontsize=8, loc="upper right")


def native_only(quick, write):
    """Re-measure the native rows (with PoCL's plain-kernel rows) and, when `write`, merge
    them into the last full run's JSON, table and plot."""
    path = DOCS / "performance.json"
    results = json.loads(path.read_text()) if write else None   # fail before measuring
    load_at_start = os.getloadavg()[0]
    native = bench_native(quick, 3 if quick else 5)
    report_noise({"native": native}, load_at_start)
    if not write:
        print("(quick run / --no-write: no files written)")
        return 0
    results["native"] = native
    path.write_text(json.dumps(results, indent=1) + "\n")
    write_markdown(results, DOCS / "performance.md")
    if write_plot(results, DOCS / "performance.png"):
        print("  wrote docs/performance.png")
    print("wrote the native rows into docs/performance.json and docs/performance.md")
    return 0


# ---------------------------------------------------------------- main

def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if "--gemm-scaling" in argv:
        # Its own options (sizes, thread counts): scripts/gemm_scaling.py parses them.
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import gemm_scaling
        return gemm_scaling.main([a for a in argv if a != "--gemm-scaling"])
    # The native compile figures are LLVM's work for each build, never a copy kept from an
    # earlier build of the same module in this process (jit.compiled_modules).
    from clcoop.native import jit
    jit.compiled_modules.limit = 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: small sizes, 3 runs")
    parser.add_argument("--compile-latency", type=int, nargs="?", const=21, metavar="ROUNDS",
                        help="only the compile start-up of a small kernel against clang-22, "
                             "alternating, ROUNDS rounds (default 21); writes nothing")
    parser.add_argument("--compile-throughput", type=int, nargs="?", const=5, metavar="ROUNDS",
                        help="only the compile throughput (the generated 5,000-line source and any "
                             "--source), clcoop and clang-22 alternating, with clcoop's time per "
                             "stage; writes nothing")
    parser.add_argument("--source", action="append", default=[], metavar="FILE",
                        help="with --compile-throughput: another source to time; a directory: "
                             "each *.cl file under it. A FILE.options beside a file (the CTS "
                             "dumps) holds build options both compilers get")
    parser.add_argument("--all-stages", action="store_true",
                        help="with --compile-throughput: the time per stage of every file, not "
                             "only of those that miss the target")
    parser.add_argument("--against", metavar="DIR",
                        help="with --compile-latency/--compile-throughput: another clcoop checkout "
                             "(e.g. `git archive REV | tar -x -C DIR`) timed in the same rounds")
    parser.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--no-write", action="store_true", help="print only, write no files")
    parser.add_argument("--native-only", action="store_true",
                        help="re-measure only the native engine's rows (merged into the last full run)")
    options = parser.parse_args(argv)
    if options.memory_child:
        memory_child(options.memory_child)
        return 0
    if options.compile_latency:
        return compile_latency_only(options.compile_latency, options.against)
    if options.compile_throughput:
        return compile_throughput_only(options.compile_throughput, options.source, options.against,
                                      options.all_stages)
    quick = options.quick
    if options.native_only:
        return native_only(quick, write=not (options.no_write or quick))
    repetitions = 3 if quick else 5
    f32_sizes = [(64, repetitions), (128, repetitions)] if quick else \
        [(256, 5), (512, 5), (1024, 3)]
    other_sizes = [64, 128] if quick else [256, 512]
    rng = np.random.default_rng(2026)
    results = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                          f"Python {platform.python_version()}, NumPy {np.__version__}",
               "load_average_at_start": os.getloadavg(),
               "quick": quick, "subgroup_size": SUBGROUP, "gemm": []}
    print("a/b. GEMM through the interpreter vs NumPy (interleaved; median of runs)")
    for n, reps in f32_sizes:
        results["gemm"].append(bench_gemm("f32", n, reps, rng))
    for kind in ("f16_f32", "i8_i32"):
        for n in other_sizes:
            results["gemm"].append(bench_gemm(kind, n, repetitions, rng))
    print("g. native engine, plain kernels (issue 16)")
    results["native"] = bench_native(quick, repetitions)
    print("c. PoCL")
    results["pocl"] = bench_pocl([n for n, _ in f32_sizes], repetitions, rng)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        print("d. compile latency (subprocess wall time)")
        results["compile_latency"] = bench_compile_latency(workdir, 3 if quick else 7)
        print("e. compile throughput")
        results["compile_throughput"] = bench_compile_throughput(
            workdir, 3 if quick else 5, 500 if quick else 5000)
    print("f. interpreter peak memory")
    results["memory"] = bench_memory(128 if quick else 1024)
    report_noise(results, results["load_average_at_start"][0])
    if options.no_write or quick:
        print("(quick run / --no-write: no files written)")
        return 0
    (DOCS / "performance.json").write_text(json.dumps(results, indent=1) + "\n")
    write_markdown(results, DOCS / "performance.md")
    if write_plot(results, DOCS / "performance.png"):
        print("  wrote docs/performance.png")
    print("wrote docs/performance.json and docs/performance.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
