"""Use conversions by cast, coop_mat_transpose and mixed-signedness mul-add, compiled and
run in the interpreter, checked against NumPy (issue 13 part B)."""
import warnings

import numpy as np
import pytest

import clcoop
from clcoop.errors import CompileError

RNG = np.random.default_rng(1313)

HEADER = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
#define ROW CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
typedef float acc_t __attribute__((coop_mat(SG, M, N, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float a_t __attribute__((coop_mat(SG, M, N, CLK_COOPERATIVE_MATRIX_A)));
typedef float b_t __attribute__((coop_mat(SG, M, N, CLK_COOPERATIVE_MATRIX_B)));
typedef half ah_t __attribute__((coop_mat(SG, M, N, CLK_COOPERATIVE_MATRIX_A)));
typedef int ai_t __attribute__((coop_mat(SG, M, N, CLK_COOPERATIVE_MATRIX_A)));
typedef float tb_t __attribute__((coop_mat(SG, N, M, CLK_COOPERATIVE_MATRIX_B)));
typedef float ta_t __attribute__((coop_mat(SG, N, M, CLK_COOPERATIVE_MATRIX_A)));
typedef float tacc_t __attribute__((coop_mat(SG, N, M, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
"""

KERNELS = HEADER + """
kernel void to_a_and_back(global float *p, global float *out) {
  acc_t c = coop_mat_load(p, ROW, (size_t)N);
  a_t a = (a_t)c;
  b_t b = (b_t)c;
  acc_t back = (acc_t)a;
  acc_t back_b = (acc_t)b;
  coop_mat_store(out, a, ROW, (size_t)N);
  coop_mat_store(out + M * N, back, ROW, (size_t)N);
  coop_mat_store(out + 2 * M * N, b, ROW, (size_t)N);
  coop_mat_store(out + 3 * M * N, back_b, ROW, (size_t)N);
}
kernel void to_half_a(global float *p, global half *out) {
  acc_t c = coop_mat_load(p, ROW, (size_t)N);
  ah_t a = (ah_t)c;
  coop_mat_store(out, a, ROW, (size_t)N);
}
kernel void to_int_a(global float *p, global int *out) {
  acc_t c = coop_mat_load(p, ROW, (size_t)N);
  coop_mat_store(out, (ai_t)c, ROW, (size_t)N);
}
kernel void transposes(global float *p, global float *out) {
  acc_t c = coop_mat_load(p, ROW, (size_t)N);
  tb_t tb = coop_mat_transpose(c);
  ta_t ta = coop_mat_transpose(c);
  coop_mat_store(out, tb, ROW, (size_t)M);
  coop_mat_store(out + M * N, ta, ROW, (size_t)M);
}
"""


def build(source, M, N):
    return clcoop.Program(source).build(options=[f"-DM={M}", f"-DN={N}"])


SHAPES = [(8, 16), (16, 8), (8, 8), (16, 32)]


@pytest.mark.parametrize("S", [8, 16, 32])
@pytest.mark.parametrize("M,N", SHAPES)
def test_use_conversion_keeps_every_element(M, N, S):
    prog = build(KERNELS, M, N)
    x = RNG.standard_normal((M, N)).astype(np.float32)
    out = np.zeros((4, M, N), np.float32)
    prog.to_a_and_back((S,), (S,), x, out, subgroup_size=S)
    for k in range(4):
        np.testing.assert_array_equal(out[k], x)


@pytest.mark.parametrize("S", [8, 16])
def test_use_and_component_conversion_at_once(S):
    M, N = 8, 16
    prog = build(KERNELS, M, N)
    x = (RNG.standard_normal((M, N)) * 100).astype(np.float32)
    half_out = np.zeros((M, N), np.float16)
    prog.to_half_a((S,), (S,), x, half_out, subgroup_size=S)
    np.testing.assert_array_equal(half_out, x.astype(np.float16))
    int_out = np.zeros((M, N), np.int32)
    prog.to_int_a((S,), (S,), x, int_out, subgroup_size=S)
    np.testing.assert_array_equal(int_out, np.trunc(x).astype(np.int32))


@pytest.mark.parametrize("S", [8, 16, 32])
@pytest.mark.parametrize("M,N", SHAPES)
def test_transpose_into_b_and_a(M, N, S):
    prog = build(KERNELS, M, N)
    x = RNG.standard_normal((M, N)).astype(np.float32)
    out = np.zeros((2, N, M), np.float32)
    prog.transposes((S,), (S,), x, out, subgroup_size=S)
    np.testing.assert_array_equal(out[0], x.T)
    np.testing.assert_array_equal(out[1], x.T)


def test_mlp_style_chain_feeds_the_accumulator_back_as_a():
    """C1 = A x B; C2 = (A)C1 x B2: the first accumulator is the second GEMM's A."""
    src = """
    #define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
    #define ROW CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
    typedef float A8 __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
    typedef float B16 __attribute__((coop_mat(SG, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
    typedef float C16 __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
    kernel void k(global float *a, global float *b1, global float *b2, global float *out) {
      A8 x = coop_mat_load(a, ROW, (size_t)16);
      C16 c = coop_mat_init(0.0f);
      c = coop_mat_mulAdd(x, (B16)coop_mat_load(b1, ROW, (size_t)16), c);
      C16 d = coop_mat_init(0.0f);
      d = coop_mat_mulAdd((A8)c, (B16)coop_mat_load(b2, ROW, (size_t)16), d);
      coop_mat_store(out, d, ROW, (size_t)16);
    }"""
    a = RNG.integers(-4, 5, (8, 16)).astype(np.float32)
    b1 = RNG.integers(-4, 5, (16, 16)).astype(np.float32)
    b2 = RNG.integers(-4, 5, (16, 16)).astype(np.float32)
    out = np.zeros((8, 16), np.float32)
    clcoop.Program(src).build().k((16,), (16,), a, b1, b2, out, subgroup_size=16)
    np.testing.assert_array_equal(out, (a @ b1) @ b2)


MIXED = """
#define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
#define ROW CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
typedef TA mA __attribute__((coop_mat(SG, 8, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef TB mB __attribute__((coop_mat(SG, 32, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef int mC __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void k(global TA *a, global TB *b, global int *c) {
  mA x = coop_mat_load(a, ROW, (size_t)32);
  mB y = coop_mat_load(b, ROW, (size_t)16);
  mC z = coop_mat_init(0);
  z = coop_mat_mulAdd(x, y, z OPERANDS);
  coop_mat_store(c, z, ROW, (size_t)16);
}
"""

INT8 = {"char": np.int8, "uchar": np.uint8}


@pytest.mark.parametrize("engine", ["interp", "native"])
@pytest.mark.parametrize("ta,tb", [("uchar", "char"), ("char", "uchar")])
def test_mixed_signedness_mul_add_follows_the_component_types(ta, tb, engine):
    a = RNG.integers(0, 256, (8, 32)).astype(np.uint8).view(INT8[ta])
    b = RNG.integers(0, 256, (32, 16)).astype(np.uint8).view(INT8[tb])
    c = np.zeros((8, 16), np.int32)
    prog = clcoop.Program(MIXED).build(options=[f"-DTA={ta}", f"-DTB={tb}", "-DOPERANDS=",
                                                "-Wno-coop-portability"], engine=engine)
    prog.k((16,), (16,), a, b, c, subgroup_size=16)
    np.testing.assert_array_equal(c, a.astype(np.int64) @ b.astype(np.int64))


def test_mixed_signedness_explicit_operands_are_used_as_given():
    """uchar A x char B, but operands say A signed and B unsigned: exactly that is used."""
    a = RNG.integers(0, 256, (8, 32)).astype(np.uint8)
    b = RNG.integers(-128, 128, (32, 16)).astype(np.int8)
    c = np.zeros((8, 16), np.int32)
    ops = ", CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED" \
          " | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED"
    prog = clcoop.Program(MIXED).build(options=["-DTA=uchar", "-DTB=char", f"-DOPERANDS={ops}"])
    prog.k((16,), (16,), a, b, c, subgroup_size=16)
    expected = a.view(np.int8).astype(np.int64) @ b.view(np.uint8).astype(np.int64)
    np.testing.assert_array_equal(c, expected)


@pytest.mark.parametrize("body,message", [
    ("tb_t t = (tb_t)c;", "rows and columns must match"),
    ("b_t b = (b_t)(a_t)c;", "A <-> B is not allowed"),
    ("tacc_t t = coop_mat_transpose(c);", "cannot transpose into an accumulator"),
    ("tb_t t = coop_mat_transpose((a_t)c);", "the matrix to transpose must be an accumulator"),
    ("b_t t = coop_mat_transpose(c);", "transpose result must swap rows and columns"),
])
def test_conversion_misuses_are_errors(body, message):
    src = HEADER + "kernel void k(global float *p) { acc_t c = coop_mat_load(p, ROW, (size_t)N); " \
        + body + " }"
    with pytest.raises(CompileError) as info:
        build(src, 8, 16)
    assert message in str(info.value)


@pytest.mark.parametrize("kernel", ["to_a_and_back", "transposes"])
def test_native_engine_runs_them_as_the_interpreter(kernel):
    """(Natively since issue 29: test_native_coop2.py has the full comparison.)"""
    from clcoop.native.support import NativeFallbackWarning
    M, N = 8, 16
    x = RNG.standard_normal((M, N)).astype(np.float32)
    outs = []
    for engine in ("interp", "auto"):
        out = np.zeros(4 * M * N, np.float32)
        with warnings.catch_warnings():
            warnings.simplefilter("error", NativeFallbackWarning)
            prog = clcoop.Program(KERNELS).build(options=[f"-DM={M}", f"-DN={N}"], engine=engine)
            getattr(prog, kernel)((16,), (16,), x, out, subgroup_size=16)
        outs.append(out)
    assert getattr(prog, kernel).engine == "native"
    assert outs[1].tobytes() == outs[0].tobytes()
    expected = x.reshape(-1) if kernel == "to_a_and_back" else x.T.reshape(-1)
    np.testing.assert_array_equal(outs[1][:M * N], expected)
