"""MatrixValue: a cooperative-matrix result whose per-lane form is built only on demand.

The executor's value of a matrix is its (L, V) lane components (docs/design.md
"Interpreter value model"). The cooperative-matrix operations themselves work on the
logical (G, rows, cols) form, so a load that feeds a mul-add, or a mul-add whose result
is the next one's accumulator, never needs the lane form: building it is a relayout and
a copy of the whole matrix per call (about a third of a tiled GEMM's time). A
MatrixValue keeps the logical form, the factored form of a load that read few distinct
tiles ((tiles, index) with logical == tiles[index]), or the Grid form of a mul-add over
a grid of subgroups (clcoop.interp.coopmat.Grid), and behaves as the
read-only (L, V) array everywhere else: NumPy functions convert it through `__array__`,
attributes and indexing go to the lane array, built once.

Only whole, fully active subgroups in lane order make one (Subgroups.identity), so the
lane form is a plain relayout of the logical one, and its forms hold one matrix for every
subgroup of the batch. Its key names that batch (layout, lanes, work-group size, S); an
operation that runs with only some subgroups active (a branch on get_group_id, a loop
whose trip count differs between subgroups) takes its matrices with `logical(selected)`,
the subgroups it runs. Values are never written in place (IR values are immutable), so
the forms cannot diverge.
"""
import numpy as np


class MatrixValue(np.lib.mixins.NDArrayOperatorsMixin):
    __slots__ = ("key", "layout", "shape", "dtype", "_logical", "_factored", "_grid", "_lanes")

    def __init__(self, key, layout, group_count, dtype, logical=None, factored=None, grid=None):
        self.key = key      # (layout, lane count, work-group size, group size, scope): the batch
        self.layout = layout
        self.shape = (group_count * layout.group_size, layout.length)
        self.dtype = np.dtype(dtype)
        self._logical = _read_only(logical)
        self._factored = None if factored is None else tuple(map(_read_only, factored))
        self._grid = grid
        if grid is not None:
            _read_only(grid.pairs)
        self._lanes = None

    ndim = 2

    @property
    def size(self):
        return self.shape[0] * self.shape[1]

    def logical(self, selected=None):
        """(G, rows, cols), read-only; with `selected` (indices of subgroups of the batch),
        the matrices of those subgroups only, without building the others'."""
        if selected is not None:
            return self._logical_of(selected)
        if self._logical is None:
            if self._grid is not None:
                self._logical = _read_only(self._grid.logical())
            else:
                tiles, index = self._factored
                self._logical = _read_only(np.take(tiles, index, axis=0))
        return self._logical

    def _logical_of(self, selected):
        if self._logical is not None:
            return self._logical[selected]
        if self._grid is not None:
            return self._grid.logical(selected)
        tiles, index = self._factored
        return np.take(tiles, index[selected], axis=0)

    def grid(self):
        """The coopmat.Grid form of a mul-add result, or None."""
        return self._grid

    def factored(self, selected=None):
        """(distinct tiles (D, rows, cols), index (G,)) of a load, or None; with `selected`,
        the index of those subgroups only."""
        if self._factored is None or selected is None:
            return self._factored
        tiles, index = self._factored
        return tiles, index[selected]

    def lanes(self):
        """The (L, V) lane components, read-only (built on first use)."""
        if self._lanes is None:
            if self._logical is None and self._factored is not None:
                tiles, index = self._factored
                tile_lanes = self.layout.from_logical(tiles).reshape(tiles.shape[0], -1)
                lanes = np.take(tile_lanes, index, axis=0)
            else:
                lanes = self.layout.from_logical(self.logical())
            self._lanes = _read_only(lanes.reshape(self.shape).astype(self.dtype, copy=False))
        return self._lanes

    def __array__(self, dtype=None, copy=None):
        lanes = self.lanes()
        if dtype is not None and np.dtype(dtype) != lanes.dtype:
            return lanes.astype(dtype)
        return lanes.copy() if copy else lanes

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # Operators and ufuncs (m == 3, np.add(m, 1)) see the lane array.
        inputs = tuple(x.lanes() if isinstance(x, MatrixValue) else x for x in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __getitem__(self, index):
        return self.lanes()[index]

    def __len__(self):
        return self.shape[0]

    def __getattr__(self, name):
        # Everything else an ndarray has (astype, reshape, view, flags, ...), except the
        # buffer protocols: NumPy would take them before __array__, and their typestr
        # loses extension dtypes (bfloat16 reads back as "|V2").
        if name in ("__array_interface__", "__array_struct__"):
            raise AttributeError(name)
        return getattr(self.lanes(), name)

    def __repr__(self):
        forms = [name for name, form in (("logical", self._logical), ("factored", self._factored),
                                         ("grid", self._grid), ("lanes", self._lanes))
                 if form is not None]
        return f"MatrixValue(shape={self.shape}, dtype={self.dtype}, forms={forms})"


def _read_only(array):
    if array is not None:
        array = np.asarray(array)
        array.flags.writeable = False
    return array
