"""Struct copies (assignment, initialization, a member, a chained assignment, between
__global, __local and private memory) are llvm.memcpy calls, as clang-22 emits them: a
first-class load/store of a 64-float struct made LLVM expand it into 11,700 lines of IR and
the native build take 20-48 s (issue 25). Both engines run them against NumPy; llc-22 takes
the IR to a validated SPIR-V module."""
import numpy as np
import pytest

import clcoop
from clcoop.cli import compile_main
from clcoop.frontend.driver import compile_source
from clcoop.options import CompileOptions
from interp_helpers import clang_ir_text
from tool_marks import needs_tools

SOURCE = """
typedef struct { float v[64]; } big;
typedef struct { int tag; big b; } outer;
kernel void k(global big *o, global const big *a, int n, global outer *w) {
  size_t i = get_global_id(0);
  o[i] = a[i + n];
  big t = a[i];                 /* initialization */
  t.v[0] += 1.0f;
  local big l[4];
  l[i % 4] = t;                 /* private -> local */
  barrier(CLK_LOCAL_MEM_FENCE);
  w[i].b = l[i % 4];            /* local -> a member */
  outer x = w[i];
  x.tag = (int)i;
  big u, v;
  u = v = x.b;                  /* chained: the inner assignment's value is used */
  w[i] = x;
  o[i + 4] = u;
  o[i + 8] = v;
}
"""
BIG = np.dtype([("v", np.float32, 64)])
OUTER = np.dtype([("tag", np.int32), ("b", BIG)])


def expected(a, n):
    o = np.zeros(12, BIG)
    w = np.zeros(4, OUTER)
    for i in range(4):
        o[i] = a[i + n]
        t = a[i].copy()
        t["v"][0] += np.float32(1)
        w[i]["b"] = t
        w[i]["tag"] = i
    for i in range(4):
        o[i + 4] = w[i]["b"]
        o[i + 8] = w[i]["b"]
    return o, w


def ir_of(opt):
    return compile_source(SOURCE, CompileOptions(opt_level=opt)).ir


@pytest.mark.parametrize("opt", [0, 2])
def test_struct_copies_are_memcpy_calls(opt):
    ir = ir_of(opt)
    assert "@llvm.memcpy." in ir
    assert "load %struct.big" not in ir and "store %struct.big" not in ir
    assert "load %struct.outer" not in ir and "store %struct.outer" not in ir
    assert len(ir.splitlines()) < 600


def test_the_memcpy_is_clangs():
    """`o[i] = a[i + n]` at -O0: the same call, alignment and size as clang-22's."""
    line = lambda ir: [s.strip() for s in ir.splitlines() if "call void @llvm.memcpy" in s][0]   # noqa: E731
    source = "typedef struct { float v[64]; } big;\n" \
             "kernel void k(global big *o, global const big *a, int n) { size_t i = get_global_id(0); o[i] = a[i + n]; }"
    ours = line(compile_source(source, CompileOptions()).ir)
    assert ours == line(clang_ir_text(source))


@pytest.mark.parametrize("engine", ["interp", "native"])
def test_both_engines_copy_structs(engine):
    rng = np.random.default_rng(25)
    a = np.zeros(8, BIG)
    a["v"] = rng.standard_normal((8, 64)).astype(np.float32)
    o, w = np.zeros(12, BIG), np.zeros(4, OUTER)
    program = clcoop.Program(SOURCE).build(engine=engine)
    program.k((4,), (4,), o, a, np.int32(3), w)
    eo, ew = expected(a, 3)
    np.testing.assert_array_equal(o["v"], eo["v"])
    np.testing.assert_array_equal(w["b"]["v"], ew["b"]["v"])
    np.testing.assert_array_equal(w["tag"], ew["tag"])


@needs_tools("llc", "spirv-val")
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_llc_takes_the_memcpy_to_spirv(tmp_path, opt):
    source = tmp_path / "k.cl"
    source.write_text(SOURCE)
    assert compile_main.run([str(source), opt, "--emit-spirv", "-o", str(tmp_path / "k.spv")]) == 0
    assert (tmp_path / "k.spv").stat().st_size > 0
