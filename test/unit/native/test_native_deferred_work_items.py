"""A kernel with a subgroup-wide fast path is built without its per-work-item path, which is
compiled when a launch first needs it (runtime.NativeProgram, "deferred"): a fault, or a
launch the fast path does not take. That path is about two thirds of a build's LLVM time
(issue 27), and most launches never need it. Each result is checked against NumPy or the
interpreter; the structure (what each engine holds) against the optimized IR."""
import re
import warnings

import numpy as np
import pytest

import clcoop
from clcoop.errors import RuntimeFault
from clcoop.native import jit
from clcoop.native.support import NativeFallbackWarning

SCALE = """
__kernel void scale(__global const float *a, __global float *c, int n) {
    size_t i = get_global_id(0);
    c[i] = a[i] * 2.0f + (float)n;
}"""

# A __constant table lives in the engine: the region table holds its address there.
TABLE = """
__constant float weights[4] = {0.5f, 1.5f, 2.5f, 3.5f};
__kernel void weigh(__global const float *a, __global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] * weights[i % 4];
}"""

# Two kernels: the first has a fast path, the second (a private array indexed by a
# work-item's own value) has none, so its per-work-item driver is built at once.
TWO = SCALE + """
__kernel void spread(__global const int *idx, __global float *c) {
    float t[8];
    for (int j = 0; j < 8; ++j) t[j] = (float)j;
    size_t i = get_global_id(0);
    c[i] = t[idx[i] & 7];
}"""


def defines(engine, symbol):
    """Whether the engine's optimized module defines `symbol` for the runtime to call."""
    pattern = r'^define (?!internal)[^@\n]*@"?' + re.escape(symbol) + r'"?\('
    return re.search(pattern, engine.optimized_ir, re.M) is not None


def native(source):
    prog = clcoop.Program(source).build(engine="native")
    return prog, prog._native


def test_the_build_leaves_the_per_work_item_path_out_and_the_fast_path_runs_without_it():
    prog, nat = native(SCALE)
    plan = nat.native.plans["scale"]
    assert nat.deferred == {"scale"} and nat.execution_mode("scale") == "subgroup"
    assert defines(nat.engine, plan.subgroup_driver)
    assert plan.driver not in nat.engine.optimized_ir          # deleted with what only it called
    a = np.arange(256, dtype=np.float32)
    c = np.zeros_like(a)
    prog.scale(256, 64, a, c, np.int32(3))
    np.testing.assert_array_equal(c, a * 2 + 3)
    assert nat.fast_launches["scale"] == 1
    assert nat._work_item_engine is None and "scale" not in nat.drivers


def test_a_launch_the_fast_path_does_not_take_compiles_the_per_work_item_path_once():
    prog, nat = native(SCALE)
    a = np.arange(60, dtype=np.float32)
    for n in (1, 2):
        c = np.zeros_like(a)
        prog.scale(60, 5, a, c, np.int32(n))        # 5 work-items: no sub-group of 4 or more lanes
        np.testing.assert_array_equal(c, a * 2 + n)
        first = nat._work_item_engine if n == 1 else first
    assert first is not None and nat._work_item_engine is first
    plan = nat.native.plans["scale"]
    assert defines(first, plan.driver) and plan.subgroup_driver not in first.optimized_ir
    assert "scale" not in nat.fast_launches


def test_a_fault_on_the_fast_path_is_reported_by_the_later_path_in_the_interpreters_words():
    a = np.arange(64, dtype=np.float32)
    words = []
    for engine in ("interp", "native"):
        prog = clcoop.Program(SCALE).build(engine=engine)
        c = np.zeros(32, np.float32)
        with pytest.raises(RuntimeFault) as fault:
            prog.scale(64, 64, a, c, np.int32(0))
        words.append(str(fault.value))
        np.testing.assert_array_equal(c, 0)           # the caller's array as it was passed
    assert words[0] == words[1]
    assert prog._native.fast_reruns["scale"] == 1 and prog._native._work_item_engine is not None


def test_a_program_scope_constant_keeps_both_paths_in_one_engine():
    prog, nat = native(TABLE)
    assert nat.deferred == set()
    assert defines(nat.engine, nat.native.plans["weigh"].driver)
    nat.subgroup_drivers.clear()                       # the per-work-item path, on the same table
    a = np.arange(64, dtype=np.float32)
    c = np.zeros_like(a)
    prog.weigh(64, 16, a, c)
    np.testing.assert_array_equal(c, a * np.tile(np.float32([0.5, 1.5, 2.5, 3.5]), 16))


def test_only_kernels_with_a_fast_path_are_deferred():
    prog, nat = native(TWO)
    assert nat.execution_mode("spread") == "work-item" and nat.deferred == {"scale"}
    idx = np.arange(32, dtype=np.int32) * 3
    c = np.zeros(32, np.float32)
    prog.spread(32, 16, idx, c)
    np.testing.assert_array_equal(c, (idx & 7).astype(np.float32))
    assert nat._work_item_engine is None                # spread's driver was in the first engine


def test_a_per_work_item_path_llvm_rejects_sends_the_launch_to_the_interpreter(monkeypatch):
    prog, nat = native(SCALE)

    def rejected(text, opt=3):
        raise RuntimeError("LLVM ERROR: made for this test")
    monkeypatch.setattr(jit, "Engine", rejected)
    a = np.arange(60, dtype=np.float32)
    c = np.zeros_like(a)
    with pytest.warns(NativeFallbackWarning, match="per-work-item path did not compile"):
        prog.scale(60, 5, a, c, np.int32(5))
    np.testing.assert_array_equal(c, a * 2 + 5)
    c[:] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NativeFallbackWarning)
        prog.scale(60, 5, a, c, np.int32(6))         # not compiled again
    np.testing.assert_array_equal(c, a * 2 + 6)
    b = np.zeros(256, np.float32)
    prog.scale(256, 64, np.arange(256, dtype=np.float32), b, np.int32(1))   # the fast path still runs
    assert nat.fast_launches["scale"] == 1
