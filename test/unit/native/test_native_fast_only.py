"""Kernels compiled natively only on the subgroup-wide path (KernelPlan.work_item_reason,
e.g. sub-group collectives): a launch that path does not take, or whose checks fail, runs in
the interpreter on the caller's arrays, with a warning once, and reports the interpreter's
own fault. The plans here are marked by hand, so the runtime's side is tested whatever the
code generator marks."""
import warnings

import numpy as np
import pytest

import clcoop
from clcoop.native.support import NativeFallbackWarning

# get_sub_group_local_id observes the subgroup: the fast path runs S = 16 lanes.
SOURCE = """
__kernel void k(__global const float *a, __global float *c, __global const int *shift) {
    size_t i = get_global_id(0);
    c[i + shift[0]] = a[i] + (float)get_sub_group_local_id();
}"""


def fast_only():
    prog = clcoop.Program(SOURCE).build(engine="native")
    plan = prog._native.native.plans["k"]
    assert prog._native.execution_mode("k") == "subgroup" and plan.subgroup_lanes == 16
    plan.work_item_reason = "made for this test"
    return prog


def expected(a, local):
    return a + (np.arange(a.size) % local % 16).astype(np.float32)


def test_a_launch_on_the_fast_path_runs_natively():
    prog = fast_only()
    a = np.arange(256, dtype=np.float32)
    c = np.zeros_like(a)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeFallbackWarning)
        prog.k(256, 64, a, c, np.zeros(1, np.int32))
    np.testing.assert_array_equal(c, expected(a, 64))
    assert prog._native.fast_launches == {"k": 1}


def test_a_launch_the_fast_path_does_not_take_runs_in_the_interpreter_with_one_warning():
    prog = fast_only()
    a = np.arange(240, dtype=np.float32)
    c = np.zeros_like(a)
    with pytest.warns(NativeFallbackWarning, match="made for this test.*multiples of 16.*interpreter"):
        prog.k(240, 24, a, c, np.zeros(1, np.int32))
    np.testing.assert_array_equal(c, expected(a, 24))
    assert prog._native.fast_launches == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeFallbackWarning)
        c[:] = 0
        prog.k(240, 24, a, c, np.zeros(1, np.int32))      # the same reason: no second warning
    np.testing.assert_array_equal(c, expected(a, 24))


def test_a_failed_check_is_reported_by_the_interpreter_and_leaves_the_arrays_untouched():
    prog = fast_only()
    a = np.arange(256, dtype=np.float32)
    c = np.ones_like(a)
    with pytest.warns(NativeFallbackWarning, match="failed a check"):
        with pytest.raises(clcoop.RuntimeFault, match=r"(?s)out-of-bounds write.*global id \(255\)"):
            prog.k(256, 64, a, c, np.ones(1, np.int32))
    assert (c == 1).all()
    assert prog._native.fast_reruns == {"k": 1}
