"""Second-generation cooperative-matrix operations on the native engine (issue 29):
coop_mat_per_element and coop_mat_get_coord run natively (per-work-item path), bit for bit
as the interpreter (the reference) on the same kernels, and against NumPy and clcoop-layout;
the interpreter's faults; operations not compiled yet fall back with their reason."""
import warnings

import numpy as np
import pytest

import clcoop
from clcoop.errors import RuntimeFault
from clcoop.native.support import NativeFallbackWarning
from test_coop_function_ops import (BOTH, COLUMN, COORD_KERNEL, GROUPS, MODE_NAMES, PER_ELEMENT_KERNEL,
                                    REDUCE_KERNEL, RESULT_SHAPES, ROW, SUBGROUPS_PER_GROUP, TWO_BY_TWO, USES,
                                    holder_of_elements, layout_json, numpy_reduce)
from quick_cases import quick_or_slow

RNG = np.random.default_rng(2929)
# Sub-group sizes: 16 (the launch default) by default, 8 and 32 with the slow tests.
SIZES = [16, pytest.param(8, marks=pytest.mark.slow), pytest.param(32, marks=pytest.mark.slow)]


def on_both(source, launch, options=("-w",)):
    """launch(program) on the interpreter and natively (engine="auto" must not fall back);
    returns (interpreter's result, native result)."""
    results = []
    for engine in ("interp", "auto"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", NativeFallbackWarning)
            program = clcoop.Program(source).build(options=list(options), engine=engine)
            results.append(launch(program))
        if engine == "auto":
            assert program.k.engine == "native"
    return results


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("T, use, R, C", [("float", "accumulator", 8, 16), ("float", "accumulator", 3, 4),
                                          ("char", "a", 8, 32), ("half", "b", 16, 16), ("int", "accumulator", 16, 8)])
def test_get_coord_natively_matches_the_interpreter_and_clcoop_layout(S, T, use, R, C):
    layout = layout_json(R, C, S, use, T)
    V = layout["length"]
    dtype = {"float": np.float32, "char": np.int8, "half": np.float16, "int": np.int32}[T]

    def launch(program):
        coords = np.zeros(2 * S * V * 2, np.uint32)
        program.k((2 * S,), (2 * S,), np.zeros(R * C, dtype), coords, subgroup_size=S)
        return coords
    interp, native = on_both(COORD_KERNEL.format(T=T, R=R, C=C, USE=USES[use]), launch)
    assert native.tobytes() == interp.tobytes()
    expected = [[slot if slot is not None else [R, C] for slot in slots] for slots in layout["work_items"]]
    np.testing.assert_array_equal(native.reshape(2, S, V, 2), np.array([expected, expected]))


@pytest.mark.parametrize("index", ["n", "(uint)-1"])
def test_get_coord_index_outside_the_matrix_faults_as_in_the_interpreter(index):
    source = COORD_KERNEL.format(T="float", R=8, C=16, USE=USES["accumulator"]).replace(
        "uint2 rc = coop_mat_get_coord(m, i);", f"uint2 rc = coop_mat_get_coord(m, i == 3 && get_sub_group_id() == 1 ? {index} : i);")
    faults = []
    for engine in ("interp", "native"):
        program = clcoop.Program(source).build(options=["-w"], engine=engine)
        coords = np.zeros(32 * 8 * 2, np.uint32)
        with pytest.raises(RuntimeFault) as fault:
            program.k((32,), (32,), np.zeros(128, np.float32), coords, subgroup_size=16)
        faults.append((str(fault.value).splitlines()[0], fault.value.work_item))
    # The same words; natively the fault names the work-item whose index is outside (the
    # interpreter names its batch's first work-item: coopmat2.get_coordinate's fault
    # carries no lane).
    assert faults[0][0] == faults[1][0]
    assert "is outside the matrix's 8 components (work-item 0 of subgroup 1)" in faults[1][0]
    assert faults[1][1] == (16,)


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("shape", [(8, 16), (16, 8), (6, 16)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_per_element_with_extras_natively_matches_the_interpreter(S, shape):
    """Scalar, matrix and pointer extras, a memory write per element in the work-item
    holding it (6 x 16 has padding components, which are never visited). (-O0 IR keeps
    matrices in private memory, which the native engine does not take yet.)"""
    R, C = shape
    G = SUBGROUPS_PER_GROUP * GROUPS
    a = RNG.standard_normal((G, R, C)).astype(np.float32)
    b = RNG.standard_normal((G, R, C)).astype(np.float32)

    def launch(program):
        out = np.zeros_like(a)
        owner = np.full((G, R, C), -1, np.int32)
        program.k((G * S,), (SUBGROUPS_PER_GROUP * S,), a, b, out, owner, np.float32(0.5), subgroup_size=S)
        return out, owner
    (out_i, owner_i), (out_n, owner_n) = on_both(PER_ELEMENT_KERNEL.format(R=R, C=C), launch)
    assert out_n.tobytes() == out_i.tobytes() and owner_n.tobytes() == owner_i.tobytes()
    rows, cols = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    np.testing.assert_array_equal(out_n, (a * np.float32(0.5) + b) + (rows * 1000 + cols).astype(np.float32))
    group_tag = (np.arange(G) // SUBGROUPS_PER_GROUP * 100)[:, None, None]
    np.testing.assert_array_equal(owner_n, holder_of_elements(R, C, S)[None] + group_tag)


INTEGER_PER_ELEMENT = """
typedef uchar m8 __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
static uchar relu_shift(uint r, uint c, uchar x, uchar other, int bias) {
  return x > 128 ? (uchar)(x + other + bias) : (uchar)(r * c);
}
kernel void k(global uchar *p, global uchar *q, int bias) {
  m8 x = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  m8 y = coop_mat_load(q, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(p, coop_mat_per_element(x, relu_shift, y, bias), CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


def test_per_element_integer_matrix_wraps_as_in_the_interpreter():
    p = RNG.integers(0, 256, 128).astype(np.uint8)
    q = RNG.integers(0, 256, 128).astype(np.uint8)

    def launch(program):
        out = p.copy()
        program.k((16,), (16,), out, q, np.int32(7), subgroup_size=16)
        return out
    interp, native = on_both(INTEGER_PER_ELEMENT, launch)
    assert native.tobytes() == interp.tobytes()
    r, c = np.divmod(np.arange(128), 16)
    np.testing.assert_array_equal(native, np.where(p > 128, (p.astype(np.int64) + q + 7) % 256, r * c).astype(np.uint8))


def test_a_fault_in_a_per_element_function_names_the_work_item_holding_the_element():
    source = """
typedef float acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
static float poke(uint r, uint c, float x, global float *out) {
  if (r == 3 && c == 5) out[100000] = x;
  return x;
}
kernel void k(global float *p) {
  acc m = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  m = coop_mat_per_element(m, poke, p);
  coop_mat_store(p, m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""
    holder = int(holder_of_elements(8, 16, 16)[3, 5])
    faults = []
    for engine in ("interp", "native"):
        p = np.arange(128, dtype=np.float32)
        with pytest.raises(RuntimeFault) as fault:
            clcoop.Program(source).build(options=["-w", "-g"], engine=engine).k((32,), (32,), p, subgroup_size=16)
        assert p.tobytes() == np.arange(128, dtype=np.float32).tobytes()      # untouched
        faults.append((str(fault.value), fault.value.work_item))
    assert faults[0] == faults[1]
    assert faults[1][1] == (holder,) and "out[100000] = x;" in faults[1][0]


def test_a_function_operand_of_the_wrong_type_is_refused_with_a_reason():
    """Untrusted IR: the function a per-element call names must have the type the
    operation calls it with (here its return type is changed to double)."""
    source = PER_ELEMENT_KERNEL.format(R=8, C=16)
    ir = clcoop.Program(source).build(options=["-w"]).ir
    bad = ir.replace("define internal spir_func float @affine(", "define internal spir_func double @affine(")
    bad = bad.replace("  ret float %add8,", "  %wide = fpext float %add8 to double\n  ret double %wide,")
    assert bad.count("double") >= ir.count("double") + 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clcoop.Program.from_ir(bad, engine="auto")
    reasons = [str(w.message) for w in caught if issubclass(w.category, NativeFallbackWarning)]
    assert any("coop_mat_per_element function @affine of type" in r for r in reasons), reasons


MODES = [ROW, COLUMN, BOTH, TWO_BY_TWO]
MODE_IDS = ["row", "column", "both", "2x2"]


def reduce_on_both(T, dtype, R, C, mode, result_shape, op, S, src):
    """(interpreter's, native) results of REDUCE_KERNEL on the same input."""
    RR, RC = result_shape
    source = REDUCE_KERNEL.format(T=T, R=R, C=C, RR=RR, RC=RC, MODE=MODE_NAMES[mode], OP=op)
    G = SUBGROUPS_PER_GROUP * GROUPS

    def launch(program):
        dst = np.zeros(G * RR * RC, dtype)
        program.k((G * S,), (SUBGROUPS_PER_GROUP * S,), src.reshape(-1), dst, subgroup_size=S)
        return dst.reshape(G, RR, RC)
    return on_both(source, launch)


# The default run: every mode once, at a shape with an odd element moving up the tree (6
# rows, 3 x 4; the two shapes alternate over the modes); --all runs every shape.
@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("mode, shape", quick_or_slow(
    [(mode, shape) for mode in MODES for shape in [(8, 16), (16, 16), (8, 32), (6, 16), (3, 4)]
     if mode != TWO_BY_TWO or shape[0] % 2 == 0],
    {(ROW, (3, 4)), (COLUMN, (6, 16)), (BOTH, (3, 4)), (TWO_BY_TWO, (6, 16))}),
    ids=lambda v: f"{v[0]}x{v[1]}" if isinstance(v, tuple) else MODE_IDS[MODES.index(v)])
def test_float_reductions_natively_match_the_interpreter_bit_for_bit(S, mode, shape):
    """Every mode and result shape; float sums depend on the order of the tree (levels of
    pairs, an odd last element moving up: 6 and 3 rows, 12 elements), so bit equality
    checks it; NumPy checks the values."""
    R, C = shape
    G = SUBGROUPS_PER_GROUP * GROUPS
    src = RNG.standard_normal((G, R, C)).astype(np.float32) * np.float32(1000)
    for result_shape in RESULT_SHAPES[mode](R, C):
        interp, native = reduce_on_both("float", np.float32, R, C, mode, result_shape, "a + b", S, src)
        assert native.tobytes() == interp.tobytes()
        np.testing.assert_allclose(native, numpy_reduce(src.astype(np.float64), mode, np.sum, result_shape),
                                   rtol=1e-4, atol=1e-2)
    result_shape = RESULT_SHAPES[mode](R, C)[0]
    interp, native = reduce_on_both("float", np.float32, R, C, mode, result_shape, "a > b ? a : b", S, src)
    assert native.tobytes() == interp.tobytes()
    np.testing.assert_array_equal(native, numpy_reduce(src, mode, np.max, result_shape))


def tree(values, combine):
    """docs/coopmat2-semantics.md's pairwise tree on a Python list (the oracle)."""
    while len(values) > 1:
        pairs = [combine(values[2 * i], values[2 * i + 1]) for i in range(len(values) // 2)]
        values = pairs + values[len(values) // 2 * 2:]
    return values[0]


COMBINE_TYPES = [("char", np.int8), ("uchar", np.uint8), ("short", np.int16), ("int", np.int32),
                 ("long", np.int64), ("half", np.float16), ("double", np.float64)]


# The default run: every type once and every mode, the modes taken in turn; --all runs
# every type in every mode.
@pytest.mark.parametrize("T, dtype, mode", quick_or_slow(
    [(T, dtype, mode) for mode in MODES for T, dtype in COMBINE_TYPES],
    {(T, dtype, MODES[i % len(MODES)]) for i, (T, dtype) in enumerate(COMBINE_TYPES)}),
    ids=lambda v: MODE_IDS[MODES.index(v)] if v in MODES else None)
def test_an_order_sensitive_combine_in_every_type_follows_the_documented_tree(T, dtype, mode):
    """combine(a, b) = 3a - b is neither commutative nor associative: the operand order and
    the tree's shape show in every result; integers wrap as the user's function does."""
    R, C = 6, 16
    G = SUBGROUPS_PER_GROUP * GROUPS
    src = RNG.integers(-4, 5, (G, R, C)).astype(dtype)
    result_shape = RESULT_SHAPES[mode](R, C)[0]
    interp, native = reduce_on_both(T, dtype, R, C, mode, result_shape, f"({T})(({T})3 * a - b)", 16, src)
    assert native.tobytes() == interp.tobytes()
    if dtype in (np.float16, np.float64):
        return      # rounding of large values: the bit equality above is the check
    bits = np.dtype(dtype).itemsize * 8
    wrap = lambda v: (v + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1)) if np.dtype(dtype).kind == "i" \
        else v % (1 << bits)   # noqa: E731
    combine = lambda a, b: wrap(3 * a - b)    # noqa: E731
    x = src.astype(object)
    for g in range(G):
        if mode == ROW:
            expect = [[tree(list(x[g, r]), combine)] for r in range(R)]
        elif mode == COLUMN:
            expect = [[tree(list(x[g, :, c]), combine) for c in range(C)]]
        elif mode == BOTH:
            expect = [[tree(list(x[g].reshape(-1)), combine)]]
        else:
            expect = [[tree([x[g, 2 * r, 2 * c], x[g, 2 * r, 2 * c + 1], x[g, 2 * r + 1, 2 * c],
                             x[g, 2 * r + 1, 2 * c + 1]], combine) for c in range(C // 2)] for r in range(R // 2)]
        np.testing.assert_array_equal(native[g], np.broadcast_to(np.array(expect, dtype=np.int64).astype(dtype),
                                                                 result_shape))


def test_a_fault_in_a_combine_function_is_the_interpreters():
    """combine runs for the subgroup's first work-item (as the interpreter's lanes): an
    out-of-bounds write there is the same fault on both engines, the arrays untouched."""
    source = """
typedef float acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float col __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 1, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
global float *trap;
static float add(float a, float b) { if (a > 1e30f) *(global float *)0 = b; return a + b; }
kernel void k(global float *p) {
  acc m = coop_mat_load(p + get_sub_group_id() * 128, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  col r = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add);
  coop_mat_store(p + get_sub_group_id() * 128, r, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)1);
}
""".replace("global float *trap;\n", "")
    faults = []
    for engine in ("interp", "native"):
        p = np.ones(256, np.float32)
        p[128 + 5 * 16 + 2] = np.float32(2e30)       # sub-group 1, row 5
        before = p.copy()
        with pytest.raises(RuntimeFault) as fault:
            clcoop.Program(source).build(options=["-w", "-g"], engine=engine).k((32,), (32,), p, subgroup_size=16)
        assert p.tobytes() == before.tobytes()
        faults.append((str(fault.value), fault.value.work_item))
    assert faults[0] == faults[1]
    assert faults[1][1] == (16,)       # the first work-item of sub-group 1


CONVERSION_KERNEL = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef {S} src_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, {R}, {C}, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef {D} dst_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, {RR}, {RC}, {USE})));
kernel void k(global {S} *p, global {D} *q) {{
  size_t g = get_group_id(0) * get_num_sub_groups() + get_sub_group_id();
  src_t m = coop_mat_load(p + g * {R} * {C}, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t){C});
  dst_t r = {EXPR};
  coop_mat_store(q + g * {R} * {C}, r, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t){RC});
}}
"""
DTYPES = {"float": np.float32, "half": np.float16, "double": np.float64, "char": np.int8, "uchar": np.uint8,
          "short": np.int16, "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64}


def convert_on_both(S, src_type, dst_type, use, shape, transpose, values):
    R, C = shape
    RR, RC = (C, R) if transpose else (R, C)
    source = CONVERSION_KERNEL.format(S=src_type, D=dst_type, R=R, C=C, RR=RR, RC=RC, USE=USES[use],
                                      EXPR="coop_mat_transpose(m)" if transpose else "(dst_t)m")
    G = SUBGROUPS_PER_GROUP * GROUPS

    def launch(program):
        q = np.zeros(G * R * C, DTYPES[dst_type])
        program.k((G * S,), (SUBGROUPS_PER_GROUP * S,), values.reshape(-1), q, subgroup_size=S)
        return q.reshape(G, RR, RC)
    return on_both(source, launch)


def values_of(T, shape):
    G = SUBGROUPS_PER_GROUP * GROUPS
    dtype = DTYPES[T]
    if np.dtype(dtype).kind == "f":
        # Large and small magnitudes: roundings, half overflow to infinity, subnormals.
        x = RNG.standard_normal((G, *shape)) * 10.0 ** RNG.integers(-8, 8, (G, *shape))
        with np.errstate(over="ignore"):
            return x.astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, (G, *shape), endpoint=True, dtype=dtype)


CONVERSIONS = [
    ("float", "float", "a"), ("float", "float", "b"), ("int", "uint", "a"),            # ConvertNV: the use
    ("float", "half", "a"), ("float", "half", "accumulator"), ("half", "float", "b"),  # FConvert
    ("double", "float", "accumulator"), ("float", "double", "accumulator"),
    ("int", "char", "a"), ("char", "int", "accumulator"), ("uchar", "int", "b"),       # SConvert / UConvert
    ("long", "short", "accumulator"), ("short", "long", "accumulator")]


# The default run: every conversion once, the shapes (6 x 16 has padding) taken in turn;
# --all runs every conversion at both.
@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("src_type, dst_type, use, shape", quick_or_slow(
    [(*conversion, shape) for shape in [(8, 16), (6, 16)] for conversion in CONVERSIONS],
    {(*conversion, [(8, 16), (6, 16)][i % 2]) for i, conversion in enumerate(CONVERSIONS)}),
    ids=lambda v: f"{v[0]}x{v[1]}" if isinstance(v, tuple) else None)
def test_use_and_component_conversions_natively_match_the_interpreter(S, src_type, dst_type, use, shape):
    """Accumulator -> A/B (the layout changes, so values move between work-items) with or
    without a component type change, and component conversions of one use; NumPy's
    astype (an IEEE conversion; integer bits sign- or zero-extended or truncated) is the
    oracle. 6 x 16 has padding."""
    if use == "b" and shape == (6, 16):
        shape = (16, 16)
    x = values_of(src_type, shape)
    interp, native = convert_on_both(S, src_type, dst_type, use, shape, False, x)
    assert native.tobytes() == interp.tobytes()
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(native, x.astype(DTYPES[dst_type]))


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("T, use, shape", [("float", "b", (8, 16)), ("float", "a", (16, 8)), ("half", "b", (16, 16)),
                                           ("char", "a", (16, 32)), ("int", "b", (6, 16))])
def test_transpose_natively_matches_the_interpreter(S, T, use, shape):
    x = values_of(T, shape)
    interp, native = convert_on_both(S, T, T, use, shape, True, x)
    assert native.tobytes() == interp.tobytes()
    np.testing.assert_array_equal(native, x.transpose(0, 2, 1))


# The default run: FToS, FToU, SToF and UToF once each, with a narrow, a 32-bit and a 64-bit
# side among them; --all runs every pair.
@pytest.mark.parametrize("src_type, dst_type", quick_or_slow([
    ("float", "int"), ("float", "uint"), ("half", "char"), ("double", "long"), ("float", "uchar"),   # FToS/FToU
    ("int", "float"), ("uint", "float"), ("char", "double"), ("long", "float"), ("ulong", "double")],  # SToF/UToF
    {("half", "char"), ("float", "uint"), ("long", "float"), ("uint", "float")}))
def test_float_integer_conversions_natively_match_the_interpreter(src_type, dst_type):
    """Toward zero, NaN -> 0 and saturation to the result's range (scalars.float_to_int);
    integers rounded once to double, then to float (the interpreter's path)."""
    shape = (8, 16)
    G = SUBGROUPS_PER_GROUP * GROUPS
    dtype = DTYPES[src_type]
    if np.dtype(dtype).kind == "f":
        with np.errstate(over="ignore"):      # half: large values become infinities
            x = (RNG.standard_normal((G, *shape)) * 10.0 ** RNG.integers(0, 12, (G, *shape))).astype(dtype)
        x.reshape(-1)[:4] = [np.nan, np.inf, -np.inf, -0.5]
    else:
        x = values_of(src_type, shape)
    interp, native = convert_on_both(16, src_type, dst_type, "accumulator", shape, False, x)
    assert native.tobytes() == interp.tobytes()


def test_integer_to_half_conversions_still_fall_back_with_their_reason():
    source = CONVERSION_KERNEL.format(S="int", D="half", R=8, C=16, RR=8, RC=16, USE=USES["accumulator"],
                                      EXPR="(dst_t)m")
    p = RNG.integers(-3000, 3000, 4 * 128).astype(np.int32)
    q = np.zeros(4 * 128, np.float16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clcoop.Program(source).build(options=["-w"], engine="auto").k((64,), (32,), p, q, subgroup_size=16)
    reasons = [str(w.message) for w in caught if issubclass(w.category, NativeFallbackWarning)]
    assert reasons and "the cooperative-matrix conversion ConvertSToF from i32 to half" in reasons[0], reasons
    np.testing.assert_array_equal(q, p.astype(np.float16))


SCALED_KERNEL = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void k(global half *a, global half *out, float scale, int shift) {
  size_t g = get_group_id(0) * get_num_sub_groups() + get_sub_group_id();
  acc x = coop_mat_load(a + g * 128, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  x = x * (half)scale;                       // flash attention's Qf16 * (half)scale
  x = x * (half)(float)(shift * 3 + 1);      // arithmetic of kernel arguments
  coop_mat_store(out + g * 128, x, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


@pytest.mark.parametrize("options", [("-w",), ("-w", "-O0")])
def test_a_scalar_multiply_by_arithmetic_of_kernel_arguments_runs_natively(options):
    """The scalar is the same in every work-item when it is computed from kernel arguments
    and constants only (casts, arithmetic): natively, bit for bit, and as NumPy's half
    products."""
    a = RNG.standard_normal(4 * 128).astype(np.float16)

    def launch(program):
        out = np.zeros_like(a)
        program.k((64,), (32,), a, out, np.float32(0.3), np.int32(2), subgroup_size=16)
        return out
    interp, native = on_both(SCALED_KERNEL, launch, options)
    assert native.tobytes() == interp.tobytes()
    np.testing.assert_array_equal(native, (a * np.float16(0.3)) * np.float16(7))
