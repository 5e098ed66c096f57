"""How a workgroup-scope cooperative matrix is spread over the work-items of a work-group
(docs/coopmat2-semantics.md, "Workgroup scope"). The tinytc layout (layout.py) covers
one subgroup; a workgroup-scope matrix is cut along its rows into one tile per subgroup,
and each tile is laid out over its subgroup with that layout:

    W work-items (reqd_work_group_size), subgroups of S: work-item w is lane w % S of
    subgroup w // S (as the interpreter numbers them).
    S_tile = S if W >= S, else the largest power of two <= W (one subgroup, part empty).
    T = max(1, W // S) tiles: only whole subgroups hold one; a trailing partial subgroup
    holds padding only.
    tile_rows = ceil(rows / T); tile t holds rows [t*tile_rows, (t+1)*tile_rows) (rows
    past the matrix are padding), laid out as MatrixLayout(tile_rows, cols, use, elem,
    S_tile).
    length = that tile layout's length: the same in every work-item (OpCooperativeMatrix
    LengthKHR takes a type), with padding where the shape does not divide.

`layout_of_matrix` is the one place that maps a matrix type to its layout, by scope: the
interpreter's operations, element access, private-memory sizes and clcoop-layout all go
through it. Both layouts offer the same interface to them: rows, cols, use, elem, length,
group_size (the work-items one matrix is spread over: S or W), index (group_size, length),
row_col(p, v), to_logical((G, group_size, V)) and from_logical((G, rows, cols)).
"""
import functools

import numpy as np

from clcoop.coopmat_spec import Scope
from clcoop.ir.layout import LayoutError, get_layout, matrix_type_of


def _largest_power_of_two_at_most(n):
    return 1 << (int(n).bit_length() - 1)


def layout_of_matrix(rows, cols, use, elem, scope, subgroup_size, work_group_size):
    """The layout of a matrix of `scope` (SPIR-V Scope value): MatrixLayout over a
    subgroup, WorkgroupLayout over the work-group of work_group_size (linear) work-items;
    LayoutError for any other scope."""
    if int(scope) == Scope.SUBGROUP:
        return get_layout(rows, cols, use, elem, subgroup_size)
    if int(scope) == Scope.WORKGROUP:
        if work_group_size is None:
            raise LayoutError("the layout of a workgroup-scope matrix depends on the work-group "
                              "size, which was not given")
        return get_workgroup_layout(int(rows), int(cols), use, elem, int(subgroup_size),
                                    int(work_group_size))
    raise LayoutError(f"cooperative matrix scope {int(scope)} is not supported (only Subgroup "
                      f"({int(Scope.SUBGROUP)}) and Workgroup ({int(Scope.WORKGROUP)}))")


def layout_of_type(t, subgroup_size, work_group_size, elem=None):
    """layout_of_matrix of a loader Ty, a MatrixType or IR type text (layout.matrix_type_of);
    `elem` (OpenCL name) overrides the component when the caller knows the signedness."""
    matrix = matrix_type_of(t)
    return layout_of_matrix(matrix.rows, matrix.cols, matrix.use, elem or matrix.component.name,
                            matrix.scope, subgroup_size, work_group_size)


def matrix_length(t, subgroup_size, work_group_size):
    """coop_mat_length of a matrix type: the components each work-item holds (V)."""
    return layout_of_type(t, subgroup_size, work_group_size).length


@functools.lru_cache(maxsize=None)
def get_workgroup_layout(rows, cols, use, elem, subgroup_size, work_group_size):
    """Cached WorkgroupLayout (work_group_size is the linear X*Y*Z size)."""
    return WorkgroupLayout(rows, cols, use, elem, subgroup_size, work_group_size)


class WorkgroupLayout:
    """Attributes: rows, cols, use, elem, subgroup_size (S), work_group_size (W),
    tile_subgroup_size (S_tile), tiles (T), tile_rows, tile (the MatrixLayout of one
    tile), length (V), index (int64 (W, V): flat logical index row*cols+col of component
    v of work-item w, -1 for padding)."""

    def __init__(self, rows, cols, use, elem, subgroup_size, work_group_size):
        self.rows, self.cols = int(rows), int(cols)
        self.subgroup_size = int(subgroup_size)
        self.work_group_size = int(work_group_size)
        if self.work_group_size < 1:
            raise LayoutError(f"a workgroup-scope matrix needs a work-group of at least one "
                              f"work-item, got {self.work_group_size}")
        if self.rows < 1 or self.cols < 1:
            raise LayoutError(f"cooperative matrix shape {self.rows}x{self.cols} is empty")
        W, S = self.work_group_size, self.subgroup_size
        self.tile_subgroup_size = S if W >= S else _largest_power_of_two_at_most(W)
        self.tiles = max(1, W // S)
        self.tile_rows = -(-self.rows // self.tiles)
        self.tile = get_layout(self.tile_rows, self.cols, use, elem, self.tile_subgroup_size)
        self.use, self.elem = self.tile.use, self.tile.elem
        self.length = self.tile.length
        self.group_size = self.work_group_size
        self.index = self._compute_index()

    def __repr__(self):
        return (f"WorkgroupLayout(rows={self.rows}, cols={self.cols}, use={self.use}, "
                f"elem={self.elem!r}, subgroup_size={self.subgroup_size}, "
                f"work_group_size={self.work_group_size})")

    def _compute_index(self):
        W, S, V = self.work_group_size, self.subgroup_size, self.length
        index = np.full((W, V), -1, dtype=np.int64)
        tile_index = self.tile.index                       # (S_tile, V), tile-local flat
        local_row, local_col = tile_index // self.cols, tile_index % self.cols
        for t in range(self.tiles):
            first = t * S
            row = t * self.tile_rows + local_row
            held = (tile_index >= 0) & (row < self.rows)
            index[first:first + self.tile_subgroup_size] = np.where(
                held, row * self.cols + local_col, -1)
        return index

    @property
    def dtype(self):
        return self.tile.dtype

    def row_col(self, w, v):
        """MatrixLayout.row_col's name for coordinate."""
        return self.coordinate(w, v)

    def coordinate(self, w, v):
        """(row, col) of component v of work-item w, or None for padding."""
        flat = int(self.index[w, v])
        return None if flat < 0 else divmod(flat, self.cols)

    def position(self, row, col):
        """(work-item, component) holding element (row, col): the inverse of coordinate,
        by formula: tile t = row // tile_rows, then the tile layout's slot."""
        row, col = int(row), int(col)
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise LayoutError(f"element ({row}, {col}) is outside the {self.rows}x{self.cols} matrix")
        t, local_row = divmod(row, self.tile_rows)
        slot = int(self.tile.slot_of_logical[local_row * self.cols + col])
        lane, v = divmod(slot, self.length)
        return t * self.subgroup_size + lane, v

    def to_work_items(self, mats):
        """(G, rows, cols) logical matrices (one per work-group) -> (G, W, V) components,
        padding 0."""
        mats = np.asarray(mats)
        G = mats.shape[0]
        flat = np.concatenate([mats.reshape(G, -1), np.zeros((G, 1), dtype=mats.dtype)], axis=1)
        slots = np.where(self.index >= 0, self.index, self.rows * self.cols)
        return np.take(flat, slots.reshape(-1), axis=1).reshape(G, self.work_group_size, self.length)

    def from_logical(self, mats):
        """MatrixLayout.from_logical's name for to_work_items."""
        return self.to_work_items(mats)

    def to_logical(self, components):
        """(G, W, V) components -> (G, rows, cols)."""
        components = np.asarray(components)
        G = components.shape[0]
        held = self.index.reshape(-1) >= 0
        out = np.empty((G, self.rows * self.cols), dtype=components.dtype)
        out[:, self.index.reshape(-1)[held]] = components.reshape(G, -1)[:, held]
        return out.reshape(G, self.rows, self.cols)
