"""clcoop/interp/tensor.py: tensor layout/view operations and the load/store addressing,
against NumPy (np.pad for the clamp modes, slicing, transposes and reshapes for layouts,
slices and views) and the examples of the GLSL_NV_cooperative_matrix2 text."""
import numpy as np
import pytest

from clcoop.coopmat_spec import ClampMode
from clcoop.interp.tensor import (TensorError, TensorLayout, TensorView, assemble_load,
                                  clamp_value_as, store_tensor_check, tensor_addresses)

MODES_AND_PADS = [(ClampMode.CONSTANT, "constant"), (ClampMode.CLAMP_TO_EDGE, "edge"),
                  (ClampMode.REPEAT, "wrap"), (ClampMode.REPEAT_MIRRORED, "reflect")]


def load(tensor, layout, rows, cols, view=None, keep=None):
    """The loaded (rows, cols) matrix: gathers from the flat tensor where valid."""
    access = tensor_addresses(layout, rows, cols, view)
    assert not access.fault.any()
    flat = tensor.reshape(-1)
    gathered = flat[np.where(access.valid, access.index, 0)]
    clamp = clamp_value_as(layout.clamp_value, tensor.dtype)
    keep = np.zeros(access.index.shape, tensor.dtype) if keep is None else keep
    return assemble_load(access, gathered, clamp, keep)


# ---------------------------------------------------------------- layout and view operations

def test_layout_create_and_set_dimension():
    t = TensorLayout.create(3, ClampMode.CONSTANT)
    assert (t.dimension, t.stride, t.offset, t.span, t.block_size, t.clamp_value) == \
        ((0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0), (1, 1, 1), 0)
    t = t.slice(1, 2, 3, 4, 5, 6).set_dimension(4, 5, 6)
    assert t.dimension == t.span == (4, 5, 6) and t.offset == (0, 0, 0) and t.stride == (30, 6, 1)
    blocked = TensorLayout.create(2).set_block_size(1, 32).set_dimension(10, 100)
    assert blocked.stride == (4, 1)              # ceil(100 / 32) blocks per row
    assert TensorLayout.create(2).set_dimension(10, 100).set_block_size(1, 32).stride == (100, 1)


def test_layout_slice_adds_offsets_and_sets_spans():
    t = TensorLayout.create(2).set_dimension(64, 64).slice(8, 16, 0xFFFFFFFE, 32)
    assert t.offset == (8, -2) and t.span == (16, 32)       # a 32-bit operand read as int32
    t = t.slice(4, 8, 4, 8)
    assert t.offset == (12, 2) and t.span == (8, 8) and t.dimension == (64, 64)
    assert t.set_stride(100, 1).stride == (100, 1) and t.set_clamp_value(-1).clamp_value == 0xFFFFFFFF


def test_layout_values_are_immutable():
    t = TensorLayout.create(2)
    t2 = t.set_dimension(4, 4)
    assert t.dimension == (0, 0) and t2.dimension == (4, 4)
    with pytest.raises(Exception):
        t2.dimension = (1, 1)


@pytest.mark.parametrize("call, message", [
    (lambda: TensorLayout.create(2).set_dimension(1, 2, 3), "takes 2 operands after the layout"),
    (lambda: TensorLayout.create(3).slice(0, 1, 0, 1), "takes 6 operands"),
    (lambda: TensorLayout.create(2).set_stride(1), "takes 2 operands after the layout"),
    (lambda: TensorLayout.create(2).set_block_size(1, 0), "at least 1"),
    (lambda: TensorLayout.create(6), "1 to 5 dimensions"),
    (lambda: TensorView.create(0), "1 to 5 dimensions"),
    (lambda: TensorView.create(2, False, (0, 0)), "not a permutation"),
    (lambda: TensorView.create(3).set_stride(1, 2), "takes 3 operands after the view"),
    (lambda: TensorView.create(2).set_clip(0, 1, 2), "takes 4 operands"),
    (lambda: TensorLayout.create(2, 7), "invalid tensor clamp mode 7"),
])
def test_operand_count_and_value_errors(call, message):
    with pytest.raises(TensorError, match=message):
        call()


def test_view_operations():
    v = TensorView.create(3, True, (2, 0, 1))
    assert v.clip == (0, 0xFFFFFFFF, 0, 0xFFFFFFFF) and v.dimension == (0, 0, 0)
    v = v.set_dimension(2, 3, 4)
    assert v.stride == (12, 4, 1)
    assert v.set_stride(1, 2, 3).stride == (1, 2, 3)
    assert v.set_clip(1, 2, 3, 4).clip == (1, 2, 3, 4)


def test_unset_span_is_an_error():
    with pytest.raises(TensorError, match="span of dimension 1 is 0"):
        tensor_addresses(TensorLayout.create(2), 4, 4)


# ---------------------------------------------------------------- clamp modes at every edge

WINDOWS = [(-3, -2), (-1, 0), (0, -4), (2, 3), (3, 5), (-2, 4), (4, -3), (-7, -9), (6, 8), (1, 1)]


@pytest.mark.parametrize("mode, pad_mode", MODES_AND_PADS)
@pytest.mark.parametrize("shape", [(5, 7), (1, 6), (4, 1), (2, 2)])
@pytest.mark.parametrize("window", WINDOWS)
def test_clamp_modes_against_np_pad(mode, pad_mode, shape, window):
    H, W = shape
    rows, cols = 8, 10
    r0, c0 = window
    tensor = np.arange(1, H * W + 1, dtype=np.float32).reshape(H, W) * 1.5
    clamp = np.float32(-7.25)
    layout = TensorLayout.create(2, mode).set_dimension(H, W).slice(r0, rows, c0, cols) \
        .set_clamp_value(int(clamp.view(np.uint32)))
    before, after = (max(0, -r0), max(0, -c0)), (max(0, r0 + rows - H), max(0, c0 + cols - W))
    pad = ((before[0], after[0]), (before[1], after[1]))
    padded = tensor
    for axis in (0, 1):
        # One element along an axis: the only coordinate (RepeatMirrored's period 2*1-2
        # is 0); np.pad's reflect needs two, its edge mode is that coordinate.
        axis_mode = "edge" if pad_mode == "reflect" and shape[axis] == 1 else pad_mode
        kwargs = {"constant_values": clamp} if axis_mode == "constant" else {}
        axis_pad = [(0, 0), (0, 0)]
        axis_pad[axis] = pad[axis]
        padded = np.pad(padded, axis_pad, mode=axis_mode, **kwargs)
    expected = padded[r0 + before[0]:r0 + before[0] + rows, c0 + before[1]:c0 + before[1] + cols]
    np.testing.assert_array_equal(load(tensor, layout, rows, cols), expected)


@pytest.mark.parametrize("mode", list(ClampMode))
def test_stores_discard_out_of_bounds_and_undefined_faults(mode):
    H, W = 5, 7
    layout = TensorLayout.create(2, mode).set_dimension(H, W).slice(-2, 8, 3, 8)
    rows = np.arange(8)[:, None] - 2
    cols = np.arange(8)[None, :] + 3
    inside = (rows >= 0) & (rows < H) & (cols >= 0) & (cols < W)
    store = tensor_addresses(layout, 8, 8, store=True)
    np.testing.assert_array_equal(store.valid, inside)
    np.testing.assert_array_equal(store.index[inside], (rows * W + cols)[inside])
    # Store into a NumPy tensor: exactly the in-bounds elements change.
    tensor = np.zeros((H, W), np.int32)
    matrix = np.arange(64, dtype=np.int32).reshape(8, 8) + 1
    tensor.reshape(-1)[store.index[store.valid]] = matrix[store.valid]
    expected = np.zeros((H + 2, W + 4), np.int32)
    expected[0:8, 3:11] = matrix[: H + 2, :]
    np.testing.assert_array_equal(tensor, expected[2:, :W])
    if mode == ClampMode.UNDEFINED:
        np.testing.assert_array_equal(store.fault, ~inside)
        assert not store.constant.any()
        loads = tensor_addresses(layout, 8, 8)
        np.testing.assert_array_equal(loads.fault, ~inside)
        assert loads.tensor_coord[0, 0].tolist() == [-2, 3]
        assert loads.tensor_coord[7, 7].tolist() == [5, 10]
    else:
        np.testing.assert_array_equal(store.constant, ~inside)
        assert not store.fault.any()


def test_clamp_value_bits_per_component_type():
    assert clamp_value_as(0x3C00, np.float16) == np.float16(1.0)
    assert clamp_value_as(0x3F800000, np.float32) == np.float32(1.0)
    assert clamp_value_as(0xFFFFFFFF, np.int8) == -1
    assert clamp_value_as(0xFFFFFFFF, np.int64) == 0xFFFFFFFF
    assert clamp_value_as(0x12345678, np.uint16) == 0x5678


# ---------------------------------------------------------------- N-D layouts, slices, strides

@pytest.mark.parametrize("dims", [2, 3, 4, 5])
def test_nd_slices_against_numpy(dims):
    rng = np.random.default_rng(dims)
    for _ in range(20):
        shape = tuple(int(s) for s in rng.integers(1, 6, dims))
        offsets = [int(rng.integers(0, s)) for s in shape]
        spans = [int(rng.integers(1, s - o + 1)) for s, o in zip(shape, offsets)]
        tensor = rng.standard_normal(shape).astype(np.float32)
        region = tensor[tuple(slice(o, o + n) for o, n in zip(offsets, spans))]
        cols = spans[-1] * (spans[-2] if dims > 2 and rng.integers(2) else 1)
        rows = region.size // cols
        layout = TensorLayout.create(dims).set_dimension(*shape)
        layout = layout.slice(*[v for pair in zip(offsets, spans) for v in pair])
        np.testing.assert_array_equal(load(tensor, layout, rows, cols), region.reshape(rows, cols))


@pytest.mark.parametrize("dims", [2, 3, 4])
def test_explicit_strides_address_a_padded_buffer(dims):
    rng = np.random.default_rng(10 + dims)
    shape = tuple(int(s) for s in rng.integers(2, 6, dims))
    storage_shape = tuple(s + int(rng.integers(0, 3)) for s in shape)
    storage = rng.standard_normal(storage_shape).astype(np.float32)
    tensor = storage[tuple(slice(0, s) for s in shape)]
    strides = [int(v) // 4 for v in storage.strides]
    layout = TensorLayout.create(dims).set_dimension(*shape).set_stride(*strides)
    cols = shape[-1]
    np.testing.assert_array_equal(load(storage, layout, tensor.size // cols, cols),
                                  tensor.reshape(-1, cols))


@pytest.mark.parametrize("perm", [(0, 1), (1, 0)])
def test_permuted_2d_view(perm):
    tensor = np.arange(6 * 9, dtype=np.float32).reshape(6, 9)
    layout = TensorLayout.create(2).set_dimension(6, 9).slice(1, 4, 2, 5)
    region = tensor[1:5, 2:7]
    expected = np.transpose(region, perm)
    got = load(tensor, layout, *expected.shape, view=TensorView.create(2, False, perm))
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("perm", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (0, 2, 1)])
def test_permuted_3d_views_with_and_without_dimensions(perm):
    rng = np.random.default_rng(sum(p * 3 ** k for k, p in enumerate(perm)))
    tensor = rng.standard_normal((4, 5, 6)).astype(np.float32)
    layout = TensorLayout.create(3).set_dimension(4, 5, 6)
    expected = np.transpose(tensor, perm)
    rows, cols = expected.shape[0] * expected.shape[1], expected.shape[2]
    got = load(tensor, layout, rows, cols, view=TensorView.create(3, False, perm))
    np.testing.assert_array_equal(got, expected.reshape(rows, cols))
    # The same view with explicit dimensions and packed strides.
    view = TensorView.create(3, True, perm).set_dimension(4, 5, 6)
    np.testing.assert_array_equal(load(tensor, layout, rows, cols, view=view), expected.reshape(rows, cols))


def test_view_clip_keeps_the_object_elements():
    tensor = np.arange(100, dtype=np.int32).reshape(10, 10)
    layout = TensorLayout.create(2).set_dimension(10, 10)
    view = TensorView.create(2).set_clip(2, 3, 1, 4)          # rows 2..4, cols 1..4
    keep = np.full((8, 8), -1, np.int32)
    got = load(tensor, layout, 8, 8, view=view, keep=keep)
    expected = keep.copy()
    # Inside the clip: the row-major index relative to the clip, width min(N, clipColSpan) = 4.
    expected[2:5, 1:5] = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(got, expected)
    access = tensor_addresses(layout, 8, 8, view, store=True)
    assert access.clipped.sum() == 64 - 12 and not (access.valid & access.clipped).any()


def test_clip_comes_before_clamping():
    layout = TensorLayout.create(2, ClampMode.UNDEFINED).set_dimension(2, 2)
    view = TensorView.create(2).set_clip(0, 2, 0, 2)
    access = tensor_addresses(layout, 4, 4, view)
    assert not access.fault.any() and access.valid.sum() == 4 and access.clipped.sum() == 12


# ---------------------------------------------------------------- block sizes (decode)

def test_block_coordinates_for_q4_style_blocks():
    K, N, B = 4, 96, 32
    layout = TensorLayout.create(2).set_block_size(1, B).set_dimension(K, N).slice(1, 2, 16, 64)
    access = tensor_addresses(layout, 2, 64)
    rows = np.arange(2)[:, None] + 1
    cols = np.arange(64)[None, :] + 16
    np.testing.assert_array_equal(access.block_coord[..., 0], np.broadcast_to(rows, (2, 64)))
    np.testing.assert_array_equal(access.block_coord[..., 1], np.broadcast_to(cols // B, (2, 64)))
    np.testing.assert_array_equal(access.coord_in_block[..., 1], np.broadcast_to(cols % B, (2, 64)))
    assert (access.coord_in_block[..., 0] == 0).all()
    # Index in blocks: stride[0] = ceil(96 / 32) = 3 blocks per row.
    np.testing.assert_array_equal(access.index, rows * 3 + cols // B)
    assert store_tensor_check(layout) and store_tensor_check(layout.set_block_size(1, 1)) is None


def test_block_decode_against_numpy_dequantize():
    rng = np.random.default_rng(7)
    K, N, B = 8, 64, 32
    quants = rng.integers(0, 16, (K, N)).astype(np.float32)
    scales = rng.standard_normal((K, N // B)).astype(np.float32)
    layout = TensorLayout.create(2).set_block_size(1, B).set_dimension(K, N)
    access = tensor_addresses(layout, K, N)
    blocks = access.index                    # block number = pointer offset in blocks
    decoded = scales.reshape(-1)[blocks] * (quants.reshape(K, N // B, B).reshape(-1, B)[
        blocks, access.coord_in_block[..., 1]] - 8)
    expected = (scales.repeat(B, axis=1) * (quants - 8)).astype(np.float32)
    np.testing.assert_array_equal(decoded, expected)


# ---------------------------------------------------------------- the spec's examples

def test_spec_example_row_major_load():
    tensor = np.arange(20 * 30, dtype=np.float16).reshape(20, 30)
    layout = TensorLayout.create(2).set_dimension(20, 30).slice(4, 8, 6, 16)
    np.testing.assert_array_equal(load(tensor, layout, 8, 16), tensor[4:12, 6:22])


def test_spec_example_column_major_load_through_a_permuted_view():
    rows_total, cols_total = 20, 30
    column_major = np.arange(rows_total * cols_total, dtype=np.float32).reshape(cols_total, rows_total)
    matrix = column_major.T                          # logical rows x cols
    layout = TensorLayout.create(2).set_dimension(cols_total, rows_total).slice(6, 16, 4, 8)
    got = load(column_major, layout, 8, 16, view=TensorView.create(2, False, (1, 0)))
    np.testing.assert_array_equal(got, matrix[4:12, 6:22])


def test_spec_example_hwc_patch():
    H, W, C = 12, 10, 32
    tensor = np.random.default_rng(8).standard_normal((H, W, C)).astype(np.float32)
    layout = TensorLayout.create(3).set_dimension(H, W, C).slice(3, 8, 1, 8, 0, 32)
    np.testing.assert_array_equal(load(tensor, layout, 64, 32), tensor[3:11, 1:9, :].reshape(64, 32))


def test_spec_example_space_to_depth():
    H, W, C = 8, 6, 3
    tensor = np.random.default_rng(9).standard_normal((H, W, C)).astype(np.float32)
    layout = TensorLayout.create(3).set_dimension(H, W, C)
    view = TensorView.create(5, True, (0, 2, 1, 3, 4)).set_dimension(H // 2, 2, W // 2, 2, C)
    expected = tensor.reshape(H // 2, 2, W // 2, 2, C).transpose(0, 2, 1, 3, 4) \
        .reshape(H // 2 * W // 2, 4 * C)
    np.testing.assert_array_equal(load(tensor, layout, *expected.shape, view=view), expected)


# ---------------------------------------------------------------- per-subgroup layouts

def test_layout_values_per_subgroup_broadcast():
    H, W = 16, 16
    tensor = np.arange(H * W, dtype=np.float32).reshape(H, W)
    row_offsets = np.array([0, 8, 12, 14])                  # one tile row per subgroup
    layout = TensorLayout.create(2, ClampMode.CONSTANT).set_dimension(H, W).slice(row_offsets, 8, 4, 8)
    access = tensor_addresses(layout, 8, 8)
    assert access.index.shape == (4, 8, 8)
    for g, r0 in enumerate(row_offsets):
        single = tensor_addresses(TensorLayout.create(2, ClampMode.CONSTANT).set_dimension(H, W)
                                  .slice(int(r0), 8, 4, 8), 8, 8)
        for name in ("index", "valid", "constant", "clipped", "fault"):
            np.testing.assert_array_equal(getattr(access, name)[g], getattr(single, name))
        padded = np.pad(tensor, ((0, 8), (0, 0)))
        np.testing.assert_array_equal(load(tensor, layout, 8, 8)[g], padded[r0:r0 + 8, 4:12])


@pytest.mark.parametrize("mode, pad_mode", MODES_AND_PADS)
def test_conv2d_nhwc_taps_through_a_4d_slice(mode, pad_mode):
    """An implicit-GEMM 3x3 convolution loads, per tap (kh, kw), the W pixels of one output
    row by C channels through a 4D NHWC layout sliced at (n, h+kh-1, kw-1, 0); the
    padding comes from the clamp mode, as np.pad gives it."""
    N, H, W, C = 2, 5, 6, 4
    x = np.random.default_rng(11).standard_normal((N, H, W, C)).astype(np.float32)
    kwargs = {"constant_values": 0} if pad_mode == "constant" else {}
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), mode=pad_mode, **kwargs)
    base = TensorLayout.create(4, mode).set_dimension(N, H, W, C)
    for n in range(N):
        for h in range(H):
            for kh in range(3):
                for kw in range(3):
                    layout = base.slice(n, 1, h + kh - 1, 1, kw - 1, W, 0, C)
                    np.testing.assert_array_equal(load(x, layout, W, C),
                                                  padded[n, h + kh, kw:kw + W, :])


def test_docs_clamped_tile_picture_is_what_the_addressing_gives():
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[3] / "docs" / "coopmat2-semantics.md").read_text()
    lines = doc[doc.index("      ClampToEdge            Constant"):].splitlines()[1:8]
    rows = [line.split() for line in lines if "-" not in line]
    assert len(rows) == 6
    tensor = np.array(list("abcdefghijklmnopqrst")).reshape(4, 5)
    modes = [ClampMode.CLAMP_TO_EDGE, ClampMode.CONSTANT, ClampMode.REPEAT, ClampMode.REPEAT_MIRRORED]
    for k, mode in enumerate(modes):
        pictured = np.array([[v for v in row[k * 8:(k + 1) * 8] if v != "|"] for row in rows])
        access = tensor_addresses(TensorLayout.create(2, mode).set_dimension(4, 5).slice(-2, 6, -2, 7), 6, 7)
        got = np.where(access.constant, "0", tensor.reshape(-1)[access.index])
        np.testing.assert_array_equal(got, pictured, err_msg=mode.spirv)
