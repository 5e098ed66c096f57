"""The main job: compile the f32 GEMM example, run it in the interpreter and check it against NumPy."""
import sys
import time
from pathlib import Path

import numpy as np

import clcoop

ROOT = Path(__file__).resolve().parents[1]


def main(size=128, subgroup_size=16):
    rng = np.random.default_rng(0)
    A = rng.standard_normal((size, size)).astype(np.float32)
    B = rng.standard_normal((size, size)).astype(np.float32)
    C = np.zeros((size, size), np.float32)
    start = time.perf_counter()
    prog = clcoop.Program((ROOT / "examples" / "gemm_f32.cl").read_text()).build()
    compiled = time.perf_counter()
    prog.gemm_f32((size // 16 * subgroup_size, size // 8), (subgroup_size, 1),
                  A, B, C, size, size, size, 0, subgroup_size=subgroup_size)
    ran = time.perf_counter()
    error = float(np.abs(C - A @ B).max())
    print(f"gemm_f32 {size}^3, subgroup size {subgroup_size}: compile {1e3 * (compiled - start):.0f} ms, "
          f"run {1e3 * (ran - compiled):.0f} ms, max |C - A @ B| = {error:.2e}")
    return 0 if error < 1e-3 else 1


if __name__ == "__main__":
    sys.exit(main(*(int(a) for a in sys.argv[1:])))
