"""The random scalar-kernel fuzzer (kernel_gen.scalar_case) on the native engine: the
kernel without its sub-group collective lines (they run natively only on the subgroup-wide
path, which these kernels' barriers and atomics do not take) runs on both engines; `out`
must match the Python reference on the lanes free of undefined behaviour, the work-group
reduction (workgroup_collectives.py) kernel_gen's reference, and every buffer must be
bit-identical between the engines where no lane's result is undefined. Kernels calling built-ins the engine does not take fall back with a
reason; enough seeds must run natively for the test to mean something."""
import warnings

import numpy as np
import pytest

import clcoop
import kernel_gen as kg

# Differential and fuzz runs: left out of the default test run (docs/testing.md).
pytestmark = pytest.mark.slow

SEEDS = range(1000, 1040)
NATIVE = {}


def without_collectives(source):
    return "\n".join(line for line in source.splitlines()
                     if "sub_group_reduce" not in line and "sub_group_scan" not in line
                     and "sub_group_broadcast" not in line)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_scalar_kernel_on_both_engines(seed):
    case = kg.scalar_case(np.random.default_rng(seed))
    source = without_collectives(case.source)
    options = ["-O2"] if seed % 3 == 0 else ["-O0"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        native = clcoop.Program(source).build(options, engine="auto")
    kernel = native.fuzz
    if kernel.engine != "native":
        assert kernel.fallback_reason
        NATIVE[seed] = False
        return
    NATIVE[seed] = True
    interp = clcoop.Program(source).build(options)
    runs = []
    for prog in (native, interp):
        args, *outputs = kg.scalar_buffers(case)
        prog.fuzz(case.global_size, case.local_size, *args, subgroup_size=case.subgroup_size)
        runs.append(outputs)
    expected, defined = kg.scalar_expectation(case)
    (out_n, ids_n, coll_n, mem_n, counters_n, vout_n), (out_i, ids_i, coll_i, mem_i, counters_i, vout_i) = runs
    assert not kg.scalar_mismatches(case, np.where(defined, out_n, expected), expected).size
    # The work-group sum (field 5; the sub-group fields were taken out of the kernel) of
    # each engine's own lane results (lanes with undefined behaviour may differ).
    for coll, out in ((coll_n, out_n), (coll_i, out_i)):
        np.testing.assert_array_equal(coll.reshape(-1, kg.COLL_FIELDS)[:, 5],
                                      kg.collectives_reference(case, out).reshape(-1, kg.COLL_FIELDS)[:, 5])
    np.testing.assert_array_equal(ids_n, ids_i)
    np.testing.assert_array_equal(ids_n, kg.ids_reference(case))
    if defined.all():
        for a, b in ((out_n, out_i), (coll_n, coll_i), (mem_n, mem_i), (counters_n, counters_i), (vout_n, vout_i)):
            assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


def test_enough_fuzz_kernels_run_natively():
    missing = [s for s in SEEDS if s not in NATIVE]
    for seed in missing:
        test_random_scalar_kernel_on_both_engines(seed)
    assert sum(NATIVE.values()) >= 30, NATIVE
