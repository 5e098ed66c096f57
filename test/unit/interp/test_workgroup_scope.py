"""Workgroup-scope cooperative matrices end to end (kernels/workgroup_scope.cl): every KHR
operation against NumPy at several local sizes and shapes (also shapes that do not divide
over the work-group), element access and coop_mat_length against `clcoop-layout --scope
workgroup --json`, uniformity faults, the serial_subgroups oracle, and that engine="auto"
runs them natively."""
import contextlib
import io
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import clcoop
from clcoop.cli import layout_main
from clcoop.errors import RuntimeFault

KERNELS = Path(__file__).resolve().parents[1] / "kernels" / "workgroup_scope.cl"
RNG = np.random.default_rng(2014)

# (M, N, K, local size): divisible and non-divisible shapes, work-groups of several
# sub-groups, of one partial sub-group (12 < S), with a trailing partial sub-group (40),
# and two-dimensional local sizes.
SHAPES = [
    (32, 32, 16, (64, 1)),
    (20, 12, 10, (48, 1)),
    (5, 7, 3, (16, 4)),
    (16, 16, 16, (12, 1)),
    (24, 8, 8, (40, 1)),
    (48, 40, 24, (32, 2)),
]
SHAPE_IDS = [f"{m}x{n}x{k}-wg{'x'.join(map(str, l))}" for m, n, k, l in SHAPES]


def build(M, N, K, local, ab="float", acc="float", options=()):
    defines = [f"-DM={M}", f"-DN={N}", f"-DK={K}", f"-DLX={local[0]}", f"-DLY={local[1]}",
               f"-DAB={ab}", f"-DACC={acc}"]
    return clcoop.Program(KERNELS.read_text()).build(options=defines + list(options))


def launch_sizes(local, groups):
    """Two work-groups along dimension 0 and `groups // 2` along dimension 1."""
    return (local[0] * 2, local[1] * (groups // 2)), local


@pytest.mark.parametrize("M, N, K, local", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("S", [pytest.param(8, marks=pytest.mark.slow), 16])       # 8: slow (docs/testing.md)
def test_mul_add_float(M, N, K, local, S):
    groups = 4
    A = RNG.standard_normal((groups, M, K)).astype(np.float32)
    B = RNG.standard_normal((groups, K, N)).astype(np.float32)
    C = RNG.standard_normal((groups, M, N)).astype(np.float32)
    out = np.zeros_like(C)
    gsize, lsize = launch_sizes(local, groups)
    # B is read column-major: pass B^T row-major.
    build(M, N, K, local).mul_add(gsize, lsize, A, np.ascontiguousarray(B.transpose(0, 2, 1)),
                                  C, out, subgroup_size=S)
    np.testing.assert_allclose(out, A @ B + C, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("M, N, K, local", [SHAPES[0], SHAPES[1], SHAPES[5]], ids=[SHAPE_IDS[0], SHAPE_IDS[1], SHAPE_IDS[5]])
def test_mul_add_int8_and_half(M, N, K, local):
    groups = 2
    gsize, lsize = launch_sizes(local, groups)
    A = RNG.integers(-128, 128, (groups, M, K)).astype(np.int8)
    B = RNG.integers(-128, 128, (groups, K, N)).astype(np.int8)
    C = RNG.integers(-1000, 1000, (groups, M, N)).astype(np.int32)
    out = np.zeros_like(C)
    build(M, N, K, local, "char", "int").mul_add(
        gsize, lsize, A, np.ascontiguousarray(B.transpose(0, 2, 1)), C, out)
    np.testing.assert_array_equal(out, A.astype(np.int64) @ B.astype(np.int64) + C)
    Ah = RNG.standard_normal((groups, M, K)).astype(np.float16)
    Bh = RNG.standard_normal((groups, K, N)).astype(np.float16)
    Cf = RNG.standard_normal((groups, M, N)).astype(np.float32)
    outf = np.zeros_like(Cf)
    build(M, N, K, local, "half", "float").mul_add(
        gsize, lsize, Ah, np.ascontiguousarray(Bh.transpose(0, 2, 1)), Cf, outf)
    np.testing.assert_allclose(outf, Ah.astype(np.float32) @ Bh.astype(np.float32) + Cf,
                               rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("M, N, K, local", [SHAPES[0], SHAPES[1], SHAPES[2]],
                         ids=SHAPE_IDS[:3])
def test_mul_add_of_tiles_shared_by_all_work_groups(M, N, K, local):
    groups = 8
    A = RNG.standard_normal((M, K)).astype(np.float32)
    B = RNG.standard_normal((K, N)).astype(np.float32)
    C = RNG.standard_normal((groups, M, N)).astype(np.float32)
    out = np.zeros_like(C)
    gsize, lsize = launch_sizes(local, groups)
    build(M, N, K, local).shared_mul_add(gsize, lsize, A, np.ascontiguousarray(B.T), C, out)
    np.testing.assert_allclose(out, 2 * (A @ B) + C, rtol=1e-5, atol=1e-5)


def elementwise_expected(X, Y, alpha):
    return [X + Y, X - Y, X * Y, X / Y, -X, X * alpha, 2 * X + 1, np.full_like(X, 3.0),
            np.trunc(X).astype(np.int32).astype(np.float32)]


@pytest.mark.parametrize("options", [[], pytest.param(["-cl-opt-disable"], marks=pytest.mark.slow)], ids=["O2", "O0"])
@pytest.mark.parametrize("M, N, K, local", SHAPES, ids=SHAPE_IDS)
def test_elementwise_init_access_and_conversions(M, N, K, local, options):
    groups = 2
    X = RNG.uniform(-10, 10, (groups, M, N)).astype(np.float32)
    Y = RNG.uniform(1, 4, (groups, M, N)).astype(np.float32)
    alpha = np.float32(0.5)
    out = np.zeros((groups, 9, M, N), np.float32)
    out_int = np.zeros((groups, M, N), np.int32)
    out_col = np.zeros((groups, N, M), np.float32)
    gsize, lsize = launch_sizes(local, groups)
    build(M, N, K, local, options=options).elementwise(gsize, lsize, X, Y, alpha, out, out_int,
                                                       out_col, subgroup_size=16)
    for g in range(groups):
        for index, want in enumerate(elementwise_expected(X[g], Y[g], alpha)):
            np.testing.assert_allclose(out[g, index], want, rtol=1e-6,
                                       err_msg=f"work-group {g}, result {index}")
    np.testing.assert_array_equal(out_int, np.trunc(X).astype(np.int32))
    np.testing.assert_array_equal(out_col, X.transpose(0, 2, 1))


def layout_json(M, N, local, S):
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        status = layout_main.main(["--scope", "workgroup", "--local-size", f"{local[0]},{local[1]}",
                                   "--rows", str(M), "--cols", str(N), "--subgroup-size", str(S),
                                   "--json"])
    assert status == 0
    return json.loads(stdout.getvalue())


@pytest.mark.parametrize("M, N, K, local", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("S", [pytest.param(8, marks=pytest.mark.slow), 16, pytest.param(32, marks=pytest.mark.slow)])
def test_element_access_and_length_agree_with_clcoop_layout(M, N, K, local, S):
    """m[i] and coop_mat_length in the kernel, `clcoop-layout --scope workgroup` and the
    design (each element held once, the same length everywhere) agree."""
    W = local[0] * local[1]
    groups = 2
    X = (np.arange(M * N, dtype=np.float32) + 1).reshape(M, N)
    table = layout_json(M, N, local, S)
    V = table["length"]
    elems = np.full((groups, W, V), -1, np.float32)
    length = np.zeros((groups, W), np.uint32)
    gsize, lsize = launch_sizes(local, groups)
    build(M, N, K, local).elements(gsize, lsize, X, elems, length, subgroup_size=S)
    assert (length == V).all()
    assert table["work_group_size"] == W and len(table["work_items"]) == W
    expected = np.array([[0 if cell is None else cell[0] * N + cell[1] + 1 for cell in item]
                         for item in table["work_items"]], np.float32)
    for g in range(groups):
        np.testing.assert_array_equal(elems[g], expected)
    held = np.sort(expected[expected > 0])
    np.testing.assert_array_equal(held, np.arange(M * N) + 1)
    # The design: the rows are cut into one tile per whole sub-group, in order.
    tiles = max(1, W // S)
    tile_rows = -(-M // tiles)
    rows_of_item = [{cell[0] for cell in item if cell is not None} for item in table["work_items"]]
    for w, rows in enumerate(rows_of_item):
        assert all(r // tile_rows == w // S for r in rows)


@pytest.mark.parametrize("M, N, K, local", [SHAPES[1], SHAPES[2], SHAPES[4]],
                         ids=[SHAPE_IDS[1], SHAPE_IDS[2], SHAPE_IDS[4]])
def test_results_do_not_depend_on_batching(M, N, K, local):
    """serial_subgroups runs one whole work-group per batch for workgroup-scope kernels."""
    groups = 4
    X = RNG.uniform(-10, 10, (groups, M, N)).astype(np.float32)
    Y = RNG.uniform(1, 4, (groups, M, N)).astype(np.float32)
    prog = build(M, N, K, local)
    gsize, lsize = launch_sizes(local, groups)
    results = []
    for serial in (False, True):
        out = np.zeros((groups, 9, M, N), np.float32)
        out_int = np.zeros((groups, M, N), np.int32)
        out_col = np.zeros((groups, N, M), np.float32)
        prog.elementwise(gsize, lsize, X, Y, np.float32(0.25), out, out_int, out_col,
                         serial_subgroups=serial, max_lanes=local[0] * local[1] * 3)
        results.append((out, out_int, out_col))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_branch_uniform_per_work_group_runs():
    M, N, K, local = 20, 12, 10, (48, 1)
    groups = 4
    X = RNG.uniform(-10, 10, (groups, M, N)).astype(np.float32)
    out = np.zeros_like(X)
    gsize, lsize = launch_sizes(local, groups)
    build(M, N, K, local).per_group_branch(gsize, lsize, X, out)
    want = np.where((np.arange(groups) % 2 == 1)[:, None, None], X * 2, -X)
    np.testing.assert_array_equal(out, want)


def test_operation_in_part_of_the_work_group_faults():
    M, N, K, local = 16, 16, 16, (64, 1)
    X = np.ones((M, N), np.float32)
    out = np.zeros_like(X)
    prog = build(M, N, K, local)
    with pytest.raises(RuntimeFault) as info:
        prog.divergent((64,), (64,), X, out, np.uint32(40))
    message = str(info.value)
    assert "reached by only part of the work-group (40 of 64 work-items active; e.g. local " \
           "linear id 40 is not)" in message
    assert info.value.work_item == (0,)
    # Not reached by a subgroup alone either: 16 of 64 (one whole subgroup) still faults.
    with pytest.raises(RuntimeFault, match="16 of 64 work-items active"):
        prog.divergent((64,), (64,), X, out, np.uint32(16))
    prog.divergent((64,), (64,), X, out, np.uint32(64))
    np.testing.assert_array_equal(out, X)


def test_nonuniform_pointer_faults_naming_the_work_item():
    M, N, K, local = 8, 8, 8, (32, 1)
    X = np.ones(M * N + 1, np.float32)
    out = np.zeros((M, N), np.float32)
    with pytest.raises(RuntimeFault) as info:
        build(M, N, K, local).nonuniform_pointer((64,), (32,), X, out)
    assert "operand 'pointer' must be uniform across the work-group" in str(info.value)
    assert info.value.work_item == (31,)


def test_native_engine_runs_workgroup_scope(shared_builds):
    """engine="auto" runs workgroup-scope kernels natively (issue 29;
    test_native_workgroup_scope compares them with the interpreter, on this build)."""
    M, N, K, local = 20, 12, 10, (48, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prog = shared_builds.build(KERNELS.read_text(), "auto", (
            f"-DM={M}", f"-DN={N}", f"-DK={K}", "-DLX=48", "-DLY=1", "-DAB=float", "-DACC=float", "-w"))
        kernel = prog.kernel("per_group_branch")
        X = RNG.uniform(-10, 10, (2, M, N)).astype(np.float32)
        out = np.zeros_like(X)
        kernel((96,), (48,), X, out)
    assert kernel.engine == "native"
    np.testing.assert_array_equal(out, np.stack([-X[0], 2 * X[1]]))


SIZE_KERNEL = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef float mat __attribute__((coop_mat(SCOPE, M, N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
__attribute__((reqd_work_group_size(LX, 1, 1)))
kernel void scale(global const float *x, global float *out, global uint *length)
{
    mat m = coop_mat_load(x, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
    m = m * 2.0f + m;
    coop_mat_store(out, m, CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR, (size_t)M);
    length[get_local_id(0)] = coop_mat_length(m);
}
"""


SUBGROUP_16 = ("CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP", 16)
WORKGROUP_64 = ("CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP", 64)


@pytest.mark.parametrize("M, N, scope, local", [
    (M, N) + scope for M, N in [(1, 1), (1, 4096), (4096, 1), (512, 512), (37, 1000)]
    for scope in (SUBGROUP_16, WORKGROUP_64)] + [
    pytest.param(4096, 4096, "CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP", 256, marks=pytest.mark.slow)])
def test_sizes_up_to_the_maximum(M, N, scope, local):
    """docs/layout.md "Sizes": rows and columns up to 4096 at both scopes (4096 x 4096 at
    subgroup scope runs too, in ~10 s: tried by hand, not in the suite)."""
    X = RNG.uniform(-4, 4, (M, N)).astype(np.float32)
    out = np.zeros((N, M), np.float32)
    length = np.zeros(local, np.uint32)
    prog = clcoop.Program(SIZE_KERNEL).build(options=[f"-DSCOPE={scope}", f"-DM={M}", f"-DN={N}",
                                                      f"-DLX={local}"])
    prog.scale((local,), (local,), X, out, length, subgroup_size=16)
    np.testing.assert_array_equal(out, (X * 2 + X).T)
    assert (length == length[0]).all() and length[0] * local >= M * N


def test_debug_show_of_a_workgroup_matrix():
    """clcoop.interp.debug.show lays a workgroup-scope value out per work-item of the
    work-group (by local linear id) and as the logical matrix."""
    from clcoop.interp.debug import show
    from clcoop.ir.wg_layout import get_workgroup_layout
    layout = get_workgroup_layout(5, 4, 2, "float", 4, 12)
    logical = (np.arange(20, dtype=np.float32) + 1).reshape(1, 5, 4)
    lanes = layout.from_logical(logical).reshape(12, -1)
    text = show(lanes, 'target("spirv.CooperativeMatrixKHR", float, 2, 5, 4, 2)', 4,
                work_group_size=12)
    lines = text.splitlines()
    start = lines.index("work-group 0 per work-item:")
    assert lines[start + 1].split() == ["p"] + [str(w) for w in range(12)]
    # Work-item 8 holds (4, 0) = 17 and (4, 2) = 19; work-item 9 only padding.
    assert lines[start + 2].split()[9:11] == ["17.0", "-"]
    assert lines[start + 3].split()[9:11] == ["19.0", "-"]
    assert "work-group 0 logical 5x4:" in text
    with pytest.raises(clcoop.ClcoopError, match="depends on the work-group size"):
        show(lanes, 'target("spirv.CooperativeMatrixKHR", float, 2, 5, 4, 2)', 4)


@pytest.mark.parametrize("M, N, K, local", SHAPES, ids=SHAPE_IDS)
def test_reduce_per_element_and_coordinates_at_workgroup_scope(M, N, K, local):
    """The operations of issue 13 inherit the workgroup grouping and layout: reductions and
    per-element functions against NumPy, each element's function run by the work-item that
    holds it, and coop_mat_get_coord equal to `clcoop-layout --scope workgroup`."""
    W, S, groups = local[0] * local[1], 16, 2
    X = RNG.integers(-50, 50, (groups, M, N)).astype(np.float32)
    sums = np.zeros_like(X)
    affined = np.zeros_like(X)
    owner = np.full((groups, M, N), -1, np.int32)
    table = layout_json(M, N, local, S)
    V = table["length"]
    coords = np.zeros((groups, W, V, 2), np.uint32)
    gsize, lsize = launch_sizes(local, groups)
    build(M, N, K, local).matrix2_ops(gsize, lsize, X, sums, affined, owner, coords, subgroup_size=S)
    np.testing.assert_array_equal(sums, np.broadcast_to(X.sum(axis=2, keepdims=True), X.shape))
    rows, cols = np.indices((M, N))
    np.testing.assert_array_equal(affined, X * 2 + (rows * 1000 + cols))
    holder = np.full((M, N), -1)
    for w, item in enumerate(table["work_items"]):
        for cell in item:
            if cell is not None:
                holder[cell[0], cell[1]] = w
    for g in range(groups):
        np.testing.assert_array_equal(owner[g], holder)
    expected = np.array([[(M, N) if cell is None else tuple(cell) for cell in item]
                         for item in table["work_items"]], np.uint32)
    for g in range(groups):
        np.testing.assert_array_equal(coords[g], expected)


LOCAL_3D_KERNEL = """
typedef float mat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP, 7, 5, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
__attribute__((reqd_work_group_size(LX, LY, LZ)))
kernel void k(global const float *x, global float *out) {
  size_t g = get_group_id(0);
  mat m = coop_mat_load(x + g * 35, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)5);
  for (uint i = 0; i < coop_mat_length(m); ++i)
    m[i] = m[i] + 1.0f;
  coop_mat_store(out + g * 35, m * 3.0f, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)5);
}
"""


@pytest.mark.parametrize("local", [(1, 1, 1), (2, 1, 1), (4, 2, 2), (3, 3, 3)])
def test_one_work_item_and_three_dimensional_work_groups(local):
    """A work-group of one work-item holds the whole matrix; X*Y*Z work-items are numbered
    by local linear id."""
    prog = clcoop.Program(LOCAL_3D_KERNEL).build(
        options=["-w", f"-DLX={local[0]}", f"-DLY={local[1]}", f"-DLZ={local[2]}"])
    X = RNG.standard_normal((3, 7, 5)).astype(np.float32)
    out = np.zeros_like(X)
    prog.k((local[0] * 3, local[1], local[2]), local, X, out, subgroup_size=8)
    np.testing.assert_allclose(out, (X + 1) * 3, rtol=1e-6)


CONVERSIONS_KERNEL = """
typedef float acc_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP, M, N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef half a_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP, M, N, CLK_COOPERATIVE_MATRIX_A)));
typedef float b_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP, M, N, CLK_COOPERATIVE_MATRIX_B)));
typedef float t_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP, N, M, CLK_COOPERATIVE_MATRIX_B)));
typedef __bf16 bf_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP, M, N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
__attribute__((reqd_work_group_size(LX, LY, 1)))
kernel void k(global const float *x, global half *as_a, global float *as_b, global float *transposed,
              global __bf16 *as_bf16, global float *back) {
  size_t g = get_group_id(0) + 2 * get_group_id(1);
  acc_t c = coop_mat_load(x + g * M * N, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
  coop_mat_store(as_a + g * M * N, (a_t)c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
  coop_mat_store(as_b + g * M * N, (b_t)c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
  t_t t = coop_mat_transpose(c);
  coop_mat_store(transposed + g * M * N, t, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)M);
  bf_t h = (bf_t)c;
  coop_mat_store(as_bf16 + g * M * N, h, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
  coop_mat_store(back + g * M * N, (acc_t)h, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
}
"""


@pytest.mark.parametrize("M, N, K, local", SHAPES, ids=SHAPE_IDS)
def test_use_conversions_transpose_and_bf16_at_workgroup_scope(M, N, K, local):
    """The conversions of issue 13 (use by cast, transpose, bf16) inherit the workgroup
    grouping and layout: each result against NumPy (bf16 through ml_dtypes' float32
    rounding, exact for these float32 inputs)."""
    import ml_dtypes
    groups = 4
    X = RNG.standard_normal((groups, M, N)).astype(np.float32)
    outs = [np.zeros((groups, M, N), np.float16), np.zeros((groups, M, N), np.float32),
            np.zeros((groups, N, M), np.float32), np.zeros((groups, M, N), ml_dtypes.bfloat16),
            np.zeros((groups, M, N), np.float32)]
    defines = [f"-DM={M}", f"-DN={N}", f"-DLX={local[0]}", f"-DLY={local[1]}"]
    prog = clcoop.Program(CONVERSIONS_KERNEL).build(options=defines)
    gsize, lsize = launch_sizes(local, groups)
    prog.k(gsize, lsize, X, *outs, subgroup_size=8)
    as_a, as_b, transposed, as_bf16, back = outs
    np.testing.assert_array_equal(as_a, X.astype(np.float16))
    np.testing.assert_array_equal(as_b, X)
    np.testing.assert_array_equal(transposed, X.transpose(0, 2, 1))
    np.testing.assert_array_equal(as_bf16.view(np.uint16), X.astype(ml_dtypes.bfloat16).view(np.uint16))
    np.testing.assert_array_equal(back, X.astype(ml_dtypes.bfloat16).astype(np.float32))
