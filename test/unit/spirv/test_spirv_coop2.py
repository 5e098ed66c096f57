"""--emit-spirv of use conversions, transposes and bf16 (clcoop/spirv/coop2.py): opcodes,
decorations, capabilities and extensions; spirv-val 2025.5 accepts every module once exactly
the EXT constructs it does not know are removed from a copy (docs/coopmat2-semantics.md "SPIR-V")."""
import collections
import os
import tempfile

import pytest

from clcoop.frontend.driver import CompileOptions, compile_source
from clcoop.spirv import SpirvError, binary as sb, coop2, ir_to_spirv, validate
from clcoop.spirv.tools import run_tool
from tool_marks import needs_tools  # noqa: E402


pytestmark = needs_tools("llc", "spirv-val")

TYPES = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
#define ROW CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
typedef float acc_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float a_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef half ah_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float tb_t __attribute__((coop_mat(SG, 16, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef float ta_t __attribute__((coop_mat(SG, 16, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef half hacc_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
"""


def spirv_of(body, params="global float *p, global half *q"):
    source = TYPES + f"kernel void k({params}) {{\n" \
        "  acc_t c = coop_mat_load(p, ROW, (size_t)16);\n" + body + "\n}\n"
    ir = compile_source(source, CompileOptions(filename="k.cl")).ir
    return sb.read_module(ir_to_spirv(ir))


def opcodes(module):
    return [inst.opcode for inst in module.instructions]


def capabilities(module):
    return {inst.operands[0] for inst in module.instructions if inst.opcode == sb.OP_CAPABILITY}


def extensions(module):
    return {sb.decode_string(inst.operands)[0] for inst in module.instructions
            if inst.opcode == sb.OP_EXTENSION}


def decorations(module, decoration):
    return [inst.operands[0] for inst in module.instructions
            if inst.opcode == sb.OP_DECORATE and inst.operands[1] == decoration]


def val(module):
    """(returncode, message) of spirv-val on a module's binary."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "m.spv")
        with open(path, "wb") as handle:
            handle.write(sb.write_module(module))
        done = run_tool("spirv-val", [path])
    return done.returncode, (done.stdout + done.stderr).decode()


def test_nv_use_conversion_and_transpose_are_valid_as_they_are():
    """Accumulator -> A (ConvertNV, and FConvert that also changes the use) and transpose into B:
    NV2 only, which spirv-val 2025.5 knows: the module itself validates."""
    module = spirv_of("  a_t a = (a_t)c; ah_t h = (ah_t)c; tb_t t = coop_mat_transpose(c);\n"
                      "  coop_mat_store(p, a, ROW, (size_t)16); coop_mat_store(q, h, ROW, (size_t)16);\n"
                      "  coop_mat_store(p, t, ROW, (size_t)8);")
    ops = opcodes(module)
    assert ops.count(coop2.OP_CONVERT_NV) == 1 and ops.count(coop2.OP_TRANSPOSE_NV) == 1
    assert 115 in ops                                   # OpFConvert acc float -> A half
    assert sb.OP_FUNCTION_CALL not in ops and not sb.imported_functions(module)
    assert coop2.CAPABILITY_CONVERSIONS_NV in capabilities(module)
    assert coop2.CAPABILITY_CONVERSIONS_EXT not in capabilities(module)
    assert coop2.NV2_EXTENSION in extensions(module)
    assert coop2.ext_constructs(module) == set()
    assert val(module)[0] == 0


@pytest.mark.parametrize("body,what", [
    ("  acc_t back = (acc_t)(a_t)c; coop_mat_store(p, back, ROW, (size_t)16);", "A -> accumulator"),
    ("  hacc_t back = (hacc_t)(a_t)c; coop_mat_store(q, back, ROW, (size_t)16);",
     "A -> accumulator with a component change"),
    ("  ta_t t = coop_mat_transpose(c); coop_mat_store(p, t, ROW, (size_t)8);", "transpose into A"),
])
def test_ext_constructs_are_emitted_and_the_rest_validates(body, what):
    module = spirv_of(body)
    assert coop2.CAPABILITY_CONVERSIONS_EXT in capabilities(module), what
    assert coop2.EXT_EXTENSION in extensions(module)
    removed = coop2.ext_constructs(module)
    assert len(removed) == 1
    (result,) = removed
    producer = next(i for i in module.instructions if i.result_id == result)
    if "transpose" in what:
        assert producer.opcode == coop2.OP_CONVERT_NV
        assert decorations(module, coop2.DECORATION_TRANSPOSE_EXT) == [result]
    else:
        assert decorations(module, coop2.DECORATION_TRANSPOSE_EXT) == []
    # The validator does not know the EXT parts: the module as emitted is refused ...
    code, message = val(module)
    assert code != 0, message
    # ... and a copy without exactly that construct (an OpUndef of its type instead, and
    # without the EXT capability, extension and decoration) is accepted.
    copy = coop2.without_ext_constructs(module)
    before = collections.Counter((i.opcode, tuple(i.operands)) for i in module.instructions)
    after = collections.Counter((i.opcode, tuple(i.operands)) for i in copy.instructions)
    assert sorted(op for op, _ in (before - after).elements()) == sorted(
        [sb.OP_EXTENSION, sb.OP_CAPABILITY, producer.opcode]
        + ([sb.OP_DECORATE] if "transpose" in what else []))
    assert list((after - before).elements()) == [(coop2.OP_UNDEF, tuple(producer.operands[:2]))]
    assert val(copy)[0] == 0, val(copy)[1]


def test_the_copy_still_checks_everything_else():
    """Removing the EXT constructs must not hide another error: a broken instruction elsewhere
    in the same module is still reported."""
    module = spirv_of("  acc_t back = (acc_t)(a_t)c; coop_mat_store(p, back, ROW, (size_t)16);")
    load = next(i for i in module.instructions if i.opcode == sb.OP_COOPERATIVE_MATRIX_LOAD_KHR)
    load.operands[0] = next(i.result_id for i in module.instructions
                            if i.opcode == sb.OP_TYPE_COOPERATIVE_MATRIX_KHR and i.result_id != load.operands[0])
    with pytest.raises(SpirvError):
        validate(sb.write_module(coop2.without_ext_constructs(module)))


BF16_TYPES = """
#define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
#define ROW CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
typedef __bf16 bA __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef __bf16 bB __attribute__((coop_mat(SG, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float fC __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef __bf16 bC __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
"""


def bf16_spirv(body):
    source = BF16_TYPES + "kernel void k(global __bf16 *a, global __bf16 *b, global float *c) {\n" \
        + body + "\n}\n"
    ir = compile_source(source, CompileOptions(filename="k.cl")).ir
    return sb.read_module(ir_to_spirv(ir))


def test_bf16_mul_add_and_conversions_validate():
    module = bf16_spirv(
        "  bA x = coop_mat_load(a, ROW, (size_t)16); bB y = coop_mat_load(b, ROW, (size_t)16);\n"
        "  fC z = coop_mat_load(c, ROW, (size_t)16); z = coop_mat_mulAdd(x, y, z);\n"
        "  bC w = (bC)z; coop_mat_store(a, w, ROW, (size_t)16);\n"
        "  bA v = (bA)z; coop_mat_store(a, v, ROW, (size_t)16);\n"
        "  coop_mat_store(c, z, ROW, (size_t)16);")
    floats = [i.operands[1:] for i in module.instructions if i.opcode == sb.OP_TYPE_FLOAT]
    assert [16, 0] in floats                            # OpTypeFloat 16 BFloat16KHR
    assert {5116, 5118} <= capabilities(module)
    assert "SPV_KHR_bfloat16" in extensions(module)
    assert sb.OP_COOPERATIVE_MATRIX_MUL_ADD_KHR in opcodes(module)
    assert val(module)[0] == 0


@pytest.mark.parametrize("body", [
    "  bA x = coop_mat_load(a, ROW, (size_t)16); x = x + x; coop_mat_store(a, x, ROW, (size_t)16);",
    "  bA x = coop_mat_load(a, ROW, (size_t)16); x = x * (__bf16)2.0f; coop_mat_store(a, x, ROW, (size_t)16);",
    "  a[0] = a[1] * a[2];",
    "  c[0] = a[1] < a[2];",
])
def test_bf16_arithmetic_is_a_clear_error_naming_the_extension(body):
    with pytest.raises(SpirvError, match="SPV_INTEL_bfloat16_arithmetic.*FAdd doesn't support BFloat16"):
        bf16_spirv(body)
