"""Cooperative-matrix operations with a function operand, in the interpreter: the user's
OpenCL C function run over arrays of lanes (docs/coopmat2-semantics.md).

A function operand (`ptr @f` in a cooperative-matrix call, docs/ir-conventions.md) is
translated to a FunctionOperand (translate.py), which the handlers of coop_calls.py pass
here. `call_function(ctx, function, args, owners)` runs the function once over n lanes,
lane k acting for work-item owners[k] of the batch (Executor.call_on_lanes): a reduction
calls its combine function once per tree level over every pair of every sequence of all
subgroups (coopmat2.combine_tree); a per-element function runs once over every element of
every subgroup's matrix, each element acting for the work-item that holds it.
"""
from typing import NamedTuple

import numpy as np

from clcoop.errors import IRError
from clcoop.interp import coopmat2
from clcoop.ir.rounding import is_float8
from clcoop.ir.scalars import INT_DTYPES


class FunctionOperand(NamedTuple):
    """The value of a function operand: the name of a function defined in the module. A
    tuple, so that the call path does not spread it over lanes."""
    name: str


def call_function(ctx, function, args, owners):
    """The (n,) results of `function` (a FunctionOperand: translate.py checked that the
    module defines it) called on n lanes with `args` (arrays of n values, in the IR types of
    its parameters), lane k acting for lane owners[k] of the batch."""
    if not isinstance(function, FunctionOperand):
        raise IRError(f"the function operand of a cooperative matrix operation must name a "
                      f"function defined in the module (got {function!r})")
    if len(owners) == 0:
        return np.zeros(0)
    runner = getattr(ctx, "call_on_lanes", None)
    if runner is None:
        raise IRError("internal: running a function operand needs the executor (call_on_lanes)")
    return np.asarray(runner(function.name, args, np.asarray(owners, dtype=np.int64)))


def ir_values(values):
    """Component values as the IR holds them: LLVM integers are sign-less, kept in the
    signed dtype of their width (scalars.INT_DTYPES); an fp8 value is its i8 bits
    (docs/coopmat2-semantics.md "fp8", IR); floats unchanged."""
    values = np.asarray(values)
    if values.dtype.kind == "u" or is_float8(values.dtype):
        return values.view(INT_DTYPES[values.dtype.itemsize * 8])
    return values


def component_values(values, dtype):
    """Results of a function back in the component dtype (the same bits for integers, and
    for fp8 components, which a function returns as i8 bits: viewed, never converted by
    value)."""
    values = np.asarray(values)
    bits = dtype.kind in "iu" or is_float8(dtype)
    if bits and (values.dtype.kind in "iu" or is_float8(values.dtype)) and values.dtype.itemsize == dtype.itemsize:
        return values.view(dtype)
    return values.astype(dtype)


# ---------------------------------------------------------------- reductions

def reduce(ctx, mats, mode, combine, result_shape, subgroup_owners):
    """OpCooperativeMatrixReduceNV on the logical (G, R, C) matrices: coopmat2.reduce with
    the user's combine function run on lanes; a pair of subgroup g's matrix acts for
    subgroup_owners[g] (its first work-item)."""
    G = mats.shape[0]
    dtype = mats.dtype

    def combine_lanes(x, y):
        owners = np.repeat(subgroup_owners, x.size // max(G, 1))
        result = call_function(ctx, combine, [ir_values(x), ir_values(y)], owners)
        return component_values(result, dtype)

    return coopmat2.reduce(mats, mode, combine_lanes, result_shape)


# ---------------------------------------------------------------- per-element functions

def element_owners(layout, lanes):
    """(G*R*C,) lane of the work-item holding each element (g, r, c), in
    coopmat2.per_element's element order; `lanes` (G, S) are the subgroups' lanes."""
    holder = np.zeros(layout.rows * layout.cols, dtype=np.int64)
    index = np.asarray(layout.index)
    items, slots = np.nonzero(index >= 0)
    holder[index[items, slots]] = items
    return np.asarray(lanes)[:, holder].reshape(-1)


def per_element(ctx, mats, function, extras, owners):
    """OpCooperativeMatrixPerElementOpNV on (G, R, C): `extras` are (G, R, C) matrices or
    (G*R*C,) per-element scalars (the value of the work-item holding the element);
    owners from element_owners."""
    dtype = mats.dtype

    def run(row, col, x, *extra_values):
        args = [row.astype(np.int32), col.astype(np.int32), ir_values(x)]
        args += [ir_values(v) for v in extra_values]
        return component_values(call_function(ctx, function, args, owners), dtype)

    flat_extras = [e if np.ndim(e) == 3 else np.asarray(e).reshape(mats.shape) for e in extras]
    return coopmat2.per_element(mats, run, flat_extras)


# ---------------------------------------------------------------- coordinates

def coordinates(layout, index):
    """(G, S, 2) int32 (row, col) of OpCooperativeMatrixGetCoordinateEXT for the (G, S)
    indices of each subgroup's work-items (coopmat2.get_coordinate)."""
    row, col, _padding = coopmat2.get_coordinate(layout, index)
    return np.stack([row, col], axis=-1).view(np.int32)
