"""Agreement (issue 4, item 4): for each example kernel, the SPIR-V module `clcoop --emit-spirv` writes
has the same matrix types as the IR `clcoop` writes, and per function and block the same sequence of
loads, stores and mul-adds with the same matrix types, layouts, operand masks and pointee types."""

import os
import sys

import pytest

import spirv_extract as ex  # noqa: E402
import spirv_inputs as inputs  # noqa: E402

from tool_marks import needs_tools  # noqa: E402


pytestmark = needs_tools("llc", "spirv-val")


# spir64 in the default run; the 32-bit triple of every example is slow (docs/testing.md).
@pytest.mark.parametrize("triple", [inputs.TRIPLES[0], *(pytest.param(t, marks=pytest.mark.slow) for t in inputs.TRIPLES[1:])])
@pytest.mark.parametrize("path", inputs.example_params(), ids=os.path.basename)
def test_example_spirv_agrees_with_ir(path, triple):
    status, ir, err = inputs.clcoop(path, triple)
    assert status == 0, err
    status, spirv, err = inputs.clcoop(path, triple, emit_spirv=True)
    assert status == 0, err
    ir_text = ir.decode("utf-8")
    assert ex.ir_matrix_types(ir_text) == ex.spirv_matrix_types(spirv)
    ir_events = ex.drop_empty(ex.emitted_events(ex.ir_events(ir_text)))
    assert ex.drop_empty(ex.spirv_events(spirv)) == ir_events
    assert ex.mul_add_operand_errors(spirv) == []
    with open(path, encoding="utf-8") as handle:
        uses_matrices = "coop_mat" in handle.read()
    # Not vacuous: a kernel using matrices has events on both sides.
    assert bool(ir_events) == uses_matrices


def test_extractors_see_a_difference():
    """The comparison can fail: a changed layout or mask shows up on the IR side."""
    ir = ('define spir_kernel void @k(ptr addrspace(1) %p) {\nentry:\n'
          '  %m = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) '
          '@_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %p, i32 1, i64 8)\n'
          '  ret void\n}\n')
    events = ex.ir_events(ir)
    assert events == {"k": {"entry": [("load", (("f", 32, 3, 8, 16, 2),), 1, ("f", 32))]}}
    assert ex.ir_events(ir.replace("i32 1,", "i32 0,")) != events
