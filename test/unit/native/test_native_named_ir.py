"""The one parse of a module for the native engine (clcoop/native/named_ir.py): codegen
compiles it and the range proof (ranges.py) reads the same functions by the same names."""
import llvmlite.binding as llvm
import numpy as np

import clcoop
from clcoop.native import named_ir

from test_native_in_place import OPTNONE_IR, VECTOR_ADD


def test_the_proof_reads_the_module_codegen_compiled():
    program = clcoop.Program(VECTOR_ADD).build(engine="native")._native
    named = program.native.named
    assert program._ranges.named is named
    assert program.in_place_reason("k") is None
    kernel = program._ranges.kernel("k")
    compiled = named.mod.get_function("k")
    assert [b.name for b in kernel.blocks] == [b.name for b in compiled.blocks]
    assert all(i.name for b in compiled.blocks for i in b.instructions if str(i.type) != "void")


def test_optnone_and_noinline_are_dropped_and_an_emptied_group_stays_valid():
    ir = OPTNONE_IR.replace("{ noinline nounwind optnone }", "{ noinline optnone }")
    text = named_ir.without_optnone(ir)
    assert "optnone" not in text and "noinline" not in text
    llvm.parse_assembly(text)       # LLVM refuses `attributes #0 = {  }`
    prog = clcoop.Program.from_ir(ir, engine="native")
    assert prog._native.reason("k") is None
    a, c = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    prog.k(64, 16, a, c, 40)
    assert np.array_equal(c, np.where(np.arange(64) < 40, a, 0))
