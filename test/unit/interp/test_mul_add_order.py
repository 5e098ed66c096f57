"""A float mul-add's bits do not depend on batching (docs/design.md, "Float mul-add
summation order"): every tile is summed in the order of one BLAS call of the tile's own
shape, whether the subgroups run together (coopmat.mul_add_factored: one product of the
distinct tiles), one at a time (`serial_subgroups=True`, the oracle of docs/testing.md) or
in a launch of one work-group. Before the fix, OpenBLAS's small-matrix sgemm summed tiles of
at most 8 columns with K >= 32 in 16 interleaved chains and the large product of the
factored path in one, so a launch's bits depended on whether it was factored (thousands of
elements of a 64 x 64 GEMM at 16x8x32)."""
import ml_dtypes
import numpy as np
import pytest

import clcoop
from clcoop.interp import coopmat, coopmat2

KERNEL = r"""
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
#define ROW CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
typedef AB mA __attribute__((coop_mat(SG, TM, TK, CLK_COOPERATIVE_MATRIX_A)));
typedef AB mB __attribute__((coop_mat(SG, TK, TN, CLK_COOPERATIVE_MATRIX_B)));
typedef CT mC __attribute__((coop_mat(SG, TM, TN, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void gemm(global AB *A, global AB *B, global CT *C, int N, int K) {
  size_t tc = get_global_id(0) / get_sub_group_size(), tr = get_global_id(1);
  mC acc = coop_mat_init((CT)0);
  for (int k = 0; k < K; k += TK) {
    mA a = coop_mat_load(A + tr * TM * K + k, ROW, (size_t)K);
    mB b = coop_mat_load(B + k * N + tc * TN, ROW, (size_t)N);
    acc = coop_mat_mulAdd(a, b, acc);
  }
  coop_mat_store(C + tr * TM * N + tc * TN, acc, ROW, (size_t)N);
}
"""

S = 16
TYPES = {"float": (np.float32, np.float32), "half": (np.float16, np.float32),
         "__bf16": (np.dtype(ml_dtypes.bfloat16), np.float32), "double": (np.float64, np.float64)}
# (TM, TN, TK): the first three are summed in 16 chains per tile by OpenBLAS's AVX-512
# small-matrix sgemm and in one by a large product; 16x16x64 and the examples' 8x16x16
# in one chain either way.
SHAPES = [(16, 8, 32), (8, 8, 64), (8, 4, 40), (16, 16, 64), (8, 16, 16)]


def gemm_inputs(ab, TM, TN, TK, rows, cols):
    """A (M x 2TK) and B (2TK x N) for rows x cols tiles of C, with values of spread
    magnitudes so that any two summation orders round differently."""
    M, N, K = rows * TM, cols * TN, 2 * TK
    rng = np.random.default_rng(TM * 1000 + TN * 10 + TK)

    def draw(shape):
        return (rng.standard_normal(shape) * np.exp2(rng.integers(-8, 9, shape))).astype(ab)
    return draw((M, K)), draw((K, N)), M, N, K


def run_gemm(kernel, A, B, c_dtype, M, N, K, TM, TN, rows, cols, **options):
    """C of a launch covering `rows` x `cols` tiles (one subgroup per work-group)."""
    C = np.zeros((M, N), c_dtype)
    kernel((cols * S, rows), (S, 1), A, B, C, np.int32(N), np.int32(K), subgroup_size=S, **options)
    return C


def bits(x):
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("ab", ["float", "half", "__bf16", "double"])
def test_mul_add_bits_do_not_depend_on_batching(ab, shape):
    TM, TN, TK = shape
    ab_dtype, c_dtype = TYPES[ab]
    ct = "double" if c_dtype == np.float64 else "float"
    kernel = clcoop.Program(KERNEL).build(
        options=f"-DAB={ab} -DCT={ct} -DTM={TM} -DTN={TN} -DTK={TK}").gemm
    rows, cols = 4, 8
    A, B, M, N, K = gemm_inputs(ab_dtype, TM, TN, TK, rows, cols)
    together = run_gemm(kernel, A, B, c_dtype, M, N, K, TM, TN, rows, cols)
    serial = run_gemm(kernel, A, B, c_dtype, M, N, K, TM, TN, rows, cols, serial_subgroups=True)
    differing = int((bits(together) != bits(serial)).sum())
    assert differing == 0, f"{differing} of {together.size} elements differ from the serial run"
    # The first tile alone, in a launch of one work-group.
    alone = run_gemm(kernel, A, B, c_dtype, M, N, K, TM, TN, 1, 1)
    np.testing.assert_array_equal(bits(alone[:TM, :TN]), bits(together[:TM, :TN]))
    # And they are the per-tile reference's, one mul-add per K step.
    np.testing.assert_array_equal(bits(together[:TM, :TN]),
                                  bits(reference_tile(A[:TM], B[:, :TN], c_dtype, TK)))


def reference_tile(a, b, c_dtype, TK):
    """The tile's K steps through the interpreter's per-tile mul-add (bf16: coopmat2's)."""
    acc = np.zeros((1, a.shape[0], b.shape[1]), c_dtype)
    for k in range(0, a.shape[1], TK):
        x, y = a[None, :, k:k + TK], b[None, k:k + TK, :]
        if x.dtype == coopmat2.BFLOAT16:
            acc = coopmat2.bfloat16_mul_add(x, y, acc, c_dtype)
        else:
            acc = coopmat.mul_add(x, y, acc, 0, c_dtype)
    return acc[0]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("work", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("grid", [(1, 2), (4, 4), (8, 16), (16, 8)], ids=lambda g: "x".join(map(str, g)))
def test_factored_mul_add_is_bit_equal_to_per_tile(work, shape, grid):
    """mul_add_factored gives mul_add's bits for every grid of distinct tiles (or declines)."""
    TM, TN, TK = shape
    Da, Db = grid
    rng = np.random.default_rng(Da * 31 + Db)
    a_tiles = (rng.standard_normal((Da, TM, TK)) * np.exp2(rng.integers(-8, 9, (Da, TM, TK)))).astype(work)
    b_tiles = (rng.standard_normal((Db, TK, TN)) * np.exp2(rng.integers(-8, 9, (Db, TK, TN)))).astype(work)
    c_dtype = np.float64 if work == np.float64 else np.float32
    a_index, b_index = np.repeat(np.arange(Da), Db), np.tile(np.arange(Db), Da)
    c = rng.standard_normal((Da * Db, TM, TN)).astype(c_dtype)
    want = coopmat.mul_add(a_tiles[a_index], b_tiles[b_index], c, 0, c_dtype)
    for keep_grid in (False, True):
        got = coopmat.mul_add_factored((a_tiles, a_index), (b_tiles, b_index), c, 0, c_dtype,
                                       keep_grid=keep_grid)
        if got is None:
            continue
        got = got.logical() if isinstance(got, coopmat.Grid) else got
        np.testing.assert_array_equal(bits(got), bits(want))
