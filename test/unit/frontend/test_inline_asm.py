"""GNU inline assembly: clcoop's asm calls are clang-22's (same template, constraints and
types); the interpreter runs the empty-template optimization barrier (each output its tied
input), for clcoop's IR and clang-22's; a template or an untied output is refused when the
program is built, with the reason; the native engine falls back saying why; --emit-spirv
takes statements without outputs and refuses the others (llc-22's invalid module)."""
import re

import numpy as np
import pytest

import clcoop
from clcoop.errors import IRError
from clcoop.frontend.driver import compile_source
from clcoop.native.support import NativeFallbackWarning
from clcoop.options import CompileOptions
from interp_helpers import clang_ir_text
from tool_marks import needs_tools

BARRIER = """
kernel void k(global float *o, global int *p) {
  float x = o[0] * 2.0f;
  __asm__ volatile("" : "+rw"(x));
  int y = p[0] + 1;
  __asm__ volatile("" : [v] "+rw"(y));
  __asm__("" :: "r"(y));
  __asm__ volatile("" ::: "memory");
  o[1] = x; p[1] = y;
}
"""
DEVICE_CODE = """
kernel void k(global int *p) {
  int y = p[0], z;
  __asm__ ("add %0, %1, %[w]" : "=r"(z) : "r"(y), [w] "r"(y) : "cc");
  p[1] = z;
}
"""


def asm_calls(ir):
    """The asm calls of a module: callee and argument types, SSA names and metadata dropped."""
    calls = re.findall(r"call (.*? asm .*?\(.*?\))", ir)
    return [re.sub(r"%[\w.]+", "%v", c) for c in calls]


@pytest.mark.parametrize("source", [BARRIER, DEVICE_CODE])
def test_the_asm_calls_are_clangs(source):
    ours = asm_calls(compile_source(source, CompileOptions()).ir)
    assert ours and ours == asm_calls(clang_ir_text(source))


@pytest.mark.parametrize("producer", ["clcoop", "clang"])
def test_the_interpreter_runs_an_empty_template_as_a_copy(producer):
    program = clcoop.Program.from_ir(clang_ir_text(BARRIER)) if producer == "clang" \
        else clcoop.Program(BARRIER).build(engine="interp")
    o, p = np.array([1.25, 0], np.float32), np.array([41, 0], np.int32)
    program.k((1,), (1,), o, p)
    assert o[1] == 2.5 and p[1] == 42


def test_the_native_engine_falls_back_with_the_reason():
    with pytest.warns(NativeFallbackWarning, match="inline assembly"):
        program = clcoop.Program(BARRIER).build(engine="auto")
    o, p = np.array([1.25, 0], np.float32), np.array([41, 0], np.int32)
    program.k((1,), (1,), o, p)
    assert program.k.engine == "interp" and (o[1], p[1]) == (2.5, 42)


def test_device_code_is_refused_when_the_program_is_built():
    with pytest.raises(IRError, match=r'inline assembly "add \$0, \$1, \$2" is device code'):
        clcoop.Program(DEVICE_CODE).build()
    with pytest.raises(IRError, match="is device code"):
        clcoop.Program.from_ir(clang_ir_text(DEVICE_CODE))


def test_an_output_not_tied_to_an_input_is_refused():
    source = "kernel void k(global int *p) { int z; __asm__ volatile(\"\" : \"=r\"(z)); p[0] = z; }"
    with pytest.raises(IRError, match="output 0 \\('=r'\\) of an empty inline assembly statement is not tied"):
        clcoop.Program(source).build()


@needs_tools("llc", "spirv-val")
def test_emit_spirv_takes_statements_without_outputs(tmp_path):
    from clcoop.cli import compile_main
    source = tmp_path / "k.cl"
    source.write_text('kernel void k(global int *p) { p[0] = 1; __asm__ volatile("" ::: "memory"); }')
    assert compile_main.run([str(source), "--emit-spirv", "-o", str(tmp_path / "k.spv")]) == 0
    source.write_text(BARRIER)
    assert compile_main.run([str(source), "--emit-spirv", "-o", str(tmp_path / "b.spv")]) == 1
    assert not (tmp_path / "b.spv").exists()
