#!/usr/bin/env python3
"""The GPU check: kernels run on a Vulkan GPU and compared with the interpreter (docs/gpu.md).

    python3 scripts/gpu_check.py prepare DIR   # here: compile every case for Vulkan, make its
                                               # inputs, run it in the interpreter (the reference)
    python3 scripts/gpu_check.py run DIR [--report FILE]   # on the GPU machine: NumPy and the
                                               # Vulkan loader only; compares, times, reports
    python3 scripts/gpu_check.py table FILE    # the report as docs/gpu.md's table (Markdown)
    python3 scripts/gpu_check.py all DIR       # a machine with both the compiler and a GPU
    python3 scripts/gpu_check.py launch DIR [--report FILE]   # a small kernel's launch
                                               # overhead and where it goes (DIR/vector_add.spv,
                                               # compiled here when missing and the compiler is)
    python3 scripts/gpu_check.py stats DIR [--report FILE] [--representations] [--perf RUN_REPORT]
                                               # the driver's statistics (registers, spills, ...)
                                               # of each performance GEMM's pipeline
                                               # (VK_KHR_pipeline_executable_properties)

`prepare` needs the compiler (llvmlite, llc-22); `run` needs neither, so the modules travel to
a GPU machine that has only NumPy and libvulkan. Integer results must be equal bit for bit;
float results within the bound of accumulation_bound() (docs/gpu.md, "How close").
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
EXAMPLES = ROOT / "examples"
SUBGROUP = 32     # NVIDIA's only subgroup size (../shared/notes/gpu-vulkan.md)


@dataclass
class Case:
    """One kernel launch: what to compile, how to launch it, which arguments it writes."""
    name: str
    source: str                 # path relative to the checkout
    kernel: str
    global_size: tuple
    local_size: tuple
    make_args: object           # rng -> list of arguments (arrays and scalars)
    outputs: tuple              # indices of the arguments to compare
    options: tuple = ()
    types: str = ""             # what the table says about the types
    sizes: str = ""
    exact: bool = False         # integer results (or exactly representable data): bit for bit
    k: int = 1                  # the length of the sums the outputs are made of (the bound)
    tolerance: tuple = None     # how far a float result may be: see allowed_difference()
    subgroup: int = SUBGROUP    # the sub-group size the kernel needs (None: any; plain kernels)
    specialize: tuple = ()      # scalar arguments the GPU pipeline is specialized with


def _half(rng, shape):
    return rng.standard_normal(shape).astype(np.float16)


def _small_ints(rng, shape, dtype):
    return rng.integers(-8, 9, shape).astype(dtype)


def gemm_case(name, source, kernel, M, N, K, a_dtype, c_dtype, tile, exact_data=False, options=(),
              b_col_major=False):
    tm, tn = tile

    def make(rng):
        if _dtype(a_dtype).kind in "iu":
            info = np.iinfo(a_dtype)
            A = rng.integers(info.min, info.max + 1, (M, K)).astype(a_dtype)
            B = rng.integers(info.min, info.max + 1, (K, N)).astype(a_dtype)
        elif exact_data:
            A, B = _small_ints(rng, (M, K), _dtype(a_dtype)), _small_ints(rng, (K, N), _dtype(a_dtype))
        else:
            A = rng.standard_normal((M, K)).astype(_dtype(a_dtype))
            B = rng.standard_normal((K, N)).astype(_dtype(a_dtype))
        if b_col_major:
            B = np.ascontiguousarray(B.T)
        return [A, B, np.zeros((M, N), c_dtype), np.int32(M), np.int32(N), np.int32(K)]

    exact = _dtype(a_dtype).kind in "iu" or exact_data
    unit = 2.0 ** -11 if np.dtype(c_dtype) == np.float16 else 2.0 ** -24     # the accumulator's
    return Case(name, source, kernel, (N // tn * SUBGROUP, M // tm), (SUBGROUP, 1), make, (2,),
                options=tuple(options), sizes=f"{M}x{N}x{K}", exact=exact, k=K,
                types=f"{_dtype(a_dtype).name} -> {np.dtype(c_dtype).name}" + (" (integer-valued data)" if exact_data else ""),
                tolerance=None if exact else ("gemm", 0, 1, K, unit, b_col_major))


def _rng(name):
    return np.random.default_rng(sum(name.encode()) * 7919)


def vector_add(rng):
    n = 1000
    return [rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32),
            np.zeros(n, np.float32), np.int32(n)]


def stencil(rng):
    n = 1024
    return [rng.standard_normal(n).astype(np.float32), np.zeros(n, np.float32), {"local": (128 + 2) * 4},
            np.float32(0.25), np.float32(0.5), np.float32(0.25), np.int32(n)]


def local_reduce(rng):
    return [rng.standard_normal(256 * 16).astype(np.float32), np.zeros(16, np.float32)]


def math_inputs(rng):
    n = 256
    return [rng.uniform(0.01, 4.0, n).astype(np.float32), np.zeros(8 * n, np.float32), np.int32(n)]


def mlp2_inputs(rng):
    M, N, K = 64, 64, 64
    return [rng.standard_normal((M, K)).astype(np.float16), (rng.standard_normal((K, 32)) / 4).astype(np.float16),
            (rng.standard_normal((32, N)) / 4).astype(np.float16), np.zeros((M, N), np.float32),
            np.int32(M), np.int32(N), np.int32(K)]


def q4_inputs(rng):
    """llama.cpp's block_q4_0 weights (half d, 16 bytes of nibbles) as raw bytes."""
    M, N, K = 40, 48, 64
    q = rng.integers(0, 16, size=(N, K), dtype=np.uint8)
    d = (rng.random((N, K // 32)) * 0.1 + 0.01).astype(np.float16)
    block = np.dtype([("d", np.float16), ("qs", np.uint8, 16)])
    blocks = np.zeros((N, K // 32), block)
    nibbles = q.reshape(N, K // 32, 32)
    blocks["qs"] = nibbles[:, :, :16] | (nibbles[:, :, 16:] << 4)
    blocks["d"] = d
    return [rng.standard_normal((M, K)).astype(np.float16), blocks.view(np.uint8).reshape(-1),
            np.zeros((M, N), np.float32), np.uint32(M), np.uint32(N), np.uint32(K)]


def quant_blocks(rng, qtype, rows, k):
    """Rows of llama.cpp's block_q4_0 (half d, 16 bytes of nibbles: weight j low nibble of byte j,
    j + 16 its high nibble) or block_q8_0 (half d, 32 int8) weights, as raw bytes."""
    d = (rng.random((rows, k // 32)) * 0.1 + 0.01).astype(np.float16)
    if qtype == "Q4_0":
        blocks = np.zeros((rows, k // 32), [("d", np.float16), ("qs", np.uint8, 16)])
        nibbles = rng.integers(0, 16, (rows, k // 32, 32)).astype(np.uint8)
        blocks["qs"] = nibbles[:, :, :16] | (nibbles[:, :, 16:] << 4)
    else:
        blocks = np.zeros((rows, k // 32), [("d", np.float16), ("qs", np.int8, 32)])
        blocks["qs"] = rng.integers(-128, 128, (rows, k // 32, 32))
    blocks["d"] = d
    return blocks.view(np.uint8).reshape(-1)


def dequantize_blocks(raw, qtype, k):
    """The weights of quant_blocks as examples/llama/mul_mm_q.cl decodes them (in half)."""
    if qtype == "Q4_0":
        blocks = raw.view([("d", np.float16), ("qs", np.uint8, 16)]).reshape(-1, k // 32)
        q = np.concatenate([blocks["qs"] & 0xF, blocks["qs"] >> 4], axis=-1).astype(np.float16) - np.float16(8)
    else:
        blocks = raw.view([("d", np.float16), ("qs", np.int8, 32)]).reshape(-1, k // 32)
        q = blocks["qs"].astype(np.float16)
    return (q * blocks["d"][..., None]).reshape(blocks.shape[0], k)


def mul_mm_q_case(qtype, M, N, K):
    """examples/llama/mul_mm_q.cl (llama.cpp's mul_mm_cm2): D (N x M) = B W^T at its default
    tile (64 x 64, 256 invocations), M and N ending inside a tile."""
    def make(rng):
        return [quant_blocks(rng, qtype, M, K), rng.standard_normal((N, K)).astype(np.float16),
                np.zeros((N, M), np.float32), *map(np.uint32, (M, N, K, K, K, M, 0, 0, 0))]

    return Case(f"mul_mm_q_{qtype.lower()}", "examples/llama/mul_mm_q.cl", "mul_mm_q", (-(-M // 64) * 256, -(-N // 64)),
                (256, 1), make, (2,), options=(f"-DDATA_A_{qtype}",), k=K, sizes=f"{M}x{N}x{K}",
                types=f"{qtype} blocks x f16 -> f32 (llama.cpp port: workgroup scope, tensor decode)",
                tolerance=("quant_gemm", 0, 1, qtype, K))


def flash_attn_case(name, N, KV, n_head, n_head_kv, hs, causal, br, bc, wg):
    """examples/llama/flash_attn.cl (llama.cpp's flash_attn_cm2), one head size for K and V."""
    def make(rng):
        mask = np.zeros((N, KV), np.float16)
        if causal:
            mask[np.arange(KV)[None, :] > np.arange(N)[:, None] + (KV - N)] = -np.inf
        return [rng.standard_normal((n_head, N, hs)).astype(np.float32),
                rng.standard_normal((n_head_kv, KV, hs)).astype(np.float16),
                rng.standard_normal((n_head_kv, KV, hs)).astype(np.float16), mask,
                np.zeros((N, n_head, hs), np.float32),
                *map(np.uint32, (N, KV, n_head, n_head_kv, hs, hs, hs, KV, N * hs, KV * hs, KV * hs)),
                np.float32(1 / np.sqrt(hs)), np.float32(0), np.uint32(causal)]

    return Case(name, "examples/llama/flash_attn.cl", "flash_attn", (-(-N // br) * wg, n_head), (wg, 1), make, (4,),
                options=(f"-DHSK={hs}", f"-DHSV={hs}", f"-DBr={br}", f"-DBc={bc}", f"-DWG_SIZE={wg}"),
                types="f32 Q, f16 K V -> f32 (llama.cpp port: online softmax, reductions, per-element)",
                sizes=f"N={N} KV={KV} heads {n_head}/{n_head_kv} hs={hs}" + (" causal" if causal else ""),
                tolerance=("of_max_arg", 2, 2.0 ** -8))


def softmax_inputs(rng):
    rows = 64
    return [rng.standard_normal((rows, 16)).astype(np.float32), np.zeros((rows, 16), np.float32),
            np.zeros((rows, 16), np.float32)]


def coop_ops_inputs(rng):
    X = rng.standard_normal((16, 16)).astype(np.float32)
    Y = (rng.uniform(0.5, 2.0, (16, 16)) * rng.choice([-1, 1], (16, 16))).astype(np.float32)
    return [X, Y, np.float32(0.75), np.zeros(8 * 256, np.float32), np.zeros(256, np.float16), np.zeros(32, np.uint32)]


def cases():
    """Every case the check runs: the Vulkan examples, whose types the GPU supports."""
    v = "examples/vulkan/"
    M = N = K = 128
    return [
        Case("vector_add", v + "vector_add.cl", "vector_add", (1024,), (64,), vector_add, (2,), exact=True, subgroup=None,
             types="f32", sizes="n=1000"),
        Case("stencil", v + "stencil.cl", "stencil", (1024,), (128,), stencil, (1,), types="f32", sizes="n=1024", subgroup=None,
             tolerance=("ulp", 2)),
        Case("local_reduce", v + "local_reduce.cl", "local_reduce", (4096,), (256,), local_reduce, (1,),
             types="f32", sizes="16 x 256", tolerance=("sum", 0, 256)),
        # OpenCL C 3.0 7.4's full-profile float bounds, per column as (ulps, absolute): the Vulkan
        # target writes exact sequences for sqrt, exp, log, sin and pow (docs/vulkan.md, "Math"),
        # so GLSL.std.450's looser bounds no longer apply: sqrt 3 ulp, exp 3, log 3, sin 4, fmin
        # and floor exact, pow 16; the last column, fabs(-v) + rsqrt(v), is rsqrt's 2 ulp
        # (InverseSqrt, as OpenCL's) plus the add's rounding.
        Case("math", v + "math.cl", "math", (256,), (64,), math_inputs, (1,), types="f32", sizes="n=256", subgroup=None,
             tolerance=("columns", (3, 0), (3, 0), (3, 0), (4, 0), (0, 0), (0, 0), (16, 0), (3, 0))),
        gemm_case("gemm_f16_f32_16x16", v + "gemm_f16_f32_16x16.cl", "gemm_f16_f32_16x16", M, N, K,
                  np.float16, np.float32, (16, 16)),
        gemm_case("gemm_f16_f32_16x16_exact", v + "gemm_f16_f32_16x16.cl", "gemm_f16_f32_16x16", M, N, K,
                  np.float16, np.float32, (16, 16), exact_data=True),
        gemm_case("gemm_f16_16x8", v + "gemm_f16_16x8.cl", "gemm_f16_16x8", M, N, K, np.float16, np.float16,
                  (16, 8), b_col_major=True),
        gemm_case("gemm_s8_s32", v + "gemm_s8_s32.cl", "gemm_s8_s32", M, N, K, np.int8, np.int32, (16, 16)),
        gemm_case("gemm_bf16", v + "gemm_bf16.cl", "gemm_bf16", M, N, K, "bfloat16", np.float32, (16, 16)),
        # Division is OpFDiv (2.5 ulp in Vulkan, as OpenCL C's float division); the rest is exact.
        Case("coop_ops_16x16", v + "coop_ops_16x16.cl", "coop_ops_16x16", (32,), (32,), coop_ops_inputs, (3, 4, 5),
             types="f32/f16 accumulators: + - * / neg scale, element access, conversions, length",
             sizes="16x16", tolerance=("round_trip_tile", 7, 3)),
        Case("lane_ids", v + "lane_ids.cl", "lane_ids", (32,), (32,), lambda rng: [np.zeros((16, 16), np.float32)], (0,),
             types="f32 accumulator 16x16, element access", sizes="1 subgroup", exact=True,
             tolerance=("layout", "float", 16, 16, "accumulator")),
        # The second generation at the driver's shapes: a use conversion (accumulator -> A) and a
        # per-element function (mlp2), tensor layouts with a decode function over 18-byte blocks,
        # a transposing view and clamped edges (q4_gemm), reductions and per-element functions
        # with an operand (softmax_rows: exp and log are the target's exact sequences there, 3 ulp
        # each, docs/vulkan.md "Math"; the bound covers the reductions' orders of summation).
        Case("mlp2", "examples/mlp2.cl", "mlp2", (64 // 16 * SUBGROUP, 64 // 16), (SUBGROUP, 1), mlp2_inputs, (3,),
             options=("-DTILE_M=16",), types="f16 -> f32 -> f16 A -> f32, relu", sizes="64x64x64, hidden 32",
             tolerance=("gemm_chain",)),
        Case("q4_gemm", "examples/q4_gemm.cl", "q4_gemm", (-(-48 // 16) * SUBGROUP, -(-40 // 16)), (SUBGROUP, 1),
             q4_inputs, (2,), options=("-DTILE_M=16",), types="f16 x q4_0 blocks -> f32 (tensor decode)",
             sizes="40x48x64", tolerance=("ulp_of_max", 64)),
        Case("softmax_rows", "examples/softmax_rows.cl", "softmax_rows", (64 // 16 * SUBGROUP,), (SUBGROUP,),
             softmax_inputs, (1, 2), options=("-DTILE_M=16", "-DTILE_N=16", "-DLSE_COLUMNS=16"), types="f32 reduce + per-element",
             sizes="64 x 16", tolerance=("ulp_of_max", 64)),
        wg_gemm_case("gemm_wg_f16", 96, 160, 80, tile=(32, 32, 16), wg=64),
        wg_gemm_case("gemm_wg_f16_256", 256, 256, 256, tile=(128, 128, 32), wg=256),
        # Specialized to its sizes, two steps per iteration; K = 80 is not a multiple of 2 x 16:
        # the clamped layout reads zeros past K.
        wg_gemm_case("gemm_wg_f16_specialized", 96, 160, 80, tile=(32, 32, 16), wg=64, extra=("-DUNROLL2",),
                     specialize=("M", "N", "K")),
        wg_gemm_case("gemm_wg_f16_half_c", 96, 160, 96, tile=(32, 32, 16), wg=64,
                     extra=("-DUNROLL2", "-DHALF_C", "-DCLAMP=CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED"),
                     specialize=("M", "N", "K"), c_dtype=np.float16),
        # The ports of llama.cpp's cooperative-matrix-2 shaders (examples/llama/, issue 29).
        mul_mm_q_case("Q4_0", 100, 70, 256),
        mul_mm_q_case("Q8_0", 100, 70, 256),
        flash_attn_case("flash_attn", 100, 130, 4, 2, 64, True, 32, 32, 128),
        flash_attn_case("flash_attn_hs40", 37, 50, 2, 2, 40, False, 16, 16, 64),
    ]


def wg_gemm_case(name, M, N, K, tile, wg, extra=(), specialize=(), c_dtype=np.float32):
    tm, tn, tk = tile

    def make(rng):
        return [rng.standard_normal((M, K)).astype(np.float16), rng.standard_normal((K, N)).astype(np.float16),
                np.zeros((M, N), c_dtype), np.uint32(M), np.uint32(N), np.uint32(K)]

    return Case(name, "examples/vulkan/gemm_wg_f16.cl", "gemm_wg_f16", (-(-N // tn) * wg, -(-M // tm)), (wg, 1),
                make, (2,), options=(f"-DTILE_M={tm}", f"-DTILE_N={tn}", f"-DTILE_K={tk}", f"-DWG_SIZE={wg}") + extra,
                types=f"f16 -> f32{' -> f16' if c_dtype == np.float16 else ''} (workgroup scope, tensor layouts" + (", specialized " + ", ".join(specialize) if specialize else "")
                + (", " + " ".join(extra) if extra else "") + ")", sizes=f"{M}x{N}x{K}", k=K,
                tolerance=("gemm", 0, 1, K, 2.0 ** -24, False), specialize=specialize)


# ------------------------------------------------------------------ prepare (compiler side)

def _dtype(name):
    if name == "bfloat16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def compile_module(case, path):
    """clcoop --emit-spirv --target-env vulkan1.3; returns None or the compiler's message."""
    done = subprocess.run([sys.executable, "-m", "clcoop.cli.compile_main", str(ROOT / case.source),
                           "--emit-spirv", "--target-env", "vulkan1.3", *case.options, "-o", str(path)],
                          capture_output=True, text=True, cwd=ROOT)
    return None if done.returncode == 0 else (done.stderr.strip() or done.stdout.strip())


def _launch_args(spec):
    """Arguments for a launch from their stored form (arrays copied: each engine gets its own)."""
    import clcoop.prepare
    return [clcoop.prepare.LocalMemory(a["local"]) if isinstance(a, dict) else
            (a.copy() if isinstance(a, np.ndarray) else a) for a in spec]


def prepare(folder, only=None, perf=True):
    import clcoop
    folder.mkdir(parents=True, exist_ok=True)
    manifest = []
    for case in cases():
        if only and case.name not in only:
            continue
        entry = {"name": case.name, "kernel": case.kernel, "subgroup": case.subgroup, "global": case.global_size, "local": case.local_size,
                 "outputs": case.outputs, "exact": case.exact, "types": case.types, "sizes": case.sizes,
                 "tolerance": case.tolerance, "source": case.source, "options": case.options,
                 "specialize": case.specialize}
        problem = compile_module(case, folder / f"{case.name}.spv")
        if problem:
            entry["not_compiled"] = problem
            manifest.append(entry)
            print(f"{case.name}: not compiled for Vulkan: {problem.splitlines()[0]}")
            continue
        args = case.make_args(_rng(case.name))
        program = clcoop.Program((ROOT / case.source).read_text()).build(options=list(case.options))
        reference = _launch_args(args)
        start = time.perf_counter()
        program.run(case.kernel, case.global_size, case.local_size, *reference,
                    **({"subgroup_size": case.subgroup} if case.subgroup else {}))
        entry["interp_s"] = time.perf_counter() - start
        if case.tolerance and case.tolerance[0] == "layout":
            _kind, type_name, rows, cols, use = case.tolerance
            through = lane_ids_through(*tinytc_owners(rows, cols, use, type_name, SUBGROUP))
            entry["interp_matches_its_layout"] = bool(np.array_equal(reference[case.outputs[0]], through))
        arrays = {f"arg{i}": a for i, a in enumerate(args) if isinstance(a, np.ndarray)}
        arrays.update({f"expected{i}": reference[i] for i in case.outputs})
        np.savez(folder / f"{case.name}.npz", **{k: _storable(v) for k, v in arrays.items()})
        entry["args"] = [{"local": a["local"]} if isinstance(a, dict) else
                         {"array": f"arg{i}", "dtype": str(a.dtype)} if isinstance(a, np.ndarray) else
                         {"scalar": a.item(), "dtype": str(np.asarray(a).dtype)} for i, a in enumerate(args)]
        manifest.append(entry)
        print(f"{case.name}: compiled, interpreter {entry['interp_s']:.2f} s")
    for perf in perf_modules() if perf else ():
        problem = compile_module(Case(perf.name, perf.source, perf.kernel, (), (), None, (), options=perf.options),
                                 folder / f"{perf.name}.spv")
        print(f"{perf.name}: {'compiled' if not problem else 'not compiled: ' + problem.splitlines()[0]}")
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))


def _storable(array):
    """bfloat16 arrays travel as their uint16 bit patterns (np.savez cannot store the dtype)."""
    return array.view(np.uint16) if array.dtype.name == "bfloat16" else array


PERF_SIZE = 4096      # the performance GEMMs' M = N = K


@dataclass
class PerfKernel:
    """A GEMM kernel of the performance run: its module, and its NDRange for an n x n x n GEMM."""
    name: str
    source: str
    kernel: str
    options: tuple
    tile: tuple          # (rows, cols) of C per work-group
    local: int           # invocations per work-group
    b_column_major: bool = False
    specialize: tuple = ()   # scalar arguments the pipeline is specialized with (M, N, K)
    c_dtype: str = "float32"  # C's elements (float16 with -DHALF_C)

    def ndrange(self, n):
        return (n // self.tile[1] * self.local, n // self.tile[0]), (self.local, 1)

    def operands(self, A, B, B_column_major):
        """The launch's arguments for n x n x n (n = A's rows): A, B (or its transpose), a zero
        C and the three sizes (int for gemm_f16_f32_16x16, uint for the others)."""
        n = A.shape[0]
        scalar = np.int32 if self.kernel == "gemm_f16_f32_16x16" else np.uint32
        return [A, B_column_major if self.b_column_major else B, np.zeros((n, n), self.c_dtype)] + [scalar(n)] * 3


def perf_modules():
    """The GEMMs of the performance run: the workgroup-scope GEMM with tensor layouts in a few
    tile shapes (and without clamping), the workgroup-scope GEMM staged through __local memory,
    and three subgroup-scope KHR GEMMs (one tile per subgroup; 4 x 4 tiles per
    subgroup from global memory; blocks staged through __local memory)."""
    source, sizes = "examples/vulkan/gemm_wg_f16.cl", ("M", "N", "K")
    unclamped = "-DCLAMP=CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED"

    def wg_kernel(m, n, k, w, *extra, specialize=(), suffix=""):
        options = (f"-DTILE_M={m}", f"-DTILE_N={n}", f"-DTILE_K={k}", f"-DWG_SIZE={w}") + extra
        return PerfKernel(f"perf_wg_{m}x{n}x{k}_{w}{suffix}", source, "gemm_wg_f16", options, (m, n), w,
                          "-DB_COLUMN_MAJOR" in extra, specialize, "float16" if "-DHALF_C" in extra else "float32")
    # Sizes known only at the launch (push constants), then specialized into the pipeline.
    wg = [wg_kernel(128, 256, 32, 256, "-DPIPELINE", suffix="_pipelined"),
          wg_kernel(128, 256, 32, 256), wg_kernel(128, 256, 64, 256),
          wg_kernel(128, 256, 32, 256, unclamped, suffix="_unclamped"),
          wg_kernel(128, 256, 64, 256, specialize=sizes, suffix="_specialized"),
          wg_kernel(128, 256, 64, 256, unclamped, specialize=sizes, suffix="_specialized_unclamped"),
          wg_kernel(128, 256, 32, 256, unclamped, specialize=sizes, suffix="_specialized_unclamped"),
          wg_kernel(128, 128, 32, 128, unclamped, specialize=sizes, suffix="_specialized_unclamped"),
          wg_kernel(256, 128, 32, 256, unclamped, specialize=sizes, suffix="_specialized_unclamped"),
          wg_kernel(128, 256, 64, 256, unclamped, "-DUNROLL2", specialize=sizes, suffix="_specialized_unclamped_unroll2"),
          wg_kernel(128, 256, 32, 256, unclamped, "-DUNROLL2", specialize=sizes, suffix="_specialized_unclamped_unroll2"),
          wg_kernel(128, 128, 32, 128, unclamped, "-DUNROLL2", specialize=sizes, suffix="_specialized_unclamped_unroll2"),
          wg_kernel(128, 256, 64, 256, unclamped, "-DUNROLL2", "-DB_COLUMN_MAJOR", specialize=sizes,
                    suffix="_specialized_unclamped_unroll2_b_column_major"),
          # C in half, as torch.matmul on half tensors returns it (f32 sums rounded once).
          wg_kernel(128, 256, 64, 256, unclamped, "-DUNROLL2", "-DHALF_C", specialize=sizes,
                    suffix="_specialized_unclamped_unroll2_half_c"),
          wg_kernel(128, 256, 32, 256, unclamped, "-DUNROLL2", "-DHALF_C", specialize=sizes,
                    suffix="_specialized_unclamped_unroll2_half_c")]
    wg += [PerfKernel(f"perf_wg_local_{m}x{n}", "examples/vulkan/gemm_wg_local.cl", "gemm_wg_local",
                      (f"-DTILE_M={m}", f"-DTILE_N={n}"), (m, n), 256)
           for m, n in ((128, 256), (256, 128), (128, 128))]
    return wg + [
        PerfKernel("perf_khr_16x16", "examples/vulkan/gemm_f16_f32_16x16.cl", "gemm_f16_f32_16x16", (), (16, 16), 32),
        PerfKernel("perf_khr_blocked", "examples/vulkan/gemm_khr_blocked.cl", "gemm_khr_blocked", (), (128, 128), 128),
        PerfKernel("perf_khr_local", "examples/vulkan/gemm_khr_local.cl", "gemm_khr_local", (), (128, 128), 256),
        PerfKernel("perf_khr_local_specialized", "examples/vulkan/gemm_khr_local.cl", "gemm_khr_local", (), (128, 128),
                   256, specialize=sizes),
    ]


# ------------------------------------------------------------------ run (GPU side)

def _restore(entry, stored):
    args = []
    for spec in entry["args"]:
        if "local" in spec:
            args.append({"local": spec["local"]})
        elif "array" in spec:
            array = stored[spec["array"]]
            args.append(array.view(_dtype(spec["dtype"])) if spec["dtype"] == "bfloat16" else array.copy())
        else:
            args.append(np.dtype(spec["dtype"]).type(spec["scalar"]))
    return args


def lane_ids_through(invocation, element):
    """examples/vulkan/lane_ids.cl's output for a layout: 100 * holder + element index."""
    return np.where(invocation >= 0, 100 * invocation + element, 0).astype(np.float32)


def tinytc_owners(rows, cols, use, type_name, subgroup_size):
    """(invocation, element) of every (row, col) in the interpreter's layout (docs/layout.md)."""
    from clcoop.ir.layout import get_layout
    layout = get_layout(rows, cols, use, type_name, subgroup_size)
    invocation = np.full(rows * cols, -1, np.int64)
    element = np.full(rows * cols, -1, np.int64)
    for p in range(layout.index.shape[0]):
        for v in range(layout.index.shape[1]):
            if layout.index[p, v] >= 0:
                invocation[layout.index[p, v]], element[layout.index[p, v]] = p, v
    return invocation.reshape(rows, cols), element.reshape(rows, cols)


def allowed_difference(entry, args, expected):
    """The largest |GPU - interpreter| each element may show (docs/gpu.md, "How close")."""
    kind, *rest = entry["tolerance"] or ("exact",)
    ref = expected.astype(np.float64)
    if kind == "exact":
        return np.zeros_like(ref)
    if kind == "ulp":
        return rest[0] * np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    if kind == "columns":       # per-column (ulps, absolute) bounds of an output of len(rest) columns
        ulps = np.tile(np.array([u for u, _ in rest], np.float64), ref.size // len(rest))
        absolute = np.tile(np.array([a for _, a in rest], np.float64), ref.size // len(rest))
        # The interpreter's own rounding adds one ulp (it rounds the double result once:
        # interp/math_edges.in_double).
        return np.maximum((ulps + 1) * np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64), absolute)
    if kind == "ulp_of_max":    # n ulps of the output's largest magnitude (chains of roundings)
        return np.full_like(ref, rest[0] * float(np.spacing(np.float32(np.abs(ref).max()))))
    if kind == "gemm_chain":    # two chained f16 GEMMs: an f16 rounding of the hidden layer dominates
        return np.full_like(ref, 2.0 ** -8 * float(np.abs(ref).max()))
    if kind == "quant_gemm":    # mul_mm_q: D = B W^T, W decoded from llama.cpp's blocks; as "gemm"
        a_index, b_index, qtype, k = rest
        W = dequantize_blocks(args[a_index], qtype, k).astype(np.float64)
        magnitude = np.abs(args[b_index].astype(np.float64)) @ np.abs(W).T
        return magnitude * k * 3 * 2.0 ** -24 + np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    if kind == "of_max_arg":    # a fraction of an input's largest magnitude
        return np.full_like(ref, rest[1] * float(np.abs(args[rest[0]].astype(np.float64)).max()))
    if kind == "sum":
        values = np.abs(args[rest[0]].astype(np.float64)).reshape(-1, rest[1]).sum(axis=1)
        return values * rest[1] * 2.0 ** -23
    if kind == "gemm":
        a_index, b_index, k, unit, *b_col_major = rest
        A, B = args[a_index].astype(np.float64), args[b_index].astype(np.float64)
        if b_col_major and b_col_major[0]:
            B = B.T
        magnitude = np.abs(A) @ np.abs(B)
        # Each side within k * unit * sum|a b| of the exact sum if it rounds (gamma_k), twice that
        # if it truncates; plus one rounding of the result to its own type.
        return magnitude * k * 3 * unit + np.spacing(np.abs(ref).astype(expected.dtype)).astype(np.float64)
    raise ValueError(f"unknown tolerance {kind}")


def run_cases(folder):
    from clcoop.vulkan import run_kernel
    import clcoop.prepare
    results = []
    manifest = json.loads((folder / "manifest.json").read_text())
    for entry in manifest:
        row = {k: entry[k] for k in ("name", "types", "sizes")}
        if "not_compiled" in entry:
            row.update(result="not compiled", error=entry["not_compiled"].splitlines()[0])
            results.append(row)
            continue
        stored = np.load(folder / f"{entry['name']}.npz")
        args = _restore(entry, stored)
        launch = [clcoop.prepare.LocalMemory(a["local"]) if isinstance(a, dict) else a for a in args]
        module = (folder / f"{entry['name']}.spv").read_bytes()
        try:
            _outputs, timings = run_kernel(module, entry["kernel"], tuple(entry["global"]), tuple(entry["local"]),
                                           launch, subgroup_size=entry.get("subgroup"),
                                           specialize=tuple(entry.get("specialize", ())))
        except Exception as error:      # the report records every failure, and goes on
            row.update(result="failed", error=f"{type(error).__name__}: {error}")
            results.append(row)
            continue
        worst, ratio = 0.0, 0.0
        passed = True
        for index in entry["outputs"]:
            expected = stored[f"expected{index}"]
            got = launch[index]
            if got.dtype.name == "bfloat16":
                got = got.view(np.uint16)
            if entry["tolerance"] and entry["tolerance"][0] == "layout":
                from clcoop.vulkan.probe import probe_layout
                _kind, type_name, rows, cols, use = entry["tolerance"]
                expected = lane_ids_through(*probe_layout(type_name, rows, cols, use).owners())
                row["interp_matches_its_layout"] = entry.get("interp_matches_its_layout")
                passed &= bool(np.array_equal(got, expected)) and bool(entry.get("interp_matches_its_layout"))
                continue
            if entry["tolerance"] and entry["tolerance"][0] == "round_trip_tile" and index == entry["outputs"][0]:
                # examples/vulkan/coop_ops_16x16.cl's tile 7 is (float)(half)X: measured on the
                # H200 (driver 580.159.04), the driver folds the two OpFConvert of the module into
                # nothing and returns X unrounded (docs/gpu.md, "Disagreements"). The row says
                # which of the two the device gave; the other tiles keep their bound.
                tile = entry["tolerance"][1]
                x = args[0].reshape(-1)
                row["round_trip_tile"] = ("X unrounded (the driver drops the f16 round trip)"
                                          if np.array_equal(got[tile * 256:(tile + 1) * 256], x) else
                                          "rounded through f16, as the interpreter" if np.array_equal(
                                              got[tile * 256:(tile + 1) * 256], expected[tile * 256:(tile + 1) * 256])
                                          else "neither")
                passed &= row["round_trip_tile"] != "neither"
                got, expected = got[:tile * 256], expected[:tile * 256]
                entry = dict(entry, tolerance=("ulp", entry["tolerance"][2]))
            if entry["exact"]:
                passed &= bool(np.array_equal(got, expected))
                worst = max(worst, float(np.abs(got.astype(np.float64) - expected.astype(np.float64)).max()))
                continue
            allowed = allowed_difference(entry, args, expected)
            difference = np.abs(got.astype(np.float64) - expected.astype(np.float64))
            worst = max(worst, float(difference.max()))
            ratio = max(ratio, float((difference / np.maximum(allowed, 1e-300)).max()))
            passed &= bool((difference <= allowed).all())
            if entry["tolerance"][0] == "columns":
                width = len(entry["tolerance"]) - 1
                ulps = difference / np.spacing(np.abs(expected).astype(np.float32)).astype(np.float64)
                row["ulps_by_column"] = [float(u) for u in ulps.reshape(-1, width).max(axis=0)]
        row.update(result="equal" if entry["exact"] and passed else "within bound" if passed else "DIFFERS",
                   max_error=worst, error_over_bound=ratio, gpu_s=min(timings.gpu) if timings.gpu else None,
                   total_s=timings.total, interp_s=entry.get("interp_s"))
        if row.get("round_trip_tile", "").startswith("X"):
            row["result"] += "; tile 7 differs: the driver drops the f16 round trip"
        results.append(row)
        print(row)
    return results


# ------------------------------------------------------------------ how the tensor cores accumulate

def _gemm16(module, A, B):
    """C = A * B through examples/vulkan/gemm_f16_f32_16x16.cl (f16 inputs, f32 accumulator)."""
    from clcoop.vulkan import run_kernel
    M, K = A.shape
    N = B.shape[1]
    C = np.zeros((M, N), np.float32)
    run_kernel(module, "gemm_f16_f32_16x16", (N // 16 * SUBGROUP, M // 16), (SUBGROUP, 1),
               [A, B, C, np.int32(M), np.int32(N), np.int32(K)])
    return C


def _toward_zero(x):
    y = x.astype(np.float32)
    too_far = np.abs(y.astype(np.float64)) > np.abs(x)
    y[too_far] = np.nextafter(y[too_far], np.float32(0))
    return y


def accumulation_study(folder):
    """How the f16 x f16 + f32 mul-add rounds: integer-valued data (exact), random data against
    float64, and probes that tell rounding models apart: row i sums 1 + 15 tiny_i, each tiny_i a
    product of f16 values that f32 can hold exactly, below, at and above half an ulp of 1."""
    module = (folder / "perf_khr_16x16.spv").read_bytes()
    rng = np.random.default_rng(7)
    study = {"exact": [], "random": [], "probes": []}
    for K in (16, 256, 4096):
        A = rng.integers(-8, 9, (64, K)).astype(np.float16)
        B = rng.integers(-8, 9, (K, 64)).astype(np.float16)
        C = _gemm16(module, A, B)
        study["exact"].append({"K": K, "equal": bool(np.array_equal(C, A.astype(np.float64) @ B.astype(np.float64)))})
        A = rng.standard_normal((64, K)).astype(np.float16)
        B = rng.standard_normal((K, 64)).astype(np.float16)
        C = _gemm16(module, A, B).astype(np.float64)
        exact = A.astype(np.float64) @ B.astype(np.float64)
        scale = (np.abs(A.astype(np.float64)) @ np.abs(B.astype(np.float64))) * 2.0 ** -24
        sequential = np.zeros_like(C, dtype=np.float32)
        for k in range(K):
            sequential = (sequential + (A[:, k:k + 1].astype(np.float32) * B[k:k + 1, :].astype(np.float32))).astype(np.float32)
        study["random"].append({"K": K, "max_error_in_units": float((np.abs(C - exact) / scale).max()),
                                "sequential_f32_max_error_in_units": float((np.abs(sequential - exact) / scale).max())})
    tiny = [2.0 ** -13, 2.0 ** -12, 1.5 * 2.0 ** -12, 3 * 2.0 ** -13, 2.0 ** -11, 0.75 * 2.0 ** -12]
    A = np.zeros((16, 16), np.float16)
    B = np.full((16, 16), 2.0 ** -12, np.float16)
    B[0, :] = 1
    A[:, 0] = 1
    for i in range(16):
        A[i, 1:] = tiny[i % len(tiny)]
    C = _gemm16(module, A, B)[:, 0]
    for i, t in enumerate(tiny):
        product = t * 2.0 ** -12
        exact = 1 + 15 * product
        models = {
            "exact sum, rounded once (RN)": float(np.float32(exact)),
            "sequential f32 adds from k = 0 (RN)": float(_sequential([1.0] + [product] * 15, np.float32)),
            "small terms first, then 1 (RN)": float(np.float32(np.float32(15 * product) + np.float32(1))),
            "exact sum, truncated once": float(_toward_zero(np.array([exact]))[0]),
        }
        study["probes"].append({"product": product, "gpu": float(C[i]), "exact": exact,
                                "matching_models": [name for name, value in models.items() if value == float(C[i])]})
    return study


def _sequential(terms, dtype):
    total = dtype(0)
    for t in terms:
        total = dtype(total + dtype(t))
    return total


# ------------------------------------------------------------------ performance

def performance(folder):
    """GEMM f16 -> f32 4096^3 (workgroup scope with tensor layouts, and the subgroup-scope KHR
    GEMM) against torch.matmul on half tensors, and a small kernel's dispatch cost against a
    small torch kernel's, on the same device in the same run."""
    from clcoop.vulkan import run_kernel
    perf = {"gemm": [], "launch": {}}
    perf_rows = perf["gemm"]
    size = PERF_SIZE
    rng = np.random.default_rng(3)
    A = rng.standard_normal((size, size)).astype(np.float16)
    B = rng.standard_normal((size, size)).astype(np.float16)
    B_column_major = np.ascontiguousarray(B.T)
    check_rows = A[:32].astype(np.float64) @ B.astype(np.float64)
    bound = (np.abs(A[:32].astype(np.float64)) @ np.abs(B.astype(np.float64))) * size * 3 * 2.0 ** -24
    flops = 2.0 * size ** 3
    try:
        import torch
        a, b = torch.from_numpy(A).cuda(), torch.from_numpy(B).cuda()
        _torch_gemm_seconds(a, b, 5)                 # warm-up (cuBLAS's first calls choose kernels)
        torch_s = _torch_gemm_seconds(a, b, 20)
        perf["torch"] = {"gemm_s": torch_s, "tflops": flops / torch_s / 1e12, "version": torch.__version__}
        perf["launch"].update(torch_launch())
        del a, b
    except Exception as error:          # recorded in the report: the ratios then have no reference
        perf["torch"] = {"error": f"{type(error).__name__}: {error}"}
    for kernel in perf_modules():
        path = folder / f"{kernel.name}.spv"
        if not path.exists():
            perf_rows.append({"name": kernel.name, "error": "not compiled"})
            continue
        operands = kernel.operands(A, B, B_column_major)
        C = operands[2]
        try:
            _o, timings = run_kernel(path.read_bytes(), kernel.kernel, *kernel.ndrange(size), operands, repeat=10,
                                     specialize=kernel.specialize)
        except Exception as error:      # recorded in the report, and the next kernel runs
            perf_rows.append({"name": kernel.name, "error": f"{type(error).__name__}: {error}"})
            continue
        gpu_s = float(np.median(timings.gpu)) if timings.gpu else None
        # C = A * B + C for gemm_f16_f32_16x16: ten repetitions add ten products.
        repeats = 10 if kernel.kernel == "gemm_f16_f32_16x16" else 1
        row = {"name": kernel.name, "options": list(kernel.options), "specialized": list(kernel.specialize), "gpu_s": gpu_s,
               "tflops": flops / gpu_s / 1e12 if gpu_s else None,
               "rows_checked_within_bound": bool((np.abs(C[:32] - repeats * check_rows) <= repeats * bound
                                                   + np.spacing(np.abs(check_rows).astype(C.dtype))).all())}
        if "gemm_s" in perf.get("torch", {}) and gpu_s:
            row["of_torch"] = perf["torch"]["gemm_s"] / gpu_s
        perf_rows.append(row)
        print(row)
    if "gemm_s" in perf.get("torch", {}):
        perf["alternating"] = alternating_rounds(folder, perf_rows, A, B, B_column_major, flops)
    small = folder / "vector_add.spv"
    if small.exists():
        perf["launch"].update(launch_overhead(small.read_bytes()))
    return perf


def _torch_gemm_seconds(a, b, times):
    import torch
    samples = []
    for _ in range(times):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(); torch.matmul(a, b); end.record(); torch.cuda.synchronize()
        samples.append(start.elapsed_time(end) / 1e3)
    return float(np.median(samples))


def alternating_rounds(folder, perf_rows, A, B, B_column_major, flops, rounds=7):
    """The fastest workgroup-scope GEMM and torch.matmul timed in alternating rounds (torch,
    then the kernel, `rounds` times), so that a shared card's changing load weighs on both:
    per round each one's median time and the ratio; the ratios' median and range."""
    import torch
    from clcoop.vulkan import run_kernel
    timed = [r for r in perf_rows if r.get("tflops") and r["name"].startswith("perf_wg_")]
    if not timed:
        return {"error": "no workgroup-scope GEMM ran"}
    best = max(timed, key=lambda r: r["tflops"])
    kernel = next(k for k in perf_modules() if k.name == best["name"])
    module = (folder / f"{kernel.name}.spv").read_bytes()
    a, b = torch.from_numpy(A).cuda(), torch.from_numpy(B).cuda()
    operands = kernel.operands(A, B, B_column_major)
    out = []
    for _ in range(rounds):
        torch_s = _torch_gemm_seconds(a, b, 20)
        _o, timings = run_kernel(module, kernel.kernel, *kernel.ndrange(PERF_SIZE), operands, repeat=10,
                                 specialize=kernel.specialize)
        kernel_s = float(np.median(timings.gpu))
        out.append({"torch_s": torch_s, "kernel_s": kernel_s, "of_torch": torch_s / kernel_s})
    ratios = sorted(r["of_torch"] for r in out)
    return {"kernel": kernel.name, "rounds": out, "median_of_torch": float(np.median(ratios)),
            "min_of_torch": ratios[0], "max_of_torch": ratios[-1],
            "median_tflops": flops / float(np.median([r["kernel_s"] for r in out])) / 1e12,
            "torch_median_tflops": flops / float(np.median([r["torch_s"] for r in out])) / 1e12}


# ------------------------------------------------------------------ launch overhead

LAUNCH_ITEMS = 1024
# How the runner waits and where small arrays live (clcoop/vulkan/runner.py), measured each way
# in the same run: (name, Runner attributes, call options): the defaults; no spinning on the
# fence (a blocking wait only); every array staged through device-local memory with copy
# commands (the engine before direct buffers); the dispatch timed with GPU timestamps.
LAUNCH_VARIANTS = (("default", {}, {}), ("blocking wait", {"spin_s": 0.0}, {}),
                   ("staged", {"direct_max_bytes": -1}, {}), ("GPU timestamps", {}, {"gpu_times": True}))
# The parts of a launch (runner.Timings), in the order they happen; "checks" is the call
# outside the runner (argument checks by launch key, the kept plan), "runner other" the
# runner's own bookkeeping (buffers from the pools, the recording's key, timestamps).
LAUNCH_PARTS = ("checks", "upload", "record", "submit", "wait", "download", "runner other")


def _launch_parts(call_s, t):
    inside = t.upload + t.record + t.submit + t.wait + t.download
    return {"call": call_s, "checks": call_s - t.runner, "upload": t.upload, "record": t.record,
            "submit": t.submit, "wait": t.wait, "download": t.download, "runner other": t.runner - inside,
            "gpu": t.gpu[0] if t.gpu else None}


def launch_overhead(module_bytes, launches=2000, rounds=5, variants=LAUNCH_VARIANTS):
    """A 1024-element vector add launched `launches` times per variant (new input data each
    time, the result checked), the variants alternating in `rounds` rounds so that a busy
    machine weighs on each alike: per variant the median of the call (VulkanKernel.__call__,
    from the call to the results in the caller's arrays) and of each part (LAUNCH_PARTS, and
    the dispatch's GPU time where timestamps were asked for), in seconds."""
    from clcoop.vulkan import VulkanProgram
    from clcoop.vulkan.runner import runner
    program = VulkanProgram(module_bytes)
    kernel, run = program.kernel("vector_add"), runner(program.device)
    defaults = {"spin_s": run.spin_s, "direct_max_bytes": run.direct_max_bytes}
    n = LAUNCH_ITEMS
    a, b, c = np.arange(n, dtype=np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)
    samples = {name: [] for name, _, _ in variants}
    clock = time.perf_counter
    try:
        for _round in range(rounds):
            for name, settings, options in variants:
                for attribute, value in {**defaults, **settings}.items():
                    setattr(run, attribute, value)
                for i in range(max(1, launches // rounds) + 20):      # the first 20 of a round warm it up
                    a[0] = i
                    start = clock()
                    timings = kernel((n,), (64,), a, b, c, np.int32(n), **options)
                    call_s = clock() - start
                    if i >= 20:
                        samples[name].append(_launch_parts(call_s, timings))
                if not np.array_equal(c, a + b):
                    raise AssertionError(f"launch overhead ({name}): the vector add's result is wrong")
    finally:
        for attribute, value in defaults.items():
            setattr(run, attribute, value)
    return {"device": program.description.title(), "items": n, "launches": len(samples[variants[0][0]]),
            "defaults": defaults,
            "variants": {name: {part: _median([row[part] for row in rows]) for part in rows[0]}
                         for name, rows in samples.items()}}


def _median(values):
    """The median of the values that are not None (None when all are)."""
    known = [value for value in values if value is not None]
    return float(np.median(known)) if known else None


def torch_launch(launches=200):
    """torch's comparable launch: x.add_(1) on 1024 floats and torch.cuda.synchronize(), median seconds."""
    import torch
    x = torch.zeros(LAUNCH_ITEMS, device="cuda")
    times = []
    for _ in range(launches):
        start = time.perf_counter(); x.add_(1); torch.cuda.synchronize(); times.append(time.perf_counter() - start)
    return {"torch_add_sync_s": float(np.median(times[20:]))}


def launch_table(result):
    """The launch-overhead measurement as Markdown: one row per variant, microseconds."""
    parts = ("call",) + LAUNCH_PARTS + ("gpu",)
    lines = [f"Launch overhead on {result['device']}: {result['items']}-element vector add, medians of "
             f"{result['launches']} launches per variant (us).", "",
             "| variant | " + " | ".join(parts) + " |", "|---" * (len(parts) + 1) + "|"]
    for name, row in result["variants"].items():
        lines.append(f"| {name} | " + " | ".join("" if row[p] is None else f"{row[p] * 1e6:.1f}" for p in parts)
                     + " |")
    if "torch_add_sync_s" in result:
        lines += ["", f"torch x.add_(1) + synchronize: {result['torch_add_sync_s'] * 1e6:.1f} us"]
    return "\n".join(lines)


def launch_command(folder, report=None, launches=2000):
    """`launch DIR`: the launch-overhead measurement alone (with torch's where torch has CUDA)."""
    small = folder / "vector_add.spv"
    if not small.exists():
        folder.mkdir(parents=True, exist_ok=True)
        problem = compile_module(next(c for c in cases() if c.name == "vector_add"), small)
        if problem:
            raise SystemExit(f"vector_add: not compiled for Vulkan: {problem}")
    result = launch_overhead(small.read_bytes(), launches)
    try:
        result.update(torch_launch())
    except Exception as error:          # no torch or no CUDA: the table says so
        result["torch"] = f"{type(error).__name__}: {error}"
    print(launch_table(result))
    if report:
        Path(report).write_text(json.dumps(result, indent=1))
    return 0


# ------------------------------------------------------------------ pipeline statistics

def _statistics_files(folder, name, executables):
    """Each internal representation into DIR/<module>.<executable>.<representation>.txt (they
    are long: assembly); the report keeps the file's name in place of the text."""
    for index, executable in enumerate(executables):
        for representation in executable.get("representations", ()):
            label = "".join(c if c.isalnum() else "_" for c in representation["name"]).strip("_") or "ir"
            path = folder / f"{name}.{index}.{label}.txt"
            if "text" in representation:
                path.write_text(representation.pop("text"))
            else:
                path = path.with_suffix(".bin")
                path.write_bytes(representation.pop("data"))
            representation["file"] = path.name


def module_statistics(folder, kernel, representations=False):
    """One performance GEMM's row of `stats`: its pipeline for the performance run's local
    size (the one the launch makes: same specialization, the kernel's own subgroup size)
    described by the driver, or the error that stopped it."""
    from clcoop.errors import ClcoopError
    from clcoop.vulkan import VulkanProgram
    from clcoop.vulkan.statistics import as_json
    row = {"name": kernel.name, "source": kernel.source, "kernel": kernel.kernel, "options": list(kernel.options),
           "local_size": [kernel.local, 1, 1]}
    path = folder / f"{kernel.name}.spv"
    if not path.exists():
        problem = compile_module(Case(kernel.name, kernel.source, kernel.kernel, (), (), None, (),
                                      options=kernel.options), path)
        if problem:
            row["error"] = f"not compiled: {problem.splitlines()[0]}"
            return row
    try:
        program = VulkanProgram(path.read_bytes())
    except ClcoopError as error:
        row["error"] = f"{type(error).__name__}: {error}"
        return row
    try:
        found = program.kernel(kernel.kernel).statistics((kernel.local, 1), representations=representations,
                                                         specialize={name: PERF_SIZE for name in kernel.specialize})
        _statistics_files(folder, kernel.name, found)
        row["executables"] = as_json(found)
    except ClcoopError as error:
        row["error"] = f"{type(error).__name__}: {error}"
    finally:
        program.close()
    return row


def statistics_table(result, tflops=None):
    """The `stats` report as Markdown: one row per module and executable, one column per
    statistic the driver named (in the order it first named them); with `tflops` ({module
    name: TFLOP/s}, from a `run` report: perf_tflops()) a column of each module's speed."""
    from clcoop.vulkan.statistics import format_value
    names = []
    for row in result["modules"]:
        for executable in row.get("executables", ()):
            names += [name for name in executable["statistics"] if name not in names]
    first = ["kernel"] + (["TFLOP/s"] if tflops is not None else []) + ["executable", "subgroup"]
    lines = [f"Pipeline statistics on {result['device']}, {result['date']} (the driver's names):", "",
             "| " + " | ".join(first + names) + " |", "|---" * (len(first) + len(names)) + "|"]
    for row in result["modules"]:
        speed = [] if tflops is None else [f"{tflops[row['name']]:.1f}" if tflops.get(row["name"]) else ""]
        if "error" in row:
            lines.append("| " + " | ".join([row["name"]] + speed + [row["error"]]) + " |")
            continue
        for executable in row["executables"]:
            values = [format_value(executable["statistics"][n]["value"]) if n in executable["statistics"] else ""
                      for n in names]
            lines.append("| " + " | ".join([row["name"]] + speed + [executable["name"], str(executable["subgroup_size"])]
                                           + values) + " |")
    return "\n".join(lines)


def perf_tflops(report):
    """{module name: TFLOP/s} of the performance GEMMs of a `run` report."""
    data = json.loads(Path(report).read_text())
    return {row["name"]: row.get("tflops") for row in data.get("performance", {}).get("gemm", [])}


def statistics_command(folder, report, representations=False, kernels=None, perf_report=None):
    """`stats DIR`: the driver's statistics of every performance GEMM (perf_modules(); their
    modules from `prepare`, or compiled on the spot where the compiler is), into `report`
    (written after each module) and printed as a table, beside each module's TFLOP/s from
    `perf_report` (a `run` report) when given. Exit 1 when any module has none."""
    from clcoop.vulkan import device as devices
    folder.mkdir(parents=True, exist_ok=True)
    result = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "device": device_line(),
              "host": platform.node(), "modules": []}
    if not any(d.has(devices.KHR_PIPELINE_EXECUTABLE_PROPERTIES) for d in devices.descriptions()):
        result["error"] = f"no device offers {devices.KHR_PIPELINE_EXECUTABLE_PROPERTIES}: {result['device']}"
        Path(report).write_text(json.dumps(result, indent=1))
        print(f"stats: {result['error']}")
        return 1
    for kernel in perf_modules() if kernels is None else kernels:
        row = module_statistics(folder, kernel, representations)
        result["modules"].append(row)
        Path(report).write_text(json.dumps(result, indent=1))
        print(f"{kernel.name}: " + (row["error"] if "error" in row else
                                    f"{sum(len(e['statistics']) for e in row['executables'])} statistics"))
    print(statistics_table(result, perf_tflops(perf_report) if perf_report else None))
    failed = [row["name"] for row in result["modules"] if "error" in row]
    if failed:
        print(f"no statistics for {len(failed)} of {len(result['modules'])} modules: {', '.join(failed)}")
    return 1 if failed else 0


def device_line():
    from clcoop.vulkan import descriptions
    return "; ".join(d.title() for d in descriptions())


def run(folder, report, perf=True):
    result = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "device": device_line(),
              "host": platform.node(), "cases": run_cases(folder)}
    Path(report).write_text(json.dumps(result, indent=1))       # each stage's results kept as it ends
    if perf and (folder / "perf_khr_16x16.spv").exists():
        result["accumulation"] = accumulation_study(folder)
        Path(report).write_text(json.dumps(result, indent=1))
        result["performance"] = performance(folder)
        Path(report).write_text(json.dumps(result, indent=1))
    failed = [c["name"] for c in result["cases"] if c["result"] in ("failed", "DIFFERS")]
    print(f"{len(result['cases']) - len(failed)} passed, {len(failed)} failed" + (f": {failed}" if failed else ""))
    return 1 if failed else 0


def table(report):
    """docs/gpu.md's tables from a report."""
    data = json.loads(Path(report).read_text())
    lines = [f"Device: {data['device']}; run {data['date']}.", "",
             "| kernel | types | sizes | result | max error | error / bound | GPU time | interpreter |",
             "|---|---|---|---|---|---|---|---|"]
    for c in data["cases"]:
        gpu = f"{c['gpu_s'] * 1e6:.1f} us" if c.get("gpu_s") else ""
        interp = f"{c['interp_s']:.2f} s" if c.get("interp_s") else ""
        bound = f"{c['error_over_bound']:.3f}" if c.get("error_over_bound") else ""
        err = f"{c['max_error']:.3g}" if "max_error" in c else c.get("error", "")
        lines.append(f"| {c['name']} | {c['types']} | {c['sizes']} | {c['result']} | {err} | {bound} | {gpu} | {interp} |")
    performance = data.get("performance", {})
    if performance.get("gemm"):
        lines += ["", gemm_table(performance)]
    launch = performance.get("launch", {})
    if "variants" in launch:        # the launch-overhead measurement of the performance run
        lines += ["", launch_table(launch)]
    return "\n".join(lines)


def gemm_table(performance):
    """The performance GEMMs (4096^3) against torch.matmul, and the alternating rounds."""
    torch = performance.get("torch", {})
    lines = [f"GEMM {PERF_SIZE}^3 against torch.matmul on half tensors ("
             + (f"{torch['gemm_s'] * 1e3:.3f} ms, {torch['tflops']:.0f} TFLOP/s, torch {torch['version']}"
                if "gemm_s" in torch else torch.get("error", "no torch")) + "):", "",
             "| kernel | options | specialized | GPU time | TFLOP/s | of torch.matmul | first 32 rows within bound |",
             "|---|---|---|---|---|---|---|"]
    for row in performance["gemm"]:
        if row.get("error"):
            lines.append(f"| {row['name']} | | | {row['error']} | | | |")
            continue
        options = " ".join(row.get("options", ())) or "(defaults)"
        ratio = f"{row['of_torch']:.1%}" if row.get("of_torch") else ""
        lines.append(f"| {row['name']} | {options} | {', '.join(row.get('specialized', ())) or '-'} | "
                     f"{row['gpu_s'] * 1e3:.3f} ms | {row['tflops']:.1f} | {ratio} | "
                     f"{'yes' if row['rows_checked_within_bound'] else 'NO'} |")
    rounds = performance.get("alternating", {})
    if "rounds" in rounds:
        ratios = ", ".join(f"{r['of_torch']:.1%}" for r in rounds["rounds"])
        lines += ["", f"Alternating rounds (torch.matmul, then {rounds['kernel']}, {len(rounds['rounds'])} times): "
                      f"median {rounds['median_of_torch']:.1%} of torch.matmul (range {rounds['min_of_torch']:.1%} to "
                      f"{rounds['max_of_torch']:.1%}: {ratios}); {rounds['median_tflops']:.0f} against "
                      f"{rounds['torch_median_tflops']:.0f} TFLOP/s."]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("prepare", "run", "table", "all", "launch", "stats"))
    parser.add_argument("path")
    parser.add_argument("--report", help="the report's file (run: default gpu-report.json; launch: none; "
                                         "stats: default gpu-statistics.json)")
    parser.add_argument("--representations", action="store_true",
                        help="stats: also the driver's internal representations, as DIR/<module>.<i>.<name>.txt")
    parser.add_argument("--perf", metavar="RUN_REPORT",
                        help="stats: a `run` report whose GEMM TFLOP/s go beside the statistics")
    parser.add_argument("--only", help="comma-separated case names (default: every case)")
    parser.add_argument("--no-perf", action="store_true", help="leave out the accumulation study and the performance run")
    parser.add_argument("--launches", type=int, default=2000, help="launches per variant of `launch` (default 2000)")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    if args.command in ("prepare", "all"):
        prepare(Path(args.path), only, perf=not args.no_perf)
    if args.command in ("run", "all"):
        return run(Path(args.path), args.report or "gpu-report.json", perf=not args.no_perf)
    if args.command == "table":
        print(table(args.path))
    if args.command == "launch":
        return launch_command(Path(args.path), args.report, args.launches)
    if args.command == "stats":
        return statistics_command(Path(args.path), args.report or "gpu-statistics.json", args.representations,
                                  perf_report=args.perf)
    return 0


if __name__ == "__main__":
    sys.exit(main())
