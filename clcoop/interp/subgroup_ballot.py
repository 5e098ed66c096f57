"""cl_khr_subgroup_ballot and cl_khr_subgroup_non_uniform_vote for the interpreter.

These functions are non-uniform (OpenCL extension spec, "cl_khr_subgroup_ballot" and
"cl_khr_subgroup_non_uniform_vote"): they may run with only some work-items of a
sub-group active, and they see only the active ones (the branch mask `bmask`).

A ballot is a uint4 whose bit i (bit i % 32 of component i / 32) stands for the work-item
of sub-group local id i. The bit queries (count, scans, find_lsb/msb) consider only the
bits of the work-items the sub-group has (get_sub_group_size(): the last sub-group of a
work-group may be smaller). Decisions where the extension leaves the result undefined:
- find_lsb / find_msb of a ballot with no considered bit set return 0xFFFFFFFF (as GLSL's
  findLSB/findMSB give -1);
- sub_group_non_uniform_broadcast from an inactive work-item, or with an index that is not
  the same in every active work-item of the sub-group, is a fault (the result is undefined
  in the extension; a run that depends on it would differ between devices).
The native engine compiles them (native/ballot_ir.py): the votes on its subgroup-wide path
only, where a lane-varying branch masks the inactive lanes.
"""
import numpy as np

from clcoop.interp.lanes import bcast
from clcoop.ir.scalars import scalar_dtype

BALLOT_WORDS = 4      # uint4
NONE_FOUND = np.uint32(0xFFFFFFFF)


def _place(ex):
    """(sub-group row of each lane, its local id, its sub-group's size, row count)."""
    S = ex.subgroup_size
    wg = ex.nd.wg_size
    per_wg = -(-wg // S)
    llid = ex.lane_ids.llid
    group = ex.lane_ids.group_linear - ex.lane_ids.first_group
    rows = group * per_wg + llid // S
    cols = llid % S
    sizes = np.minimum(S, wg - (llid // S) * S)
    return rows, cols, sizes, ex.group_count * per_wg


def _table(ex, values, active, fill):
    """(rows, S) table of each sub-group's values at its active lanes, `fill` elsewhere."""
    rows, cols, _, count = _place(ex)
    values = bcast(np.asarray(values), ex.lane_count)
    table = np.full((count, ex.subgroup_size) + values.shape[1:], fill, values.dtype)
    table[rows[active], cols[active]] = values[active]
    return table


def _bits_to_words(bits):
    """(n, S) bools -> (n, 4) uint32: bit i in word i // 32 (the ballot's layout)."""
    n, S = bits.shape
    padded = np.zeros((n, 32 * BALLOT_WORDS), np.uint64)
    padded[:, :S] = bits
    weights = np.uint64(1) << np.arange(32, dtype=np.uint64)
    return (padded.reshape(n, BALLOT_WORDS, 32) * weights).sum(axis=2).astype(np.uint32)


def _words_to_bits(words):
    """(L, 4) uint32 -> (L, 128) bools."""
    words = np.asarray(words).astype(np.uint32).reshape(-1, BALLOT_WORDS)
    shifts = np.arange(32, dtype=np.uint32)
    return ((words[:, :, None] >> shifts) & 1).astype(bool).reshape(len(words), 32 * BALLOT_WORDS)


def _considered(ex):
    """(L, 128) bools: the bits that stand for work-items of each lane's sub-group."""
    _, _, sizes, _ = _place(ex)
    return np.arange(32 * BALLOT_WORDS)[None, :] < sizes[:, None]


def _ballot_arg(ex, value):
    return _words_to_bits(bcast(np.asarray(value), ex.lane_count)) & _considered(ex)


def _active(bmask, ex):
    return np.asarray(bmask, bool) if bmask is not None else np.ones(ex.lane_count, bool)


# ------------------------------------------------------------------ handlers

def _ballot(base, params, arg_types, ret_ty):
    def h(ex, args, bmask, full, ins):
        active = _active(bmask, ex)
        predicate = bcast(np.asarray(args[0]) != 0, ex.lane_count)
        rows, _, _, _ = _place(ex)
        return _bits_to_words(_table(ex, predicate, active, False))[rows]
    return h


def _bit_query(kind):
    def make(base, params, arg_types, ret_ty):
        out = scalar_dtype(ret_ty)

        def h(ex, args, bmask, full, ins):
            bits = _ballot_arg(ex, args[0])
            _, cols, _, _ = _place(ex)
            index = np.arange(bits.shape[1])[None, :]
            if kind == "inverse":
                r = bits[np.arange(len(bits)), cols]
            elif kind == "extract":
                # (a uint: 0xFFFFFFFF names no bit, not bit -1 = 127)
                at = bcast(np.asarray(args[1]), ex.lane_count).astype(np.uint32).astype(np.int64)
                r = np.where(at < bits.shape[1], bits[np.arange(len(bits)), np.minimum(at, bits.shape[1] - 1)], False)
            elif kind == "count":
                r = bits.sum(axis=1)
            elif kind == "inclusive_scan":
                r = (bits & (index <= cols[:, None])).sum(axis=1)
            elif kind == "exclusive_scan":
                r = (bits & (index < cols[:, None])).sum(axis=1)
            elif kind == "find_lsb":
                r = np.where(bits.any(axis=1), np.argmax(bits, axis=1), NONE_FOUND)
            else:     # find_msb
                last = bits.shape[1] - 1 - np.argmax(bits[:, ::-1], axis=1)
                r = np.where(bits.any(axis=1), last, NONE_FOUND)
            return np.asarray(r).astype(np.int64).astype(out)
        return h
    return make


def _mask(kind):
    """get_sub_group_{eq,ge,gt,le,lt}_mask: the bits of the sub-group's work-items whose
    local id compares so with the caller's."""
    compare = {"eq": np.equal, "ge": np.greater_equal, "gt": np.greater,
               "le": np.less_equal, "lt": np.less}[kind]

    def make(base, params, arg_types, ret_ty):
        def h(ex, args, bmask, full, ins):
            _, cols, _, _ = _place(ex)
            index = np.arange(32 * BALLOT_WORDS)[None, :]
            bits = compare(index, cols[:, None]) & _considered(ex)
            return _bits_to_words(bits)
        return h
    return make


def _first_active(ex, active):
    """Per lane: the lowest active local id of its sub-group (S where none is)."""
    rows, cols, _, count = _place(ex)
    first = np.full(count, ex.subgroup_size, np.int64)
    np.minimum.at(first, rows[active], cols[active])
    return first[rows]


def _elect(base, params, arg_types, ret_ty):
    out = scalar_dtype(ret_ty)

    def h(ex, args, bmask, full, ins):
        active = _active(bmask, ex)
        _, cols, _, _ = _place(ex)
        return (_first_active(ex, active) == cols).astype(out)
    return h


def _vote(kind):
    def make(base, params, arg_types, ret_ty):
        out = scalar_dtype(ret_ty)

        def h(ex, args, bmask, full, ins):
            active = _active(bmask, ex)
            rows, _, _, _ = _place(ex)
            x = bcast(np.asarray(args[0]), ex.lane_count)
            if kind == "all_equal":
                first = _first_active(ex, active)
                table = _table(ex, x, active, 0)
                reference = table[rows, np.minimum(first, ex.subgroup_size - 1)]
                differs = _table(ex, ~(x == reference), active, False)     # NaN differs from itself
                return (~differs.any(axis=1))[rows].astype(out)
            predicate = x != 0
            if kind == "all":
                return (~_table(ex, ~predicate, active, False).any(axis=1))[rows].astype(out)
            return _table(ex, predicate, active, False).any(axis=1)[rows].astype(out)
        return h
    return make


def _broadcast_first(base, params, arg_types, ret_ty):
    out = scalar_dtype(ret_ty)

    def h(ex, args, bmask, full, ins):
        active = _active(bmask, ex)
        rows, _, _, _ = _place(ex)
        x = bcast(np.asarray(args[0]), ex.lane_count)
        first = np.minimum(_first_active(ex, active), ex.subgroup_size - 1)
        return _table(ex, x, active, 0)[rows, first].astype(out)
    return h


def _non_uniform_broadcast(base, params, arg_types, ret_ty):
    out = scalar_dtype(ret_ty)

    def h(ex, args, bmask, full, ins):
        active = _active(bmask, ex)
        rows, _, _, _ = _place(ex)
        x = bcast(np.asarray(args[0]), ex.lane_count)
        index = bcast(np.asarray(args[1]), ex.lane_count).astype(np.int64)
        S = ex.subgroup_size
        from_active = _table(ex, np.ones(ex.lane_count, bool), active, False)
        lowest = _table(ex, index, active, np.iinfo(np.int64).max).min(axis=1)[rows]
        highest = _table(ex, index, active, np.iinfo(np.int64).min).max(axis=1)[rows]
        bad = active & ((lowest != highest) | (index < 0) | (index >= S))
        if not bad.any():
            bad = active & ~from_active[rows, np.clip(index, 0, S - 1)]
        if bad.any():
            lane = int(np.argmax(bad))
            ex.fault(f"{base}: the index {int(index[lane])} must be the same in every active "
                     f"work-item of the sub-group and name an active work-item", lane=lane)
        return _table(ex, x, active, 0)[rows, np.clip(index, 0, S - 1)].astype(out)
    return h


def add_ballot_builtins(table):
    """Register the cl_khr_subgroup_ballot and cl_khr_subgroup_non_uniform_vote handlers."""
    table["sub_group_ballot"] = _ballot
    table["sub_group_inverse_ballot"] = _bit_query("inverse")
    table["sub_group_ballot_bit_extract"] = _bit_query("extract")
    table["sub_group_ballot_bit_count"] = _bit_query("count")
    table["sub_group_ballot_inclusive_scan"] = _bit_query("inclusive_scan")
    table["sub_group_ballot_exclusive_scan"] = _bit_query("exclusive_scan")
    table["sub_group_ballot_find_lsb"] = _bit_query("find_lsb")
    table["sub_group_ballot_find_msb"] = _bit_query("find_msb")
    for kind in ("eq", "ge", "gt", "le", "lt"):
        table[f"get_sub_group_{kind}_mask"] = _mask(kind)
    table["sub_group_non_uniform_broadcast"] = _non_uniform_broadcast
    table["sub_group_broadcast_first"] = _broadcast_first
    table["sub_group_elect"] = _elect
    table["sub_group_non_uniform_all"] = _vote("all")
    table["sub_group_non_uniform_any"] = _vote("any")
    table["sub_group_non_uniform_all_equal"] = _vote("all_equal")
