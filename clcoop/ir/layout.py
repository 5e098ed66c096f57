"""How a cooperative matrix is spread over the work-items of a subgroup.

Implements the tinytc coopmatrix layout (/work/shared/spec/coopmatrix-layout.txt);
docs/layout.md records how we read the places where that text is ambiguous.

Work-item p (0 <= p < S) holds V components; `MatrixLayout.index[p, v]` is the
flat logical index row*cols+col of its component v, or -1 for zero padding.
"""
import functools

import numpy as np

from clcoop.coopmat_spec import COMPONENTS_BY_LLVM, MatrixType, Use
from clcoop.errors import RuntimeFault
from clcoop.ir.scalars import COMPONENT_DTYPES

# Names of the uses accepted by the debug API and `clcoop-layout` (lower case).
USE_BY_NAME = {"a": Use.A, "matrix_a": Use.A, "b": Use.B, "matrix_b": Use.B,
               "accumulator": Use.ACCUMULATOR, "acc": Use.ACCUMULATOR,
               "matrix_acc": Use.ACCUMULATOR, "c": Use.ACCUMULATOR}
USE_NAMES = {Use.A: "a", Use.B: "b", Use.ACCUMULATOR: "accumulator"}


class LayoutError(RuntimeFault):
    """A matrix shape or subgroup size the layout cannot represent (a ClcoopError; a
    RuntimeFault because it surfaces when a kernel runs with such a matrix)."""


def component_name(elem):
    """Normalizes 'float' / 'i8' / a NumPy dtype to the OpenCL component name."""
    if isinstance(elem, str):
        if elem in COMPONENT_DTYPES:
            return elem
        if elem in COMPONENTS_BY_LLVM and COMPONENTS_BY_LLVM[elem].name in COMPONENT_DTYPES:
            return COMPONENTS_BY_LLVM[elem].name
    else:
        dtype = np.dtype(elem)
        for name, candidate in COMPONENT_DTYPES.items():
            if np.dtype(candidate) == dtype:
                return name
    raise LayoutError(f"unsupported cooperative matrix component type '{elem}' "
                      f"(expected one of {', '.join(COMPONENT_DTYPES)})")


def component_size(elem):
    return np.dtype(COMPONENT_DTYPES[component_name(elem)]).itemsize


def use_code(use):
    """'a'/'b'/'accumulator' or 0/1/2 -> the SPIR-V use number."""
    if isinstance(use, (int, np.integer)) and int(use) in USE_NAMES:
        return int(use)
    if isinstance(use, str) and use.lower() in USE_BY_NAME:
        return int(USE_BY_NAME[use.lower()])
    raise LayoutError(f"invalid cooperative matrix use '{use}' (expected a, b or accumulator)")


def _is_power_of_two(n):
    return n >= 1 and (n & (n - 1)) == 0


def _next_power_of_two(n):
    return 1 << max(int(n) - 1, 0).bit_length()


def matrix_type_of(t):
    """The coopmat_spec.MatrixType of a loader Ty, of a MatrixType, or of IR type text
    (the debug API's argument); LayoutError when it names none."""
    if isinstance(t, MatrixType):
        return t
    matrix = getattr(t, "matrix", None)
    if matrix is None and isinstance(t, str):
        matrix = MatrixType.parse(t)
    if matrix is None:
        raise LayoutError(f"not a cooperative matrix type: {t}")
    return matrix


@functools.lru_cache(maxsize=None)
def _cached_layout(rows, cols, use, elem, subgroup_size):
    return MatrixLayout(rows, cols, use, elem, subgroup_size)


def get_layout(rows, cols, use, elem, subgroup_size):
    """Cached MatrixLayout (the index tables are computed once per shape)."""
    return _cached_layout(int(rows), int(cols), use_code(use), component_name(elem),
                          int(subgroup_size))


class MatrixLayout:
    """The layout of an M x N matrix of `elem` with `use` over a subgroup of S work-items.

    Attributes: rows, cols, use (0/1/2), elem (OpenCL name), subgroup_size, I, J, K,
    K1, K2, padded_rows (I*K: rows + padding rows), omega (VNNI operands per channel, 1 when not packed), length (V),
    index (int64 (S, V)), and the gather tables used by to_logical/from_logical.
    """

    def __init__(self, rows, cols, use, elem, subgroup_size):
        self.rows, self.cols = int(rows), int(cols)
        self.use = use_code(use)
        self.elem = component_name(elem)
        self.subgroup_size = int(subgroup_size)
        self.group_size = self.subgroup_size     # the work-items one matrix is spread over
        self._check_shape()
        self._compute_sizes()
        self.index = self._compute_index()
        self._compute_gather_tables()

    def __repr__(self):
        return (f"MatrixLayout(rows={self.rows}, cols={self.cols}, use={USE_NAMES[self.use]!r}, "
                f"elem={self.elem!r}, subgroup_size={self.subgroup_size})")

    @property
    def dtype(self):
        return np.dtype(COMPONENT_DTYPES[self.elem])

    def _check_shape(self):
        # "We require M, S to be powers of two and to be greater or equal than 1." Other
        # row counts are laid out as padded to padded_rows (docs/layout.md).
        if not _is_power_of_two(self.subgroup_size):
            raise LayoutError(f"cooperative matrix layout requires the subgroup size to be a power "
                              f"of two, got {self.subgroup_size}")
        if self.rows < 1:
            raise LayoutError(f"cooperative matrix must have at least one row, got {self.rows}")
        if self.cols < 1:
            raise LayoutError(f"cooperative matrix must have at least one column, got {self.cols}")

    def _compute_sizes(self):
        S, M, N = self.subgroup_size, self.rows, self.cols
        size = component_size(self.elem)
        # I = min(M, S) for a power-of-two M. Any other M is laid out as the smallest
        # matrix the formulas allow, padded_rows = I*K >= M, whose rows >= M are padding
        # like the rows outside the shape in the spec's load pseudo-code (RowsChecked):
        # I = min(next power of two >= M, S), K = ceil(M / I) (docs/layout.md).
        self.I = min(_next_power_of_two(M), S)
        # J = ceil(I*N/S)*S/I: the smallest n >= N with I*n a multiple of S.
        self.J = -(-self.I * N // S) * S // self.I
        self.K = -(-M // self.I)
        self.K1 = 1
        if self.use == Use.B and M > S:
            # "Matrix B": K1 = omega_b = max(1, 2/size(ty)) if M/S > 1 else 1 (K a multiple
            # of K1: "static_assert(K%K1 == 0)"; an odd K is padded by one more row block).
            self.K1 = max(1, 2 // size)
            self.K = -(-self.K // self.K1) * self.K1
        self.padded_rows = self.I * self.K
        self.K2 = self.K // self.K1
        self.length = self.I * self.K * self.J // S
        self.omega = 1
        if self.use == Use.A:
            self.omega = self._vnni_omega(size)

    def _vnni_omega(self, size):
        """"Matrix A": low-precision types are VNNI packed with omega = max(1, 4/size)
        operands per channel when N is a multiple of omega. We also need the packed
        entries (I*K*J/omega of them) to divide evenly over the subgroup, which always
        holds when M >= S; otherwise the matrix stays unpacked (docs/layout.md)."""
        omega = max(1, 4 // size)
        if omega == 1 or self.cols % omega != 0 or self.J % omega != 0:
            return 1
        if (self.I * self.K * (self.J // omega)) % self.subgroup_size != 0:
            return 1
        return omega

    def _compute_index(self):
        S, V = self.subgroup_size, self.length
        p = np.arange(S, dtype=np.int64)[:, None]
        if self.omega == 1:
            v = np.arange(V, dtype=np.int64)[None, :]
            row, col = self._unlinearize(p + v * S, self.J)
        else:
            # VNNI (A**): entry e of work-item p packs omega channels; channel c is
            # component v = e*omega + c and holds column c + j*omega (docs/layout.md).
            omega = self.omega
            entries = V // omega
            e = np.repeat(np.arange(entries, dtype=np.int64), omega)[None, :]
            c = np.tile(np.arange(omega, dtype=np.int64), entries)[None, :]
            row, packed_col = self._unlinearize(p + e * S, self.J // omega)
            col = c + packed_col * omega
        valid = (row < self.rows) & (col < self.cols)
        return np.where(valid, row * self.cols + col, -1).astype(np.int64)

    def _unlinearize(self, linear, J):
        """L^{-1}: i = L mod I, k1 = floor(L/I) mod K1, j = floor(L/(I K1)) mod J,
        k2 = floor(L/(I K1 J)); A*[i,k1,j,k2] = A[i + k1 I + k2 I K1, j]."""
        I, K1 = self.I, self.K1
        i = linear % I
        k1 = (linear // I) % K1
        j = (linear // (I * K1)) % J
        k2 = linear // (I * K1 * J)
        row = i + k1 * I + k2 * I * K1
        return row, j

    def _compute_gather_tables(self):
        flat = self.index.reshape(-1)
        n_logical = self.rows * self.cols
        # For every logical element, the slot p*V+v that holds it.
        slot_of_logical = np.full(n_logical, -1, dtype=np.int64)
        valid = flat >= 0
        slot_of_logical[flat[valid]] = np.nonzero(valid)[0]
        if (slot_of_logical < 0).any() or valid.sum() != n_logical:
            raise LayoutError(f"internal error: {self!r} does not cover every element exactly once")
        self.slot_of_logical = slot_of_logical
        # For every slot, the logical element, with padding pointing at an appended zero.
        self.logical_of_slot = np.where(valid, flat, n_logical)
        self.has_padding = not valid.all()
        # Without padding, every power-of-two layout moves index bits around; then the
        # relayouts are reshape + transpose copies, ~2-4x faster than np.take
        # (docs/performance.md).
        self._to_logical_plan = None if self.has_padding else _bit_transpose_plan(slot_of_logical)
        self._from_logical_plan = None if self.has_padding else \
            _bit_transpose_plan(self.logical_of_slot)

    def row_col(self, p, v):
        """(row, col) of component v of work-item p, or None for padding."""
        flat = int(self.index[p, v])
        if flat < 0:
            return None
        return divmod(flat, self.cols)

    def to_logical(self, lanes):
        """(G, S, V) per-work-item components -> (G, rows, cols) logical matrices."""
        lanes = np.asarray(lanes)
        G = lanes.shape[0]
        if self._to_logical_plan is not None:
            return _apply_plan(lanes, self._to_logical_plan, (G, self.rows, self.cols))
        slots = lanes.reshape(G, self.subgroup_size * self.length)
        # np.take keeps the result C-contiguous (x[:, idx] does not, which makes the
        # batched matmul that follows ~20x slower).
        return np.take(slots, self.slot_of_logical, axis=1).reshape(G, self.rows, self.cols)

    def from_logical(self, mats):
        """(G, rows, cols) logical matrices -> (G, S, V) per-work-item components (padding 0)."""
        mats = np.asarray(mats)
        G = mats.shape[0]
        if self._from_logical_plan is not None:
            return _apply_plan(mats, self._from_logical_plan, (G, self.subgroup_size, self.length))
        flat = mats.reshape(G, self.rows * self.cols)
        if self.has_padding:
            flat = np.concatenate([flat, np.zeros((G, 1), dtype=flat.dtype)], axis=1)
        return np.take(flat, self.logical_of_slot, axis=1).reshape(G, self.subgroup_size,
                                                                   self.length)


def _bit_transpose_plan(source_of):
    """A permutation out[i] = in[source_of[i]] of n = 2**k items that only moves index
    bits (bit b of i becomes bit src[b] of source_of[i]) is a reshape of `in` into runs of
    consecutive bits, a transpose and a reshape. Returns (in_shape, axes) or None when
    source_of is not such a permutation."""
    n = int(source_of.size)
    k = n.bit_length() - 1
    if n < 2 or (1 << k) != n or int(source_of[0]) != 0:
        return None
    src = []
    for b in range(k):
        moved = int(source_of[1 << b])
        if moved <= 0 or moved & (moved - 1):
            return None
        src.append(moved.bit_length() - 1)
    indices = np.arange(n, dtype=np.int64)
    rebuilt = np.zeros(n, dtype=np.int64)
    for b, s in enumerate(src):
        rebuilt |= ((indices >> b) & 1) << s
    if not np.array_equal(rebuilt, source_of):
        return None
    # Runs of output bits b..b+c-1 that come from consecutive input bits.
    runs = []                                   # (output low bit, width, input low bit)
    for b, s in enumerate(src):
        if runs and runs[-1][2] + runs[-1][1] == s and runs[-1][0] + runs[-1][1] == b:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1, runs[-1][2])
        else:
            runs.append((b, 1, s))
    in_order = sorted(range(len(runs)), key=lambda r: -runs[r][2])     # C order: high bits first
    out_order = sorted(range(len(runs)), key=lambda r: -runs[r][0])
    in_shape = tuple(1 << runs[r][1] for r in in_order)
    axes = tuple(in_order.index(r) for r in out_order)
    return in_shape, axes


def _apply_plan(values, plan, out_shape):
    """(G, ...) -> out_shape through the reshape/transpose of _bit_transpose_plan (a
    C-contiguous copy). An innermost run that does not move is copied as one wider
    unsigned item: NumPy's copy loops are slow over 2- or 4-item inner axes."""
    in_shape, axes = plan
    G = values.shape[0]
    values = np.ascontiguousarray(values)
    grouped = values.reshape((G,) + in_shape)
    item = values.dtype.itemsize * in_shape[-1]
    if len(axes) > 1 and axes[-1] == len(axes) - 1 and item in (2, 4, 8):
        wide = grouped.view(np.dtype(f"u{item}")).reshape((G,) + in_shape[:-1])
        moved = wide.transpose((0,) + tuple(1 + a for a in axes[:-1]))
        return np.ascontiguousarray(moved).view(values.dtype).reshape(out_shape)
    moved = grouped.transpose((0,) + tuple(1 + a for a in axes))
    inner = moved.shape[-1]
    if axes[-1] != len(axes) - 1 and inner <= 8:
        # A short innermost output axis that moved: one strided copy per position is
        # several times faster than the transposing copy.
        out = np.empty(moved.shape, dtype=values.dtype)
        for position in range(inner):
            out[..., position] = moved[..., position]
        return out.reshape(out_shape)
    return np.ascontiguousarray(moved).reshape(out_shape)
