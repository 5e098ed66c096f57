"""The Workgroup (__local) memory a Vulkan module's entry point needs, read from the module
(clcoop/vulkan/workgroup_memory.py), and the launches refused before dispatch when it exceeds
the device's maxComputeSharedMemorySize (on the H200, such a launch lost the device)."""
import subprocess
from pathlib import Path

import numpy as np
import pytest

from clcoop.errors import ArgumentError, ToolMissing, UnsupportedOnDevice
from clcoop.prepare import LocalMemory
from clcoop.spirv.reflection import read_reflection
from clcoop.spirv.tools import find_tool
from clcoop.vulkan import VulkanProgram, load_description
from clcoop.vulkan.workgroup_memory import WorkgroupMemory, workgroup_memory_problem
from vulkan_modules import STATIC_TILE_RECORD, assemble, device_or_skip, static_tile

H200 = Path(__file__).resolve().parents[1] / "data" / "vulkan_h200.json"


def _assemble(text, tmp_path, env="vulkan1.3"):
    try:
        spirv_as, spirv_val = find_tool("spirv-as"), find_tool("spirv-val")
    except ToolMissing as missing:
        pytest.skip(str(missing))
    asm, binary = tmp_path / "m.spvasm", tmp_path / "m.spv"
    asm.write_text(text)
    subprocess.run([spirv_as, "--target-env", env, str(asm), "-o", str(binary)], check=True, capture_output=True)
    subprocess.run([spirv_val, "--target-env", env, str(binary)], check=True, capture_output=True)
    return binary.read_bytes()


PREAMBLE = """
               OpCapability Shader
               OpMemoryModel Logical GLSL450
"""
TYPES = """
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
    %v3float = OpTypeVector %float 3
     %uint_3 = OpConstant %uint 3
     %uint_4 = OpConstant %uint 4
       %spec = OpSpecConstant %uint 5
     %triple = OpSpecConstantOp %uint IMul %spec %uint_3
      %arrv3 = OpTypeArray %v3float %uint_4
      %arrsp = OpTypeArray %uint %triple
         %st = OpTypeStruct %float %v3float
       %pflt = OpTypePointer Workgroup %float
       %parr = OpTypePointer Workgroup %arrv3
      %pbool = OpTypePointer Workgroup %bool
        %pst = OpTypePointer Workgroup %st
       %psp = OpTypePointer Workgroup %arrsp
"""


def test_std430_sizes_in_declaration_order_with_specialized_lengths(tmp_path):
    module = _assemble(PREAMBLE + """
               OpEntryPoint GLCompute %main "k" %x %v %b %s %n
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %spec SpecId 7
""" + TYPES + """
          %x = OpVariable %pflt Workgroup
          %v = OpVariable %parr Workgroup
          %b = OpVariable %pbool Workgroup
          %s = OpVariable %pst Workgroup
          %n = OpVariable %psp Workgroup
     %unused = OpVariable %pflt Workgroup
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
""", tmp_path)
    memory = WorkgroupMemory(module)
    # float 4; vec3[4]: stride 16, at 16 -> 80; bool as a 32-bit int -> 84; struct {float, vec3}:
    # vec3 at 16, 28 rounded to its 16-byte alignment, at 96 -> 128; uint[5 * 3] -> 188.
    assert [size for _, size in memory.sizes("k", {})] == [4, 64, 4, 32, 60]
    assert memory.total("k", {}) == 188
    assert memory.total("k", {7: 100}) == 128 + 1200        # the launch's value of SpecId 7
    assert memory.total("nothing", {}) == 0


def test_before_spirv_1_4_the_call_tree_says_which_variables(tmp_path):
    module = _assemble(PREAMBLE + """
               OpEntryPoint GLCompute %main "k"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %x "x"
""" + TYPES + """
          %x = OpVariable %pflt Workgroup
          %v = OpVariable %parr Workgroup
     %unused = OpVariable %pst Workgroup
    %float_1 = OpConstant %float 1
     %helper = OpFunction %void None %fn
         %hl = OpLabel
               OpStore %x %float_1
               OpReturn
               OpFunctionEnd
       %main = OpFunction %void None %fn
      %entry = OpLabel
       %call = OpFunctionCall %void %helper
               OpReturn
               OpFunctionEnd
""", tmp_path, env="vulkan1.1")
    memory = WorkgroupMemory(module)
    assert [v.name for v in memory.variables("k")] == ["x"]
    assert memory.total("k", {}) == 4             # %x through the call; %v and %unused never used


def _compiled(source):
    """The module bytes as `clcoop --emit-spirv --target-env vulkan1.3` writes them."""
    from clcoop.frontend import driver
    from clcoop.spirv.vulkan import ir_to_vulkan_spirv
    return ir_to_vulkan_spirv(driver.compile_source(source, driver.CompileOptions(filename="big.cl")).ir)


BIG = r"""
kernel void big(global float *out, local float *extra) {
    local float a[6656];           // 26 KB
    local float b[6656];           // 26 KB: 52 KB, over the H200's 48 KB
    size_t l = get_local_id(0);
    a[l] = l; b[l] = 2 * l; extra[l] = 3 * l;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = a[(l + 1) % get_local_size(0)] + b[l] + extra[l];
}
kernel void small(global float *out, local float *extra) {
    local float a[6144];           // 24 KB, and what LocalMemory adds
    size_t l = get_local_id(0);
    a[l] = l; extra[l] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = a[l] + extra[l];
}
"""


def test_a_compiled_kernel_over_the_h200_limit_is_refused_from_the_recorded_description():
    module = _compiled(BIG)
    records, memory, h200 = read_reflection(module), WorkgroupMemory(module), load_description(H200)
    assert h200.max_shared_memory == 49152
    local_id = next(a["spec_id"] for a in records["big"]["args"] if a["kind"] == "local")
    error = workgroup_memory_problem("big", records["big"], memory, {local_id: 16}, h200)
    assert isinstance(error, UnsupportedOnDevice)
    assert str(error).startswith("kernel 'big' needs 53312 bytes of Workgroup (__local) memory per work-group "
                                 "(a 26624, b 26624, argument 'extra' 64), [0] NVIDIA H200")
    assert "has 49152 bytes (maxComputeSharedMemorySize): its __local arrays alone take 53248 bytes" in str(error)
    # 24 KB of its own plus LocalMemory: the arguments decide.
    assert workgroup_memory_problem("small", records["small"], memory, {local_id: 6144}, h200) is None
    error = workgroup_memory_problem("small", records["small"], memory, {local_id: 6145}, h200)
    assert isinstance(error, ArgumentError) and "needs 49156 bytes" in str(error)
    assert "its LocalMemory arguments take 24580 of them" in str(error)


@pytest.fixture
def tile_program(tmp_path):
    description = device_or_skip()
    limit = description.max_shared_memory
    return limit, lambda length: VulkanProgram(assemble(static_tile(length), STATIC_TILE_RECORD, tmp_path))


def test_static_workgroup_memory_over_the_device_is_refused_before_any_pipeline(tile_program):
    limit, make = tile_program
    program = make(limit // 4 + 1)
    out = np.zeros(16, np.float32)
    with pytest.raises(UnsupportedOnDevice, match=f"needs {limit + 8} bytes of Workgroup .__local. memory .*"
                                                  f"has {limit} bytes .maxComputeSharedMemorySize.: its __local "
                                                  f"arrays alone take {limit + 4} bytes"):
        program.tile((16,), (2,), out, LocalMemory(4))
    assert not program.pipelines.pipelines            # refused before a pipeline was made


def test_workgroup_memory_up_to_the_limit_runs_and_beyond_it_the_arguments_are_refused(tile_program):
    limit, make = tile_program
    program = make(limit // 4 - 16)                    # the array and 64 bytes of LocalMemory fill it
    out = np.zeros(32, np.float32)
    program.tile((32,), (16,), out, LocalMemory(64))
    lids = np.tile(np.arange(16, dtype=np.float32), 2)
    assert np.array_equal(out, 3 * lids)
    with pytest.raises(ArgumentError, match=f"needs {limit + 4} bytes .*its LocalMemory arguments take 68 of them"):
        program.tile((32,), (16,), out, LocalMemory(68))


def test_the_program_says_why_before_a_launch(tile_program):
    limit, make = tile_program
    assert make(limit // 4 - 16).reason("tile") is None           # the arguments decide at the launch
    assert f"its __local arrays alone take {limit + 4} bytes" in make(limit // 4 + 1).reason("tile")


def test_workgroup_scope_matrices_leave_the_driver_its_reserved_shared_memory():
    from dataclasses import replace
    source = (Path(__file__).resolve().parents[3] / "examples" / "vulkan" / "gemm_wg_local.cl").read_text()
    module = _compiled(source)
    records, memory = read_reflection(module), WorkgroupMemory(module)
    record, h200 = records["gemm_wg_local"], load_description(H200)
    assert memory.workgroup_scope_matrices
    needed = memory.total("gemm_wg_local", {})
    assert needed == 128 * 40 * 2 + 32 * 264 * 2       # a_block and b_block, halves
    assert workgroup_memory_problem("gemm_wg_local", record, memory, {}, h200) is None
    reserving = replace(h200, workgroup_scope_reserved_shared_memory=h200.max_shared_memory - needed + 2)
    error = workgroup_memory_problem("gemm_wg_local", record, memory, {}, reserving)
    assert isinstance(error, UnsupportedOnDevice)
    assert (f"has 49152 bytes (maxComputeSharedMemorySize) less the {49152 - needed + 2} its driver keeps for "
            f"workgroup-scope matrices (cooperativeMatrixWorkgroupScopeReservedSharedMemory)") in str(error)
    # A module without workgroup-scope matrices keeps the whole limit.
    plain = _compiled(BIG.replace("6656", "3000"))
    assert not WorkgroupMemory(plain).workgroup_scope_matrices
