"""--emit-spirv of function operands (clcoop/spirv/function_operands.py) and of
OpCooperativeMatrixGetCoordinateEXT, which spirv-val 2025.5 does not know (docs/coopmat2-semantics.md "SPIR-V")."""
import pytest

from clcoop.frontend.driver import CompileOptions, compile_source
from clcoop.spirv import LLC_EXTENSIONS, SpirvError, ir_to_spirv, validate
from clcoop.spirv import binary as sb
from clcoop.spirv import function_operands as fo
from clcoop.spirv import tools
from clcoop.spirv.rewrite import rewrite_cooperative_calls
from tool_marks import needs_tools  # noqa: E402


pytestmark = needs_tools("llc", "spirv-val")

HEADER = """
typedef float acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float rowv __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 1, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
"""
SAME_TYPE_COMBINES = HEADER + """
static float first(float a, float b) { return a; }
static float second(float a, float b) { return b; }
static float third(float a, float b) { return a * b; }
kernel void k(global float *p) {
  acc m = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  rowv x = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, second);
  rowv y = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, third);
  rowv z = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, first);
  coop_mat_store(p, x, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)1);
  coop_mat_store(p + 8, y, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)1);
  coop_mat_store(p + 16, z, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)1);
}
"""
COORDINATES = HEADER + """
static float twice(uint r, uint c, float x) { return 2.0f * x; }
kernel void k(global float *p, global uint *out) {
  acc m = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  uint2 rc = coop_mat_get_coord(m, 1);
  out[get_global_id(0)] = rc.x * 100 + rc.y;
  coop_mat_store(p, coop_mat_per_element(m, twice), CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


def compile_ir(source, opt="-O0"):
    return compile_source(source, CompileOptions(filename="k.cl", opt_level=int(opt[2:]))).ir


def function_ids(module):
    return {name: fid for fid, name in sb.names(module).items()
            if any(i.opcode == sb.OP_FUNCTION and i.result_id == fid for i in module.instructions)}


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_each_function_operand_is_its_own_opfunction(opt):
    module = sb.read_module(ir_to_spirv(compile_ir(SAME_TYPE_COMBINES, opt)))
    ids = function_ids(module)
    reduces = [i for i in module.instructions if i.opcode == sb.OP_COOPERATIVE_MATRIX_REDUCE_NV]
    assert [r.operands[4] for r in reduces] == [ids["second"], ids["third"], ids["first"]]
    assert not any(i.opcode == sb.OP_CONSTANT_FUNCTION_POINTER_INTEL for i in module.instructions)
    assert [fo.CAPABILITY_FUNCTION_POINTERS_INTEL] not in [i.operands for i in module.instructions
                                                           if i.opcode == sb.OP_CAPABILITY]


def test_llc_alone_loses_the_function_and_the_rewrite_refuses():
    """What the mapping repairs: without SPV_INTEL_function_pointers, llc-22 passes one null for
    every function of a type; the rewrite must not emit a module that calls nothing."""
    ir = compile_ir(SAME_TYPE_COMBINES)
    assert fo.llc_extensions(LLC_EXTENSIONS, ir).endswith(fo.LLC_FUNCTION_POINTERS)
    import tempfile
    import os
    with tempfile.TemporaryDirectory() as folder:
        source, target = os.path.join(folder, "k.ll"), os.path.join(folder, "k.spv")
        with open(source, "w") as handle:
            handle.write(ir)
        done = tools.run_tool("llc", ["-O0", "-mtriple=spirv64-unknown-unknown", f"--spirv-ext={LLC_EXTENSIONS}",
                                      "-filetype=obj", source, "-o", target])
        assert done.returncode == 0
        with open(target, "rb") as handle:
            raw = sb.read_module(handle.read())
    nulls = {i.result_id for i in raw.instructions if i.opcode == sb.OP_CONSTANT_NULL}
    casts = [i for i in raw.instructions if i.opcode == sb.OP_BITCAST and i.operands[2] in nulls]
    assert len({c.operands[2] for c in casts}) == 1          # three functions, one null
    with pytest.raises(SpirvError, match="is not an OpFunction"):
        rewrite_cooperative_calls(raw)


def test_get_coordinate_is_emitted_and_validates_once_exactly_it_is_removed():
    data = ir_to_spirv(compile_ir(COORDINATES))
    module = sb.read_module(data)
    coordinates = [i for i in module.instructions if i.opcode == sb.OP_COOPERATIVE_MATRIX_GET_COORDINATE_EXT]
    assert len(coordinates) == 1
    result_type = sb.definitions(module)[coordinates[0].operands[0]]
    assert result_type.opcode == 23 and result_type.operands[2] == 2          # OpTypeVector ... 2
    capabilities = [i.operands[0] for i in module.instructions if i.opcode == sb.OP_CAPABILITY]
    extensions = [sb.decode_string(i.operands)[0] for i in module.instructions if i.opcode == sb.OP_EXTENSION]
    assert fo.CAPABILITY_GET_COORDINATE_EXT in capabilities and fo.EXT_MAINTENANCE_EXTENSION in extensions
    assert fo.CAPABILITY_PER_ELEMENT_OPERATIONS_NV in capabilities and fo.NV2_EXTENSION in extensions
    # spirv-val 2025.5 does not know the EXT instruction (nor its capability)...
    with pytest.raises(SpirvError):
        validate(data)
    # ... and accepts the module once exactly that construct is gone (the instruction an
    # OpUndef of its type, its capability and extension dropped): nothing else is wrong.
    stripped = fo.without_get_coordinate(sb.read_module(data))
    assert len(stripped.instructions) == len(module.instructions) - 2
    changed = [(a, b) for a, b in zip([i for i in module.instructions if i.opcode not in (
        sb.OP_CAPABILITY, sb.OP_EXTENSION)], [i for i in stripped.instructions if i.opcode not in (
            sb.OP_CAPABILITY, sb.OP_EXTENSION)]) if a != b]
    assert len(changed) == 1 and changed[0][1].opcode == 1 and changed[0][1].operands == coordinates[0].operands[:2]
    validate(sb.write_module(stripped))
