"""SPV_NV_tensor_addressing tensor layouts and views, and the addressing of
OpCooperativeMatrixLoadTensorNV / StoreTensorNV (SPV_NV_cooperative_matrix2 rev 2,
"Tensor Layout and View").

Layouts and views are immutable plain data; each operation returns an updated copy, as
the OpTensorLayout*/OpTensorView* instructions do. A field is a tuple with one value per
dimension; a value is an int, or an int64 array of shape (G,) when G subgroups hold
different values (e.g. a slice offset computed from the group id): the addressing then
broadcasts over them. Run by interp/tensor_calls.py (docs/tensor.md).
"""
from dataclasses import dataclass, replace

import numpy as np

from clcoop.coopmat_spec import ClampMode, tensor_operand_count_problem, tensor_type_problem
from clcoop.errors import RuntimeFault

UINT32_MAX = 0xFFFFFFFF


class TensorError(RuntimeFault):
    """A tensor layout or view operation with the wrong operand count, a value the
    addressing cannot use (a zero span), or an invalid type parameter."""


def _u32(value):
    """A 32-bit integer operand read as unsigned (dimensions, strides, spans)."""
    if isinstance(value, (int, np.integer)):
        return int(value) & UINT32_MAX
    return np.asarray(value).astype(np.int64) & UINT32_MAX


def _i32(value):
    """A 32-bit integer operand read as signed (int32_t offset[])."""
    if isinstance(value, (int, np.integer)):
        return ((int(value) + (1 << 31)) & UINT32_MAX) - (1 << 31)
    return ((np.asarray(value).astype(np.int64) + (1 << 31)) & UINT32_MAX) - (1 << 31)


def _ceil_div(a, b):
    return -(-a // b)


def _check_count(operation, values, dims):
    problem = tensor_operand_count_problem(operation, dims, len(values))
    if problem:
        raise TensorError(problem.message)


def _check_type(dims, clamp_mode=None, permutation=None):
    problem = tensor_type_problem(int(dims), clamp_mode, permutation)
    if problem:
        raise TensorError(problem.message)


@dataclass(frozen=True)
class TensorLayout:
    """tensorLayoutNV<dims, clamp_mode>: blockSize, layoutDimension, stride, offset (signed),
    span, clampValue (a 32-bit pattern)."""
    dims: int
    clamp_mode: ClampMode
    dimension: tuple
    stride: tuple
    offset: tuple
    span: tuple
    block_size: tuple
    clamp_value: object = 0

    @classmethod
    def create(cls, dims, clamp_mode=ClampMode.UNDEFINED):
        """OpCreateTensorLayoutNV: dimensions, strides, spans and offsets 0, block sizes 1,
        clamp value 0."""
        _check_type(dims, int(clamp_mode))
        zeros = (0,) * dims
        return cls(int(dims), ClampMode(clamp_mode), zeros, zeros, zeros, zeros, (1,) * dims, 0)

    def set_dimension(self, *dimension):
        """OpTensorLayoutSetDimensionNV: layoutDimension = span = Dim, offset = 0,
        stride[D-1] = 1, stride[i] = stride[i+1] * ceil(Dim[i+1] / blockSize[i+1])."""
        _check_count("coop_tensor_layout_set_dimension", dimension, self.dims)
        dimension = tuple(_u32(d) for d in dimension)
        stride = [1] * self.dims
        for i in range(self.dims - 2, -1, -1):
            stride[i] = stride[i + 1] * _ceil_div(dimension[i + 1], self.block_size[i + 1])
        return replace(self, dimension=dimension, span=dimension, offset=(0,) * self.dims,
                       stride=tuple(stride))

    def set_stride(self, *stride):
        """OpTensorLayoutSetStrideNV (strides in blocks when a block size is not 1)."""
        _check_count("coop_tensor_layout_set_stride", stride, self.dims)
        return replace(self, stride=tuple(_u32(s) for s in stride))

    def set_block_size(self, *block_size):
        """OpTensorLayoutSetBlockSizeNV (strides are not recomputed: set the dimensions
        after the block size, as the spec's order of operations says)."""
        _check_count("coop_tensor_layout_set_block_size", block_size, self.dims)
        block_size = tuple(_u32(b) for b in block_size)
        if any(np.any(np.asarray(b) == 0) for b in block_size):
            raise TensorError("a tensor layout block size must be at least 1")
        return replace(self, block_size=block_size)

    def slice(self, *offsets_and_spans):
        """OpTensorLayoutSliceNV(Offset0, Span0, Offset1, Span1, ...): offset[i] += Offset<i>,
        span[i] = Span<i>."""
        _check_count("coop_tensor_layout_slice", offsets_and_spans, self.dims)
        offset = tuple(_i32(o + _i32(add)) for o, add in zip(self.offset, offsets_and_spans[0::2]))
        span = tuple(_u32(s) for s in offsets_and_spans[1::2])
        return replace(self, offset=offset, span=span)

    def set_clamp_value(self, bits):
        """OpTensorLayoutSetClampValueNV: a 32-bit pattern (see clamp_value_as)."""
        return replace(self, clamp_value=_u32(bits))


@dataclass(frozen=True)
class TensorView:
    """tensorViewNV<dims, has_dimensions, permutation...>: viewDimension, viewStride and
    the clip (row offset, row span, column offset, column span)."""
    dims: int
    has_dimensions: bool
    permutation: tuple
    dimension: tuple
    stride: tuple
    clip: tuple

    @classmethod
    def create(cls, dims, has_dimensions=False, permutation=None):
        """OpCreateTensorViewNV: dimensions and strides 0, clip offsets 0 and spans
        0xFFFFFFFF."""
        permutation = tuple(range(dims)) if permutation is None else tuple(int(p) for p in permutation)
        _check_type(dims, permutation=permutation)
        zeros = (0,) * dims
        return cls(int(dims), bool(has_dimensions), permutation, zeros, zeros,
                   (0, UINT32_MAX, 0, UINT32_MAX))

    def set_dimension(self, *dimension):
        """OpTensorViewSetDimensionNV: viewStride[D-1] = 1, viewStride[i] = product of
        Dim[i+1..D-1] (packed)."""
        _check_count("coop_tensor_view_set_dimension", dimension, self.dims)
        dimension = tuple(_u32(d) for d in dimension)
        stride = [1] * self.dims
        for i in range(self.dims - 2, -1, -1):
            stride[i] = stride[i + 1] * dimension[i + 1]
        return replace(self, dimension=dimension, stride=tuple(stride))

    def set_stride(self, *stride):
        """OpTensorViewSetStrideNV."""
        _check_count("coop_tensor_view_set_stride", stride, self.dims)
        return replace(self, stride=tuple(_u32(s) for s in stride))

    def set_clip(self, *clip):
        """OpTensorViewSetClipNV(row offset, row span, column offset, column span)."""
        _check_count("coop_tensor_view_set_clip", clip, self.dims)
        row_offset, row_span, col_offset, col_span = clip
        return replace(self, clip=tuple(_u32(v) for v in (row_offset, row_span, col_offset, col_span)))


# ---------------------------------------------------------------- addressing

@dataclass(frozen=True)
class TensorAccess:
    """Where each element (row, col) of the matrix goes, for G subgroups: arrays of shape
    batch + (rows, cols), batch () or (G,) as the layout's values. Every element is in
    exactly one of:
      valid     read from / written to memory at `index` (units of the matrix component
                type; the decode function's pointer is index * sizeof(pointee) instead);
      constant  loads: the clamp value (Constant mode out of bounds); stores: discarded
                (every mode but Undefined out of bounds);
      clipped   outside the view's clip: a load keeps the `Object` operand's element, a
                store skips it;
      fault     out of bounds with clamp mode Undefined: the interpreter faults and names
                `tensor_coord` (the unclamped coordinate, layoutDimension order).
    block_coord and coord_in_block (shape batch + (rows, cols, dims)) are the decode
    function's second and third arguments."""
    index: np.ndarray
    valid: np.ndarray
    constant: np.ndarray
    clipped: np.ndarray
    fault: np.ndarray
    tensor_coord: np.ndarray
    block_coord: np.ndarray
    coord_in_block: np.ndarray


def _batch_shape(*objects):
    shapes = []
    for obj in objects:
        if obj is None:
            continue
        for name in ("dimension", "stride", "offset", "span", "block_size", "clip"):
            for value in getattr(obj, name, ()):
                shapes.append(np.shape(value))
        shapes.append(np.shape(getattr(obj, "clamp_value", 0)))
    return np.broadcast_shapes(*shapes) if shapes else ()


def tensor_addresses(layout, rows, cols, view=None, store=False):
    """matrixCoordToTensorElement(WithView) for every element of a rows x cols matrix:
    (row, col) -> [clip] -> row-major index -> [view coordinate, permuted -> view linear
    index] -> span coordinate -> + offset, clamped per the layout's clamp mode -> block
    coordinate -> element index. Returns a TensorAccess."""
    batch = _batch_shape(layout, view)
    nb = len(batch)
    row = np.arange(rows, dtype=np.int64)[:, None]
    col = np.arange(cols, dtype=np.int64)[None, :]
    shape = batch + (rows, cols)
    if view is None:
        linear = np.broadcast_to(row * cols + col, shape)
        clipped = np.zeros(shape, dtype=bool)
    else:
        linear, clipped = _clip_linear(view, row, col, cols, batch)
        linear = _view_linear(layout, view, linear, nb)
    span_coord = _span_coordinates(layout, linear, nb)
    return _clamp(layout, span_coord, clipped, store, nb)


def _scalar_field(value, nb):
    array = np.asarray(value, dtype=np.int64)
    return array.reshape(array.shape + (1, 1)) if array.ndim else array


def _clip_linear(view, row, col, cols, batch):
    """matrixCoordToLinear with a view: skipped outside the clip, else the row-major
    index relative to the clip with width min(N, clipColSpan)."""
    nb = len(batch)
    row_off, row_span, col_off, col_span = (_scalar_field(v, nb) for v in view.clip)
    clipped = (row < row_off) | (row >= row_off + row_span) | \
              (col < col_off) | (col >= col_off + col_span)
    width = np.minimum(cols, col_span)
    linear = (row - row_off) * width + (col - col_off)
    shape = batch + (row.shape[0], col.shape[1])
    return np.broadcast_to(np.where(clipped, 0, linear), shape), np.broadcast_to(clipped, shape)


def _view_linear(layout, view, linear, nb):
    """linearToViewCoord (innermost permuted dimension first) then viewCoordToLinear;
    without view dimensions, the layout's span gives both dimensions and packed strides."""
    if view.has_dimensions:
        dimensions, strides = view.dimension, view.stride
    else:
        if view.dims != layout.dims:
            raise TensorError(f"a tensor view without dimensions uses the layout's span: it "
                              f"must have the layout's {layout.dims} dimensions, not {view.dims}")
        dimensions = layout.span
        strides = [1] * view.dims
        for d in range(view.dims - 2, -1, -1):
            strides[d] = strides[d + 1] * layout.span[d + 1]
    index = linear
    view_coord = [None] * view.dims
    for d in range(view.dims - 1, -1, -1):
        i = view.permutation[d]
        size = _scalar_field(dimensions[i], nb)
        if np.any(size == 0):
            raise TensorError(f"tensor view dimension {i} is 0 (set the view's or the "
                              f"layout's dimensions before loading or storing)")
        view_coord[i] = index % size
        index = index // size
    result = 0
    for d in range(view.dims - 1, -1, -1):
        result = result + view_coord[d] * _scalar_field(strides[d], nb)
    return np.broadcast_to(result, linear.shape)


def _span_coordinates(layout, linear, nb):
    """linearToSpanCoord: innermost dimension first, index % span[d], index /= span[d]."""
    coords = [None] * layout.dims
    index = linear
    for d in range(layout.dims - 1, -1, -1):
        span = _scalar_field(layout.span[d], nb)
        if np.any(span == 0):
            raise TensorError(f"tensor layout span of dimension {d} is 0 (set the layout's "
                              f"dimensions or a slice before loading or storing)")
        coords[d] = index % span
        index = index // span
    return np.stack(np.broadcast_arrays(*coords), axis=-1)


def _clamp(layout, span_coord, clipped, store, nb):
    """spanCoordToTensorCoord and tensorCoordToLinear, one dimension after another (a
    Constant clamp, or a store's discard, ends the calculation for its element)."""
    mode = ClampMode(layout.clamp_mode)     # (a layout read from IR fields holds an int)
    if store and mode != ClampMode.UNDEFINED:
        mode = ClampMode.CONSTANT            # "For stores ... everything is treated as discard"
    shape = span_coord.shape[:-1]
    constant = np.zeros(shape, dtype=bool)
    fault = np.zeros(shape, dtype=bool)
    tensor_coord = np.empty(span_coord.shape, dtype=np.int64)
    block_coord = np.zeros(span_coord.shape, dtype=np.int64)
    coord_in_block = np.zeros(span_coord.shape, dtype=np.int64)
    index = np.zeros(shape, dtype=np.int64)
    for d in range(layout.dims):
        c = span_coord[..., d] + _scalar_field(layout.offset[d], nb)
        tensor_coord[..., d] = c
        size = _scalar_field(layout.dimension[d], nb)
        outside = (c < 0) | (c >= size)
        if mode == ClampMode.UNDEFINED:
            fault |= outside
        elif mode == ClampMode.CONSTANT:
            constant |= outside
        elif outside.any():
            if np.any(size == 0):
                raise TensorError(f"tensor layout dimension {d} is 0: clamp mode "
                                  f"{mode.spirv} has no coordinate to clamp to")
            c = np.where(outside, _clamped(mode, c, size), c)
        c = np.where(fault | constant, 0, c)
        block = _scalar_field(layout.block_size[d], nb)
        coord_in_block[..., d] = c % block
        block_coord[..., d] = c // block
        index = index + block_coord[..., d] * _scalar_field(layout.stride[d], nb)
    ended = fault | constant | clipped
    valid = ~ended
    # Clipping comes first (matrixCoordToLinear): a clipped element is neither a fault
    # nor a constant.
    constant = constant & ~clipped
    fault = fault & ~clipped
    return TensorAccess(np.where(valid, index, 0), valid, constant, np.array(clipped), fault,
                        tensor_coord, np.where(valid[..., None], block_coord, 0),
                        np.where(valid[..., None], coord_in_block, 0))


def _clamped(mode, c, size):
    """The clamp modes' formulas (remainders as OpSMod: the sign of the divisor, which
    NumPy's % has). RepeatMirrored is SPV_NV_tensor_addressing's formula (NV2 rev 2
    compares with the loop variable by mistake); with one element (period 2*1-2 = 0) the
    only coordinate is 0."""
    if mode == ClampMode.CLAMP_TO_EDGE:
        return np.clip(c, 0, size - 1)
    if mode == ClampMode.REPEAT:
        return c % size
    period = np.maximum(2 * size - 2, 1)
    c = c % period
    return np.where(c >= size, 2 * size - 2 - c, c)


def clamp_value_as(bits, dtype):
    """The clamp value's 32-bit pattern as a matrix component: the low bits for 8- and
    16-bit components (a half 1.0 is 0x3C00), the pattern itself for 32-bit ones (a float
    1.0 is 0x3F800000), and zero-extended for 64-bit ones (NV2 has a 32-bit clampValue)."""
    dtype = np.dtype(dtype)
    bits = np.asarray(bits, dtype=np.uint64) & UINT32_MAX
    size = dtype.itemsize
    unsigned = np.dtype(f"u{size}")
    return (bits & ((1 << (8 * size)) - 1) if size < 8 else bits).astype(unsigned).view(dtype)


def assemble_load(access, gathered, clamp_value, keep):
    """The loaded matrices: `gathered` (values at access.index, any value where not
    valid), the clamp value where constant, `keep` (the Object operand) where clipped.
    The interpreter faults before this where access.fault is set."""
    return np.where(access.valid, gathered, np.where(access.constant, clamp_value, keep))


def store_tensor_check(layout):
    """NV2: "a block size larger than 1 must not be used with
    OpCooperativeMatrixStoreTensorNV"; None or the message."""
    for d, block in enumerate(layout.block_size):
        if np.any(np.asarray(block) != 1):
            return f"tensor store with block size {block} in dimension {d} (stores need block size 1)"
    return None
