"""__fp8_e4m3 / __fp8_e5m2 (SPV_EXT_float8) end to end: scalar conversions from and to every
type, with and without saturation (in the interpreter and compiled natively), fp8 matrices (load, store, conversions, the mul-add of
fp8 A and B into half and float accumulators), fp8 buffers from Python. The oracle is
ml_dtypes (float8_e4m3fn, float8_e5m2), which the interpreter does not use to round
(clcoop/interp/float8.py computes the rounding from the exact value)."""
import warnings

import ml_dtypes
import numpy as np
import pytest

import clcoop
from clcoop.errors import ArgumentError, CompileError

E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
E5M2 = np.dtype(ml_dtypes.float8_e5m2)
FORMATS = {"__fp8_e4m3": (E4M3, 448.0), "__fp8_e5m2": (E5M2, 57344.0)}
RNG = np.random.default_rng(8)

SCALAR_KERNELS = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" + "\n".join(
    f"""
kernel void {t[6:]}_from_float(global float *x, global {t} *out, global {t} *sat) {{
  size_t i = get_global_id(0); out[i] = ({t})x[i]; sat[i] = convert_{t}_sat(x[i]); }}
kernel void {t[6:]}_from_double(global double *x, global {t} *out, global {t} *sat) {{
  size_t i = get_global_id(0); out[i] = convert_{t}(x[i]); sat[i] = convert_{t}_sat_rte(x[i]); }}
kernel void {t[6:]}_from_half(global half *x, global {t} *out) {{ size_t i = get_global_id(0); out[i] = ({t})x[i]; }}
kernel void {t[6:]}_from_int(global int *x, global {t} *out, global {t} *sat) {{
  size_t i = get_global_id(0); out[i] = ({t})x[i]; sat[i] = convert_{t}_sat(x[i]); }}
kernel void {t[6:]}_from_uchar(global uchar *x, global {t} *out) {{ size_t i = get_global_id(0); out[i] = ({t})x[i]; }}
kernel void {t[6:]}_to_all(global {t} *x, global float *f, global double *d, global half *h,
                        global int *n, global uchar *u) {{
  size_t i = get_global_id(0); {t} v = x[i];
  f[i] = (float)v; d[i] = convert_double(v); h[i] = (half)v; n[i] = (int)v; u[i] = convert_uchar(v); }}
""" for t in FORMATS) + """
kernel void e4m3_e5m2(global __fp8_e4m3 *x, global __fp8_e5m2 *y, global __fp8_e5m2 *xy,
                      global __fp8_e4m3 *yx, global __fp8_e4m3 *yx_sat) {
  size_t i = get_global_id(0);
  xy[i] = (__fp8_e5m2)x[i]; yx[i] = (__fp8_e4m3)y[i]; yx_sat[i] = convert___fp8_e4m3_sat(y[i]); }
"""


# bf16 values run in the interpreter only (the native engine does not compile bfloat).
BF16_KERNELS = "\n".join(f"""
kernel void {t[6:]}_from_bf16(global __bf16 *x, global {t} *out) {{ size_t i = get_global_id(0); out[i] = ({t})x[i]; }}
kernel void {t[6:]}_to_bf16(global {t} *x, global __bf16 *out) {{ size_t i = get_global_id(0); out[i] = (__bf16)x[i]; }}
""" for t in FORMATS)


@pytest.fixture(scope="module", params=["interp", pytest.param("native", marks=pytest.mark.slow)])
def scalars(request):
    """The scalar kernels in each engine: the native engine compiles the conversions
    (clcoop/native/float8_ir.py), with no fallback to the interpreter (18 s of native
    compilation: slow; test_native_scalar_conversions_at_every_edge is the quick check)."""
    return clcoop.Program(SCALAR_KERNELS).build(engine=request.param)


def bits(x):
    return np.asarray(x).view(np.uint8)


def saturated(x, dtype, largest):
    """The saturating conversion through ml_dtypes: clamp first (a value at most the largest
    finite rounds to at most it), NaN kept."""
    x = np.asarray(x, np.float64)
    return np.where(np.isnan(x), x, np.clip(x, -largest, largest)).astype(np.float32).astype(dtype)


def edge_values(largest):
    """Every rounding edge of both formats, as float32: the ties around the largest finite
    value and the first value past it, subnormal ties, zeros, infinities, NaNs."""
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, 1.0625, 1.0625 + 2 ** -12,
             1.125, 1.1875, 448, 456, 464, 464.0001, 480, 500, 57344, 59392, 61439, 61440, 1e9,
             2 ** -6, 2 ** -9, 2 ** -10, 2 ** -10 * 1.5, 3 * 2 ** -10, 2 ** -14, 2 ** -16, 2 ** -17,
             2 ** -17 * 1.0001, largest, np.nextafter(np.float32(largest), np.float32(np.inf))]
    edges = np.array(edges, np.float32)
    return np.concatenate([edges, -edges])


@pytest.mark.parametrize("name", FORMATS)
def test_float_to_fp8_every_half_value_and_every_edge(scalars, name):
    dtype, largest = FORMATS[name]
    halves = np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32)
    x = np.concatenate([halves, edge_values(largest),   # halves include inf and NaN
                        RNG.standard_normal(4000).astype(np.float32) * np.float32(2.0) ** RNG.integers(-20, 20, 4000)])
    out, sat = np.zeros(x.size, dtype), np.zeros(x.size, dtype)
    getattr(scalars, f"{name[6:]}_from_float")((x.size,), (1,), x.astype(np.float32), out, sat)
    np.testing.assert_array_equal(bits(out), bits(x.astype(dtype)))
    np.testing.assert_array_equal(bits(sat), bits(saturated(x, dtype, largest)))
    finite = sat.astype(np.float64)
    assert np.abs(finite[~np.isnan(x)]).max() == largest       # saturation reached, never past


def test_out_of_range_and_infinity_without_saturation(scalars):
    x = np.array([470, -470, np.inf, -np.inf, 61440, -1e30], np.float32)
    e4, e4s = np.zeros(6, E4M3), np.zeros(6, E4M3)
    scalars.e4m3_from_float((6,), (1,), x, e4, e4s)
    assert bits(e4).tolist() == [0x7F, 0xFF, 0x7F, 0xFF, 0x7F, 0xFF]       # NaN, with the sign
    assert bits(e4s).tolist() == [0x7E, 0xFE] * 3                          # +-448
    e5, e5s = np.zeros(6, E5M2), np.zeros(6, E5M2)
    scalars.e5m2_from_float((6,), (1,), x, e5, e5s)
    assert bits(e5).tolist() == [0x5F, 0xDF, 0x7C, 0xFC, 0x7C, 0xFC]       # 470 fits; infinities
    assert bits(e5s).tolist() == [0x5F, 0xDF, 0x7B, 0xFB, 0x7B, 0xFB]      # +-57344


NATIVE_SCALAR_KERNEL = """
kernel void k(global float *x, global __fp8_e4m3 *a, global __fp8_e4m3 *a_sat, global __fp8_e5m2 *b,
              global __fp8_e5m2 *b_sat, global float *back, global int *ints, global __fp8_e5m2 *ab) {
  size_t i = get_global_id(0);
  a[i] = (__fp8_e4m3)x[i]; a_sat[i] = convert___fp8_e4m3_sat(x[i]);
  b[i] = (__fp8_e5m2)x[i]; b_sat[i] = convert___fp8_e5m2_sat(x[i]);
  back[i] = (float)a[i]; ints[i] = (int)b[i]; ab[i] = (__fp8_e5m2)a[i];
}
"""


def test_native_scalar_conversions_at_every_edge():
    """One kernel compiled natively (no fallback): every edge of both formats, both
    saturation modes, back to float and int, E4M3 -> E5M2."""
    x = np.concatenate([edge_values(448.0), edge_values(57344.0),
                        (RNG.standard_normal(200) * 2.0 ** RNG.integers(-18, 18, 200)).astype(np.float32)])
    n = x.size
    a, a_sat, b, b_sat = (np.zeros(n, t) for t in (E4M3, E4M3, E5M2, E5M2))
    back, ints, ab = np.zeros(n, np.float32), np.zeros(n, np.int32), np.zeros(n, E5M2)
    clcoop.Program(NATIVE_SCALAR_KERNEL).build(engine="native").k((n,), (1,), x, a, a_sat, b, b_sat, back, ints, ab)
    np.testing.assert_array_equal(bits(a), bits(x.astype(E4M3)))
    np.testing.assert_array_equal(bits(a_sat), bits(saturated(x, E4M3, 448.0)))
    np.testing.assert_array_equal(bits(b), bits(x.astype(E5M2)))
    np.testing.assert_array_equal(bits(b_sat), bits(saturated(x, E5M2, 57344.0)))
    np.testing.assert_array_equal(back, a.astype(np.float32))
    finite = np.isfinite(b.astype(np.float64))
    np.testing.assert_array_equal(ints[finite], np.trunc(b.astype(np.float64)[finite]).clip(-2 ** 31, 2 ** 31 - 1))
    assert (ints[np.isnan(b.astype(np.float64))] == 0).all()
    np.testing.assert_array_equal(bits(ab), bits(a.astype(np.float32).astype(E5M2)))


@pytest.mark.parametrize("name", FORMATS)
def test_double_to_fp8_rounds_once(scalars, name):
    dtype, largest = FORMATS[name]
    # 1 + 2**-4 + 2**-40 lies just above a tie of E4M3 (1 and 1.125), 1 + 2**-3 + 2**-40
    # just above one of E5M2 (1 and 1.25): one rounding goes up; through float32 (as
    # ml_dtypes converts doubles) each becomes the tie and rounds down to even, 1.
    above_tie = [1 + 2 ** -4 + 2 ** -40, 1 + 2 ** -3 + 2 ** -40]
    x = np.concatenate([above_tie, RNG.standard_normal(500) * 2.0 ** RNG.integers(-20, 20, 500)])
    x[2:] = x[2:].astype(np.float32)          # exact in float32: ml_dtypes is exact on those
    out, sat = np.zeros(x.size, dtype), np.zeros(x.size, dtype)
    getattr(scalars, f"{name[6:]}_from_double")((x.size,), (1,), x, out, sat)
    expected_above = {"__fp8_e4m3": [0x39, 0x39], "__fp8_e5m2": [0x3C, 0x3D]}[name]
    assert bits(out)[:2].tolist() == expected_above
    np.testing.assert_array_equal(bits(out)[2:], bits(x[2:].astype(np.float32).astype(dtype)))
    np.testing.assert_array_equal(bits(sat)[2:], bits(saturated(x[2:], dtype, largest)))


@pytest.mark.parametrize("name", FORMATS)
def test_half_bf16_and_integers_to_fp8(scalars, name):
    dtype, largest = FORMATS[name]
    h = np.arange(65536, dtype=np.uint16).view(np.float16)
    out = np.zeros(h.size, dtype)
    getattr(scalars, f"{name[6:]}_from_half")((h.size,), (64,), h, out)
    np.testing.assert_array_equal(bits(out), bits(h.astype(np.float32).astype(dtype)))
    i = np.concatenate([np.arange(-600, 600), [2 ** 31 - 1, -2 ** 31, 57344, 61439, 61440, 65536]]).astype(np.int32)
    out, sat = np.zeros(i.size, dtype), np.zeros(i.size, dtype)
    getattr(scalars, f"{name[6:]}_from_int")((i.size,), (1,), i, out, sat)
    np.testing.assert_array_equal(bits(out), bits(i.astype(np.float32).astype(dtype)))
    np.testing.assert_array_equal(bits(sat), bits(saturated(i, dtype, largest)))
    u = np.arange(256, dtype=np.uint8)                  # unsigned: 200 is 200, not -56
    out = np.zeros(256, dtype)
    getattr(scalars, f"{name[6:]}_from_uchar")((256,), (1,), u, out)
    np.testing.assert_array_equal(bits(out), bits(u.astype(np.float32).astype(dtype)))


@pytest.mark.parametrize("name", FORMATS)
def test_fp8_to_every_type_is_exact(scalars, name):
    dtype, _ = FORMATS[name]
    x = np.arange(256, dtype=np.uint8).view(dtype)
    exact = x.astype(np.float64)
    f, d, h = np.zeros(256, np.float32), np.zeros(256, np.float64), np.zeros(256, np.float16)
    n, u = np.zeros(256, np.int32), np.zeros(256, np.uint8)
    getattr(scalars, f"{name[6:]}_to_all")((256,), (1,), x, f, d, h, n, u)
    np.testing.assert_array_equal(d, exact)
    np.testing.assert_array_equal(f, exact.astype(np.float32))
    np.testing.assert_array_equal(h, exact.astype(np.float16))
    finite = np.isfinite(exact)
    np.testing.assert_array_equal(n[finite], np.trunc(exact[finite]).astype(np.int64).clip(-2 ** 31, 2 ** 31 - 1))
    in_uchar = finite & (exact > -1) & (exact < 256)
    np.testing.assert_array_equal(u[in_uchar], np.trunc(exact[in_uchar]).astype(np.uint8))


@pytest.mark.parametrize("name", FORMATS)
def test_bf16_to_and_from_fp8(name):
    dtype, _ = FORMATS[name]
    program = clcoop.Program(BF16_KERNELS).build()
    b = np.arange(65536, dtype=np.uint16).view(ml_dtypes.bfloat16)
    out = np.zeros(b.size, dtype)
    getattr(program, f"{name[6:]}_from_bf16")((b.size,), (64,), b, out)
    np.testing.assert_array_equal(bits(out), bits(b.astype(np.float32).astype(dtype)))
    x = np.arange(256, dtype=np.uint8).view(dtype)
    back = np.zeros(256, ml_dtypes.bfloat16)
    getattr(program, f"{name[6:]}_to_bf16")((256,), (1,), x, back)
    np.testing.assert_array_equal(back.astype(np.float64), x.astype(np.float64))


def test_e4m3_and_e5m2_convert_both_ways(scalars):
    x = np.arange(256, dtype=np.uint8).view(E4M3)
    y = np.arange(256, dtype=np.uint8).view(E5M2)
    xy, yx, yx_sat = np.zeros(256, E5M2), np.zeros(256, E4M3), np.zeros(256, E4M3)
    scalars.e4m3_e5m2((256,), (1,), x, y, xy, yx, yx_sat)
    np.testing.assert_array_equal(bits(xy), bits(x.astype(np.float32).astype(E5M2)))
    np.testing.assert_array_equal(bits(yx), bits(y.astype(np.float32).astype(E4M3)))
    np.testing.assert_array_equal(bits(yx_sat), bits(saturated(y.astype(np.float32), E4M3, 448.0)))


# ---------------------------------------------------------------- matrices

def run_gemm(engine="interp"):
    E4, E5 = E4M3, E5M2
    M, N, K = 16, 32, 64
    A = (RNG.integers(-12, 13, (M, K)) / 4).astype(E4)
    B = (RNG.integers(-12, 13, (K, N)) / 2).astype(E5)
    A[0, 0], B[0, 0] = 448, 16              # C[0, 0] past E4M3's range: saturates
    C, Cq = np.zeros((M, N), np.float32), np.zeros((M, N), E4)
    with open("examples/gemm_fp8.cl") as f:
        program = clcoop.Program(f.read()).build(engine=engine)
    program.gemm_fp8((N // 16 * 16, M // 8), (16, 1), A, B, np.float32(0.5), C, Cq,
                     np.int32(M), np.int32(N), np.int32(K))
    return A, B, C, Cq


def test_gemm_example_is_exact_and_saturates():
    A, B, C, Cq = run_gemm()
    reference = A.astype(np.float64) @ B.astype(np.float64) + 0.5      # exact: small sums
    np.testing.assert_array_equal(C, reference.astype(np.float32))
    np.testing.assert_array_equal(bits(Cq), bits(saturated(reference, E4M3, 448.0)))
    assert abs(reference[0, 0]) > 448 and abs(Cq.astype(np.float32)[0, 0]) == 448


MATRIX_KERNEL = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef A_T mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef B_T mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 32, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef C_T mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef A_T mat_q __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void mm(global A_T *a, global B_T *b, global C_T *c, global C_T *out, global A_T *q, global C_T *back) {
  mat_a ma = coop_mat_load(a, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 32);
  mat_b mb = coop_mat_load(b, CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR, 32);
  mat_c mc = coop_mat_load(c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  mat_c r = coop_mat_mulAdd(ma, mb, mc);
  coop_mat_store(out, r, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  mat_q mq = (mat_q)mc;                                   /* C -> fp8, one rounding each */
  coop_mat_store(q, mq, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  coop_mat_store(back, (mat_c)mq, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
}
"""


@pytest.mark.parametrize("a_name,b_name", [("__fp8_e4m3", "__fp8_e4m3"), ("__fp8_e5m2", "__fp8_e5m2"),
                                           ("__fp8_e5m2", "__fp8_e4m3")])
@pytest.mark.parametrize("c_name", ["half", "float"])
def test_mul_add_products_exact_sum_in_accumulator_type(a_name, b_name, c_name):
    a_dtype, b_dtype = FORMATS[a_name][0], FORMATS[b_name][0]
    c_dtype = np.dtype(np.float16 if c_name == "half" else np.float32)
    src = MATRIX_KERNEL.replace("A_T", a_name).replace("B_T", b_name).replace("C_T", c_name)
    program = clcoop.Program(src).build()
    a = (RNG.integers(-16, 17, (8, 32)) / 8).astype(a_dtype)
    b = (RNG.integers(-16, 17, (32, 16)) / 8).astype(b_dtype)       # column-major in memory
    c = (RNG.standard_normal((8, 16)) * 30).astype(c_dtype)
    out, back = np.zeros((8, 16), c_dtype), np.zeros((8, 16), c_dtype)
    q = np.zeros((8, 16), a_dtype)
    program.mm((16,), (16,), a, np.ascontiguousarray(b.T), c, out, q, back)
    exact = a.astype(np.float64) @ b.astype(np.float64) + c.astype(np.float64)
    np.testing.assert_array_equal(out, exact.astype(np.float32).astype(c_dtype))
    np.testing.assert_array_equal(bits(q), bits(c.astype(np.float32).astype(a_dtype)))
    np.testing.assert_array_equal(back, q.astype(np.float32).astype(c_dtype))


def test_products_below_float16_are_exact_then_one_rounding_to_half():
    """Tiny E5M2 products (2**-32) vanish in half but not in the float32 sum: the result is
    the exact sum rounded once to half."""
    src = MATRIX_KERNEL.replace("A_T", "__fp8_e5m2").replace("B_T", "__fp8_e5m2").replace("C_T", "half")
    program = clcoop.Program(src).build()
    a = np.full((8, 32), 2.0 ** -16, E5M2)
    b = np.full((32, 16), 2.0 ** -16, E5M2)
    c = np.full((8, 16), 2.0 ** -24, np.float16)             # half's smallest subnormal
    out, back, q = np.zeros((8, 16), np.float16), np.zeros((8, 16), np.float16), np.zeros((8, 16), E5M2)
    program.mm((16,), (16,), a, np.ascontiguousarray(b.T), c, out, q, back)
    exact = 32 * 2.0 ** -32 + 2.0 ** -24
    assert (out == np.float16(exact)).all()


# ---------------------------------------------------------------- diagnostics, API, engines

@pytest.mark.parametrize("body,message", [
    ("__fp8_e4m3 x = p[0]; p[1] = x + x;", "invalid operands"),
    ("__fp8_e4m3 x = 1.0f;", "incompatible type"),
    ("float f = convert_float_sat(p[0]);", "'_sat' is not allowed in a conversion from an fp8 type"),
    ("p[0] = convert___fp8_e4m3_rtz(1.0f);", "rounds to nearest even only"),
    ("p[0] = (__fp8_e4m3)(p[0] == p[1]);", "invalid operands"),
    ("bool b = (bool)p[0];", "an fp8 value converts to and from integer and floating-point scalars"),
])
def test_fp8_misuse_is_a_located_error(body, message):
    src = f"kernel void k(global __fp8_e4m3 *p) {{ {body} }}"
    with pytest.raises(CompileError) as info:
        clcoop.Program(src).build()
    assert message in str(info.value)


def test_fp8_matrix_arithmetic_and_fp8_accumulator_are_errors():
    typedefs = MATRIX_KERNEL.split("kernel void")[0].replace("A_T", "__fp8_e4m3").replace("B_T", "__fp8_e4m3")
    with pytest.raises(CompileError, match="no arithmetic on fp8 matrices"):
        clcoop.Program(typedefs.replace("C_T", "float") + """kernel void k(global __fp8_e4m3 *p) {
          mat_a x = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 32);
          mat_a y = x + x; }""").build()
    with pytest.raises(CompileError, match="the accumulator of an fp8 multiply-add is half or float"):
        clcoop.Program(typedefs.replace("C_T", "__fp8_e4m3") + """kernel void k(global __fp8_e4m3 *p) {
          mat_a x = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 32);
          mat_b y = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
          mat_c z = coop_mat_init(0.0f);
          z = coop_mat_mulAdd(x, y, z); }""").build()


def test_buffers_are_float8_arrays_or_uint8_bits():
    scalars = clcoop.Program(SCALAR_KERNELS).build()
    x = np.array([1.5, 300.0], np.float32)
    raw, sat = np.zeros(2, np.uint8), np.zeros(2, E4M3)
    scalars.e4m3_from_float((2,), (1,), x, raw, sat)
    assert raw.tolist() == [0x3C, 0x79]      # 300 rounds to 288
    with pytest.raises(ArgumentError, match="float8_e4m3fn"):
        scalars.e4m3_from_float((2,), (1,), x, np.zeros(2, E5M2), sat)


NATIVE_KERNEL = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef A_T mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef B_T mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 32, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef C_T mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
/* C = A * B + C over K in steps of 32; B row- or column-major. */
kernel void gemm(global A_T *a, global B_T *b, global C_T *c, int K, int b_columns) {
  size_t col = get_group_id(0) * 16, row = get_group_id(1) * 8, N = get_num_groups(0) * 16;
  mat_c acc = coop_mat_load(c + row * N + col, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, N);
  for (int k = 0; k < K; k += 32) {
    mat_a ma = coop_mat_load(a + row * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
    mat_b mb = b_columns ? coop_mat_load(b + col * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR, (size_t)K)
                         : coop_mat_load(b + (size_t)k * N + col, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, N);
    acc = coop_mat_mulAdd(ma, mb, acc);
  }
  coop_mat_store(c + row * N + col, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, N);
}
"""


def fma_chain(a, b, c):
    """The interpreter's documented order for one mul-add (coopmat._float_mul_add, BLAS on
    x86-64): each element one float32 multiply-add chain over k from +0, then + C, rounded
    to C's type (a tile's rows and columns are independent: whole matrices at once).
    fp8 products are exact; the float64 sums are exact for these magnitudes."""
    A, B = a.astype(np.float64), b.astype(np.float64)
    acc = np.zeros(c.shape, np.float32)
    for k in range(A.shape[1]):
        acc = (acc.astype(np.float64) + np.outer(A[:, k], B[k, :])).astype(np.float32)
    return (acc + c.astype(np.float32)).astype(c.dtype)


def _gemm_cases():
    """Every engine, format pair, accumulator and B layout; the native cases compile for
    about 2 s each, so two run by default and the rest are slow."""
    quick = {("native", "__fp8_e4m3", "__fp8_e5m2", "float", 0), ("native", "__fp8_e5m2", "__fp8_e5m2", "half", 1)}
    for engine in ("interp", "native"):
        for a_name, b_name in (("__fp8_e4m3", "__fp8_e5m2"), ("__fp8_e5m2", "__fp8_e5m2")):
            for c_name in ("half", "float"):
                for b_columns in (0, 1):
                    case = (engine, a_name, b_name, c_name, b_columns)
                    slow = engine == "native" and case not in quick
                    yield pytest.param(*case, marks=pytest.mark.slow if slow else ())


@pytest.mark.parametrize("engine,a_name,b_name,c_name,b_columns", list(_gemm_cases()))
def test_fp8_gemm_in_both_engines_against_the_fma_chain(engine, a_name, b_name, c_name, b_columns):
    """The native engine compiles fp8 loads, stores and mul-adds (no fallback: engine="native"
    would refuse); the per-row K loop goes through the sub-group fast path."""
    a_dtype, b_dtype = FORMATS[a_name][0], FORMATS[b_name][0]
    c_dtype = np.dtype(np.float16 if c_name == "half" else np.float32)
    M, N, K = 16, 32, 64
    a = (RNG.standard_normal((M, K)) * 3).astype(a_dtype)
    b = (RNG.standard_normal((K, N)) * 3).astype(b_dtype)
    a[0, :3] = np.array([np.nan, 2.0 ** -9, -0.0]).astype(a_dtype)      # NaN, a subnormal, -0
    c = (RNG.standard_normal((M, N)) * 10).astype(c_dtype)
    expected = c.copy()
    for k in range(0, K, 32):          # one mul-add per step: its sum rounded to C's type
        expected = fma_chain(a[:, k:k + 32], b[k:k + 32], expected)
    src = NATIVE_KERNEL.replace("A_T", a_name).replace("B_T", b_name).replace("C_T", c_name)
    out = c.copy()
    b_memory = np.ascontiguousarray(b.T) if b_columns else b
    clcoop.Program(src).build(engine=engine).gemm((N // 16 * 16, M // 8), (16, 1), a, b_memory, out,
                                                  np.int32(K), np.int32(b_columns))
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("a_name,c_name", [("__fp8_e4m3", "float"), ("__fp8_e5m2", "half"), ("__fp8_e4m3", "half")])
def test_native_engine_runs_fp8_matrix_conversions_bit_for_bit(a_name, c_name):
    """(mat_q)mc and (mat_c)mq natively (issue 29; they fell back with "the fp8 (SPV_EXT_float8)
    cooperative-matrix operation FConvert"): each element as the scalar conversion, no
    saturation (448.5 -> NaN in E4M3, infinity in E5M2), NaNs, infinities, tiny values and -0
    included; bit for bit the interpreter's and ml_dtypes'."""
    a_dtype = FORMATS[a_name][0]
    c_dtype = np.dtype(np.float16 if c_name == "half" else np.float32)
    src = MATRIX_KERNEL.replace("A_T", a_name).replace("B_T", a_name).replace("C_T", c_name)
    results = []
    for engine in ("interp", "native"):
        rng = np.random.default_rng(399)
        a = (rng.integers(-16, 17, (8, 32)) / 8).astype(a_dtype)
        b = (rng.integers(-16, 17, (32, 16)) / 8).astype(a_dtype)
        c = (rng.standard_normal((8, 16)) * 200).astype(c_dtype)
        c.reshape(-1)[:8] = [np.nan, np.inf, -np.inf, 1e-7, -0.0, 448.5, 60000, 2.0 ** -10]
        out, back, q = np.zeros((8, 16), c_dtype), np.zeros((8, 16), c_dtype), np.zeros((8, 16), a_dtype)
        clcoop.Program(src).build(engine=engine).mm((16,), (16,), a, np.ascontiguousarray(b.T), c, out, q, back)
        results.append((out, q, back))
    for got, want in zip(results[1], results[0]):
        assert got.tobytes() == want.tobytes()
    np.testing.assert_array_equal(bits(results[1][1]), bits(c.astype(np.float32).astype(a_dtype)))


def test_native_engine_runs_the_fp8_gemm_example_bit_for_bit():
    """examples/gemm_fp8.cl saturates element by element through q[i] (element access of an
    fp8 matrix): natively, the interpreter's bits."""
    global RNG
    saved, outputs = RNG, []
    try:
        for engine in ("interp", "native"):
            RNG = np.random.default_rng(5)          # (run_gemm draws its inputs from RNG)
            outputs.append(run_gemm(engine))
    finally:
        RNG = saved
    for got, want in zip(outputs[1], outputs[0]):
        assert got.tobytes() == want.tobytes()


def test_scalar_fp8_arguments_round_once_or_keep_an_ml_dtypes_value():
    program = clcoop.Program("kernel void k(__fp8_e5m2 x, global __fp8_e5m2 *out) { out[0] = x; }").build()
    out = np.zeros(1, E5M2)
    for value, expected in ((1.125, 0x3C), (1.1251, 0x3D), (np.array(-3.0, E5M2)[()], 0xC2),
                            (np.array(448, E4M3)[()], 0x5F), (1e6, 0x7C)):
        program.k((1,), (1,), value, out)
        assert bits(out)[0] == expected, value
    with pytest.raises(ArgumentError, match="needs a number"):
        program.k((1,), (1,), "1.0", out)


TRANSLATOR_IR = """
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"
define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr addrspace(1) %back) {
  %v = load <8 x half>, ptr addrspace(1) %in
  %q = call spir_func <8 x i8> @_Z36__builtin_spirv_ConvertFP16ToE4M3EXTDv8_Dh(<8 x half> %v)
  store <8 x i8> %q, ptr addrspace(1) %out
  %h = call spir_func <8 x half> @_Z36__builtin_spirv_ConvertE4M3ToFP16EXTDv8_c(<8 x i8> %q)
  store <8 x half> %h, ptr addrspace(1) %back
  ret void
}
declare spir_func <8 x i8> @_Z36__builtin_spirv_ConvertFP16ToE4M3EXTDv8_Dh(<8 x half>)
declare spir_func <8 x half> @_Z36__builtin_spirv_ConvertE4M3ToFP16EXTDv8_c(<8 x i8>)
"""


def test_the_translators_vector_conversions_run():
    """IR in the SPIRV-LLVM-Translator's form (its SPV_EXT_float8 tests): vector conversions
    through the same names, element by element."""
    x = np.array([1.0, 1.0625, 448, 470, -np.inf, 2 ** -10, -0.0, 3.3], np.float16)
    out, back = np.zeros(8, np.uint8), np.zeros(8, np.float16)
    clcoop.Program.from_ir(TRANSLATOR_IR).k((1,), (1,), x, out, back)
    np.testing.assert_array_equal(out, bits(x.astype(np.float32).astype(E4M3)))
    np.testing.assert_array_equal(back, out.view(E4M3).astype(np.float16))


@pytest.mark.parametrize("saturating", [False, True])
def test_the_translators_vector_conversions_run_natively_bit_for_bit(saturating):
    """The same vector forms compiled natively (issue 29: they fell back with "the vector fp8
    conversion ... (the interpreter runs it)"), element by element, NaN and overflow too."""
    ir = TRANSLATOR_IR.replace("_Z36__builtin_spirv_ConvertFP16ToE4M3EXTDv8_Dh",
                               "_Z43__builtin_spirv_ClampConvertFP16ToE4M3INTELDv8_Dh") if saturating else TRANSLATOR_IR
    x = np.array([1.0, 1.0625, 448, 470, -np.inf, 2 ** -10, -0.0, np.nan], np.float16)
    results = []
    for engine in ("interp", "native"):
        out, back = np.zeros(8, np.uint8), np.zeros(8, np.float16)
        clcoop.Program.from_ir(ir, engine=engine).k((1,), (1,), x, out, back)
        results.append((out, back))
    assert [r.tobytes() for r in results[0]] == [r.tobytes() for r in results[1]]
    assert results[1][0][3] == (0x7E if saturating else 0x7F)        # 470: the largest finite, or NaN


MATRIX_CONVERSION_IR = """
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"
define spir_kernel void @k(ptr addrspace(1) %out) {
  %q = call spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 8, 2) @_Z36__builtin_spirv_ConvertFP16ToE4M3EXTPU3AS144__spirv_CooperativeMatrixKHR__half_3_8_8_2(target("spirv.CooperativeMatrixKHR", half, 3, 8, 8, 2) zeroinitializer)
  ret void
}
declare spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 8, 2) @_Z36__builtin_spirv_ConvertFP16ToE4M3EXTPU3AS144__spirv_CooperativeMatrixKHR__half_3_8_8_2(target("spirv.CooperativeMatrixKHR", half, 3, 8, 8, 2))
"""


def test_a_conversion_call_on_a_matrix_is_refused():
    """The translator's matrix form (its conversions_matrix.ll: an i8 matrix from a conversion
    call) does not say which i8 matrices hold fp8: refused, naming the call."""
    with pytest.raises(clcoop.ClcoopError, match="__builtin_spirv_ConvertFP16ToE4M3EXT"):
        clcoop.Program.from_ir(MATRIX_CONVERSION_IR).k((8,), (8,), np.zeros(64, np.uint8))


ELEMENT_KERNEL = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef __fp8_e5m2 mat_q __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void k(global __fp8_e5m2 *q, global float *out) {
  mat_q m = coop_mat_load(q, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  uint n = coop_mat_length(m);
  size_t l = get_sub_group_local_id();
  for (uint i = 0; i < n; i++) out[l * n + i] = (float)m[i];
}
"""


@pytest.mark.parametrize("options", [[], ["-O2"]])
def test_element_access_reads_the_fp8_components(options):
    """At -O0 the matrix lives in a private variable (its bytes strided per work-item)."""
    q = (np.arange(128) / 4 - 8).astype(E5M2).reshape(8, 16)
    out = np.zeros(128, np.float32)
    clcoop.Program(ELEMENT_KERNEL).build(options=options).k((16,), (16,), q, out)
    assert sorted(out.tolist()) == sorted(q.astype(np.float32).reshape(-1).tolist())


@pytest.mark.parametrize("name", FORMATS)
def test_constant_conversions_fold_as_the_engines_convert(name):
    """A program-scope initializer folds the conversion (frontend/constfold.py through
    clcoop/float8.py's pure-Python rounding); an fp8 constant is its bit pattern."""
    dtype, largest = FORMATS[name]
    values = [v for v in edge_values(largest).astype(np.float64).tolist() if not np.isnan(v)]
    values += (RNG.standard_normal(40) * 2.0 ** RNG.integers(-18, 18, 40)).astype(np.float32).tolist()
    literal = [repr(v) if np.isfinite(v) else ("-" if v < 0 else "") + "INFINITY" for v in values]
    src = (f"constant {name} plain[] = {{{', '.join(f'({name}){x}' for x in literal)}}};\n"
           f"constant {name} sat[] = {{{', '.join(f'convert_{name}_sat({x})' for x in literal)}}};\n"
           f"constant int back[] = {{{', '.join(f'(int)({name}){x}' for x in literal)}}};\n"
           f"kernel void k(global {name} *p, global {name} *s, global int *b) {{ size_t i = get_global_id(0);"
           f" p[i] = plain[i]; s[i] = sat[i]; b[i] = back[i]; }}")
    n = len(values)
    plain, sat, back = np.zeros(n, dtype), np.zeros(n, dtype), np.zeros(n, np.int32)
    clcoop.Program(src).build().k((n,), (1,), plain, sat, back)
    x = np.array(values, np.float64)
    np.testing.assert_array_equal(bits(plain), bits(x.astype(np.float32).astype(dtype)))
    np.testing.assert_array_equal(bits(sat), bits(saturated(x, dtype, largest)))
    exact = x.astype(np.float32).astype(dtype).astype(np.float64)
    expected = np.where(np.isnan(exact), 0, np.trunc(np.clip(np.nan_to_num(exact, nan=0.0), -2 ** 31, 2 ** 31 - 1)))
    np.testing.assert_array_equal(back, expected.astype(np.int64))


FUNCTION_OPERAND_KERNEL = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef FP8_T acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef FP8_T rows __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 1, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t L2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED)));
static FP8_T scaled(uint r, uint c, FP8_T x, float s) { return (FP8_T)((float)x * s); }
static FP8_T larger(FP8_T a, FP8_T b) { return (float)a > (float)b ? a : b; }
static FP8_T halved(const global uchar *block, uint block_coord[2], uint coord[2]) { return (FP8_T)((float)block[0] * 0.5f); }
kernel void k(global FP8_T *x, float s, global FP8_T *maxima, global const uchar *bytes, global FP8_T *decoded) {
  acc m = coop_mat_load(x, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  rows r = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, larger);
  coop_mat_store(maxima, r, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)1);
  coop_mat_store(x, coop_mat_per_element(m, scaled, s), CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 8, 16);
  acc d = coop_mat_load_tensor(bytes, t, halved);
  coop_mat_store(decoded, d, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


@pytest.mark.parametrize("name", FORMATS)
def test_function_operands_take_and_return_fp8_bits(name):
    """A per-element, combine or decode function of an fp8 matrix gets and returns the fp8
    bits (its i8 parameters and result, docs/coopmat2-semantics.md "fp8"); the interpreter
    converted a result by value (the pattern 0x01 came back as the value 1.0), so
    (T)((float)x * 1.5f) gave 1.0 for the smallest subnormal."""
    dtype, _ = FORMATS[name]
    x = (RNG.integers(0, 256, 128).astype(np.uint8) & 0x77).view(dtype)   # finite, no NaN
    x[:3] = np.array([1, 0x81, 0], np.uint8).view(dtype)                   # subnormals, 0
    source = FUNCTION_OPERAND_KERNEL.replace("FP8_T", name)
    out, maxima, decoded = x.copy(), np.zeros(8, dtype), np.zeros(128, dtype)
    data = RNG.integers(0, 256, 128).astype(np.uint8)
    clcoop.Program(source).build(options=["-w"]).k((16,), (16,), out, np.float32(1.5), maxima, data, decoded)
    exact = x.astype(np.float32)
    np.testing.assert_array_equal(bits(out), bits((exact * np.float32(1.5)).astype(dtype)))
    np.testing.assert_array_equal(maxima.astype(np.float32), exact.reshape(8, 16).max(axis=1))
    np.testing.assert_array_equal(bits(decoded), bits((data.astype(np.float32) * 0.5).astype(dtype)))
