"""Cooperative-matrix values in private memory on the native engine (issue 29): element
access `m[i]` (a matrix whose address is taken) and -O0 IR (every matrix variable an
alloca, loaded and stored) run natively (no fallback), bit for bit as the interpreter (the
reference), with NumPy as the oracle of the element values; an index outside the matrix's
components faults as in the interpreter."""
import functools
import warnings
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import clcoop
from clcoop.errors import RuntimeFault
from clcoop.native.support import NativeFallbackWarning
from test_coop_function_ops import GROUPS, PER_ELEMENT_KERNEL, SUBGROUPS_PER_GROUP
from quick_cases import quick_or_slow

RNG = np.random.default_rng(2917)
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
DTYPES = {"float": np.float32, "half": np.float16, "int": np.int32, "char": np.int8,
          "__bf16": np.dtype(ml_dtypes.bfloat16)}


@functools.lru_cache(maxsize=None)
def build(source, engine, options):
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeFallbackWarning)
        return clcoop.Program(source).build(options=list(options), engine=engine)


def on_both(source, launch, options, name="k"):
    """launch(kernel) -> arrays on the interpreter and natively (engine="auto" must not
    fall back); the arrays' bytes must be equal; returns the native arrays."""
    results = []
    for engine in ("interp", "auto"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", NativeFallbackWarning)
            kernel = getattr(build(source, engine, tuple(options)), name)
            results.append(launch(kernel))
        if engine == "auto":
            assert kernel.engine == "native"
    for k, (x, y) in enumerate(zip(*results)):
        assert np.asarray(x).tobytes() == np.asarray(y).tobytes(), f"array {k} differs"
    return results[1]


# Every component of this work-item's matrix, read, changed and written back through m[i]
# (the loop runs over coop_mat_length, padding components included), and the component
# values and indices recorded per work-item.
ELEMENT_KERNEL = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef {T} mat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, {R}, {C}, {USE})));
kernel void k(global {T} *src, global {T} *dst, global {T} *seen, {T} s) {{
  size_t g = get_group_id(0) * get_num_sub_groups() + get_sub_group_id();
  mat m = coop_mat_load(src + g * {R} * {C}, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t){C});
  uint n = coop_mat_length(m);
  for (uint i = 0; i < n; i++) {{
    seen[get_global_id(0) * n + i] = m[i];
    m[i] = m[i] * s + ({T})1;
  }}
  coop_mat_store(dst + g * {R} * {C}, m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t){C});
}}
"""
USES = {"a": "CLK_COOPERATIVE_MATRIX_A", "b": "CLK_COOPERATIVE_MATRIX_B",
        "accumulator": "CLK_COOPERATIVE_MATRIX_ACCUMULATOR"}


ELEMENT_CASES = [("float", "accumulator", 8, 16), ("half", "b", 16, 16), ("int", "accumulator", 6, 16),
                 ("char", "a", 8, 32), ("__bf16", "accumulator", 8, 16)]


# The default run: every type at -O0 (the matrix in private memory), float and char at -O2;
# --all runs every type at both.
@pytest.mark.parametrize("T, use, R, C, opt", quick_or_slow(
    [(*case, opt) for opt in ("-O2", "-O0") for case in ELEMENT_CASES],
    {(*case, "-O0") for case in ELEMENT_CASES} | {(*case, "-O2") for case in ELEMENT_CASES if case[0] in ("float", "char")}))
def test_element_access_matches_the_interpreter_and_numpy(T, use, R, C, opt):
    S = 16
    G = SUBGROUPS_PER_GROUP * GROUPS
    dtype = np.dtype(DTYPES[T])
    src = (RNG.integers(-20, 20, (G, R, C))).astype(dtype)
    source = ELEMENT_KERNEL.format(T=T, R=R, C=C, USE=USES[use])
    scale = 3

    def launch(k):
        dst = np.zeros((G, R, C), dtype)
        seen = np.zeros(G * S * 64, dtype)
        k((G * S,), (SUBGROUPS_PER_GROUP * S,), src, dst, seen, scale, subgroup_size=S)
        return [dst, seen]
    dst, _ = on_both(source, launch, ["-w", opt])
    expected = src.astype(np.float64) * scale + 1
    np.testing.assert_array_equal(dst.astype(np.float64), expected.astype(dtype).astype(np.float64))


def test_an_index_outside_the_components_faults_as_in_the_interpreter():
    """The same work-item, source location and private variable. (The wording differs: the
    interpreter's &m[i] is a bare address (coop_calls._do_access_chain), which it finds in
    the next work-item's slot ("another work-item's private memory"); natively the access
    is checked against the matrix variable itself: "out-of-bounds read ... element 8".)"""
    source = ELEMENT_KERNEL.format(T="float", R=8, C=16, USE=USES["accumulator"]).replace(
        "seen[get_global_id(0) * n + i] = m[i];", "seen[get_global_id(0) * n + i] = m[i == 5 && get_global_id(0) == 19 ? n : i];")
    faults = []
    for engine in ("interp", "native"):
        program = clcoop.Program(source).build(options=["-w"], engine=engine)
        with pytest.raises(RuntimeFault) as fault:
            program.k((32,), (32,), np.zeros(2 * 128, np.float32), np.zeros(2 * 128, np.float32),
                      np.zeros(32 * 8, np.float32), np.float32(2), subgroup_size=16)
        faults.append((str(fault.value).splitlines()[0], fault.value.work_item))
    (interp, interp_item), (native, native_item) = faults
    assert interp_item == native_item == (19,)
    assert interp.split(" error: ")[0] == native.split(" error: ")[0] == "<source>:9:38:"
    assert "'private variable %m in k'" in interp and "'private variable %m in k'" in native
    assert "out-of-bounds read of float32 at element 8 of buffer 'private variable %m in k' (8 elements)" in native


@pytest.mark.parametrize("R, C", [(8, 16), (6, 16)])
def test_per_element_at_o0_matches_the_interpreter(R, C):
    """test_native_coop2's per-element kernel at -O0: its matrices live in allocas."""
    S = 16
    G = SUBGROUPS_PER_GROUP * GROUPS
    a = RNG.standard_normal(G * R * C).astype(np.float32)
    b = RNG.standard_normal(G * R * C).astype(np.float32)

    def launch(k):
        out, owner = np.zeros(G * R * C, np.float32), np.full(G * R * C, -1, np.int32)
        k((G * S,), (SUBGROUPS_PER_GROUP * S,), a, b, out, owner, np.float32(1.5), subgroup_size=S)
        return [out, owner]
    out, _ = on_both(PER_ELEMENT_KERNEL.format(R=R, C=C), launch, ["-w", "-O0"])
    rows, cols = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    expected = (a.reshape(G, R, C) * np.float32(1.5) + b.reshape(G, R, C)) + (rows * 1000 + cols).astype(np.float32)
    np.testing.assert_array_equal(out.reshape(G, R, C), expected)


@pytest.mark.parametrize("example, dtype", [("gemm_f32.cl", np.float32), ("bf16_gemm.cl", DTYPES["__bf16"])])
def test_gemm_examples_at_o0_match_the_interpreter(example, dtype):
    source = (EXAMPLES / example).read_text()
    M, N, K = 16, 32, 32
    a = RNG.integers(-4, 5, (M, K)).astype(dtype)
    b = RNG.integers(-4, 5, (K, N)).astype(dtype)
    out_type = np.float32

    def launch(k):
        c = np.zeros((M, N), out_type)
        if example == "bf16_gemm.cl":
            cb = np.zeros((M, N), dtype)
            k((N // 16 * 16, M // 8), (16, 1), a, b, c, cb, M, N, K, subgroup_size=16)
            return [c, cb]
        k((N // 16 * 16, M // 8), (16, 1), a, b, c, M, N, K, 0, subgroup_size=16)
        return [c]
    c = on_both(source, launch, ["-O0"], name=example[:-len(".cl")])[0]
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b.astype(np.float64))


SCALE_KERNEL = """
typedef float mat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void k(global float *x, global float *out, float s) {
  mat m = coop_mat_load(x, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(out, m * S, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


def test_scalar_multiply_by_an_argument_at_o0_runs_natively():
    """At -O0 the argument is stored to a private variable and loaded back: still the same
    in every work-item (its one store is of the argument)."""
    x = RNG.standard_normal(128).astype(np.float32)
    out, = on_both(SCALE_KERNEL.replace("* S", "* s"), lambda k: [k((16,), (16,), x, o := np.zeros(128, np.float32),
                                                                  np.float32(-1.5), subgroup_size=16) or o], ["-O0"])
    np.testing.assert_array_equal(out, x * np.float32(-1.5))


def test_scalar_multiply_by_a_varying_value_still_falls_back():
    source = SCALE_KERNEL.replace("* S", "* (s + (float)get_local_id(0))")
    with pytest.warns(NativeFallbackWarning, match="scalar multiply by a value that may differ"):
        clcoop.Program(source).build(options=["-O0"], engine="auto")


HELPERS = """
typedef float mat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
mat twice_plus_one(mat m) {
  for (uint i = 0; i < coop_mat_length(m); ++i) m[i] = 2.0f * m[i] + 1.0f;
  return m;
}
mat negate(mat m) { return -m * 3.0f; }
mat load(global float *x) { return coop_mat_load(x, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16); }
kernel void k(global float *x, global float *out) {
  mat m = coop_mat_load(x, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(out, negate(twice_plus_one(m)), CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
kernel void loads_in_a_helper(global float *x, global float *out) {
  coop_mat_store(out, load(x), CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


def test_matrix_values_in_called_functions_at_o0_run_natively():
    """At -O0 nothing is inlined: functions taking and returning matrices (element access,
    element-wise operations) are plain per-work-item code."""
    x = RNG.standard_normal(128).astype(np.float32)
    source = HELPERS.split("kernel void loads_in_a_helper")[0]
    out, = on_both(source, lambda k: [k((16,), (16,), x, o := np.zeros(128, np.float32), subgroup_size=16) or o],
                   ["-O0"])
    np.testing.assert_array_equal(out, -(2 * x + 1) * np.float32(3))


def test_a_sub_group_operation_in_a_called_function_still_falls_back():
    """A load needs the whole sub-group (a rendezvous), which only a kernel's coroutine does."""
    with pytest.warns(NativeFallbackWarning, match="operation of the whole sub-group in the called function @load"):
        program = clcoop.Program(HELPERS).build(options=["-O0"], engine="auto")
    assert program.loads_in_a_helper.engine == "interp"
