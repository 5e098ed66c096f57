"""A subgroup-scope matrix larger than the fast path holds as one vector
(matrix_tiles.MAX_TILE_ELEMENTS) runs on the per-work-item path: the fast path made a
512 x 512 tile one vector of 262,144 elements, and LLVM -O3 over it took more than 15
CPU-minutes and 20 GB before it was killed (test_native_second_generation's run of
test_workgroup_scope's sizes)."""
import numpy as np
import pytest

import clcoop
from clcoop.native import matrix_tiles
from clcoop.native.support import Unsupported

KERNEL = r"""
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef float mat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, M, N,
                                          CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void scale(global float *x, global float *out) {
    mat m = coop_mat_load(x, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
    m = m * 2.0f + m;
    coop_mat_store(out, m, CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR, (size_t)M);
}
"""


def test_a_tile_over_the_limit_is_not_one_vector():
    text = 'target("spirv.CooperativeMatrixKHR", float, 3, 128, 64, 2)'
    with pytest.raises(Unsupported, match="8192 elements, more than the 4096"):
        matrix_tiles.logical_vector(text)
    assert matrix_tiles.logical_vector(text.replace("128, 64", "64, 64")) == "<4096 x float>"


@pytest.mark.parametrize("M, N", [(512, 512), (64, 64)])
def test_large_tiles_run_natively_and_equal_numpy(M, N):
    X = np.random.default_rng(3).uniform(-4, 4, (M, N)).astype(np.float32)
    prog = clcoop.Program(KERNEL).build(options=[f"-DM={M}", f"-DN={N}"], engine="native")
    out = np.zeros((N, M), np.float32)
    prog.scale((16,), (16,), X, out, subgroup_size=16)
    np.testing.assert_array_equal(out, (X * 2 + X).T)
    assert prog.scale.fallback_reason is None
    native = prog._native
    if M * N > matrix_tiles.MAX_TILE_ELEMENTS:
        assert native.execution_mode("scale") != "subgroup"
        assert "more than the 4096" in native.native.plans["scale"].subgroup_reason
    else:
        assert native.execution_mode("scale") == "subgroup"


def test_a_matrix_too_wide_per_work_item_is_refused_not_a_crash():
    """A 1024 x 1024 subgroup-scope matrix over 16 work-items is 65,536 components each: LLVM's
    instruction selection aborted the whole process on that vector ("too many operands to fit
    into SDNode"). The native engine now refuses it with the reason (engine="auto" runs it in
    the interpreter). In a child process, so that the old abort fails this test only."""
    import subprocess
    import sys
    import textwrap
    child = textwrap.dedent(f'''
        import numpy as np
        import clcoop
        x, out = np.zeros((1024, 1024), np.float32), np.zeros((1024, 1024), np.float32)
        try:
            clcoop.Program({KERNEL!r}).build(options=["-DM=1024", "-DN=1024"], engine="native").scale(
                (16,), (16,), x, out, subgroup_size=16)
        except clcoop.ArgumentError as exc:
            print("refused:", exc)
        prog = clcoop.Program({KERNEL!r}).build(options=["-DM=1024", "-DN=1024"], engine="auto")
        print("auto:", prog.scale.engine, prog.scale.fallback_reason)
    ''')
    run = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "refused:" in run.stdout and "65536 components per work-item, more than the 16384" in run.stdout
    assert "auto: interp" in run.stdout
