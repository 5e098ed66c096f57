"""Votes natively (native/votes.py, issue 29): work_group_all and work_group_any (the
flash-attention port skips fully masked blocks with work_group_all) as a rendezvous of the
work-group, in 1-D and 2-D work-groups, after other barriers and in loops; sub_group_all and
sub_group_any in partial sub-groups (work-group sizes that are no multiple of the sub-group
size: the fast path does not take them, and they ran in the interpreter). Bit for bit the
interpreter's and NumPy's; reached by part of the group, the interpreter's fault."""
import warnings

import numpy as np
import pytest

import clcoop
from clcoop.errors import RuntimeFault
from clcoop.native.support import NativeFallbackWarning

VOTES = """
__kernel void k(__global const int *x, __global int *all, __global int *any, int rounds) {
    size_t g = get_global_id(0) + get_global_id(1) * get_global_size(0);
    int a = 0, b = 0;
    for (int r = 0; r < rounds; ++r) {          // the same vote again: uniform loop
        a += work_group_all(x[g] > r);
        barrier(CLK_GLOBAL_MEM_FENCE);
        b += work_group_any(x[g] > 5 + r);
    }
    all[g] = a;
    any[g] = b;
}
"""


def _votes(program, x, global_size, local_size, rounds):
    all_, any_ = np.full_like(x, -1), np.full_like(x, -1)
    program.k(global_size, local_size, x, all_, any_, np.int32(rounds))
    return all_, any_


def _numpy_votes(x, global_size, local_size, rounds):
    """The votes per work-group, by reshaping the NDRange into its groups."""
    gx, gy = global_size if len(global_size) == 2 else (global_size[0], 1)
    lx, ly = local_size if len(local_size) == 2 else (local_size[0], 1)
    grid = x.reshape(gy // ly, ly, gx // lx, lx)
    all_, any_ = np.zeros_like(grid), np.zeros_like(grid)
    for r in range(rounds):
        all_ += (grid > r).all(axis=(1, 3), keepdims=True)
        any_ += (grid > 5 + r).any(axis=(1, 3), keepdims=True)
    return all_.reshape(-1), any_.reshape(-1)


@pytest.mark.parametrize("global_size,local_size", [((64,), (16,)), ((96,), (32,)), ((24,), (24,)),
                                                    ((16, 8), (8, 4)), ((12, 6), (3, 2))])
def test_votes_natively_match_the_interpreter_and_numpy(global_size, local_size):
    rng = np.random.default_rng(sum(global_size) + sum(local_size))
    count = int(np.prod(global_size))
    gx, gy = global_size if len(global_size) == 2 else (global_size[0], 1)
    lx, ly = local_size if len(local_size) == 2 else (local_size[0], 1)
    grid = rng.integers(3, 9, (gy, gx)).astype(np.int32)
    rows, cols = np.nonzero((np.arange(gy)[:, None] // ly + np.arange(gx)[None, :] // lx) % 2 == 1)
    grid[rows[::5], cols[::5]] = 0      # a 0 in every other work-group: all() false there
    x = grid.reshape(-1)
    results = []
    for engine in ("interp", "auto"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", NativeFallbackWarning)
            program = clcoop.Program(VOTES).build(engine=engine)
        results.append(_votes(program, x, global_size, local_size, rounds=3))
    assert program.kernel("k").engine == "native"
    (interp_all, interp_any), (native_all, native_any) = results
    assert native_all.tobytes() == interp_all.tobytes() and native_any.tobytes() == interp_any.tobytes()
    expected_all, expected_any = _numpy_votes(x, global_size, local_size, rounds=3)
    np.testing.assert_array_equal(native_all, expected_all)
    np.testing.assert_array_equal(native_any, expected_any)
    assert native_all.max() == 3 and (count == np.prod(local_size) or native_all.min() < 3)    # both outcomes


def test_a_vote_reached_by_part_of_a_work_group_faults_as_in_the_interpreter():
    """Work-item 5 returns before the vote. (Where the missing work-items wait at another
    barrier instead, the native words are the barriers': "work-items of one work-group
    wait at different barriers".)"""
    source = VOTES.replace("int a = 0, b = 0;", "int a = 0, b = 0;\n    if (g == 5) return;")
    messages = []
    for engine in ("interp", "native"):
        program = clcoop.Program(source).build(engine=engine)
        with pytest.raises(RuntimeFault) as fault:
            _votes(program, np.ones(32, np.int32), (32,), (16,), rounds=1)
        messages.append(str(fault.value).splitlines()[0])
    assert messages[0] == messages[1]
    assert "kernel 'k': work_group_all: barrier reached under divergent control flow" in messages[1]


SUBGROUP_VOTES = """
__kernel void k(__global const int *x, __global int *all, __global int *any) {
    size_t g = get_global_id(0);
    SKIP
    all[g] = sub_group_all(x[g] > 0);
    any[g] = sub_group_any(x[g] > 5);
}
"""


def _numpy_subgroup_votes(x, local, S):
    """Each work-group cut into sub-groups of S, the last one partial."""
    all_, any_ = np.zeros_like(x), np.zeros_like(x)
    for group in range(0, len(x), local):
        for first in range(group, group + local, S):
            part = x[first:min(first + S, group + local)]
            all_[first:first + len(part)] = (part > 0).all()
            any_[first:first + len(part)] = (part > 5).any()
    return all_, any_


@pytest.mark.parametrize("local,S", [(24, 16), (12, 8), (20, 8), (48, 16), (5, 8)])
def test_subgroup_votes_in_partial_subgroups_run_natively(local, S):
    x = np.ones(48 * 5 // local * local, np.int32)
    x[[3, 20, 30]] = 0          # all() false in their sub-groups
    x[[9, 26, 40]] = 7          # any() true in theirs
    source = SUBGROUP_VOTES.replace("SKIP", "")
    results = []
    for engine in ("interp", "auto"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", NativeFallbackWarning)
            program = clcoop.Program(source).build(engine=engine)
            all_, any_ = np.full_like(x, -1), np.full_like(x, -1)
            program.k((len(x),), (local,), x, all_, any_, subgroup_size=S)
        results.append((all_, any_))
    assert results[0][0].tobytes() == results[1][0].tobytes() and results[0][1].tobytes() == results[1][1].tobytes()
    expected = _numpy_subgroup_votes(x, local, S)
    np.testing.assert_array_equal(results[1][0], expected[0])
    np.testing.assert_array_equal(results[1][1], expected[1])


@pytest.mark.parametrize("local", [24, 16])
def test_a_subgroup_vote_reached_by_part_of_its_subgroup_faults_as_in_the_interpreter(local):
    """Work-item 21 returns first: in a partial sub-group (24 = 16 + 8) and in a full one (the
    fast path's check fails and the launch runs again per work-item, natively)."""
    source = SUBGROUP_VOTES.replace("SKIP", "if (g == 21) return;")
    messages = []
    for engine in ("interp", "native"):
        program = clcoop.Program(source).build(engine=engine)
        with pytest.raises(RuntimeFault) as fault:
            program.k((48,), (local,), np.ones(48, np.int32), np.zeros(48, np.int32), np.zeros(48, np.int32),
                      subgroup_size=16)
        messages.append(str(fault.value))
    assert messages[0] == messages[1]
    assert "sub_group_all: sub-group operation reached under divergent control flow: work-item (21)" in messages[1]


def test_votes_in_a_called_function_at_o0_run_natively():
    """At -O0 a helper is not inlined by the compiler: the engine inlines every function
    reaching a vote into its kernel (as for barriers), since only a kernel's coroutine can
    wait at a rendezvous."""
    source = """
int vote(int v) { return sub_group_all(v > 0) + 2 * work_group_any(v > 40); }
__kernel void k(__global const int *x, __global int *out) {
    size_t g = get_global_id(0);
    out[g] = vote(x[g]);
}
"""
    x = np.arange(1, 49, dtype=np.int32)
    x[17] = 0
    results = []
    for engine in ("interp", "auto"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", NativeFallbackWarning)
            program = clcoop.Program(source).build(options=["-O0"], engine=engine)
            out = np.full_like(x, -1)
            program.k((48,), (24,), x, out, subgroup_size=16)
        results.append(out)
    assert results[0].tobytes() == results[1].tobytes()
    expected = np.array([1] * 16 + [0] * 8 + [1] * 16 + [1] * 8) + 2 * np.repeat([0, 1], 24)
    np.testing.assert_array_equal(results[1], expected)
