"""Workgroup-scope cooperative matrices on the native engine (issue 29): the kernels of
test_workgroup_scope (kernels/workgroup_scope.cl: load, store, mul-add, element-wise
operators, init, conversions, element access and length, reductions, per-element
functions, coordinates; use conversions, transpose and bf16) run natively (no fallback),
bit for bit as the interpreter, at every shape and work-group size of that test (shapes
that do not divide, work-groups smaller than a sub-group, trailing partial sub-groups, 2-D
and 3-D work-groups); NumPy is the oracle of the values; the uniformity faults."""
import warnings

import ml_dtypes
import numpy as np
import pytest

from clcoop.errors import RuntimeFault
from clcoop.native.support import NativeFallbackWarning
from test_workgroup_scope import (CONVERSIONS_KERNEL, KERNELS, LOCAL_3D_KERNEL, SHAPE_IDS, SHAPES,
                                  launch_sizes)

RNG = np.random.default_rng(2918)
# One shape by default (it does not divide over three sub-groups); the rest slow (each
# shape is a native build of workgroup_scope.cl, seconds).
FAST = {SHAPE_IDS[1]}
CASES = [pytest.param(*shape, id=i, marks=() if i in FAST else pytest.mark.slow)
         for shape, i in zip(SHAPES, SHAPE_IDS)]


_BUILDS = []


@pytest.fixture(autouse=True)
def _session_builds(shared_builds):
    """build() takes its programs from the session's shared_builds: test_workgroup_scope's
    native test launches the build of this file's default shape too."""
    _BUILDS[:] = [shared_builds]


def build(source, engine, options):
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeFallbackWarning)
        return _BUILDS[0].build(source, engine, tuple(options))


def defines(M, N, K, local, ab="float", acc="float"):
    return (f"-DM={M}", f"-DN={N}", f"-DK={K}", f"-DLX={local[0]}", f"-DLY={local[1]}", f"-DAB={ab}",
            f"-DACC={acc}", "-w")


def on_both(source, options, name, launch):
    """launch(kernel) -> arrays on the interpreter and natively (no fallback), equal byte
    for byte; returns the native arrays."""
    results = []
    for engine in ("interp", "auto"):
        kernel = getattr(build(source, engine, tuple(options)), name)
        with warnings.catch_warnings():
            warnings.simplefilter("error", NativeFallbackWarning)
            results.append(launch(kernel))
        if engine == "auto":
            assert kernel.engine == "native", kernel.fallback_reason
    for k, (x, y) in enumerate(zip(*results)):
        assert np.asarray(x).tobytes() == np.asarray(y).tobytes(), f"{name}: array {k} differs"
    return results[1]


@pytest.mark.parametrize("M, N, K, local", CASES)
def test_mul_add_and_shared_mul_add(M, N, K, local):
    source, options = KERNELS.read_text(), defines(M, N, K, local)
    groups = 4
    A = RNG.standard_normal((groups, M, K)).astype(np.float32)
    B = RNG.standard_normal((groups, K, N)).astype(np.float32)
    C = RNG.standard_normal((groups, M, N)).astype(np.float32)
    gsize, lsize = launch_sizes(local, groups)
    Bt = np.ascontiguousarray(B.transpose(0, 2, 1))
    out, = on_both(source, options, "mul_add",
                   lambda k: [k(gsize, lsize, A, Bt, C, o := np.zeros_like(C), subgroup_size=16) or o])
    np.testing.assert_allclose(out, A @ B + C, rtol=1e-5, atol=1e-5)
    out, = on_both(source, options, "shared_mul_add",
                   lambda k: [k(gsize, lsize, A[0], np.ascontiguousarray(B[0].T), C, o := np.zeros_like(C)) or o])
    np.testing.assert_allclose(out, 2 * (A[0] @ B[0]) + C, rtol=1e-5, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("M, N, K, local", CASES)
def test_int8_and_half_mul_add(M, N, K, local):
    groups = 2
    gsize, lsize = launch_sizes(local, groups)
    A = RNG.integers(-128, 128, (groups, M, K)).astype(np.int8)
    B = RNG.integers(-128, 128, (groups, N, K)).astype(np.int8)
    C = RNG.integers(-1000, 1000, (groups, M, N)).astype(np.int32)
    out, = on_both(KERNELS.read_text(), defines(M, N, K, local, "char", "int"), "mul_add",
                   lambda k: [k(gsize, lsize, A, B, C, o := np.zeros_like(C)) or o])
    np.testing.assert_array_equal(out, A.astype(np.int64) @ B.astype(np.int64).transpose(0, 2, 1) + C)
    Ah = RNG.standard_normal((groups, M, K)).astype(np.float16)
    Bh = RNG.standard_normal((groups, N, K)).astype(np.float16)
    Cf = RNG.standard_normal((groups, M, N)).astype(np.float32)
    on_both(KERNELS.read_text(), defines(M, N, K, local, "half", "float"), "mul_add",
            lambda k: [k(gsize, lsize, Ah, Bh, Cf, o := np.zeros_like(Cf)) or o])


@pytest.mark.parametrize("M, N, K, local", CASES)
def test_elementwise_element_access_branches_and_matrix2_operations(M, N, K, local):
    source, options = KERNELS.read_text(), defines(M, N, K, local)
    W, groups = local[0] * local[1], 2
    gsize, lsize = launch_sizes(local, groups)
    X = RNG.uniform(-10, 10, (groups, M, N)).astype(np.float32)
    Y = RNG.uniform(1, 4, (groups, M, N)).astype(np.float32)

    def elementwise(k):
        outs = [np.zeros((groups, 9, M, N), np.float32), np.zeros((groups, M, N), np.int32),
                np.zeros((groups, N, M), np.float32)]
        k(gsize, lsize, X, Y, np.float32(0.5), *outs, subgroup_size=16)
        return outs
    out, out_int, out_col = on_both(source, options, "elementwise", elementwise)
    np.testing.assert_array_equal(out[:, 0], X + Y)
    np.testing.assert_array_equal(out_col, X.transpose(0, 2, 1))

    def elements(k):
        elems, length = np.zeros(groups * W * 256, np.float32), np.zeros(groups * W, np.uint32)
        k(gsize, lsize, (np.arange(M * N, dtype=np.float32) + 1), elems, length, subgroup_size=16)
        return [elems, length]
    elems, length = on_both(source, options, "elements", elements)
    V = int(length[0])
    held = elems[:groups * W * V].reshape(groups, W, V)
    assert sorted(held[0][held[0] > 0].tolist()) == list(range(1, M * N + 1))     # each element once

    out, = on_both(source, options, "per_group_branch",
                   lambda k: [k(gsize, lsize, X, o := np.zeros_like(X)) or o])
    np.testing.assert_array_equal(out, np.where((np.arange(groups) % 2 == 1)[:, None, None], X * 2, -X))

    Xi = RNG.integers(-50, 50, (groups, M, N)).astype(np.float32)

    def matrix2(k):
        outs = [np.zeros_like(Xi), np.zeros_like(Xi), np.full((groups, M, N), -1, np.int32),
                np.zeros((groups, W, V, 2), np.uint32)]
        k(gsize, lsize, Xi, *outs, subgroup_size=16)
        return outs
    sums, affined, _, _ = on_both(source, options, "matrix2_ops", matrix2)
    np.testing.assert_array_equal(sums, np.broadcast_to(Xi.sum(axis=2, keepdims=True), Xi.shape))
    rows, cols = np.indices((M, N))
    np.testing.assert_array_equal(affined, Xi * 2 + (rows * 1000 + cols))


@pytest.mark.parametrize("M, N, K, local", CASES)
def test_use_conversions_transpose_and_bf16(M, N, K, local):
    groups = 4
    X = RNG.standard_normal((groups, M, N)).astype(np.float32)
    gsize, lsize = launch_sizes(local, groups)

    def launch(k):
        outs = [np.zeros((groups, M, N), np.float16), np.zeros((groups, M, N), np.float32),
                np.zeros((groups, N, M), np.float32), np.zeros((groups, M, N), ml_dtypes.bfloat16),
                np.zeros((groups, M, N), np.float32)]
        k(gsize, lsize, X, *outs, subgroup_size=8)
        return outs
    outs = on_both(CONVERSIONS_KERNEL, (f"-DM={M}", f"-DN={N}", f"-DLX={local[0]}", f"-DLY={local[1]}"), "k", launch)
    np.testing.assert_array_equal(outs[2], X.transpose(0, 2, 1))


@pytest.mark.parametrize("local", [pytest.param((1, 1, 1), marks=pytest.mark.slow),
                                   pytest.param((2, 1, 1), marks=pytest.mark.slow), (4, 2, 2),
                                   pytest.param((3, 3, 3), marks=pytest.mark.slow)])
def test_one_work_item_and_three_dimensional_work_groups(local):
    X = RNG.standard_normal((3, 7, 5)).astype(np.float32)
    out, = on_both(LOCAL_3D_KERNEL, ("-w", f"-DLX={local[0]}", f"-DLY={local[1]}", f"-DLZ={local[2]}"), "k",
                   lambda k: [k((local[0] * 3, local[1], local[2]), local, X, o := np.zeros_like(X),
                                subgroup_size=8) or o])
    np.testing.assert_allclose(out, (X + 1) * 3, rtol=1e-6)


def _fault(program, kernel, *args):
    with pytest.raises(RuntimeFault) as info:
        getattr(program, kernel)(*args)
    return str(info.value).splitlines()[0], info.value.work_item


def test_an_operation_in_part_of_the_work_group_faults_as_in_the_interpreter():
    options = defines(16, 16, 16, (64, 1))
    X = np.ones((16, 16), np.float32)
    for limit in (40, 16):      # 16: one whole sub-group alone still faults
        faults = [_fault(build(KERNELS.read_text(), engine, options), "divergent", (64,), (64,), X,
                         np.zeros_like(X), np.uint32(limit)) for engine in ("interp", "native")]
        assert faults[0] == faults[1]
        assert f"reached by only part of the work-group ({limit} of 64 work-items active; e.g. local " \
               f"linear id {limit} is not)" in faults[1][0]
    out = np.zeros_like(X)
    build(KERNELS.read_text(), "native", options).divergent((64,), (64,), X, out, np.uint32(64))
    np.testing.assert_array_equal(out, X)


def test_a_nonuniform_pointer_faults_naming_the_work_item_as_in_the_interpreter():
    options = defines(8, 8, 8, (32, 1))
    faults = [_fault(build(KERNELS.read_text(), engine, options), "nonuniform_pointer", (64,), (32,),
                     np.ones(65, np.float32), np.zeros((8, 8), np.float32)) for engine in ("interp", "native")]
    # The same words but the pointer values (addresses differ between the engines).
    assert [f[0].split("(e.g.")[0] for f in faults] == [faults[0][0].split("(e.g.")[0]] * 2
    assert "operand 'pointer' must be uniform across the work-group" in faults[1][0]
    assert faults[0][1] == faults[1][1] == (31,)


@pytest.mark.parametrize("M, N, K, options", [(70, 45, 37, ()), pytest.param(33, 31, 17, ("-O0",), marks=pytest.mark.slow)])
def test_the_gemm_wg_example_runs_natively_bit_equal(M, N, K, options):
    """examples/gemm_wg.cl: workgroup-scope tiles with tensor loads and clamped edges."""
    from test_examples import EXAMPLES, gemm_wg_launch
    source = (EXAMPLES / "gemm_wg.cl").read_text()
    A = RNG.standard_normal((M, K)).astype(np.float32)
    B = RNG.standard_normal((K, N)).astype(np.float32)
    C = RNG.standard_normal((M, N)).astype(np.float32)
    gsize, lsize = gemm_wg_launch(M, N)
    D, = on_both(source, options, "gemm_wg",
                 lambda k: [k(gsize, lsize, A, B, C, d := np.zeros((M, N), np.float32), M, N, K, np.float32(1.5),
                              np.float32(-0.5), subgroup_size=16) or d])
    np.testing.assert_allclose(D, 1.5 * (A @ B) - 0.5 * C, rtol=1e-4, atol=1e-4)


@pytest.mark.slow
def test_elementwise_at_o0_through_a_called_function():
    """-O0: twice_plus_one(x) takes and returns a workgroup-scope matrix (not inlined); its
    layout is the one work-group size of the kernels calling it."""
    M, N, K, local = 20, 12, 10, (48, 1)
    groups = 2
    gsize, lsize = launch_sizes(local, groups)
    X = RNG.uniform(-10, 10, (groups, M, N)).astype(np.float32)
    Y = RNG.uniform(1, 4, (groups, M, N)).astype(np.float32)

    def elementwise(k):
        outs = [np.zeros((groups, 9, M, N), np.float32), np.zeros((groups, M, N), np.int32),
                np.zeros((groups, N, M), np.float32)]
        k(gsize, lsize, X, Y, np.float32(0.5), *outs, subgroup_size=16)
        return outs
    out, _, _ = on_both(KERNELS.read_text(), defines(M, N, K, local) + ("-cl-opt-disable",), "elementwise",
                        elementwise)
    np.testing.assert_array_equal(out[:, 6], 2 * X + 1)
