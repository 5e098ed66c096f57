"""fp8 (SPV_EXT_float8) cooperative-matrix operations of the second generation on the native
engine: tensor loads and stores (with a view and a decode function), reductions (every
mode), per-element functions (matrix and scalar extras, an fp8 one among them), integer
<-> fp8 matrix conversions, use conversions, transposes and negation. Each kernel is built with engine="native" and must not fall
back (before, each raised "the fp8 ... cooperative-matrix operation X"); each runs on random
fp8 bit patterns with NaN, infinity, subnormal, largest-finite and signed-zero patterns, and
is compared bit for bit with the interpreter (the reference) and with NumPy / ml_dtypes
where the operation has an independent oracle. Faults read word for word as the
interpreter's. docs/coopmat2-semantics.md "fp8", docs/native.md "Cooperative matrices"."""
import warnings

import ml_dtypes
import numpy as np
import pytest

import clcoop
from clcoop import float8
from clcoop.errors import RuntimeFault
from clcoop.native.support import NativeFallbackWarning
from quick_cases import quick_or_slow

FORMATS = {"__fp8_e4m3": ml_dtypes.float8_e4m3fn, "__fp8_e5m2": ml_dtypes.float8_e5m2}
FORMAT_OF = {"__fp8_e4m3": float8.BY_TOKEN["E4M3"], "__fp8_e5m2": float8.BY_TOKEN["E5M2"]}
# NaNs and infinities (E5M2: 0x7C/0xFC; E4M3: 0x7E/0xFE is +-448, its largest finite),
# the largest finite E5M2 (0x7B), subnormals (0x01, 0x81, 0x07), +-0.
SPECIAL_BITS = [0x7F, 0xFF, 0x7E, 0xFE, 0x7C, 0xFC, 0x7B, 0xFB, 0x01, 0x81, 0x07, 0x00, 0x80]

HEADER = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef FP8_T acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
"""


def fp8_bits(rng, count):
    """Random fp8 patterns (uint8) with every special pattern at random places."""
    bits = rng.integers(0, 256, count).astype(np.uint8)
    bits[rng.choice(count, len(SPECIAL_BITS), replace=False)] = SPECIAL_BITS
    return bits


def build_native(source):
    """engine="native", which must take every kernel (no fallback to the interpreter)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeFallbackWarning)
        program = clcoop.Program(source).build(options=["-w"], engine="native")
    for name in program._module.kernels:
        assert program.kernel(name).engine == "native", program.kernel(name).fallback_reason
    return program


_BUILDS = {}


def builds(source):
    """(interpreter's, native program) of `source`, built once per session."""
    if source not in _BUILDS:
        _BUILDS[source] = (clcoop.Program(source).build(options=["-w"]), build_native(source))
    return _BUILDS[source]


def on_both(source, kernel, global_size, local_size, *args):
    """The kernel run in the interpreter and natively on copies of `args`: the arrays of
    each run, or its fault's words and work-item."""
    outcomes = []
    for program in builds(source):
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        try:
            program.kernel(kernel)(global_size, local_size, *copies, subgroup_size=16)
            outcomes.append([a for a in copies if isinstance(a, np.ndarray)])
        except RuntimeFault as fault:
            outcomes.append((str(fault), fault.work_item))
    return outcomes


def assert_bits_equal(interp, native):
    if isinstance(interp, tuple):
        assert native == interp
        return
    assert not isinstance(native, tuple), native[0]
    for want, got in zip(interp, native):
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def as_fp8(bits, name):
    return bits.view(FORMATS[name])


# ---------------------------------------------------------------- tensor loads and stores

TENSOR_KERNELS = HEADER + """
typedef coop_tensor_layout_t C2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
typedef coop_tensor_layout_t U2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED)));
typedef coop_tensor_view_t V2 __attribute__((coop_tensor_view(2, false, 1, 0)));
/* An 8 x 16 tile at (r0, c0) of an M x N fp8 tensor (Constant clamp: the low byte of the
   clamp value), stored at (r0 + 2, c0 + 2) of a 12 x 24 tensor (outside: discarded). */
kernel void window(global const uchar *src, global uchar *dst, uint M, uint N, int r0, int c0, uint clamp) {
  C2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), M, N);
  t = coop_tensor_layout_set_clamp_value(coop_tensor_layout_slice(t, r0, 8, c0, 16), clamp);
  acc m = coop_mat_load_tensor(src, t);
  C2 o = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 12, 24);
  coop_mat_store_tensor(dst, m, coop_tensor_layout_slice(o, r0 + 2, 8, c0 + 2, 16));
}
/* Through a transposing view (load) and back (store): the tile is the transpose of the
   16 x 8 tensor. */
kernel void transposed(global const uchar *src, global uchar *dst) {
  U2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 16, 8);
  V2 v = coop_tensor_view_set_dimension(coop_tensor_view_create(), 8, 16);
  acc m = coop_mat_load_tensor(src, t, v);
  coop_mat_store_tensor(dst, m, t, v);
}
/* A decode function returns each element's fp8 bits: its block's byte (one byte a block)
   minus the block's column. */
static FP8_T minus_column(const global uchar *block, uint block_coord[2], uint coord[2]) {
  return (FP8_T)((float)block[0] - (float)block_coord[1]);
}
kernel void decoded(global const uchar *src, global uchar *dst) {
  U2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 8, 16);
  acc m = coop_mat_load_tensor(src, t, minus_column);
  coop_mat_store_tensor(dst, m, t);
}
/* The 8 x 16 tile at row r0 of an M x 16 tensor in a buffer that may be too small
   (Undefined clamp), stored to an 8 x 16 tensor. */
kernel void copy(global const uchar *src, global uchar *dst, uint M, int r0) {
  U2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), M, 16);
  acc m = coop_mat_load_tensor(src, coop_tensor_layout_slice(t, r0, 8, 0, 16));
  U2 o = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 8, 16);
  coop_mat_store_tensor(dst, m, o);
}
"""


@pytest.mark.parametrize("name", list(FORMATS))
def test_fp8_tensor_loads_and_stores_move_the_bits(name):
    """Constant clamp (the clamp value's low byte, as interp/tensor.clamp_value_as),
    discarded stores outside the tensor, a view, a decode function: bit for bit the
    interpreter's and NumPy's (np.pad, slicing, the transpose, ml_dtypes' rounding)."""
    rng = np.random.default_rng(8086)
    source = TENSOR_KERNELS.replace("FP8_T", name)
    M, N, r0, c0, clamp = 10, 20, -3, 9, 0x12345F7E
    src = fp8_bits(rng, M * N)
    interp, native = on_both(source, "window", (16,), (16,), src, np.zeros(12 * 24, np.uint8),
                             np.uint32(M), np.uint32(N), np.int32(r0), np.int32(c0), np.uint32(clamp))
    assert_bits_equal(interp, native)
    padded = np.pad(src.reshape(M, N), 20, constant_values=clamp & 0xFF)
    tile = padded[20 + r0:20 + r0 + 8, 20 + c0:20 + c0 + 16]
    expected = np.zeros((12 + 40, 24 + 40), np.uint8)
    expected[20 + r0 + 2:20 + r0 + 10, 20 + c0 + 2:20 + c0 + 18] = tile
    np.testing.assert_array_equal(native[1].reshape(12, 24), expected[20:32, 20:44])

    square = fp8_bits(rng, 128)
    interp, native = on_both(source, "transposed", (16,), (16,), square, np.zeros(128, np.uint8))
    assert_bits_equal(interp, native)
    np.testing.assert_array_equal(native[1], square)        # load and store both transpose

    blocks = rng.integers(0, 256, 128).astype(np.uint8)
    interp, native = on_both(source, "decoded", (16,), (16,), blocks, np.zeros(128, np.uint8))
    assert_bits_equal(interp, native)
    columns = np.tile(np.arange(16, dtype=np.float32), 8)
    want = (blocks.astype(np.float32) - columns).astype(FORMATS[name]).view(np.uint8)
    np.testing.assert_array_equal(native[1], want)


@pytest.mark.parametrize("name", list(FORMATS))
def test_fp8_tensor_faults_read_as_the_interpreters(name):
    """An out-of-bounds read and write of an fp8 tensor, and an Undefined-clamp element
    outside it: the interpreter's words (the component named as its dtype), natively."""
    rng = np.random.default_rng(7)
    source = TENSOR_KERNELS.replace("FP8_T", name)
    cases = [(fp8_bits(rng, 100), np.zeros(128, np.uint8), 8, 0, "out-of-bounds read of " + np.dtype(FORMATS[name]).name),
             (fp8_bits(rng, 128), np.zeros(100, np.uint8), 8, 0, "out-of-bounds write of " + np.dtype(FORMATS[name]).name),
             (fp8_bits(rng, 160), np.zeros(128, np.uint8), 10, 3, "outside the tensor's dimensions (10, 16)")]
    for src, dst, M, r0, words in cases:
        interp, native = on_both(source, "copy", (16,), (16,), src, dst, np.uint32(M), np.int32(r0))
        assert isinstance(interp, tuple) and words in interp[0], interp
        assert native == interp


# ---------------------------------------------------------------- reductions

REDUCE_KERNEL = HEADER + """
typedef FP8_T rows_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 1, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef FP8_T cols_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 1, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef FP8_T one_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 1, 1, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef FP8_T quad_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 4, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
/* The larger value (a NaN second operand wins, a NaN first one loses: a select, so the
   result is defined for every pattern). */
static FP8_T larger(FP8_T a, FP8_T b) { return (float)a > (float)b ? a : b; }
/* The sum rounded to fp8; where it is NaN, the first operand (two NaNs meeting in a float
   add keep an operand-order-dependent sign, docs/native.md "NaN payloads"). */
static FP8_T sum(FP8_T a, FP8_T b) { float s = (float)a + (float)b; return isnan(s) ? a : (FP8_T)s; }
#define REDUCE_ALL(F, OFFSET) { \
  rows_t r = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, F); \
  cols_t c = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_COLUMN, F); \
  one_t a = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW | CLK_COOPERATIVE_MATRIX_REDUCE_COLUMN, F); \
  quad_t q = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_2X2, F); \
  coop_mat_store(dst + OFFSET, r, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)1); \
  coop_mat_store(dst + OFFSET + 8, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16); \
  coop_mat_store(dst + OFFSET + 24, a, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)1); \
  coop_mat_store(dst + OFFSET + 25, q, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)8); }
kernel void reduce(global const FP8_T *src, global FP8_T *dst) {
  acc m = coop_mat_load(src, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  REDUCE_ALL(larger, 0)
  REDUCE_ALL(sum, 57)
}
"""


def numpy_reductions(x):
    """The row, column, whole-matrix and 2x2 reductions of (8, 16) values by `np.max`."""
    return [x.max(axis=1), x.max(axis=0), x.max(keepdims=True).reshape(1), x.reshape(4, 2, 8, 2).max(axis=(1, 3)).reshape(-1)]


@pytest.mark.parametrize("name", list(FORMATS))
def test_fp8_reductions_in_every_mode(name):
    """Every reduce mode with two combine functions on fp8 values (the function gets the
    fp8 bits and decodes them by its conversions): bit for bit the interpreter's; the
    maximum of NaN-free data is NumPy's."""
    rng = np.random.default_rng(2)
    source = REDUCE_KERNEL.replace("FP8_T", name)
    bits = fp8_bits(rng, 128)
    dtype = FORMATS[name]
    interp, native = on_both(source, "reduce", (16,), (16,), bits.view(dtype), np.zeros(114, dtype))
    assert_bits_equal(interp, native)
    assert len(set(native[1].view(np.uint8).tolist())) > 20         # (not a constant result)
    finite = np.where(np.isnan(bits.view(dtype)), np.zeros(1, dtype), bits.view(dtype)).reshape(8, 16)
    _, native = on_both(source, "reduce", (16,), (16,), finite.reshape(-1), np.zeros(114, dtype))
    got = native[1][:57].astype(np.float64)
    want = np.concatenate(numpy_reductions(finite.astype(np.float64)))
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------- per-element functions

PER_ELEMENT_KERNEL = HEADER + """
/* x * s + the element's index where x > y, else z (a scalar fp8 extra); x * s is exact. */
static FP8_T scaled(uint row, uint col, FP8_T x, float s, FP8_T y, FP8_T z) {
  return (float)x > (float)y ? (FP8_T)((float)x * s + (float)(row * 16 + col)) : z;
}
kernel void per_element(global FP8_T *x, global const FP8_T *y, float s, global const FP8_T *z) {
  acc m = coop_mat_load(x, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  acc n = coop_mat_load(y, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(x, coop_mat_per_element(m, scaled, s, n, z[get_sub_group_local_id()]),
                 CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


@pytest.mark.parametrize("name", list(FORMATS))
def test_fp8_per_element_function_with_extras(name):
    """A per-element function of an fp8 matrix with a float, an fp8 matrix and an fp8
    scalar extra (each element gets the scalar of the work-item holding it): bit for bit
    the interpreter's and ml_dtypes' (float32 arithmetic, one rounding to fp8)."""
    rng = np.random.default_rng(11)
    source = PER_ELEMENT_KERNEL.replace("FP8_T", name)
    dtype = FORMATS[name]
    x, y = fp8_bits(rng, 128).view(dtype), fp8_bits(rng, 128).view(dtype)
    z = np.full(16, 0x3C, np.uint8).view(dtype)         # every work-item's z: 1.5 (E4M3) / 1.0 (E5M2)
    s = np.float32(1.5)
    interp, native = on_both(source, "per_element", (16,), (16,), x, y, s, z)
    assert_bits_equal(interp, native)
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    index = np.arange(128, dtype=np.float32)
    want = np.where(xf > yf, (xf * s + index).astype(dtype), z[0])
    np.testing.assert_array_equal(native[0].view(np.uint8), want.view(np.uint8))


# ---------------------------------------------------------------- integer <-> fp8 conversions

CONVERT_KERNEL = HEADER + """
typedef INT_T imat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void to_fp8(global const INT_T *src, global FP8_T *dst) {
  imat m = coop_mat_load(src, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(dst, (acc)m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
kernel void from_fp8(global const FP8_T *src, global INT_T *dst) {
  acc m = coop_mat_load(src, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(dst, (imat)m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""
INTEGERS = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16, "int": np.int32,
            "uint": np.uint32, "long": np.int64, "ulong": np.uint64}
QUICK_CONVERSIONS = {("__fp8_e4m3", "int"), ("__fp8_e5m2", "uchar"), ("__fp8_e4m3", "ulong")}


def random_integers(rng, dtype, count):
    """Integers of every magnitude (random values shifted right by random amounts), the
    extremes, 0, and values at fp8 rounding ties (E4M3 0x1/0x2 at 17 = 16 + half a quantum)."""
    info = np.iinfo(dtype)
    wide = rng.integers(info.min, info.max, count, dtype=dtype, endpoint=True)
    values = (wide >> rng.integers(0, info.bits, count).astype(dtype)).astype(dtype)
    edges = [info.min, info.max, 0, 17, 18, 19, 448 if info.max >= 448 else 100, 464 if info.max >= 464 else 7]
    values[:len(edges)] = np.array(edges, dtype=object).astype(dtype)
    return values


@pytest.mark.parametrize("name,integer", quick_or_slow([(n, i) for n in FORMATS for i in INTEGERS], QUICK_CONVERSIONS))
def test_integer_fp8_matrix_conversions(name, integer):
    """(mat_fp8)m and (mat_int)q (ConvertSToF / UToF / FToS / FToU on fp8 matrices, the
    signedness from the component type): into fp8 one rounding of the exact integer (past
    the range E4M3 NaN, E5M2 infinity, no saturation), from fp8 the C conversion (toward
    zero, saturating, NaN -> 0) of all 256 patterns; bit for bit the interpreter's, against
    clcoop.float8.encode_value (exact rational rounding) and NumPy."""
    rng = np.random.default_rng(int.from_bytes(f"{name}{integer}".encode(), "little") % 2 ** 32)
    source = CONVERT_KERNEL.replace("FP8_T", name).replace("INT_T", integer)
    dtype, itype = FORMATS[name], np.dtype(INTEGERS[integer])
    ints = random_integers(rng, itype, 128)
    interp, native = on_both(source, "to_fp8", (16,), (16,), ints, np.zeros(128, dtype))
    assert_bits_equal(interp, native)
    want = [float8.encode_value(int(v), FORMAT_OF[name]) for v in ints]
    assert native[1].view(np.uint8).tolist() == want

    patterns = np.arange(256, dtype=np.uint8)
    for half in (patterns[:128], patterns[128:]):
        interp, native = on_both(source, "from_fp8", (16,), (16,), half.view(dtype), np.zeros(128, itype))
        assert_bits_equal(interp, native)
        info = np.iinfo(itype)
        want = [0 if np.isnan(x) else info.max if x > info.max else info.min if x < info.min else int(x)
                for x in half.view(dtype).astype(np.float64)]          # (int() of a float: toward zero)
        assert native[1].tolist() == want


# ---------------------------------------------------------------- bit moves: use, transpose, negation

MOVES_KERNEL = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef FP8_T acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef FP8_T mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef FP8_T mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
kernel void moves(global const FP8_T *src, global FP8_T *as_a, global FP8_T *transposed, global FP8_T *negated,
                  global uint *coords) {
  acc m = coop_mat_load(src, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  for (uint i = 0; i < coop_mat_length(m); i++) {     /* component i's byte, at its (row, col) */
    uint2 c = coop_mat_get_coord(m, i);
    FP8_T v = m[i];
    coords[c.x * 16 + c.y] = *(private uchar *)&v * 1000u + get_sub_group_local_id() * 32 + i;
  }
  mat_a a = (mat_a)m;
  mat_b b = coop_mat_transpose(m);
  acc n = -m;
  coop_mat_store(as_a, a, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(transposed, b, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(negated, n, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


@pytest.mark.parametrize("name", quick_or_slow(list(FORMATS), {"__fp8_e4m3"}))
def test_fp8_use_conversion_transpose_negation_and_coordinates(name):
    """(mat_a)acc (ConvertNV), coop_mat_transpose and -m of an fp8 matrix: the bits moved
    (every NaN payload kept), the negation flipping each sign bit as the interpreter's
    ml_dtypes negation does (NaNs and zeros included); before, each fell back with "the fp8
    ... cooperative-matrix operation"; so did coop_mat_get_coord, whose coordinates must
    name the component's own byte (each element found once)."""
    rng = np.random.default_rng(16)
    dtype = FORMATS[name]
    src = rng.permutation(256).astype(np.uint8).view(dtype)        # every pattern once
    zeros = [np.zeros(256, dtype) for _ in range(3)]
    interp, native = on_both(MOVES_KERNEL.replace("FP8_T", name), "moves", (16,), (16,), src, *zeros,
                             np.zeros(256, np.uint32))
    assert_bits_equal(interp, native)
    _, as_a, transposed, negated = (a.view(np.uint8) for a in native[:4])
    coords = native[4]
    np.testing.assert_array_equal(coords // 1000, src.view(np.uint8))
    assert len(set((coords % 1000).tolist())) == 256
    square = src.view(np.uint8).reshape(16, 16)
    np.testing.assert_array_equal(as_a.reshape(16, 16), square)
    np.testing.assert_array_equal(transposed.reshape(16, 16), square.T)
    np.testing.assert_array_equal(negated.reshape(16, 16), square ^ 0x80)
    np.testing.assert_array_equal(negated, (-src).view(np.uint8))


BF16_KERNEL = HEADER + """
typedef __bf16 bmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void bf16_fp8(global const __bf16 *b, global FP8_T *q, global const FP8_T *p, global __bf16 *back) {
  bmat m = coop_mat_load(b, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(q, (acc)m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  acc n = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(back, (bmat)n, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


@pytest.mark.parametrize("name", quick_or_slow(list(FORMATS), {"__fp8_e5m2"}))
def test_bf16_fp8_matrix_conversions(name):
    """__bf16 <-> fp8 matrix casts (through the exact double, as the scalar conversions):
    bit for bit the interpreter's and ml_dtypes' (bf16 -> float32 is exact, so ml_dtypes
    rounds once)."""
    rng = np.random.default_rng(1616)
    dtype = FORMATS[name]
    values = (rng.standard_normal(128) * 2.0 ** rng.integers(-20, 20, 128)).astype(ml_dtypes.bfloat16)
    values[:6] = np.array([np.nan, -np.inf, np.inf, -0.0, 2.0 ** -17, 60000.0]).astype(ml_dtypes.bfloat16)
    patterns = fp8_bits(rng, 128).view(dtype)
    interp, native = on_both(BF16_KERNEL.replace("FP8_T", name), "bf16_fp8", (16,), (16,), values,
                             np.zeros(128, dtype), patterns, np.zeros(128, ml_dtypes.bfloat16))
    assert_bits_equal(interp, native)
    np.testing.assert_array_equal(native[1].view(np.uint8), values.astype(np.float32).astype(dtype).view(np.uint8))
    np.testing.assert_array_equal(native[3].view(np.uint16), patterns.astype(ml_dtypes.bfloat16).view(np.uint16))


WORKGROUP_KERNEL = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef FP8_T acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP, 16, 32, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef FP8_T rows __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP, 16, 1, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t L2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
static FP8_T larger(FP8_T a, FP8_T b) { return (float)a > (float)b ? a : b; }
__attribute__((reqd_work_group_size(32, 1, 1)))
kernel void workgroup(global const uchar *src, global uchar *copy, global FP8_T *maxima) {
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 16, 32);
  acc m = coop_mat_load_tensor(src, t);
  coop_mat_store_tensor(copy, m, t);
  rows r = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, larger);
  coop_mat_store(maxima, r, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)1);
}
"""


def test_workgroup_scope_fp8_tensor_load_store_and_reduction():
    """A workgroup-scope fp8 matrix (one rendezvous of the work-group): its tensor load,
    store and row maximum natively, bit for bit the interpreter's and NumPy's."""
    rng = np.random.default_rng(32)
    dtype = FORMATS["__fp8_e4m3"]
    src = fp8_bits(rng, 512)
    interp, native = on_both(WORKGROUP_KERNEL.replace("FP8_T", "__fp8_e4m3"), "workgroup", (32,), (32,), src,
                             np.zeros(512, np.uint8), np.zeros(16, dtype))
    assert_bits_equal(interp, native)
    np.testing.assert_array_equal(native[1], src)
    values = src.view(dtype).astype(np.float64).reshape(16, 32)
    finite_rows = ~np.isnan(values).any(axis=1)
    np.testing.assert_array_equal(native[2].astype(np.float64)[finite_rows], values.max(axis=1)[finite_rows])


SAME_TYPE_SOURCE = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef __fp8_e5m2 m5 __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef __fp8_e4m3 m4 __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void k(global const __fp8_e5m2 *p, global __fp8_e4m3 *q) {
  m5 m = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(q, (m4)m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


def test_an_fp8_conversion_to_its_own_type_copies_the_bits():
    """IR from elsewhere: FConvert from an E5M2 matrix to an E5M2 matrix (the E4M3 result of
    clcoop's IR retyped). The interpreter copies the matrix (coopmat2.convert_use), so every
    NaN payload (0x7D, 0xFD: signalling) is kept natively too, not re-encoded as 0x7E."""
    ir = clcoop.Program(SAME_TYPE_SOURCE).build().ir
    ir = ir.replace("u10__fp8_e4m3", "u10__fp8_e5m2").replace('target("spirv.Literal", 4214)',
                                                              'target("spirv.Literal", 4215)')
    assert "FConvertIu10__fp8_e5m2Li3ELi8ELi16ELi2Eu10__fp8_e5m2" in ir
    patterns = np.arange(128, 256, dtype=np.uint8)
    outcomes = []
    for engine in ("interp", "native"):
        program = clcoop.Program.from_ir(ir, engine=engine)
        assert program.kernel("k").engine == engine
        out = np.zeros(128, np.uint8)
        program.k((16,), (16,), patterns, out, subgroup_size=16)
        outcomes.append(out)
    np.testing.assert_array_equal(outcomes[0], patterns)
    np.testing.assert_array_equal(outcomes[1], patterns)


# ---------------------------------------------------------------- typed tensor pointers

TYPED_POINTER = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef ELEM acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t C2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
kernel void window(global const PTR *src, global PTR *dst, uint M, uint N, int r0, int c0) {
  C2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), M, N);
  acc m = coop_mat_load_tensor(src, coop_tensor_layout_slice(t, r0, 8, c0, 16));
  C2 o = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 12, 24);
  coop_mat_store_tensor(dst, m, coop_tensor_layout_slice(o, r0 + 2, 8, c0 + 2, 16));
}
"""


@pytest.mark.parametrize("elem, bits_type, dtype", [("__fp8_e4m3", "uchar", "float8_e4m3fn"),
                                                    ("__bf16", "ushort", "bfloat16")])
def test_tensor_loads_and_stores_take_a_pointer_to_the_component_type(elem, bits_type, dtype):
    """coop_mat_load_tensor / store_tensor through a `__fp8_e4m3 *` or `__bf16 *` (as
    coop_mat_load takes them) instead of the bits' integer type: they were refused ("must
    point to a scalar or vector numeric type"); now the same bytes as through `uchar *` /
    `ushort *`, in both engines."""
    import ml_dtypes
    rng = np.random.default_rng(11)
    width = np.dtype(getattr(ml_dtypes, dtype)).itemsize
    bits = rng.integers(0, 1 << (8 * width), 10 * 20).astype(f"u{width}")
    outcomes = []
    for pointee, array_dtype in ((bits_type, bits.dtype), (elem, getattr(ml_dtypes, dtype))):
        source = TYPED_POINTER.replace("ELEM", elem).replace("PTR", pointee)
        for program in builds(source):
            dst = np.zeros(12 * 24, array_dtype)
            program.window((16,), (16,), bits.view(array_dtype).copy(), dst, np.uint32(10), np.uint32(20),
                           np.int32(1), np.int32(3), subgroup_size=16)
            outcomes.append(dst.view(bits.dtype))
    assert all(np.array_equal(o, outcomes[0]) for o in outcomes[1:])
    tile = bits.reshape(10, 20)[1:9, 3:19]
    np.testing.assert_array_equal(outcomes[0].reshape(12, 24)[3:11, 5:21], tile)
