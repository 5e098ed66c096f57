"""The Vulkan target (clcoop.spirv.vulkan, docs/vulkan.md): every example and test kernel it
takes is a module `spirv-val --target-env vulkan1.3` accepts exactly as emitted (run here again
on the bytes, no validator copy); what it does not take is a compile error at a source line;
the reflection record matches the kernels; examples/vulkan run in the interpreter at subgroup
size 32 and match NumPy."""
import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import clcoop
from clcoop.errors import CompileError
from clcoop.frontend import driver
from clcoop.spirv.reflection import read_reflection
from clcoop.spirv.tools import find_tool

ROOT = Path(__file__).resolve().parents[3]
RNG = np.random.default_rng(2811)

pytestmark = pytest.mark.skipif(not (find_tool("llc", required=False) and find_tool("opt", required=False)
                                     and find_tool("spirv-val", required=False)),
                                reason="llc-22, opt-22 and spirv-val (SPIRV-Tools 2025) are needed")

# What the target takes: every example (NV2 reductions, per-element functions, tensor
# addressing with decode functions and workgroup scope included), and the test kernels
# without printf.
TAKEN = [
    "examples/vulkan/gemm_f16_f32_16x16.cl", "examples/vulkan/gemm_f16_16x8.cl",
    "examples/vulkan/gemm_s8_s32.cl", "examples/vulkan/gemm_bf16.cl", "examples/vulkan/vector_add.cl",
    "examples/vulkan/stencil.cl", "examples/vulkan/local_reduce.cl", "examples/vulkan/math.cl",
    "examples/vulkan/coop_ops_16x16.cl",
    "examples/vulkan/gemm_wg_f16.cl", "examples/vulkan/gemm_khr_local.cl", "examples/vulkan/gemm_wg_local.cl",
    "examples/vulkan/gemm_khr_blocked.cl", "examples/gemm_wg.cl", "examples/conv2d_nhwc.cl",
    "examples/softmax_rows.cl", "examples/mlp2.cl", "examples/mask_causal.cl", "examples/q4_gemm.cl",
    "examples/bf16_gemm.cl", "examples/gemm_f16_f32.cl", "examples/gemm_f32.cl", "examples/gemm_i8_i32.cl",
    "examples/gemm_i8_sat.cl", "examples/operators.cl", "examples/reduction_local.cl",
    "test/unit/kernels/faults.cl", "test/unit/kernels/matrix_faults.cl", "test/unit/kernels/reduce_local.cl",
    "test/unit/kernels/subgroups.cl", "test/unit/kernels/vector_add.cl", "test/unit/kernels/gemm_naive.cl",
    "test/unit/kernels/atomics.cl", "test/unit/kernels/float4_math.cl", "test/unit/kernels/int_control.cl",
    "test/unit/kernels/vulkan_helpers.cl", "test/unit/kernels/collectives.cl", "test/unit/kernels/vulkan_int_builtins.cl",
    "test/unit/kernels/vulkan_exact_math.cl", "test/unit/kernels/vulkan_memory_builtins.cl",
]
# What it refuses, with the line it names and a word of the reason.
REFUSED = {
    "test/unit/kernels/odd_width_switch.cl": (9, "printf"),
    "test/unit/kernels/ndrange.cl": (12, "get_work_dim"),
}


def compile_vulkan(path, opt_level=0):
    """The module bytes as `clcoop --emit-spirv --target-env=vulkan1.3` writes them (-O0), or
    as Program.build(engine="vulkan") makes them (-O2)."""
    from clcoop.spirv.vulkan import ir_to_vulkan_spirv
    source = (ROOT / path).read_text()
    result = driver.compile_source(source, driver.CompileOptions(filename=str(ROOT / path), debug_info=True,
                                                                 opt_level=opt_level))
    return ir_to_vulkan_spirv(result.ir)


def spirv_val(data, tmp_path):
    module = tmp_path / "module.spv"
    module.write_bytes(data)
    return subprocess.run([find_tool("spirv-val"), "--target-env", "vulkan1.3", str(module)],
                          capture_output=True, text=True)


def disassemble(data, tmp_path):
    module = tmp_path / "dis.spv"
    module.write_bytes(data)
    return subprocess.run([find_tool("spirv-dis"), "--no-color", str(module)], capture_output=True,
                          text=True, check=True).stdout


# -O2 is what Program.build(engine="vulkan") compiles; -O0 (the command line's default) runs
# with the slow tests (CI runs them).
@pytest.mark.parametrize("opt_level", [pytest.param(0, marks=pytest.mark.slow), 2], ids=["O0", "O2"])
@pytest.mark.parametrize("path", TAKEN)
def test_taken_kernels_validate_as_emitted(path, opt_level, tmp_path):
    data = compile_vulkan(path, opt_level)
    done = spirv_val(data, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    text = disassemble(data, tmp_path)
    assert "OpMemoryModel PhysicalStorageBuffer64 Vulkan" in text
    assert "OpEntryPoint GLCompute" in text
    for forbidden in ("OpCapability Kernel", "OpCapability Linkage", "OpenCL.std", "CrossWorkgroup"):
        assert forbidden not in text, forbidden
    # Vulkan requires Aligned on every access through a PhysicalStorageBuffer pointer.
    psb_pointers = set(re.findall(r"(%\S+) = OpTypePointer PhysicalStorageBuffer", text))
    typed = dict(re.findall(r"(%\S+) = OpConvertUToPtr (%\S+)", text))
    for line in text.splitlines():
        m = re.search(r"Op(?:Load \S+|Store) (%\S+)", line)
        if m and typed.get(m.group(1)) in psb_pointers:
            assert "Aligned" in line, line


UNINITIALIZED_MATRIX = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half acc_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
__attribute__((reqd_work_group_size(32, 1, 1)))
__kernel void k(__global const half *m, __global half *o, uint n, uint flag)
{
    acc_t sum = coop_mat_init((half)0);
    for (uint j = 0; j < n; ++j) {
        acc_t mv;
        if (flag)
            mv = coop_mat_load(m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
        if (flag)
            sum += mv;
    }
    coop_mat_store(o, sum, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


def test_a_matrix_left_uninitialized_on_a_path_is_an_undef_of_its_type(tmp_path):
    """At -O0, mem2reg turns a matrix variable assigned on one path only into a phi with an
    `undef` incoming value, which llc-22 writes as `OpUndef %ulong` (found porting llama.cpp's
    flash attention, examples/llama/flash_attn.cl): the phi's operand must be an undef of the
    matrix type."""
    from clcoop.spirv.vulkan import ir_to_vulkan_spirv
    result = driver.compile_source(UNINITIALIZED_MATRIX, driver.CompileOptions(filename="k.cl", debug_info=True,
                                                                               opt_level=0))
    data = ir_to_vulkan_spirv(result.ir)
    done = spirv_val(data, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    text = disassemble(data, tmp_path)
    matrix = re.search(r"(%\S+) = OpTypeCooperativeMatrixKHR", text).group(1)
    undef = re.search(rf"(%\S+) = OpUndef {re.escape(matrix)}\n", text).group(1)
    assert re.search(rf"OpPhi {re.escape(matrix)} {re.escape(undef)} ", text), text


@pytest.mark.parametrize("path", sorted(REFUSED))
def test_refused_kernels_get_a_located_error(path):
    line, word = REFUSED[path]
    with pytest.raises(CompileError) as caught:
        compile_vulkan(path)
    message = str(caught.value)
    assert f"{path.split('/')[-1]}:{line}:" in message, message
    assert word in message and "Vulkan target" in message


MATRICES = """#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
"""
# (source, line, what the message says): each construct without a Vulkan form, at its line.
REFUSED_SOURCES = {
    "pointer_in_memory": ("__kernel void k(__global float * __global *pp, __global float *out) {\n"
                          "  __global float *p = pp[0];\n  out[0] = p[1];\n}\n", 2,
                          "a __global pointer loaded from memory cannot be used as a buffer"),
    "local_pointer_select": ("__kernel void k(__global float *out, int c) {\n  __local float a[4], b[4];\n"
                             "  a[0] = 1; b[0] = 2;\n  __local float *p = c ? a : b;\n  out[0] = p[1];\n}\n", 4,
                             "chosen at run time"),
    "ext_conversion": (MATRICES + "__kernel void k(__global const half *B, __global float *out) {\n"
                       "  mat_b b = coop_mat_load(B, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);\n"
                       "  mat_c c = (mat_c)b;\n"
                       "  coop_mat_store(out, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);\n}\n", 7,
                       "OpCooperativeMatrixConvertUseEXT"),
    "get_coord": (MATRICES + "__kernel void k(__global float *C, __global uint *rows) {\n"
                  "  mat_c c = coop_mat_load(C, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);\n"
                  "  rows[get_global_id(0)] = coop_mat_get_coord(c, 0)[0];\n}\n", 7,
                  "OpCooperativeMatrixGetCoordinateEXT"),
    "unmapped_builtin": ("__kernel void k(__global float *x) {\n  x[0] = lgamma(x[0]);\n}\n", 2,
                         "'lgamma' is not available"),
}


@pytest.mark.parametrize("name", sorted(REFUSED_SOURCES))
def test_constructs_without_a_vulkan_form_are_refused_at_their_line(name, tmp_path):
    from clcoop.spirv.vulkan import ir_to_vulkan_spirv
    source, line, words = REFUSED_SOURCES[name]
    path = tmp_path / f"{name}.cl"
    path.write_text(source)
    ir = driver.compile_source(source, driver.CompileOptions(filename=str(path), debug_info=True)).ir
    with pytest.raises(CompileError) as caught:
        ir_to_vulkan_spirv(ir)
    message = str(caught.value)
    assert re.search(rf"{name}\.cl:{line}:\d+: error: ", message), message
    assert words in message, message


def test_reflection_record_of_gemm():
    record = read_reflection(compile_vulkan("examples/vulkan/gemm_s8_s32.cl"))["gemm_s8_s32"]
    assert [(a["name"], a["kind"], a["dtype"], a["offset"], a["size"]) for a in record["args"]] == [
        ("A", "global", "int8", 0, 8), ("B", "global", "int8", 8, 8), ("C", "global", "int32", 16, 8),
        ("M", "scalar", "int32", 24, 4), ("N", "scalar", "int32", 28, 4), ("K", "scalar", "int32", 32, 4)]
    assert [a.get("writable") for a in record["args"][:3]] == [False, False, True]
    assert record["global_offset_offset"] == 36 and record["push_constant_size"] == 48
    assert record["local_size"] is None and record["subgroup_size"] == 32
    assert record["mul_adds"] == [{"scope": "subgroup", "M": 16, "N": 16, "K": 32, "A": "s8", "B": "s8",
                                   "C": "s32", "result": "s32", "saturating": False}]
    assert {(m["use"], m["component"]) for m in record["matrices"]} == {("a", "s8"), ("b", "s8"), ("accumulator", "s32")}
    assert record["device_extensions"] == ["VK_KHR_cooperative_matrix"]
    assert {"bufferDeviceAddress", "vulkanMemoryModel", "cooperativeMatrix", "shaderInt8",
            "storageBuffer8BitAccess"} <= set(record["device_features"])
    assert "shaderFloat64" not in record["device_features"]
    # sqrt's exact sequence goes through double.
    assert "shaderFloat64" in read_reflection(compile_vulkan("examples/vulkan/math.cl"))["math"]["device_features"]


def test_kernels_with_and_without_reqd_work_group_size_share_a_module(tmp_path):
    source = tmp_path / "mixed.cl"
    source.write_text("__attribute__((reqd_work_group_size(64, 1, 1)))\n"
                      "__kernel void fixed(__global uint *o) { o[get_global_id(0)] = get_local_size(0); }\n"
                      "__kernel void free_size(__global uint *o) { o[get_global_id(0)] = get_local_size(0); }\n")
    from clcoop.spirv.vulkan import ir_to_vulkan_spirv
    data = ir_to_vulkan_spirv(driver.compile_source(source.read_text(), driver.CompileOptions(
        filename=str(source), debug_info=True)).ir)
    assert spirv_val(data, tmp_path).returncode == 0
    text = disassemble(data, tmp_path)
    assert "OpExecutionMode %fixed LocalSize 64 1 1" in text
    assert re.search(r"OpExecutionModeId %free_size LocalSizeId", text)
    assert "BuiltIn WorkgroupSize" not in text       # it would set every entry point's size
    records = read_reflection(data)
    assert records["fixed"]["local_size"] == [64, 1, 1] and records["free_size"]["local_size"] is None
    assert "maintenance4" in records["free_size"]["device_features"]


def test_reflection_of_a_struct_buffer_is_its_size_in_bytes():
    record = read_reflection(compile_vulkan("examples/q4_gemm.cl"))["q4_gemm"]
    assert record["args"][1]["dtype"] == "V18"        # struct { half d; uchar qs[16]; }


def test_reflection_of_local_argument_and_fixed_size():
    stencil = read_reflection(compile_vulkan("examples/vulkan/stencil.cl"))["stencil"]
    tile = stencil["args"][2]
    assert tile["kind"] == "local" and tile["spec_id"] == 102 and tile["dtype"] == "float32"
    assert "offset" not in tile
    assert [a["offset"] for a in stencil["args"] if a["kind"] != "local"] == [0, 8, 16, 20, 24, 28]
    fixed = read_reflection(compile_vulkan("examples/vulkan/gemm_f16_16x8.cl"))["gemm_f16_16x8"]
    assert fixed["local_size"] == [32, 1, 1]


def test_spec_constants_and_push_constants_in_the_disassembly(tmp_path):
    data = compile_vulkan("examples/vulkan/stencil.cl")
    text = disassemble(data, tmp_path)
    spec_ids = sorted(int(x) for x in re.findall(r"OpDecorate %\S+ SpecId (\d+)", text))
    # The local size, the __local argument's length, and a (flag, value) pair per used scalar
    # argument (test_vulkan_specialize.py).
    scalars = [i for a in read_reflection(data)["stencil"]["args"] for i in a.get("spec_ids", ())]
    assert len(scalars) >= 2
    assert spec_ids == [0, 1, 2, 102] + sorted(scalars)
    assert re.search(r"OpExecutionModeId %stencil LocalSizeId %\S+ %\S+ %\S+", text)
    assert "OpExecutionMode %stencil LocalSize" not in text
    assert re.search(r"OpVariable %_ptr_PushConstant_\S+ PushConstant", text)
    # barrier(CLK_LOCAL_MEM_FENCE): Workgroup scopes, AcquireRelease | WorkgroupMemory |
    # MakeAvailable | MakeVisible (0x6108), and the Workgroup accesses NonPrivatePointer.
    assert "OpControlBarrier %uint_2 %uint_2 %uint_24840" in text
    assert re.search(r"OpStore %\S+ %\S+ Aligned\|NonPrivatePointer 4", text)


# ---------------------------------------------------------------- the examples in the interpreter

def build(name):
    return clcoop.Program((ROOT / "examples" / "vulkan" / name).read_text()).build()


def test_gemm_f16_f32_16x16_in_the_interpreter():
    M, N, K = 32, 48, 64
    A = RNG.standard_normal((M, K)).astype(np.float16)
    B = RNG.standard_normal((K, N)).astype(np.float16)
    C0 = RNG.standard_normal((M, N)).astype(np.float32)
    C = C0.copy()
    build("gemm_f16_f32_16x16.cl").gemm_f16_f32_16x16((N // 16 * 32, M // 16), (32, 1), A, B, C, M, N, K,
                                                       subgroup_size=32)
    expected = C0.astype(np.float64) + A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(C, expected, rtol=1e-4, atol=1e-4)


UNCLAMPED = "-DCLAMP=CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED"


# gemm_wg_f16.cl's loop forms against NumPy: M, N, K off the tile (clamped) or multiples of it
# (unclamped); -DUNROLL2 with K = 80, not a multiple of 2 x 16 (the clamped layout reads zeros).
@pytest.mark.parametrize("options, sizes, c_dtype", [
    ((), (96, 160, 80), np.float32),
    (("-DPIPELINE",), (70, 100, 50), np.float32),
    (("-DUNROLL2",), (96, 160, 80), np.float32),
    (("-DUNROLL2", "-DB_COLUMN_MAJOR"), (70, 100, 50), np.float32),
    (("-DUNROLL2", "-DHALF_C", UNCLAMPED), (64, 96, 96), np.float16),
], ids=["plain", "pipelined", "unroll2", "unroll2-b-column-major", "unroll2-half-c-unclamped"])
def test_gemm_wg_f16_in_the_interpreter(options, sizes, c_dtype):
    M, N, K = sizes
    source = (ROOT / "examples" / "vulkan" / "gemm_wg_f16.cl").read_text()
    program = clcoop.Program(source).build(options=["-DTILE_M=32", "-DTILE_N=32", "-DTILE_K=16", "-DWG_SIZE=64",
                                                    *options])
    A = RNG.standard_normal((M, K)).astype(np.float16)
    B = RNG.standard_normal((K, N)).astype(np.float16)
    C = np.zeros((M, N), c_dtype)
    b = np.ascontiguousarray(B.T) if "-DB_COLUMN_MAJOR" in options else B
    program.gemm_wg_f16((-(-N // 32) * 64, -(-M // 32)), (64, 1), A, b, C, M, N, K, specialize=("M", "N", "K"))
    exact = A.astype(np.float64) @ B.astype(np.float64)
    # f32 sums of K products (gamma_K), then the result's own rounding.
    bound = (np.abs(A.astype(np.float64)) @ np.abs(B.astype(np.float64))) * K * 2.0 ** -24 \
        + np.spacing(np.abs(exact).astype(c_dtype)).astype(np.float64)
    assert (np.abs(C.astype(np.float64) - exact) <= bound).all()


def test_gemm_f16_16x8_in_the_interpreter():
    M, N, K = 32, 24, 48
    A = RNG.integers(-3, 4, (M, K)).astype(np.float16)     # integer data: exact in half
    B = RNG.integers(-3, 4, (K, N)).astype(np.float16)
    C = np.zeros((M, N), np.float16)
    build("gemm_f16_16x8.cl").gemm_f16_16x8((N // 8 * 32, M // 16), (32, 1), A, np.ascontiguousarray(B.T), C,
                                            M, N, K, subgroup_size=32)
    np.testing.assert_array_equal(C, (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float16))


def test_gemm_s8_s32_in_the_interpreter():
    M, N, K = 32, 32, 96
    A = RNG.integers(-128, 128, (M, K), dtype=np.int8)
    B = RNG.integers(-128, 128, (K, N), dtype=np.int8)
    C = np.zeros((M, N), np.int32)
    build("gemm_s8_s32.cl").gemm_s8_s32((N // 16 * 32, M // 16), (32, 1), A, B, C, M, N, K, subgroup_size=32)
    np.testing.assert_array_equal(C, A.astype(np.int32) @ B.astype(np.int32))


def test_gemm_bf16_in_the_interpreter():
    import ml_dtypes
    bf16 = np.dtype(ml_dtypes.bfloat16)
    M, N, K = 16, 32, 48
    A = RNG.standard_normal((M, K)).astype(bf16)
    B = RNG.standard_normal((K, N)).astype(bf16)
    C = np.zeros((M, N), np.float32)
    build("gemm_bf16.cl").gemm_bf16((N // 16 * 32, M // 16), (32, 1), A, B, C, M, N, K, subgroup_size=32)
    np.testing.assert_allclose(C, A.astype(np.float64) @ B.astype(np.float64), rtol=1e-5, atol=1e-5)


def test_coop_ops_16x16_in_the_interpreter():
    X = RNG.uniform(-10, 10, (16, 16)).astype(np.float32)
    Y = RNG.uniform(1, 4, (16, 16)).astype(np.float32)
    alpha = np.float32(0.5)
    out = np.zeros((8, 16, 16), np.float32)
    out_h = np.zeros((16, 16), np.float16)
    out_len = np.zeros(32, np.uint32)
    build("coop_ops_16x16.cl").coop_ops_16x16(32, 32, X, Y, alpha, out, out_h, out_len, subgroup_size=32)
    expected = [X + Y, X - Y, X * Y, X / Y, -X, X * alpha, 2 * X + 1, X.astype(np.float16).astype(np.float32)]
    for index, want in enumerate(expected):
        np.testing.assert_allclose(out[index], want, rtol=1e-6, err_msg=f"result tile {index}")
    np.testing.assert_array_equal(out_h, X.astype(np.float16))
    np.testing.assert_array_equal(out_len, np.full(32, 256 // 32))


def test_vector_add_with_a_global_offset_in_the_interpreter():
    n = 100
    a, b = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    c = np.zeros(n, np.float32)
    build("vector_add.cl").vector_add((64,), (32,), a, b, c, n, global_offset=(40,))
    expected = np.zeros(n, np.float32)
    expected[40:] = (a + b)[40:]
    np.testing.assert_array_equal(c, expected)


def test_stencil_in_the_interpreter():
    n, local = 200, 64
    x = RNG.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    w = (np.float32(0.25), np.float32(0.5), np.float32(0.25))
    build("stencil.cl").stencil((256,), (local,), x, out, clcoop.LocalMemory((local + 2) * 4), *w, n)
    padded = np.concatenate([[0], x, [0]]).astype(np.float32)
    expected = w[0] * padded[:-2] + w[1] * padded[1:-1] + w[2] * padded[2:]
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-6)


def test_local_reduce_in_the_interpreter():
    groups = 3
    x = RNG.standard_normal(groups * 256).astype(np.float32)
    partial = np.zeros(groups, np.float32)
    build("local_reduce.cl").local_reduce((groups * 256,), (256,), x, partial, subgroup_size=32)
    np.testing.assert_allclose(partial, x.reshape(groups, 256).sum(axis=1), rtol=1e-4, atol=1e-4)


def test_math_in_the_interpreter():
    n = 32
    x = RNG.uniform(0.1, 3.0, n).astype(np.float32)
    out = np.zeros(8 * n, np.float32)
    build("math.cl").math((n,), (32,), x, out, n)
    x64 = x.astype(np.float64)
    expected = np.stack([np.sqrt(x64), np.exp(x64), np.log(x64), np.sin(x64), np.minimum(x64, 1.5),
                         np.floor(x64), x64 ** 1.5, x64 + 1 / np.sqrt(x64)], axis=1).ravel()
    np.testing.assert_allclose(out, expected, rtol=2e-6, atol=1e-6)


def test_reflection_is_plain_json():
    data = compile_vulkan("examples/vulkan/vector_add.cl")
    record = read_reflection(data)
    assert json.loads(json.dumps(record)) == record
    assert record["vector_add"]["args"][3] == {"name": "n", "kind": "scalar", "type": "int", "dtype": "int32",
                                               "offset": 24, "size": 4, "spec_ids": [206, 207]}


# ---------------------------------------------------------------- exact sequences, run on the CPU

def jit_helper(definition, name, restype, argtypes):
    """A built-in helper of clcoop.spirv.vulkan_builtins (LLVM IR) compiled for this CPU."""
    import ctypes

    import llvmlite.binding as llvm
    text = definition.replace("define internal spir_func", "define").replace(" alwaysinline", "")
    text = re.sub(r"@[-\w.$]+\(", f"@{name}(", text, count=1)
    declarations = "declare double @llvm.sqrt.f64(double)"
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(declarations + "\n" + text)
    machine = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    function = ctypes.CFUNCTYPE(restype, *argtypes)(engine.get_function_address(name))
    function.engine = engine           # keep the code alive
    return function


def nearest_float32(exact):
    """The float32 nearest the rational `exact`, ties to even (an independent oracle)."""
    from fractions import Fraction
    guess = np.float32(float(exact))
    candidates = [guess, np.nextafter(guess, np.float32(np.inf)), np.nextafter(guess, np.float32(-np.inf))]
    def key(f):
        return (abs(Fraction(float(f)) - exact), int(np.array(f).view(np.uint32)) & 1)
    return min(candidates, key=key)


def test_exact_fma_sequence_rounds_once():
    import ctypes
    from fractions import Fraction

    from clcoop.spirv.vulkan_builtins import Builtins
    from clcoop.spirv.vulkan_ir import Locator
    builtins = Builtins("", Locator(""))
    builtins._exact_fma("fma_helper", "float")
    fma = jit_helper(builtins.definitions[-1], "fma_helper", ctypes.c_float, [ctypes.c_float] * 3)
    rng = np.random.default_rng(7)
    a = rng.standard_normal(3000).astype(np.float32)
    b = rng.standard_normal(3000).astype(np.float32)
    # c close to -a*b makes the sum cancel; halfway cases: a*b of 24+24 bits around c's ulp.
    c = np.where(rng.random(3000) < 0.5, -(a * b), rng.standard_normal(3000)).astype(np.float32)
    halfway_a = np.float32(1 + 2 ** -12)
    # (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 lies halfway between two floats; + 2^-80 lifts it above,
    # which a double sum loses (then the tie rounds to even: the wrong float).
    cases = list(zip(a, b, c)) + [(halfway_a, halfway_a, np.float32(2.0 ** -80)),
                                  (-halfway_a, halfway_a, np.float32(-(2.0 ** -80))),
                                  (halfway_a, halfway_a, np.float32(-1.0)),
                                  (np.float32(1 + 2 ** -23), np.float32(1 - 2 ** -24), np.float32(-1.0)),
                                  (np.float32(3.0), np.float32(2 ** -150), np.float32(0.0))]
    twice_rounded = 0
    for x, y, z in cases:
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        want = nearest_float32(exact)
        got = np.float32(fma(float(x), float(y), float(z)))
        assert got == want or (np.isnan(got) and np.isnan(want)), (x, y, z, got, want)
        twice_rounded += np.float32(np.float64(x) * np.float64(y) + np.float64(z)) != want
    assert twice_rounded, "the cases must include one that rounding twice gets wrong"


def test_exact_sqrt_sequence_is_within_one_ulp():
    import ctypes
    from clcoop.spirv.vulkan_builtins import Builtins
    from clcoop.spirv.vulkan_ir import Locator
    builtins = Builtins("", Locator(""))
    builtins._exact_sqrt("sqrt_helper", "float")
    sqrt = jit_helper(builtins.definitions[-1], "sqrt_helper", ctypes.c_float, [ctypes.c_float])
    x = np.random.default_rng(8).uniform(0, 1e6, 2000).astype(np.float32)
    got = np.array([sqrt(float(v)) for v in x], np.float32)
    np.testing.assert_array_equal(got, np.sqrt(x))          # NumPy's float32 sqrt is correctly rounded


# ------------------------------------------------ the modules run: a Vulkan device against the interpreter

@pytest.fixture(scope="module")
def vulkan_device():
    """The first Vulkan device (lavapipe on a machine without a GPU): the modules this target
    writes are dispatched by the GPU engine (clcoop/vulkan) and compared with the interpreter."""
    try:
        from clcoop.vulkan import device as devices
        found = devices.descriptions()
    except Exception as error:          # no loader, no ICD: the dispatch cannot run here
        pytest.skip(f"no Vulkan device to dispatch on ({type(error).__name__}: {error})")
    if not found:
        pytest.skip("no Vulkan device to dispatch on (the loader lists none)")
    return found[0]


def dispatch(path, name, opt_level, *launch, **options):
    from clcoop.vulkan.program import VulkanProgram
    program = VulkanProgram(compile_vulkan(path, opt_level))
    return program.kernel(name)(*launch, **options)


def interpret(path, name, *launch, **options):
    program = clcoop.Program((ROOT / path).read_text()).build(options=["-cl-opt-disable"])
    return getattr(program, name)(*launch, **options)


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_plain_kernels_on_a_vulkan_device_match_the_interpreter(vulkan_device, opt_level):
    rng = np.random.default_rng(5)
    n, local = 200, 64
    x = rng.standard_normal(n).astype(np.float32)
    w = (np.float32(0.25), np.float32(0.5), np.float32(0.25))
    outs = [np.zeros(n, np.float32) for _ in range(2)]
    launch = ((256,), (local,))
    dispatch("examples/vulkan/stencil.cl", "stencil", opt_level, *launch, x, outs[0],
             clcoop.LocalMemory((local + 2) * 4), *w, n)
    interpret("examples/vulkan/stencil.cl", "stencil", *launch, x, outs[1], clcoop.LocalMemory((local + 2) * 4), *w, n)
    np.testing.assert_array_equal(outs[0], outs[1])

    a, b = rng.standard_normal(100).astype(np.float32), rng.standard_normal(100).astype(np.float32)
    sums = [np.zeros(100, np.float32) for _ in range(2)]
    dispatch("examples/vulkan/vector_add.cl", "vector_add", opt_level, (64,), (32,), a, b, sums[0], 100,
             global_offset=(40,))
    interpret("examples/vulkan/vector_add.cl", "vector_add", (64,), (32,), a, b, sums[1], 100, global_offset=(40,))
    np.testing.assert_array_equal(sums[0], sums[1])

    values = rng.integers(-50, 50, 128, dtype=np.int32)
    results = [(np.zeros(128, np.int32), np.zeros(128, np.uint32)) for _ in range(2)]
    dispatch("test/unit/kernels/int_control.cl", "int_control", opt_level, (128,), (32,), values, *results[0])
    interpret("test/unit/kernels/int_control.cl", "int_control", (128,), (32,), values, *results[1])
    for got, want in zip(*results):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_atomics_on_a_vulkan_device_match_the_interpreter(vulkan_device, opt_level):
    values = np.random.default_rng(6).integers(-1000, 1000, 256, dtype=np.int32)
    results = []
    for run in (dispatch, interpret):
        bins, maximum, total = np.zeros(16, np.int32), np.full(1, -2 ** 31, np.int32), np.zeros(1, np.int32)
        args = ("test/unit/kernels/atomics.cl", "histogram") + ((opt_level,) if run is dispatch else ())
        run(*args, (256,), (64,), values, bins, maximum, total)
        results.append((bins, maximum, total))
    for got, want in zip(*results):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_sub_group_functions_on_a_vulkan_device_match_the_interpreter(vulkan_device, opt_level):
    size = vulkan_device.subgroup_size
    values = np.random.default_rng(7).integers(-100, 100, 64, dtype=np.int32)
    outs = [np.zeros(4 * 64, np.int32) for _ in range(2)]
    dispatch("test/unit/kernels/subgroups.cl", "subgroups", opt_level, (64,), (32,), values, outs[0])
    interpret("test/unit/kernels/subgroups.cl", "subgroups", (64,), (32,), values, outs[1], subgroup_size=size)
    np.testing.assert_array_equal(outs[0], outs[1])


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_built_ins_the_target_writes_itself_match_the_interpreter_bit_for_bit(vulkan_device, opt_level):
    """vload/vstore (global and __local), copysign, round (halfway cases, -0.0), the exact fma
    and sqrt sequences: the same bits on a Vulkan device as in the interpreter."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal(260).astype(np.float32)
    y = rng.standard_normal(256).astype(np.float32)
    y[:8] = np.array([0.125, -0.125, 0.375, -0.375, 0.625, 1.125, -2.625, -0.0], np.float32)
    outs = [np.zeros(7 * 64, np.float32) for _ in range(2)]
    path = "test/unit/kernels/vulkan_helpers.cl"
    dispatch(path, "helpers", opt_level, (64,), (32,), x, y, outs[0], clcoop.LocalMemory(128))
    interpret(path, "helpers", (64,), (32,), x, y, outs[1], clcoop.LocalMemory(128))
    np.testing.assert_array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32))


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_work_group_collectives_on_a_vulkan_device_match_the_interpreter(vulkan_device, opt_level):
    """work_group_reduce_add, _scan_exclusive_max, _broadcast, _reduce_min on floats (through
    sub-group operations and a Workgroup scratch array), with sub-group shuffles and votes."""
    results = []
    for run in (dispatch, interpret):
        counter, out, floats = np.zeros(1, np.int32), np.zeros(5 * 64, np.int32), np.zeros(64, np.float32)
        path = "test/unit/kernels/collectives.cl"
        if run is dispatch:
            dispatch(path, "collectives", opt_level, (64,), (32,), counter, out, floats)
        else:
            interpret(path, "collectives", (64,), (32,), counter, out, floats,
                      subgroup_size=vulkan_device.subgroup_size)
        results.append((counter, out, floats))
    for got, want in zip(*results):
        np.testing.assert_array_equal(got, want)


def test_known_trailing_zeros_of_integers():
    """The alignment facts behind `Aligned 16`: sound for every value (a loop counter stepping
    by 16 from 0 keeps 4 zero bits, one stepping by 1 none; a product adds, a sum takes the
    least)."""
    from clcoop.spirv.vulkan_ir import integer_trailing_zeros
    text = """define void @f(i32 %n) {
entry:
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k.next, %loop ]
  %j = phi i32 [ 0, %entry ], [ %j.next, %loop ]
  %k.next = add nuw nsw i32 %k, 16
  %j.next = add i32 %j, 1
  %wide = zext nneg i32 %k to i64
  %row = shl i64 %wide, 3
  %prod = mul i64 %row, %wide
  %sum = add i64 %prod, %wide
  %odd = or i64 %sum, 1
  %masked = and i64 %odd, -64
  %bad = mul i32 %n, %j
  br label %loop
}"""
    facts = integer_trailing_zeros(text, "define void @f(i32 %n) {")
    assert facts["%k"] == 4 and facts["%k.next"] == 4 and facts["%wide"] == 4
    assert facts["%j"] == 0 and facts["%bad"] == 0
    assert facts["%row"] == 7 and facts["%prod"] == 11 and facts["%sum"] == 4
    assert facts["%odd"] == 0 and facts["%masked"] == 6


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_integer_built_ins_on_a_vulkan_device_match_the_interpreter(vulkan_device, opt_level):
    """popcount, clz, ctz, rotate, hadd, rhadd, abs_diff, add_sat, sub_sat, mul_hi, mad_hi and
    mad_sat on int, uint, long and ulong, extremes included (64-bit mul_hi from 32-bit halves)."""
    rng = np.random.default_rng(11)
    n = 64
    def values(dtype):
        info = np.iinfo(dtype)
        data = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        data[:6] = [0, 1, info.max, info.min, info.max - 1, -1 if info.min < 0 else 2]
        return data
    inputs = [values(d) for d in (np.int32, np.uint32, np.int64, np.uint64)]
    results = []
    for run in (dispatch, interpret):
        outs = [np.zeros(12 * n, d) for d in (np.int32, np.uint32, np.int64, np.uint64)]
        path = "test/unit/kernels/vulkan_int_builtins.cl"
        if run is dispatch:
            dispatch(path, "int_builtins", opt_level, (n,), (32,), *inputs, *outs)
        else:
            interpret(path, "int_builtins", (n,), (32,), *inputs, *outs)
        results.append(outs)
    for got, want in zip(*results):
        np.testing.assert_array_equal(got, want)
