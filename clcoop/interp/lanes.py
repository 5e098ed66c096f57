"""Lanes of a batch: broadcasting uniform values, the active lanes of a masked
operation and expanding their results back to every lane (docs/design.md
"Interpreter value model")."""
import numpy as np

from clcoop.interp.matrix_value import MatrixValue


def bcast(v, L):
    """Per-lane view of a value: uniform scalars () and constant vectors (1, n) are
    broadcast to (L,) and (L, n). A MatrixValue is per-lane already (and stays lazy)."""
    if isinstance(v, MatrixValue):
        return v
    v = np.asarray(v)
    if v.ndim == 0:
        return np.broadcast_to(v, (L,))
    if v.shape[0] != L:
        return np.broadcast_to(v, (L,) + v.shape[1:]) if v.shape[0] == 1 else \
            np.broadcast_to(v, (L,) + v.shape)
    return v


def active_lanes(ex, bmask, full):
    if full:
        ex.cur_lanes = np.arange(ex.lane_count)
        return None
    lanes = np.nonzero(bmask)[0]
    ex.cur_lanes = lanes
    return lanes


def expand_lanes(ex, lanes, res, dtype=None):
    if lanes is None:
        return res
    out = np.zeros((ex.lane_count,) + res.shape[1:], dtype or res.dtype)
    out[lanes] = res
    return out


def select_lanes(sel, a, b, L):
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    nd = max(a_nd, b_nd, 1)
    if isinstance(a, tuple) or isinstance(b, tuple):
        return tuple(select_lanes(sel, x, y, L) for x, y in zip(a, b))
    s = sel.reshape((-1,) + (1,) * (nd - 1))
    if a_nd and b_nd and np.shape(a)[0] != L and np.shape(b)[0] != L:
        a = bcast(a, L)        # both are constant vectors (1, n)
    return np.where(s, a, b)


def assign_lanes(vals, dst, value, bmask, full, L):
    old = vals[dst]
    if full or old is None:
        vals[dst] = value
    else:
        vals[dst] = select_lanes(bmask, value, old, L)


def active_operands(ex, args, bmask, full):
    """(lanes, the operands' rows of the active work-items); lanes is None when all are
    active (see active_lanes, expand_lanes)."""
    operands = [bcast(a, ex.lane_count) for a in args]
    lanes = active_lanes(ex, bmask, full)
    if lanes is not None:
        operands = [v[lanes] for v in operands]
    return lanes, operands
