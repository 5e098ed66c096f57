"""Tensor layouts, views, tensor loads and stores on the native engine (issue 29,
clcoop/native/tensor_routines.py): every tensor kernel of the suite (test_tensor_kernels,
the examples q4_gemm and conv2d_nhwc, the lit kernels, test_spirv_decode_block,
test_coop_context_type) runs natively (engine="auto" does not fall back) bit for bit as
the interpreter, the reference, on the same inputs, and against NumPy where the kernel is
a sample; random layouts of 1 to 5 dimensions with views, permutations, blocks and decode
functions against the interpreter; faults in the interpreter's words."""
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import clcoop
from clcoop.errors import RuntimeFault
from clcoop.native.support import NativeFallbackWarning
from test_tensor_kernels import (BLOCKED_STORE, EXAMPLES, LOAD_KERNEL, NP_PAD_MODE, OFFSETS, PER_GROUP_KERNEL,
                                 STORE_KERNEL, VIEW_KERNEL, padded_window, q4_0_blocks)
from quick_cases import quick_or_slow

ROOT = Path(__file__).resolve().parents[3]
RNG = np.random.default_rng(2929)
MODES = list(NP_PAD_MODE) + ["UNDEFINED"]


def build(source, engine, options=(), builds=None):
    """The program; natively with engine="auto", which must not fall back. With `builds`
    (the session's shared_builds), built once per session."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeFallbackWarning)
        if builds is not None:
            return builds.build(source, engine, options)
        return clcoop.Program(source).build(options=list(options), engine=engine)


def outcome(program, launch):
    """launch(program)'s arrays, or its fault as (first line, work-item)."""
    try:
        return launch(program)
    except RuntimeFault as fault:
        return (str(fault).splitlines()[0], fault.work_item)


def on_both(source, launch, options=(), kernels=(), builds=None):
    """launch(program) on the interpreter and natively: (interpreter's, native outcome)."""
    interp = outcome(build(source, "interp", options, builds), launch)
    program = build(source, "auto", options, builds)
    native = outcome(program, launch)
    for name in kernels:
        assert getattr(program, name).engine == "native", getattr(program, name).fallback_reason
    return interp, native


def assert_same(interp, native):
    """Bit for bit the same arrays, or the same fault words and work-item (but for the
    address of an invalid pointer: the interpreter's buffers are not the host's)."""
    if isinstance(interp, tuple) and isinstance(interp[0], str):
        assert isinstance(native, tuple), native
        words = [re.sub(r"invalid pointer -?0x[0-9a-f]+", "invalid pointer", fault[0]) for fault in (interp, native)]
        assert (words[1], native[1]) == (words[0], interp[1])
        return
    interp = interp if isinstance(interp, (list, tuple)) else [interp]
    native = native if isinstance(native, (list, tuple)) else [native]
    assert len(interp) == len(native)
    for a, b in zip(interp, native):
        assert isinstance(b, np.ndarray), b
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()


# ---------------------------------------------------------------- test_tensor_kernels' kernels

@pytest.fixture(scope="module")
def programs():
    """Per clamp mode: (load, store) programs of both engines."""
    out = {}
    for mode in MODES:
        for kind, source in (("load", LOAD_KERNEL), ("store", STORE_KERNEL)):
            text = source.replace("{MODE}", mode)
            out[mode, kind] = (build(text, "interp"), build(text, "auto"))
    return out


def load_tile(program, A, row0, col0, clamp=-2.5, global_size=16):
    tile = np.full((8, 16), np.nan, np.float32)
    program.load_tile((global_size,), (global_size,), A, tile, np.uint32(A.shape[0]), np.uint32(A.shape[1]),
                      np.int32(row0), np.int32(col0), np.float32(clamp), subgroup_size=16)
    return tile


def store_tile(program, shape, row0, col0):
    tile = (1000 + np.arange(8 * 16)).astype(np.float32).reshape(8, 16)
    dst = np.full(shape, -1.0, np.float32)
    program.store_tile((16,), (16,), dst, tile, np.uint32(shape[0]), np.uint32(shape[1]), np.int32(row0),
                       np.int32(col0), subgroup_size=16)
    return dst


@pytest.mark.parametrize("mode", list(NP_PAD_MODE))
@pytest.mark.parametrize("row0,col0", OFFSETS)
def test_loads_in_every_clamp_mode_at_every_edge(programs, mode, row0, col0):
    A = RNG.standard_normal((5, 7)).astype(np.float32)
    interp, native = (outcome(p, lambda p: load_tile(p, A, row0, col0)) for p in programs[mode, "load"])
    assert programs[mode, "load"][1].load_tile.engine == "native"
    assert_same(interp, native)
    np.testing.assert_array_equal(native, padded_window(A, NP_PAD_MODE[mode], row0, col0, -2.5))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("row0,col0", OFFSETS)
def test_stores_in_every_clamp_mode_at_every_edge(programs, mode, row0, col0):
    interp, native = (outcome(p, lambda p: store_tile(p, (5, 7), row0, col0)) for p in programs[mode, "store"])
    assert_same(interp, native)
    if mode == "UNDEFINED":         # an 8 x 16 tile never fits a 5 x 7 tensor
        assert "with clamp mode Undefined" in native[0]
    else:
        expected = np.full((5, 7), -1.0, np.float32)
        for r in range(8):
            for c in range(16):
                if 0 <= row0 + r < 5 and 0 <= col0 + c < 7:
                    expected[row0 + r, col0 + c] = 1000 + 16 * r + c
        np.testing.assert_array_equal(native, expected)


def test_repeat_mirrored_on_a_dimension_of_one(programs):
    A = np.array([[3.0, 4.0, 5.0]], np.float32)
    interp, native = (outcome(p, lambda p: load_tile(p, A, -2, 0, 0.0)) for p in programs["REPEAT_MIRRORED", "load"])
    assert_same(interp, native)
    np.testing.assert_array_equal(native, np.broadcast_to(np.pad(A[0], (0, 13), mode="reflect"), (8, 16)))


def test_clamp_values_of_every_bit_pattern(programs):
    """The clamp value is a 32-bit pattern: NaN payloads and negative zero survive."""
    A = RNG.standard_normal((5, 7)).astype(np.float32)
    for bits in (0x7FC12345, 0x80000000, 0xFF800000, 0x00000001):
        value = np.array([bits], np.uint32).view(np.float32)[0]
        interp, native = (outcome(p, lambda p: load_tile(p, A, -3, -4, value)) for p in programs["CONSTANT", "load"])
        assert_same(interp, native)
        assert native.view(np.uint32)[0, 0] == bits


def test_undefined_clamp_inside_loads_and_outside_faults_as_the_interpreter(programs):
    A = RNG.standard_normal((20, 30)).astype(np.float32)
    interp, native = (outcome(p, lambda p: load_tile(p, A, 3, 9)) for p in programs["UNDEFINED", "load"])
    assert_same(interp, native)
    np.testing.assert_array_equal(native, A[3:11, 9:25])
    A = np.zeros((5, 7), np.float32)
    for row0, col0 in ((-1, 0), (2, 3), (0, -5)):
        interp, native = (outcome(p, lambda p: load_tile(p, A, row0, col0, global_size=32))
                          for p in programs["UNDEFINED", "load"])
        assert native == interp
        assert "with clamp mode Undefined" in native[0] and "maps to tensor coordinate" in native[0]


def test_block_size_on_a_store_faults_as_the_interpreter():
    def launch(b):
        def run(program):
            dst = np.zeros(8 * 16, np.float32)
            program.k((16,), (16,), dst, np.uint32(b), subgroup_size=16)
            return dst
        return run
    assert_same(*on_both(BLOCKED_STORE, launch(1), kernels=["k"]))
    interp, native = on_both(BLOCKED_STORE, launch(2))
    assert native == interp and "tensor store with block size (1, 2)" in native[0]


def test_views_transpose_and_clip_keeping_the_object_operand():
    A = RNG.standard_normal((20, 24)).astype(np.float32)

    def launch(program):
        out0, out1 = np.zeros((8, 16), np.float32), np.zeros((8, 16), np.float32)
        program.k((16,), (16,), A, out0, out1, np.uint32(20), np.uint32(24), subgroup_size=16)
        return [out0, out1]
    interp, native = on_both(VIEW_KERNEL, launch, kernels=["k"])
    assert_same(interp, native)
    np.testing.assert_array_equal(native[0], A[:16, :8].T)


def test_layouts_that_differ_between_subgroups():
    A = RNG.standard_normal((9, 13)).astype(np.float32)

    def launch(program):
        out = np.zeros((8 * 6, 16), np.float32)
        program.k((16 * 6,), (32,), A, out, np.uint32(9), np.uint32(13), subgroup_size=16)
        return out
    interp, native = on_both(PER_GROUP_KERNEL, launch, kernels=["k"])
    assert_same(interp, native)
    for g in range(6):
        np.testing.assert_array_equal(native[8 * g:8 * g + 8], padded_window(A, "edge", 3 * g - 4, 5 * g - 9, 0))


@pytest.mark.parametrize("options", [[], ["-cl-opt-disable"]], ids=["O2", "O0"])
def test_layouts_through_private_variables_phis_and_selects(options):
    source = LOAD_KERNEL.split("kernel void")[0].replace("{MODE}", "CONSTANT") + """
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
    if options:
        # -O0 keeps layouts (and matrices) in allocas: the layouts' are taken; matrices in
        # private memory are another part of issue 29 (docs/native.md): until they are
        # compiled, that is the only reason the kernel may fall back.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            reason = clcoop.Program(source).build(options=options, engine="auto").k.fallback_reason
        if reason is not None:
            assert "cooperative-matrix values in private memory" in reason, reason
            return
    for flip in (0, 1):
        def launch(program):
            out = np.zeros((8, 16), np.float32)
            program.k((16,), (16,), A, out, np.uint32(16), np.uint32(24), np.int32(flip), subgroup_size=16)
            return out
        interp, native = on_both(source, launch, options, kernels=["k"])
        assert_same(interp, native)
        np.testing.assert_array_equal(native, padded_window(A, "constant", 3, 3 * (2 if flip else 1), 0))


# ---------------------------------------------------------------- examples

@pytest.mark.parametrize("Mx,Nx,K", [(13, 21, 64), (8, 16, 32), pytest.param(3, 40, 96, marks=pytest.mark.slow)])
def test_q4_gemm_decodes_natively_bit_for_bit(Mx, Nx, K):
    X = RNG.standard_normal((Mx, K)).astype(np.float16)
    q = RNG.integers(0, 16, size=(Nx, K), dtype=np.uint8)
    d = (RNG.random((Nx, K // 32)) * 0.1 + 0.01).astype(np.float16)
    blocks = q4_0_blocks(q, d)

    def launch(program):
        Y = np.full((Mx, Nx), np.nan, np.float32)
        program.q4_gemm((-(-Nx // 16) * 16, -(-Mx // 8)), (16, 1), X, blocks, Y, np.uint32(Mx), np.uint32(Nx),
                        np.uint32(K), subgroup_size=16)
        return Y
    interp, native = on_both((EXAMPLES / "q4_gemm.cl").read_text(), launch, kernels=["q4_gemm"])
    assert_same(interp, native)
    W = ((q.reshape(Nx, K // 32, 32).astype(np.float32) - 8) * d[:, :, None]).astype(np.float16).reshape(Nx, K)
    np.testing.assert_allclose(native, X.astype(np.float32) @ W.astype(np.float32).T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(1, 4, 3, 5, 7), pytest.param((2, 5, 11, 20, 24), marks=pytest.mark.slow)],
                         ids=["small", "N2H5W11C20K24"])
def test_conv2d_nhwc_natively_bit_for_bit(shape):
    Nb, H, W, C, K = shape
    In = RNG.standard_normal((Nb, H, W, C)).astype(np.float32)
    F = RNG.standard_normal((K, 3, 3, C)).astype(np.float32)

    def launch(program):
        Out = np.full((Nb, H, W, K), np.nan, np.float32)
        program.conv2d_nhwc((-(-K // 16) * 16, -(-W // 8), Nb * H), (16, 1, 1), In, F, Out, *map(np.int32, shape),
                            subgroup_size=16)
        return Out
    interp, native = on_both((EXAMPLES / "conv2d_nhwc.cl").read_text(), launch, kernels=["conv2d_nhwc"])
    assert_same(interp, native)
    padded = np.pad(In.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    expected = sum(np.einsum("nhwc,kc->nhwk", padded[:, r:r + H, s:s + W, :], F[:, r, s, :].astype(np.float64))
                   for r in range(3) for s in range(3))
    np.testing.assert_allclose(native, expected, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- the other tensor kernels of the suite

def test_lit_codegen_kernel_3d_repeat_mirrored_with_a_permuted_view():
    """test/lit/codegen/coop-tensor.cl: set_stride, set_block_size, a negative slice offset,
    the clamp value, a view with dimensions and permutation (2, 0, 1), a clipped load and
    a store through the view."""
    source = (ROOT / "test/lit/codegen/coop-tensor.cl").read_text()
    src = RNG.standard_normal(4 * 64).astype(np.float32)

    def launch(program):
        dst = np.full(4 * 64, -7.0, np.float32)
        program.k((16,), (16,), src, dst, np.uint32(4), subgroup_size=16)
        return dst
    interp, native = on_both(source, launch, ["-Wno-coop-portability"], kernels=["k"])
    assert_same(interp, native)
    assert (native != -7.0).any()


def test_lit_local_memory_kernel():
    """test/lit/spirv/emit-tensor-local.cl: loads and stores through a __local tile, with
    and without a clipping view."""
    source = (ROOT / "test/lit/spirv/emit-tensor-local.cl").read_text()
    source = source.replace("kernel void k(local float *tile, uint n) {", """kernel void k(local float *tile, uint n,
                                                      global const float *in, global float *res) {
  for (uint i = get_local_id(0); i < 8 * 16; i += 16) tile[i] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);""").replace("  coop_mat_store_tensor(tile, a, t, v);\n}", """  coop_mat_store_tensor(tile, a, t, v);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = get_local_id(0); i < 8 * 16; i += 16) res[i] = tile[i];
}""")
    data = RNG.standard_normal(8 * 16).astype(np.float32)

    def launch(program):
        res = np.zeros(8 * 16, np.float32)
        program.k((16,), (16,), clcoop.LocalMemory(8 * 16 * 4), np.uint32(8), data, res, subgroup_size=16)
        return res
    interp, native = on_both(source, launch, ["-Wno-coop-portability"], kernels=["k"])
    assert_same(interp, native)


def test_lit_function_operands_kernel_decode_reduce_and_per_element():
    """test/lit/spirv-vulkan/function-operands.cl: a decode function with an Undefined clamp
    beside a reduction and a per-element function."""
    source = (ROOT / "test/lit/spirv-vulkan/function-operands.cl").read_text()
    block = np.dtype([("scale", np.float16), ("q", np.uint8, 4)])
    W = np.zeros(16 * 4, block)
    W["scale"] = RNG.random(W.size).astype(np.float16)
    W["q"] = RNG.integers(0, 255, (W.size, 4))
    out0 = RNG.standard_normal(256).astype(np.float32)

    def launch(program):
        decoded, out = np.zeros(256, np.float16), out0.copy()
        program.k((16,), (16,), W.view(np.uint8), decoded, out, subgroup_size=16)
        return [decoded, out]
    interp, native = on_both(source, launch, kernels=["k"])
    assert_same(interp, native)
    expected = (W["q"].reshape(16, 4, 4).astype(np.float16) * W["scale"].reshape(16, 4, 1)).reshape(16, 16)
    np.testing.assert_array_equal(native[0].reshape(16, 16), expected)


def test_decode_of_a_block_read_bytewise():
    """test_spirv_decode_block's kernel: blocks of 6 bytes, block size (1, 2)."""
    from test_spirv_decode_block import BYTE_BLOCKS
    w = RNG.integers(0, 255, 6 * 16 * 16, dtype=np.uint8)

    def launch(program):
        out = np.zeros(256, np.float16)
        program.k((16,), (16,), w, out, subgroup_size=16)
        return out
    interp, native = on_both(BYTE_BLOCKS, launch, kernels=["k"])
    assert_same(interp, native)
    # The 16 x 16 matrix runs row-major over the layout's 16 x 32 span: element (r, c) is
    # at span coordinate (s0, s1) = divmod(16 r + c, 32), in block s0 * 16 + s1 // 2 (16
    # blocks of 2 per row), byte s1 % 2 of it.
    s0, s1 = np.divmod(16 * np.arange(16)[:, None] + np.arange(16)[None, :], 32)
    expected = w.reshape(-1, 6)[s0 * 16 + s1 // 2, s1 % 2]
    np.testing.assert_array_equal(native.reshape(16, 16), expected.astype(np.float16))


def test_context_typed_view_kernel():
    from test_coop_context_type import KERNELS
    src = RNG.standard_normal((16, 8)).astype(np.float32)

    def launch(program):
        out = np.zeros((8, 16), np.float32)
        program.transposed((16,), (16,), src, out, subgroup_size=16)
        return out
    interp, native = on_both(KERNELS, launch, kernels=["transposed"])
    assert_same(interp, native)
    np.testing.assert_array_equal(native, src.T)


# ---------------------------------------------------------------- faults

FAULT_HEADER = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef float acc_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t L2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_{MODE})));
typedef coop_tensor_view_t V2 __attribute__((coop_tensor_view(2, true, 1, 0)));
float dec(const global float *b, const uint bc[2], const uint ib[2]) { return b[ib[1] * 100]; }
kernel void k(global const float *src, global float *dst, uint n) {
  L2 o = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 8, 16);
"""
# (clamp mode, kernel body, n): each faults with n = 9 (the tensor src holds 128 floats).
FAULT_CASES = {
    "out of bounds load": ("CONSTANT", """
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), n, 16);
  coop_mat_store_tensor(dst, (acc_t)coop_mat_load_tensor(src, coop_tensor_layout_slice(t, n - 8, 8, 0, 16)), o);"""),
    "out of bounds store": ("CONSTANT", """
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), n, 16);
  coop_mat_store_tensor(dst, (acc_t)coop_mat_load_tensor(src, o), coop_tensor_layout_slice(t, 1, 8, 0, 16));"""),
    "misaligned load": ("CONSTANT", """
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 7, 16);
  coop_mat_store_tensor(dst, (acc_t)coop_mat_load_tensor((global const float *)((global const char *)src + n - 8), t), o);"""),
    "misaligned store": ("CONSTANT", """
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 7, 16);
  coop_mat_store_tensor((global float *)((global char *)dst + 2 * (n - 8)), (acc_t)coop_mat_load_tensor(src, o), t);"""),
    "store to read-only memory": ("CONSTANT", """
  coop_mat_store_tensor(n == 9 ? (global float *)src : dst, (acc_t)coop_mat_load_tensor(src, o), o);"""),
    "block size 0": ("CONSTANT", """
  L2 t = coop_tensor_layout_set_block_size(coop_tensor_layout_create(), 1, n - 9);
  coop_mat_store_tensor(dst, (acc_t)coop_mat_load_tensor(src, coop_tensor_layout_set_dimension(t, 8, 16)), o);"""),
    "span 0": ("CONSTANT", """
  L2 t = coop_tensor_layout_slice(o, 0, n - 9, 0, 16);
  coop_mat_store_tensor(dst, (acc_t)coop_mat_load_tensor(src, t), o);"""),
    "dimension 0 with a clamp mode": ("REPEAT_MIRRORED", """
  L2 t = coop_tensor_layout_slice(coop_tensor_layout_set_dimension(coop_tensor_layout_create(), n - 9, 16), 0, 8, 0, 16);
  coop_mat_store_tensor(dst, (acc_t)coop_mat_load_tensor(src, t), o);"""),
    "view dimension 0": ("CONSTANT", """
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 16, 8);
  V2 v = coop_tensor_view_set_dimension(coop_tensor_view_create(), 16, n - 9);
  coop_mat_store_tensor(dst, (acc_t)coop_mat_load_tensor(src, t, v), o);"""),
    "layout differs in the sub-group": ("CONSTANT", """
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 8, 16 + (n == 9 && get_sub_group_local_id() == 5));
  coop_mat_store_tensor(dst, (acc_t)coop_mat_load_tensor(src, t), o);"""),
    "view differs in the sub-group": ("CONSTANT", """
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 16, 8);
  V2 v = coop_tensor_view_set_dimension(coop_tensor_view_create(), 16, 8 + (n == 9 && get_sub_group_local_id() == 5));
  coop_mat_store_tensor(dst, (acc_t)coop_mat_load_tensor(src, t, v), o);"""),
    "decode reads out of bounds": ("CONSTANT", """
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_set_block_size(coop_tensor_layout_create(), 1, n - 7), 8, 16);
  coop_mat_store_tensor(dst, (acc_t)coop_mat_load_tensor(src, t, dec), o);"""),
    "undefined clamp in the second sub-group": ("UNDEFINED", """
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 17 - n, 16);
  t = coop_tensor_layout_slice(t, get_sub_group_id() * (n - 8), 8, 0, 16);
  coop_mat_store_tensor(dst, (acc_t)coop_mat_load_tensor(src, t), o);"""),
    # (the interpreter named work-item 0 for any sub-group's element until this test)
    "out of bounds in the second sub-group": ("CONSTANT", """
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 16, 16);
  t = coop_tensor_layout_slice(t, get_sub_group_id() * (n - 8), 8, 0, 16);
  coop_mat_store_tensor(dst, (acc_t)coop_mat_load_tensor(src, t), o);"""),
    "store out of bounds in the second sub-group": ("CONSTANT", """
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 16, 16);
  t = coop_tensor_layout_slice(t, get_sub_group_id() * (n - 8), 8, 0, 16);
  coop_mat_store_tensor(dst, (acc_t)coop_mat_load_tensor(src, o), t);"""),
}


# The default run: five of the cases, with a launch that does not fault and one that does;
# test_fault_parity's test_tensor_loads_and_stores_report_the_same_fault compares the other ten
# by default. --all and CI run all fifteen in both.
QUICK_FAULT_CASES = {"out of bounds load", "misaligned store", "view differs in the sub-group",
                     "decode reads out of bounds", "undefined clamp in the second sub-group"}


@pytest.mark.parametrize("case", quick_or_slow(list(FAULT_CASES), QUICK_FAULT_CASES))
def test_faults_in_the_interpreters_words(case, shared_builds):
    mode, body = FAULT_CASES[case]
    source = FAULT_HEADER.replace("{MODE}", mode) + body + "\n}\n"
    for n, faults in ((8, False), (9, True)):
        def launch(program):
            dst = np.zeros(128, np.float32)
            program.k((32,), (32,), np.arange(128, dtype=np.float32), dst, np.uint32(n), subgroup_size=16)
            return dst
        interp, native = on_both(source, launch, ["-w"], kernels=["k"], builds=shared_builds)
        assert_same(interp, native)
        assert isinstance(native, tuple) == faults, native
    if "second sub-group" in case:
        assert native[1] == (16,)


def test_a_pointer_that_differs_in_the_sub_group_faults_at_the_first_work_item_it_differs_in():
    source = FAULT_HEADER.replace("{MODE}", "CONSTANT") + """
  coop_mat_store_tensor(dst, (acc_t)coop_mat_load_tensor(src + (get_sub_group_local_id() == 3), o), o);
}"""

    def launch(program):
        program.k((32,), (32,), np.zeros(128, np.float32), np.zeros(128, np.float32), np.uint32(8), subgroup_size=16)
    interp, native = on_both(source, launch, ["-w"], kernels=["k"])
    # The words, but for the addresses (the interpreter's buffers are not the host's).
    words = [re.sub(r"\(e\.g\. \d+ and \d+\)", "(e.g. A and B)", fault[0]) for fault in (interp, native)]
    assert words[0] == words[1] and "operand 'pointer' must be uniform" in words[1]
    assert native[1] == interp[1] == (3,)


# ---------------------------------------------------------------- random layouts and views

MODE_NAMES = ["UNDEFINED", "CONSTANT", "CLAMP_TO_EDGE", "REPEAT", "REPEAT_MIRRORED"]


def random_tensor_kernel(rng, store):
    """A kernel loading (or storing) an 8 x 16 tile through a random layout of 1 to 5
    dimensions (dimensions, strides, block sizes, slices, clamp value from the int array
    p), maybe a view (with or without dimensions, permuted, clipped) and, for loads, maybe
    a decode function; returns (source, how many values p holds)."""
    D = int(rng.integers(1, 6))
    mode = MODE_NAMES[int(rng.integers(0, 5))]
    k = iter(range(1000))

    def values(n):
        return ", ".join(f"p[{next(k)}]" for _ in range(n))
    view = ["none", "span", "dims"][int(rng.integers(0, 3))]
    VD = D if view != "dims" else int(rng.integers(1, 6))
    perm = [int(x) for x in rng.permutation(VD)]
    decode = not store and rng.random() < 0.4
    blocks = not store and rng.random() < 0.5
    lines = ["  L t = coop_tensor_layout_create();"]
    if blocks:
        lines.append(f"  t = coop_tensor_layout_set_block_size(t, {values(D)});")
    lines.append(f"  t = coop_tensor_layout_set_dimension(t, {values(D)});")
    if rng.random() < 0.5:
        lines.append(f"  t = coop_tensor_layout_set_stride(t, {values(D)});")
    lines.append(f"  t = coop_tensor_layout_slice(t, {values(2 * D)});")
    lines.append(f"  t = coop_tensor_layout_set_clamp_value(t, (uint)p[{next(k)}]);")
    operands = "t"
    if view != "none":
        lines.append("  V v = coop_tensor_view_create();")
        if view == "dims":
            lines.append(f"  v = coop_tensor_view_set_dimension(v, {values(VD)});")
            if rng.random() < 0.5:
                lines.append(f"  v = coop_tensor_view_set_stride(v, {values(VD)});")
        if rng.random() < 0.6:
            lines.append(f"  v = coop_tensor_view_set_clip(v, {values(4)});")
        operands += ", v"
    header = f"""
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef float acc_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t L __attribute__((coop_tensor_layout({D}, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_{mode})));
typedef coop_tensor_view_t V __attribute__((coop_tensor_view({VD}, {'true' if view == 'dims' else 'false'}, {', '.join(map(str, perm))})));
typedef coop_tensor_layout_t L2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
float dec(const global float *b, const uint bc[{D}], const uint ib[{D}]) {{
  return b[0] + (float)(bc[0] * 1000u + bc[{D - 1}] * 10u + ib[{D - 1}]) + (float)ib[0] * 0.5f;
}}
kernel void k(global float *src, global float *dst, global const int *p) {{
  L2 o = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 8, 16);
"""
    if store:
        body = lines + ["  acc_t m = coop_mat_load_tensor(src, o);", f"  coop_mat_store_tensor(dst, m, {operands});"]
    else:
        body = lines + [f"  acc_t m = coop_mat_load_tensor(src, {operands}{', dec' if decode else ''});",
                        "  coop_mat_store_tensor(dst, m, o);"]
    return header + "\n".join(body) + "\n}\n", next(k), decode


def random_values(rng, count, huge):
    """Small dimensions, strides, blocks, spans (0 now and then) and offsets (negative
    too), and with `huge` a few 32-bit extremes (indices far outside every buffer)."""
    v = rng.integers(-3, 7, count)
    v = np.where(rng.random(count) < 0.75, np.abs(v) + 1, v)
    if huge:
        v = np.where(rng.random(count) < 0.03, rng.integers(-2**31, 2**31 - 1, count), v)
    else:       # (a negative dimension, span or block size is a 32-bit giant too)
        v = np.abs(v)
    return v.astype(np.int32)


# The default run: 2 random kernels of each kind (a native build each); --all runs 40.
@pytest.mark.parametrize("seed", list(range(2)) + [pytest.param(s, marks=pytest.mark.slow) for s in range(2, 40)])
@pytest.mark.parametrize("store", [False, True], ids=["load", "store"])
def test_random_layouts_and_views_bit_for_bit(seed, store):
    rng = np.random.default_rng([29, seed, store])
    source, count, decode = random_tensor_kernel(rng, store)
    interp, native = build(source, "interp", ["-w"]), build(source, "auto", ["-w"])
    assert native.k.engine == "native", native.k.fallback_reason
    src = (np.arange(4096) % 509).astype(np.float32) * 0.25
    for _ in range(3):
        # (A decode function's block pointer gigabytes outside every buffer is an invalid
        # pointer natively, where the interpreter may name a buffer: a pointer parameter's
        # accesses are checked against every region, docs/native.md "Safety".)
        p = random_values(rng, count, huge=not decode)

        def launch(program):
            dst = np.full(4096, -1.0, np.float32)
            program.k((32,), (32,), src, dst, p, subgroup_size=16)
            return dst
        assert_same(outcome(interp, launch), outcome(native, launch))


HELPER_KERNEL = LOAD_KERNEL.split("kernel void")[0].replace("{MODE}", "CLAMP_TO_EDGE") + """
// A layout passed to and returned from a function that is not inlined (per-work-item code
// outside the kernel), and a view made by one.
__attribute__((noinline)) L2 tile_at(L2 t, int row0, int col0) {
  return coop_tensor_layout_slice(t, row0, 8, col0, 16);
}
__attribute__((noinline)) T2 transposed(void) { return coop_tensor_view_create(); }
kernel void k(global const float *src, global float *out, uint M, uint N, int row0, int col0) {
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), M, N);
  acc_t m = coop_mat_load_tensor(src, tile_at(t, row0, col0));
  L2 whole = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 16, 8);
  acc_t n = coop_mat_load_tensor(m, src, whole, transposed());
  L2 o = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 16, 16);
  coop_mat_store_tensor(out, m, coop_tensor_layout_slice(o, 0, 8, 0, 16));
  coop_mat_store_tensor(out, n, coop_tensor_layout_slice(o, 8, 8, 0, 16));
}
"""


def test_layouts_and_views_through_called_functions():
    A = RNG.standard_normal((16, 16)).astype(np.float32)

    def launch(program):
        out = np.zeros((16, 16), np.float32)
        program.k((16,), (16,), A, out, np.uint32(16), np.uint32(16), np.int32(-3), np.int32(5), subgroup_size=16)
        return out
    interp, native = on_both(HELPER_KERNEL, launch, kernels=["k"])
    assert_same(interp, native)
    np.testing.assert_array_equal(native[:8], padded_window(A, "edge", -3, 5, 0))
    # (the 16 x 8 tensor over src's first 128 floats, read transposed)
    np.testing.assert_array_equal(native[8:], A.reshape(-1)[:128].reshape(16, 8).T)


def test_workgroup_scope_tensor_loads_and_stores():
    """test/lit/spirv-vulkan/tensor-addressing.cl: a 64 x 32 workgroup-scope matrix loaded
    and stored through a sliced layout, one rendezvous of the 128 work-items, with rows
    past the tensor (Constant clamp: zeros, not stored)."""
    source = (ROOT / "test/lit/spirv-vulkan/tensor-addressing.cl").read_text()
    rows, cols = 100, 32
    A = RNG.standard_normal((rows, cols)).astype(np.float16)

    def launch(program):
        B = np.full((rows, cols), 7, np.float16)
        program.k((256,), (128,), A, B, np.uint32(rows), np.uint32(cols), subgroup_size=32)
        return B
    interp, native = on_both(source, launch, kernels=["k"])
    assert_same(interp, native)
    np.testing.assert_array_equal(native, A)


@pytest.mark.parametrize("change", [
    ("layout2 layout = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), rows, cols);",
     "layout2 layout = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), rows + (get_local_id(0) == 77), cols);"),
    ("CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT", "CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED"),
    ("coop_mat_load_tensor(A, tile)", "coop_mat_load_tensor(A + (get_group_id(0) == 1 ? 4000 : 0), tile)"),
], ids=["layout differs in the work-group", "undefined clamp", "out of bounds in the second work-group"])
def test_workgroup_scope_faults_in_the_interpreters_words(change):
    source = (ROOT / "test/lit/spirv-vulkan/tensor-addressing.cl").read_text().replace(*change)
    A = RNG.standard_normal((100, 32)).astype(np.float16)

    def launch(program):
        B = np.zeros((100, 32), np.float16)
        program.k((256,), (128,), A, B, np.uint32(100), np.uint32(32), subgroup_size=32)
        return B
    interp, native = on_both(source, launch, kernels=["k"])
    assert isinstance(native, tuple), native
    assert_same(interp, native)


@pytest.mark.parametrize("S", [8, pytest.param(32, marks=pytest.mark.slow)])
def test_q4_gemm_at_other_sub_group_sizes(S):
    Mx, Nx, K = 13, 21, 64
    X = RNG.standard_normal((Mx, K)).astype(np.float16)
    q = RNG.integers(0, 16, size=(Nx, K), dtype=np.uint8)
    d = (RNG.random((Nx, K // 32)) * 0.1 + 0.01).astype(np.float16)
    blocks = q4_0_blocks(q, d)

    def launch(program):
        Y = np.full((Mx, Nx), np.nan, np.float32)
        program.q4_gemm((-(-Nx // 16) * S, -(-Mx // 8)), (S, 1), X, blocks, Y, np.uint32(Mx), np.uint32(Nx),
                        np.uint32(K), subgroup_size=S)
        return Y
    interp, native = on_both((EXAMPLES / "q4_gemm.cl").read_text(), launch, kernels=["q4_gemm"])
    assert_same(interp, native)
    W = ((q.reshape(Nx, K // 32, 32).astype(np.float32) - 8) * d[:, :, None]).astype(np.float16).reshape(Nx, K)
    np.testing.assert_allclose(native, X.astype(np.float32) @ W.astype(np.float32).T, rtol=1e-5, atol=1e-5)
