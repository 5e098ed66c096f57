"""The random cooperative-matrix kernels (kernel_gen.coop_case, the interpreter's fuzzer
seeds) on the native engine: outputs against the fuzzer's NumPy reference and bit for bit
against the interpreter; the mul-add kernels must run natively (element-wise operations
still fall back, with a reason)."""
import warnings

import numpy as np
import pytest

import clcoop
from clcoop.native.support import NativeFallbackWarning
import kernel_gen as kg
from test_fuzz_interp import COOP_SEEDS

# Differential and fuzz runs: left out of the default test run (docs/testing.md).
pytestmark = pytest.mark.slow


def run(case, engine):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NativeFallbackWarning)
        prog = clcoop.Program(case.source).build(["-O2"], engine=engine)
    args, outputs = [], {}
    for op in case.operands:
        if op.name in case.inputs:
            args.append(case.inputs[op.name].copy())
        else:
            outputs[op.name] = np.full(op.tile_elems * case.tiles, kg.SENTINEL, kg.COOP_DTYPES[op.type])
            args.append(outputs[op.name])
    if case.scalar is not None:
        args.append(case.scalar)
    prog.run("fuzz", case.global_size, case.local_size, *args, subgroup_size=case.subgroup_size)
    return outputs, prog.fuzz


@pytest.mark.parametrize("seed", COOP_SEEDS)
def test_random_coop_kernel_natively(seed):
    case = kg.coop_case(np.random.default_rng(seed))
    native, kernel = run(case, "auto")
    problem = kg.coop_mismatch(case, native, kg.coop_expected(case))
    assert problem is None, problem
    interp, _ = run(case, "interp")
    for name, buf in native.items():
        assert np.array_equal(buf.view(np.uint8), interp[name].view(np.uint8)), name
    if kernel.engine == "interp":
        assert "cooperative" in kernel.fallback_reason
    is_mul_add = "coop_mat_mulAdd" in case.source or "coop_matmul_add" in case.source
    if is_mul_add:
        assert kernel.engine == "native", kernel.fallback_reason


def test_most_seeds_run_natively():
    """26 of the 40 seeds compile natively today (the rest: conversions, matrices in private
    memory at -O2 — each a reason); fewer is a regression."""
    native = 0
    for seed in COOP_SEEDS:
        case = kg.coop_case(np.random.default_rng(seed))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NativeFallbackWarning)
            prog = clcoop.Program(case.source).build(["-O2"], engine="auto")
        native += prog.fuzz.engine == "native"
    assert native >= 26
