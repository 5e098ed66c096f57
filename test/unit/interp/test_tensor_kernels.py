"""Tensor layouts and views end to end (issue 14): OpenCL C kernels compiled by clcoop and run
by the interpreter, against NumPy (np.pad for every clamp mode at every edge, slicing,
transposes, dequantize-then-matmul, a direct convolution); the runtime faults; the native
engine's fallback; and the SPIR-V of __global tensor loads, whose only validator errors
are the two rules spirv-val 2025.5 applies outside Vulkan."""
import re
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import clcoop
from clcoop.errors import RuntimeFault
from clcoop.native.support import NativeFallbackWarning
from tool_marks import needs_tools  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
RNG = np.random.default_rng(14)

HEADER = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef float acc_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t L2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_{MODE})));
typedef coop_tensor_view_t T2 __attribute__((coop_tensor_view(2, false, 1, 0)));
"""

# Loads an 8 x 16 tile at (row0, col0) of an M x N tensor (any offsets, also outside it)
# and stores it to a plain 8 x 16 buffer.
LOAD_KERNEL = HEADER + """
kernel void load_tile(global const float *src, global float *tile, uint M, uint N, int row0, int col0,
                      float clamp_value) {
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), M, N);
  t = coop_tensor_layout_set_clamp_value(coop_tensor_layout_slice(t, row0, 8, col0, 16), as_uint(clamp_value));
  acc_t m = coop_mat_load_tensor(src, t);
  L2 out = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 8, 16);
  coop_mat_store_tensor(tile, m, out);
}
"""

# Stores a tile (element (r, c) = 1000 + 16 r + c) at (row0, col0) of an M x N tensor.
STORE_KERNEL = HEADER + """
kernel void store_tile(global float *dst, global const float *tile, uint M, uint N, int row0, int col0) {
  L2 in = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 8, 16);
  acc_t m = coop_mat_load_tensor(tile, in);
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), M, N);
  coop_mat_store_tensor(dst, m, coop_tensor_layout_slice(t, row0, 8, col0, 16));
}
"""

NP_PAD_MODE = {"CONSTANT": "constant", "CLAMP_TO_EDGE": "edge", "REPEAT": "wrap", "REPEAT_MIRRORED": "reflect"}
M, N = 5, 7
# Offsets that put the tile over each edge and corner, inside, and far outside (several periods).
OFFSETS = [(0, 0), (-3, -4), (-3, 0), (0, -11), (2, 3), (-1, -20), (-9, 2), (-6, -6), (3, -2)]


@pytest.fixture(scope="module")
def programs():
    return {mode: (clcoop.Program(LOAD_KERNEL.replace("{MODE}", mode)).build(),
                   clcoop.Program(STORE_KERNEL.replace("{MODE}", mode)).build())
            for mode in list(NP_PAD_MODE) + ["UNDEFINED"]}


def padded_window(A, mode, row0, col0, clamp_value):
    """Rows row0..row0+7, columns col0..col0+15 of A extended by np.pad."""
    P = 40
    kwargs = {"constant_values": clamp_value} if mode == "constant" else {}
    padded = np.pad(A, P, mode=mode, **kwargs)
    return padded[P + row0:P + row0 + 8, P + col0:P + col0 + 16]


@pytest.mark.parametrize("mode", list(NP_PAD_MODE))
@pytest.mark.parametrize("row0,col0", OFFSETS)
def test_every_clamp_mode_at_every_edge_matches_np_pad(programs, mode, row0, col0):
    A = RNG.standard_normal((M, N)).astype(np.float32)
    tile = np.full((8, 16), np.nan, np.float32)
    programs[mode][0].load_tile((16,), (16,), A, tile, np.uint32(M), np.uint32(N), np.int32(row0),
                                np.int32(col0), np.float32(-2.5), subgroup_size=16)
    np.testing.assert_array_equal(tile, padded_window(A, NP_PAD_MODE[mode], row0, col0, -2.5))


def test_repeat_mirrored_on_a_dimension_of_one_reads_its_only_element(programs):
    A = np.array([[3.0, 4.0, 5.0]], np.float32)
    tile = np.zeros((8, 16), np.float32)
    programs["REPEAT_MIRRORED"][0].load_tile((16,), (16,), A, tile, np.uint32(1), np.uint32(3), np.int32(-2),
                                             np.int32(0), np.float32(0), subgroup_size=16)
    expected_row = np.pad(A[0], (0, 13), mode="reflect")
    np.testing.assert_array_equal(tile, np.broadcast_to(expected_row, (8, 16)))


@pytest.mark.parametrize("mode", list(NP_PAD_MODE))
@pytest.mark.parametrize("row0,col0", OFFSETS)
def test_stores_discard_out_of_bounds_elements_in_every_clamp_mode(programs, mode, row0, col0):
    tile = (1000 + np.arange(8 * 16)).astype(np.float32).reshape(8, 16)
    dst = np.full((M, N), -1.0, np.float32)
    programs[mode][1].store_tile((16,), (16,), dst, tile, np.uint32(M), np.uint32(N), np.int32(row0),
                                 np.int32(col0), subgroup_size=16)
    expected = np.full((M, N), -1.0, np.float32)
    for r in range(8):
        for c in range(16):
            if 0 <= row0 + r < M and 0 <= col0 + c < N:
                expected[row0 + r, col0 + c] = tile[r, c]
    np.testing.assert_array_equal(dst, expected)


def test_undefined_clamp_inside_the_tensor_loads(programs):
    A = RNG.standard_normal((20, 30)).astype(np.float32)
    tile = np.zeros((8, 16), np.float32)
    programs["UNDEFINED"][0].load_tile((16,), (16,), A, tile, np.uint32(20), np.uint32(30), np.int32(3),
                                       np.int32(9), np.float32(0), subgroup_size=16)
    np.testing.assert_array_equal(tile, A[3:11, 9:25])


def test_undefined_clamp_out_of_bounds_is_a_fault_naming_work_item_and_coordinate(programs):
    A = np.zeros((M, N), np.float32)
    tile = np.zeros((8, 16), np.float32)
    with pytest.raises(RuntimeFault) as info:
        programs["UNDEFINED"][0].load_tile((32,), (32,), A, tile, np.uint32(M), np.uint32(N), np.int32(-1),
                                           np.int32(0), np.float32(0), subgroup_size=16)
    message = str(info.value)
    assert "matrix element (0, 0) maps to tensor coordinate (-1, 0)" in message, message
    assert "outside the tensor's dimensions (5, 7)" in message and "Undefined" in message, message
    assert info.value.work_item == (0,), message
    assert "<source>:11:13: error: kernel 'load_tile'" in message, message    # the load's source line
    assert np.all(tile == 0)        # nothing written back after a fault


def test_undefined_clamp_store_out_of_bounds_is_a_fault(programs):
    dst = np.zeros((M, N), np.float32)
    tile = np.zeros((8, 16), np.float32)
    with pytest.raises(RuntimeFault, match=r"tensor coordinate \(0, 7\)"):
        programs["UNDEFINED"][1].store_tile((16,), (16,), dst, tile, np.uint32(M), np.uint32(N), np.int32(0),
                                            np.int32(0), subgroup_size=16)


BLOCKED_STORE = HEADER.replace("{MODE}", "CONSTANT") + """
kernel void k(global float *dst, uint b) {
  L2 t = coop_tensor_layout_set_block_size(coop_tensor_layout_create(), 1, b);
  t = coop_tensor_layout_set_dimension(t, 8, 16);
  coop_mat_store_tensor(dst, (acc_t)coop_mat_init(1.0f), t);
}
"""


def test_block_size_on_a_store_is_a_runtime_fault_when_not_known_at_compile_time():
    program = clcoop.Program(BLOCKED_STORE).build()
    dst = np.zeros(8 * 16, np.float32)
    program.k((16,), (16,), dst, np.uint32(1), subgroup_size=16)     # block size 1 is fine
    assert np.all(dst == 1)
    with pytest.raises(RuntimeFault, match=r"tensor store with block size \(1, 2\): a block size greater than 1"):
        program.k((16,), (16,), dst, np.uint32(2), subgroup_size=16)


VIEW_KERNEL = HEADER.replace("{MODE}", "CONSTANT") + """
// A transposed read through a view without dimensions, then a clipped read that keeps the
// first matrix outside rows 2..5, columns 3..12.
kernel void k(global const float *src, global float *out0, global float *out1, uint M, uint N) {
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), M, N);
  t = coop_tensor_layout_slice(t, 0, 16, 0, 8);                 // a 16 x 8 part of the tensor
  T2 v = coop_tensor_view_create();
  acc_t transposed = coop_mat_load_tensor(src, t, v);           // its transpose, 8 x 16
  L2 u = coop_tensor_layout_slice(coop_tensor_layout_set_dimension(coop_tensor_layout_create(), M, N),
                                  1, 8, 2, 16);
  typedef coop_tensor_view_t I2 __attribute__((coop_tensor_view(2, false)));
  I2 clip = coop_tensor_view_set_clip(coop_tensor_view_create(), 2, 4, 3, 10);
  acc_t clipped = coop_mat_load_tensor(transposed, src, u, clip);
  L2 o = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 8, 16);
  coop_mat_store_tensor(out0, transposed, o);
  coop_mat_store_tensor(out1, clipped, o);
}
"""


def test_views_transpose_and_clip_keeping_the_object_operand():
    Mt, Nt = 20, 24
    A = RNG.standard_normal((Mt, Nt)).astype(np.float32)
    out0 = np.zeros((8, 16), np.float32)
    out1 = np.zeros((8, 16), np.float32)
    clcoop.Program(VIEW_KERNEL).build().k((16,), (16,), A, out0, out1, np.uint32(Mt), np.uint32(Nt),
                                          subgroup_size=16)
    np.testing.assert_array_equal(out0, A[:16, :8].T)
    # NV2 matrixCoordToLinear: inside the clip, (r - 2) * min(16, 10) + (c - 3) is the
    # row-major index over the slice's span (8 x 16) starting at (1, 2).
    expected = out0.copy()
    span = A[1:9, 2:18].reshape(-1)
    for r in range(2, 6):
        for c in range(3, 13):
            expected[r, c] = span[(r - 2) * 10 + (c - 3)]
    np.testing.assert_array_equal(out1, expected)


PER_GROUP_KERNEL = HEADER.replace("{MODE}", "CLAMP_TO_EDGE") + """
// Each sub-group loads the tile at its own offset (the layout differs between sub-groups,
// uniform within each), and stores it to its own output tile.
kernel void k(global const float *src, global float *out, uint M, uint N) {
  const int g = get_global_id(0) / get_sub_group_size();
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), M, N);
  acc_t m = coop_mat_load_tensor(src, coop_tensor_layout_slice(t, 3 * g - 4, 8, 5 * g - 9, 16));
  L2 o = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 8 * get_num_groups(0) * 2, 16);
  coop_mat_store_tensor(out, m, coop_tensor_layout_slice(o, 8 * g, 8, 0, 16));
}
"""


@pytest.mark.parametrize("max_lanes", [None, 32], ids=["one batch", "batches of 32 lanes"])
def test_layouts_differ_between_subgroups_and_results_do_not_depend_on_batching(max_lanes):
    Mt, Nt = 9, 13
    A = RNG.standard_normal((Mt, Nt)).astype(np.float32)
    groups = 6
    out = np.zeros((8 * groups, 16), np.float32)
    kwargs = {"max_lanes": max_lanes} if max_lanes else {}
    clcoop.Program(PER_GROUP_KERNEL).build().k((16 * groups,), (32,), A, out, np.uint32(Mt), np.uint32(Nt),
                                                subgroup_size=16, **kwargs)
    for g in range(groups):
        np.testing.assert_array_equal(out[8 * g:8 * g + 8], padded_window(A, "edge", 3 * g - 4, 5 * g - 9, 0))


def test_tensor_layout_values_live_in_private_variables_phis_and_selects():
    # At -O2 the layout flows through a phi (the loop) and a select (the ?:).
    source = HEADER.replace("{MODE}", "CONSTANT") + """
kernel void k(global const float *src, global float *out, uint M, uint N, int flip) {
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), M, N);
  for (int i = 0; i < 3; i++)
    t = coop_tensor_layout_slice(t, 1, 8, flip ? 2 : 1, 16);
  acc_t m = coop_mat_load_tensor(src, t);
  const L2 o = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 8, 16);
  coop_mat_store_tensor(out, m, o);
}
"""
    A = RNG.standard_normal((16, 24)).astype(np.float32)
    for options, flip in (([], 1), (["-cl-opt-disable"], 0)):
        out = np.zeros((8, 16), np.float32)
        clcoop.Program(source).build(options=options).k((16,), (16,), A, out, np.uint32(16), np.uint32(24),
                                                         np.int32(flip), subgroup_size=16)
        step = 2 if flip else 1
        np.testing.assert_array_equal(out, padded_window(A, "constant", 3, 3 * step, 0))


def test_native_engine_runs_tensor_kernels_without_falling_back():
    # (issue 29: tensor layouts are compiled natively; test_native_tensor.py compares the
    # engines on every tensor kernel)
    A = RNG.standard_normal((M, N)).astype(np.float32)
    tile = np.zeros((8, 16), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeFallbackWarning)
        program = clcoop.Program(LOAD_KERNEL.replace("{MODE}", "CONSTANT")).build(engine="auto")
        program.load_tile((16,), (16,), A, tile, np.uint32(M), np.uint32(N), np.int32(-1), np.int32(-2),
                          np.float32(0), subgroup_size=16)
    assert program.load_tile.engine == "native"
    np.testing.assert_array_equal(tile, padded_window(A, "constant", -1, -2, 0))


# ---------------------------------------------------------------- examples

def q4_0_blocks(weights_q, scales):
    """llama.cpp's block_q4_0 layout: half d, then 16 bytes, element j in the low nibble of
    byte j and element j + 16 in its high nibble."""
    n, k = weights_q.shape
    block = np.dtype([("d", np.float16), ("qs", np.uint8, 16)])
    blocks = np.zeros((n, k // 32), block)
    q = weights_q.reshape(n, k // 32, 32)
    blocks["qs"] = q[:, :, :16] | (q[:, :, 16:] << 4)
    blocks["d"] = scales
    return blocks.view(np.uint8).reshape(-1)


@pytest.mark.parametrize("Mx,Nx,K", [(13, 21, 64), (8, 16, 32), (3, 40, 96)])
def test_q4_gemm_matches_numpy_dequantize_then_matmul(Mx, Nx, K):
    X = RNG.standard_normal((Mx, K)).astype(np.float16)
    q = RNG.integers(0, 16, size=(Nx, K), dtype=np.uint8)
    d = (RNG.random((Nx, K // 32)) * 0.1 + 0.01).astype(np.float16)
    # NumPy dequantization: (q - 8) * d, in half as the decode function computes it.
    W = ((q.reshape(Nx, K // 32, 32).astype(np.float32) - 8) * d[:, :, None]).astype(np.float16).reshape(Nx, K)
    Y = np.full((Mx, Nx), np.nan, np.float32)
    program = clcoop.Program((EXAMPLES / "q4_gemm.cl").read_text()).build()
    S = 16
    program.q4_gemm((-(-Nx // 16) * S, -(-Mx // 8)), (S, 1), X, q4_0_blocks(q, d), Y,
                    np.uint32(Mx), np.uint32(Nx), np.uint32(K), subgroup_size=S)
    np.testing.assert_allclose(Y, X.astype(np.float32) @ W.astype(np.float32).T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(2, 5, 11, 20, 24), (1, 3, 8, 16, 16), (1, 4, 3, 5, 7)],
                         ids=["N2H5W11C20K24", "exact tiles", "small"])
def test_conv2d_nhwc_matches_numpy(shape):
    Nb, H, W, C, K = shape
    In = RNG.standard_normal((Nb, H, W, C)).astype(np.float32)
    F = RNG.standard_normal((K, 3, 3, C)).astype(np.float32)
    Out = np.full((Nb, H, W, K), np.nan, np.float32)
    program = clcoop.Program((EXAMPLES / "conv2d_nhwc.cl").read_text()).build()
    S = 16
    program.conv2d_nhwc((-(-K // 16) * S, -(-W // 8), Nb * H), (S, 1, 1), In, F, Out,
                        *map(np.int32, shape), subgroup_size=S)
    padded = np.pad(In.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    expected = sum(np.einsum("nhwc,kc->nhwk", padded[:, r:r + H, s:s + W, :], F[:, r, s, :].astype(np.float64))
                   for r in range(3) for s in range(3))
    np.testing.assert_allclose(Out, expected, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- SPIR-V

needs_spirv_tools = needs_tools("llc", "spirv-val")

GLOBAL_DECODE_KERNEL = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef coop_tensor_layout_t L2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
typedef struct { half d; uchar qs[16]; } block_q4_0;
half decode(const __global block_q4_0 *b, const uint bc[2], const uint ib[2]) {
  return (half)(int)(b->qs[ib[1] % 16u] & 0xF) * b->d;
}
kernel void k(global const block_q4_0 *w, global half *out, uint n) {
  L2 t = coop_tensor_layout_set_block_size(coop_tensor_layout_create(), 1, 32);
  t = coop_tensor_layout_set_dimension(t, n, 64);
  mat_b b = coop_mat_load_tensor(w, t, decode);
  L2 o = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 16, 16);
  coop_mat_store_tensor(out, b, o);
}
"""


def _val(module):
    """(status, message) of spirv-val on a parsed module."""
    import tempfile
    from clcoop.spirv import find_tool
    from clcoop.spirv.binary import write_module
    with tempfile.NamedTemporaryFile(suffix=".spv") as handle:
        handle.write(write_module(module))
        handle.flush()
        done = subprocess.run([find_tool("spirv-val"), handle.name], capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


STORAGE_RULE = "is not Workgroup, StorageBuffer, or PhysicalStorageBuffer"
DECODE_RULE = "first parameter must be pointer to PhysicalStorageBuffer"


@pytest.fixture(scope="module")
def global_decode_module():
    from clcoop.frontend.driver import CompileOptions, compile_source
    from clcoop.spirv import binary as sb
    from clcoop.spirv import ir_to_spirv
    ir = compile_source(GLOBAL_DECODE_KERNEL, CompileOptions(filename="k.cl")).ir
    return sb.read_module(ir_to_spirv(ir))       # emitted although spirv-val rejects it


@needs_spirv_tools
def test_global_module_validates_once_exactly_the_two_rejected_constructs_are_changed(global_decode_module):
    from clcoop.spirv import binary as sb
    from clcoop.spirv.tensor import OP_LOAD_TENSOR, validator_copy
    module = global_decode_module
    status, message = _val(module)
    assert status != 0 and STORAGE_RULE in message, message
    load = next(inst for inst in module.instructions if inst.opcode == OP_LOAD_TENSOR)
    decode = sb.definitions(module)[load.operands[-1]]
    assert decode.opcode == sb.OP_FUNCTION            # the decode operand is an OpFunction id
    patched, changes = validator_copy(module, decode="physical")
    assert sorted(set(changes)) == ["a tensor load/store pointer: CrossWorkgroup -> Workgroup",
                                    f"decode function %{decode.result_id}: first parameter -> "
                                    f"PhysicalStorageBuffer"], changes
    status, message = _val(patched)
    assert status == 0, message


@needs_spirv_tools
def test_global_module_with_only_the_pointers_changed_fails_at_the_decode_rule(global_decode_module):
    from clcoop.spirv.tensor import validator_copy
    status, message = _val(validator_copy(global_decode_module, decode="keep")[0])
    assert status != 0 and DECODE_RULE in message, message


@needs_spirv_tools
def test_global_module_with_only_the_decode_parameter_changed_fails_at_the_storage_rule(global_decode_module):
    import copy
    from clcoop.spirv.tensor import _decode_operand, _physical_storage_buffer_parameters
    module = copy.deepcopy(global_decode_module)
    _physical_storage_buffer_parameters(module, {_decode_operand(i) for i in module.instructions} - {None})
    status, message = _val(module)
    assert status != 0 and STORAGE_RULE in message, message


@needs_spirv_tools
@pytest.mark.parametrize("example", ["q4_gemm.cl", "conv2d_nhwc.cl"])
def test_examples_emit_spirv_with_the_nv_instructions(example):
    from clcoop.frontend.driver import CompileOptions, compile_source
    from clcoop.spirv import disassemble, ir_to_spirv
    ir = compile_source((EXAMPLES / example).read_text(), CompileOptions(filename=example)).ir
    text = disassemble(ir_to_spirv(ir))
    assert "OpCooperativeMatrixLoadTensorNV" in text and "OpCooperativeMatrixStoreTensorNV" in text
    assert 'OpExtension "SPV_NV_tensor_addressing"' in text and "OpFunctionCall" not in text.split(
        "OpFunction ")[0]
    if example == "q4_gemm.cl":
        assert re.search(r"TensorView\|DecodeFunc %\w+ %dequantize_q4_0_decode\n", text)
        assert "OpCapability CooperativeMatrixBlockLoadsNV" in text
