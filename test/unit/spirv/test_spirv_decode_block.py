"""SPV_NV_cooperative_matrix2 steps a tensor load with a decode function one block at a
time, the block being the pointee of the decode function's first parameter. llc-22 types
that parameter from its uses (`uchar *` for a function reading its block bytewise, as
examples/q4_gemm.cl's does); clcoop's Kernel SPIR-V gives it the block's C type (a struct
of the block's size, or a scalar), checked here in the disassembly, and the module still
validates (ir_to_spirv's validate_known)."""
import re
from pathlib import Path

import pytest

from clcoop.frontend.driver import CompileOptions, compile_source
from tool_marks import needs_tools

pytestmark = needs_tools("llc", "spirv-val", "spirv-dis")
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

BYTE_BLOCKS = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef coop_tensor_layout_t L2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
typedef struct { uchar scale; uchar q[5]; } blk6;
half low_byte(const __global blk6 *block, const uint block_coord[2], const uint coord_in_block[2]) {
  return (half)((const __global uchar *)block)[coord_in_block[1]];      /* read bytewise */
}
kernel void k(global const blk6 *w, global half *out) {
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_set_block_size(coop_tensor_layout_create(), 1, 2), 16, 32);
  mat_b b = coop_mat_load_tensor(w, t, low_byte);
  coop_mat_store(out, b, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


def disassembly(source, name):
    from clcoop.spirv import disassemble, ir_to_spirv
    return disassemble(ir_to_spirv(compile_source(source, CompileOptions(filename=name)).ir))


def decode_block_type(text):
    """The pointee of the DecodeFunc's first parameter, and every definition by name."""
    defs = dict(re.findall(r"^\s*(%\w+) = (.*)$", text, re.M))
    decode = re.search(r"OpCooperativeMatrixLoadTensorNV .*DecodeFunc(?: %\w+)* (%\w+)$", text, re.M).group(1)
    body = text[text.index(f"{decode} = OpFunction"):]
    parameter_type = re.search(r"OpFunctionParameter (%\w+)", body).group(1)
    pointer = defs[parameter_type].split()
    assert pointer[0] == "OpTypePointer" and pointer[1] == "CrossWorkgroup"
    return defs[pointer[2]], defs


def test_q4_gemm_decode_steps_over_18_byte_blocks():
    text = disassembly((EXAMPLES / "q4_gemm.cl").read_text(), "q4_gemm.cl")
    block, defs = decode_block_type(text)
    members = block.split()
    assert members[0] == "OpTypeStruct"            # { half d; uchar qs[16]; }: 18 bytes
    assert defs[members[1]] == "OpTypeFloat 16"
    array = defs[members[2]].split()
    assert array[0] == "OpTypeArray" and defs[array[1]] == "OpTypeInt 8 0"
    assert defs[array[2]].startswith("OpConstant") and defs[array[2]].endswith(" 16")


@pytest.mark.parametrize("opt", [0, 2])
def test_a_struct_no_code_reads_by_field_is_a_block_of_its_size(opt):
    """Neither llc-22's module nor the IR has struct blk6 (the decode function reads its
    block bytewise): the block is 6 bytes, an array of 6 uchar (llc-22 alone: 1 byte)."""
    from clcoop.spirv import disassemble, ir_to_spirv
    ir = compile_source(BYTE_BLOCKS, CompileOptions(filename="k.cl", opt_level=opt)).ir
    block, defs = decode_block_type(disassemble(ir_to_spirv(ir, opt_level=opt)))
    array = block.split()
    assert array[0] == "OpTypeArray" and defs[array[1]] == "OpTypeInt 8 0"
    assert defs[array[2]].startswith("OpConstant") and defs[array[2]].endswith(" 6")
