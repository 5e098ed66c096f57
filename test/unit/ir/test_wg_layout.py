"""clcoop/ir/wg_layout.py: the workgroup-scope layout (docs/coopmat2-semantics.md).
Every element is held exactly once, coop_mat_length is uniform, index -> coordinate and
coordinate -> index agree, each subgroup's tile is the subgroup layout of layout.py, and
get_coordinate works on it."""
import numpy as np
import pytest

from clcoop.interp import coopmat2
from clcoop.ir.layout import LayoutError, get_layout
from clcoop.ir.wg_layout import WorkgroupLayout, get_workgroup_layout

CASES = [
    # rows, cols, use, elem, subgroup size, work-group size
    (64, 64, 2, "float", 16, 64), (64, 32, 0, "half", 16, 128), (32, 64, 1, "half", 8, 64),
    (20, 16, 2, "float", 8, 32), (100, 24, 2, "int", 16, 48), (7, 5, 2, "float", 8, 64),
    (16, 16, 0, "char", 16, 40), (48, 32, 1, "char", 32, 32), (16, 8, 2, "float", 16, 12),
    (16, 8, 2, "float", 16, 1), (128, 128, 2, "float", 32, 256), (3, 3, 1, "double", 8, 24),
]


@pytest.mark.parametrize("rows, cols, use, elem, S, W", CASES)
def test_every_element_once_and_uniform_length(rows, cols, use, elem, S, W):
    layout = WorkgroupLayout(rows, cols, use, elem, S, W)
    assert layout.index.shape == (W, layout.length)
    held = layout.index[layout.index >= 0]
    assert np.array_equal(np.sort(held), np.arange(rows * cols))


@pytest.mark.parametrize("rows, cols, use, elem, S, W", CASES)
def test_coordinate_and_position_agree(rows, cols, use, elem, S, W):
    layout = WorkgroupLayout(rows, cols, use, elem, S, W)
    for w in range(W):
        for v in range(layout.length):
            rc = layout.coordinate(w, v)
            if rc is not None:
                assert layout.position(*rc) == (w, v)
    for row in range(rows):
        for col in range(cols):
            w, v = layout.position(row, col)
            assert layout.coordinate(w, v) == (row, col)


@pytest.mark.parametrize("rows, cols, use, elem, S, W", CASES)
def test_tiles_are_the_subgroup_layout(rows, cols, use, elem, S, W):
    layout = WorkgroupLayout(rows, cols, use, elem, S, W)
    tile = get_layout(layout.tile_rows, cols, use, elem, layout.tile_subgroup_size)
    assert layout.length == tile.length
    for w in range(W):
        t, lane = divmod(w, S)
        for v in range(layout.length):
            expected = None
            if t < layout.tiles and lane < layout.tile_subgroup_size:
                local = tile.row_col(lane, v)
                if local is not None and t * layout.tile_rows + local[0] < rows:
                    expected = (t * layout.tile_rows + local[0], local[1])
            assert layout.coordinate(w, v) == expected


@pytest.mark.parametrize("rows, cols, use, elem, S, W", CASES[:6])
def test_round_trip_and_get_coordinate(rows, cols, use, elem, S, W):
    layout = get_workgroup_layout(rows, cols, use, elem, S, W)
    mats = np.random.default_rng(rows * cols).standard_normal((2, rows, cols)).astype(np.float32)
    components = layout.to_work_items(mats)
    assert components.shape == (2, W, layout.length)
    np.testing.assert_array_equal(layout.to_logical(components), mats)
    for v in range(layout.length):
        row, col, padding = coopmat2.get_coordinate(layout, np.full((2, W), v))
        for w in range(W):
            if padding[0, w]:
                assert layout.coordinate(w, v) is None and components[0, w, v] == 0
            else:
                assert components[1, w, v] == mats[1, row[1, w], col[1, w]]


def test_partial_subgroup_and_small_work_group_hold_padding():
    layout = WorkgroupLayout(16, 16, 2, "float", 16, 40)       # 2 whole subgroups + 8
    assert layout.tiles == 2 and (layout.index[32:] == -1).all()
    small = WorkgroupLayout(16, 8, 2, "float", 16, 12)         # one subgroup of 12: 8 hold
    assert small.tile_subgroup_size == 8 and (small.index[8:] == -1).all()


def test_invalid_shapes():
    with pytest.raises(LayoutError, match="at least one work-item"):
        WorkgroupLayout(8, 8, 2, "float", 16, 0)
    with pytest.raises(LayoutError, match="outside"):
        WorkgroupLayout(8, 8, 2, "float", 8, 16).position(8, 0)
