"""A local array or struct initialized with constants only is copied from a private
__constant global (`@__const.<function>.<variable>` and llvm.memcpy) and an all-zero one is
an llvm.memset, as clang-22 -O0 emits them, instead of one store per element (pocl's
test_bitselect.cl: 48 tables of 1,000 numbers). Both engines run clcoop's and clang-22's IR
of them (the native engine used to read a private global at a wrong address)."""
import numpy as np
import pytest

import clcoop
from clcoop.frontend.driver import compile_source
from clcoop.options import CompileOptions
from interp_helpers import clang_ir_text

SOURCE = """
typedef struct { int a; float b; } S;
kernel void k(global uint *o) {
  uint r2[2] = {1u, 2u};
  int zz[8] = {0, 0, 0, 0, 0, 0, 0, 5};
  S s = {1, 2.0f};
  int zero[4] = {0, 0, 0, 0};
  int t[3] = {1, 2, (int)o[0]};                   /* not constant: stores */
  o[1] = r2[o[2]] + zz[o[0]] + s.a + (uint)s.b + zero[o[2]] + t[2];
}
"""


def lines_with(ir, text):
    return [line.strip() for line in ir.splitlines() if text in line]


def test_the_ir_is_clangs():
    ours = compile_source(SOURCE, CompileOptions()).ir
    theirs = clang_ir_text(SOURCE)
    for text in ("= private unnamed_addr addrspace(2) constant", "call void @llvm.memcpy.p0.p2",
                 "call void @llvm.memset.p0"):
        assert lines_with(ours, text) and lines_with(ours, text) == lines_with(theirs, text), text


@pytest.mark.parametrize("engine", ["interp", "native"])
@pytest.mark.parametrize("producer", ["clcoop", "clang"])
def test_both_engines_read_the_tables(engine, producer):
    program = clcoop.Program.from_ir(clang_ir_text(SOURCE), engine=engine) if producer == "clang" \
        else clcoop.Program(SOURCE).build(engine=engine)
    o = np.array([7, 0, 1], np.uint32)
    program.k((1,), (1,), o)
    assert program.k.engine == engine and o[1] == 2 + 5 + 1 + 2 + 0 + 7


def test_a_large_table_is_one_copy():
    table = ", ".join(str(k * 2654435761 % 2 ** 32) + "u" for k in range(1000))
    source = f"kernel void k(global uint *o) {{ uint const t[] = {{ {table} }}; o[0] = t[o[1]]; }}"
    ir = compile_source(source, CompileOptions()).ir
    assert len(lines_with(ir, "store i32 ")) == 1 and len(lines_with(ir, "llvm.memcpy.p0.p2")) == 2   # o[0] =; call, declare
