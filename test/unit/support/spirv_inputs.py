"""Kernels the SPIR-V tests run on: examples/*.cl and the lit tests' kernels, compiled with the `clcoop`
command line (globbed at test time, so new examples and lit tests are covered without edits here)."""

import functools
import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TRIPLES = ("spir64-unknown-unknown", "spir-unknown-unknown")


def example_files():
    return sorted(glob.glob(os.path.join(ROOT, "examples", "*.cl")))


# The examples the default run compiles to SPIR-V (scripts/test.sh, issue 27: 5 minutes): the
# KHR GEMM, saturation, workgroup scope, tensor loads with a decode function, bf16, fp8 and
# reductions; --all and CI take every example.
QUICK_EXAMPLES = {"gemm_f32.cl", "gemm_i8_sat.cl", "gemm_wg.cl", "q4_gemm.cl", "bf16_gemm.cl", "gemm_fp8.cl",
                  "softmax_rows.cl"}


def example_params():
    """example_files() as pytest params, those outside QUICK_EXAMPLES marked slow."""
    return [path if os.path.basename(path) in QUICK_EXAMPLES else pytest.param(path, marks=pytest.mark.slow)
            for path in example_files()]


def _defines_kernel(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        return "kernel" in handle.read()


def lit_cl_files():
    """Lit test sources that define kernels (not lit's Output/ scratch folders)."""
    found = glob.glob(os.path.join(ROOT, "test", "lit", "**", "*.cl"), recursive=True)
    return sorted(path for path in found
                  if os.sep + "Output" + os.sep not in path and _defines_kernel(path))


def lit_ll_files():
    return sorted(glob.glob(os.path.join(ROOT, "test", "lit", "spirv", "*.ll")))


def relative(path):
    return os.path.relpath(path, ROOT)


@functools.lru_cache(maxsize=None)
def clcoop(path, triple, emit_spirv=False, opt_level=0):
    """Run `clcoop <path> -triple <triple> -O<n> [--emit-spirv] -o -`; returns (status, stdout bytes, stderr)."""
    argv = [sys.executable, "-m", "clcoop.cli.compile_main", path, "-triple", triple, f"-O{opt_level}", "-o", "-"]
    if emit_spirv:
        argv.append("--emit-spirv")
    inputs = os.path.join(os.path.dirname(path), "Inputs")
    if os.path.isdir(inputs):           # as the lit RUN lines pass -I %S/Inputs
        argv += ["-I", inputs]
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(argv, capture_output=True, cwd=os.path.dirname(path), env=env, timeout=300)
    return done.returncode, done.stdout, done.stderr.decode("utf-8", "replace")
