"""Calls the native engine's code makes outside itself (clcoop/native/jit.py): the helpers
LLVM's code generation calls for what x86-64 has no instruction for come from libgcc_s,
and an engine whose object code needs a symbol the process lacks is refused, where MCJIT
would make the call jump to address 0 and crash Python."""
import ctypes

import numpy as np
import pytest

import clcoop
from clcoop.native.jit import Engine


def test_i128_division_runs():
    engine = Engine("""
define i64 @q(i64 %a, i64 %b) {
  %wa = zext i64 %a to i128
  %wb = zext i64 %b to i128
  %p = mul i128 %wa, %wa
  %d = udiv i128 %p, %wb
  %t = trunc i128 %d to i64
  ret i64 %t
}""")
    try:
        q = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64)(engine.address("q"))
        a, b = (1 << 62) + 12345, 987654321987
        assert q(a, b) == (a * a // b) % (1 << 64)
    finally:
        engine.close()


def test_a_call_the_process_cannot_resolve_is_refused():
    with pytest.raises(RuntimeError, match="__clcoop_no_such_function"):
        Engine("""
declare void @__clcoop_no_such_function()
define void @f() {
  call void @__clcoop_no_such_function()
  ret void
}""")


# A scalar fuzz kernel (seed 2024): LLVM's loop passes turned the instruction-limit count of
# this loop into an i128 division by the count per iteration, a call of __udivti3.
LOOP = """
__kernel void k(__global const int *ia, __global const uint *ua, __global uint *out) {
    size_t gid = get_global_id(0) + get_global_id(1) * get_global_size(0);
    int x0 = ia[gid];
    uint x1 = ua[gid];
    uint acc = 0;
    for (int i = 0; i < ((int)(x0 & 4)); ++i)
        acc = acc + (9223372036854775807UL % (((i ? x1 : 33UL) & 15) + 1));
    out[gid] = acc;
}"""


def test_loop_whose_count_needs_an_i128_division_runs_natively():
    rng = np.random.default_rng(2024)
    ia = rng.integers(-100, 100, 60).astype(np.int32)
    ua = rng.integers(0, 1 << 32, 60, dtype=np.uint64).astype(np.uint32)
    outs = []
    for engine in ("native", "interp"):
        prog = clcoop.Program(LOOP).build(["-O0"], engine=engine)
        out = np.zeros(60, np.uint32)
        prog.k((5, 12), (5, 4), ia, ua, out)
        outs.append(out)
    want = [sum(9223372036854775807 % (((int(x1) if i else 33) & 15) + 1) for i in range(int(x0) & 4)) % (1 << 32)
            for x0, x1 in zip(ia, ua)]
    assert outs[0].tolist() == outs[1].tolist() == want
