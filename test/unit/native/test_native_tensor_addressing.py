"""The tensor addressing's shortcuts (native/tensor_routines.py, issue 29: the tensor loads
were 90% of a flash-attention block): a row-major index divided by a span or view dimension
equal to the row width is (row, column) without dividing; a view without dimensions gives
the span coordinates directly when the spans are positive and their product fits; floor
division and modulo of a in [0, b) are 0 and a. Each way and its division are held to the
interpreter bit for bit on layouts made to meet the conditions and to miss them by one,
and to NumPy on plain tiles."""
import numpy as np
import pytest

from test_native_tensor import assert_same, build, outcome, random_tensor_kernel


def near_the_width(rng, count):
    """Dimensions, spans, strides, clips and offsets around the tile's 8 x 16 (the
    shortcuts' conditions: a span or view dimension of 16 or of the clip width), 0 and
    negative now and then, and a few huge values (a product of spans past 63 bits)."""
    choices = np.array([16, 16, 8, 8, 15, 17, 1, 2, 3, 4, 0, -1, 32, 64])
    v = rng.choice(choices, count)
    v = np.where(rng.random(count) < 0.04, rng.integers(2**20, 2**31 - 1, count), v)
    return v.astype(np.int32)


# The default run: 2 random kernels of each kind (a native build each); --all runs 48.
@pytest.mark.parametrize("seed", list(range(2)) + [pytest.param(s, marks=pytest.mark.slow) for s in range(2, 48)])
@pytest.mark.parametrize("store", [False, True], ids=["load", "store"])
def test_layouts_near_the_shortcuts_bit_for_bit(seed, store):
    rng = np.random.default_rng([2929, seed, store])
    source, count, decode = random_tensor_kernel(rng, store)
    interp, native = build(source, "interp", ["-w"]), build(source, "auto", ["-w"])
    assert native.k.engine == "native", native.k.fallback_reason
    src = (np.arange(4096) % 509).astype(np.float32) * 0.25
    for _ in range(4):
        p = near_the_width(rng, count)
        if decode:
            # A decode function's block pointer past the buffer is checked as a pointer
            # parameter, against every region: natively "an invalid pointer", where the
            # interpreter names the buffer (docs/native.md "What cannot agree"). Keep it in.
            p = np.clip(p, -1, 8).astype(np.int32)

        def launch(program):
            dst = np.full(4096, -1.0, np.float32)
            program.k((32,), (32,), src, dst, p, subgroup_size=16)
            return dst
        assert_same(outcome(interp, launch), outcome(native, launch))


TILES = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef float acc_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float bt_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t L __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
typedef coop_tensor_view_t T __attribute__((coop_tensor_view(2, false, 1, 0)));
kernel void k(global const float *src, global float *a, global float *b, uint rows, uint cols, uint r0, uint c0) {
  L t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), rows, cols);
  acc_t m = coop_mat_load_tensor(src, coop_tensor_layout_slice(t, r0, 8, c0, 16));
  const T transpose = coop_tensor_view_create();
  bt_t n = coop_mat_load_tensor(src, coop_tensor_layout_slice(t, r0, 8, c0, 16), transpose);
  coop_mat_store(a, m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(b, n, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)8);
}
"""


@pytest.mark.parametrize("r0,c0", [(0, 0), (3, 5), (20, 30), (25, 40)])
def test_plain_and_transposed_tiles_against_numpy(r0, c0):
    """An 8 x 16 slice of a 30 x 50 tensor (span 16 = the row width: the shortcut) read as it
    is and through a transposing view (the flash-attention K^T load), the part outside
    the tensor 0 (Constant clamp)."""
    src = np.arange(30 * 50, dtype=np.float32).reshape(30, 50)
    padded = np.zeros((60, 80), np.float32)
    padded[:30, :50] = src
    tile = padded[r0:r0 + 8, c0:c0 + 16]
    results = []
    for engine in ("interp", "auto"):
        program = build(TILES, engine, ["-w"])
        a, b = np.full(128, -1, np.float32), np.full(128, -1, np.float32)
        program.k((16,), (16,), src.reshape(-1), a, b, np.uint32(30), np.uint32(50), np.uint32(r0), np.uint32(c0),
                  subgroup_size=16)
        results.append((a, b))
    assert program.k.engine == "native"
    assert results[0][0].tobytes() == results[1][0].tobytes() and results[0][1].tobytes() == results[1][1].tobytes()
    np.testing.assert_array_equal(results[1][0].reshape(8, 16), tile)
    # View (1, 0): element (i, j) of the 16 x 8 matrix is linear index 8 i + j, whose view
    # coordinates, innermost permuted dimension first, are (j, i): the span's (j, i).
    np.testing.assert_array_equal(results[1][1].reshape(16, 8), tile.T)
