"""coop_mat_reduce, coop_mat_per_element and coop_mat_get_coord end to end: OpenCL C compiled
by clcoop, run by the interpreter, checked against NumPy (and clcoop-layout for coordinates);
SPIR-V of function operands and GetCoordinateEXT; the native engine takes them."""
import contextlib
import io
import json
import warnings

import numpy as np
import pytest

import clcoop
from clcoop.cli import layout_main
from clcoop.errors import RuntimeFault
from clcoop.native.support import NativeFallbackWarning

RNG = np.random.default_rng(1313)
ROW, COLUMN, BOTH, TWO_BY_TWO = 1, 2, 3, 4
MODE_NAMES = {ROW: "CLK_COOPERATIVE_MATRIX_REDUCE_ROW", COLUMN: "CLK_COOPERATIVE_MATRIX_REDUCE_COLUMN",
              BOTH: "CLK_COOPERATIVE_MATRIX_REDUCE_ROW | CLK_COOPERATIVE_MATRIX_REDUCE_COLUMN",
              TWO_BY_TWO: "CLK_COOPERATIVE_MATRIX_REDUCE_2X2"}
SUBGROUPS_PER_GROUP, GROUPS = 2, 2

REDUCE_KERNEL = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef {T} in_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, {R}, {C}, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef {T} out_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, {RR}, {RC}, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
static {T} combine({T} a, {T} b) {{ return {OP}; }}
kernel void k(global {T} *src, global {T} *dst) {{
  size_t g = get_group_id(0) * get_num_sub_groups() + get_sub_group_id();
  in_t m = coop_mat_load(src + g * {R} * {C}, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t){C});
  out_t r = coop_mat_reduce(m, {MODE}, combine);
  coop_mat_store(dst + g * {RR} * {RC}, r, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t){RC});
}}
"""
OPS = {"sum": ("a + b", np.sum), "max": ("a > b ? a : b", np.max), "min": ("a < b ? a : b", np.min)}


def numpy_reduce(x, mode, reducer, result_shape):
    """The oracle: NumPy's reduction of each row / column / matrix / 2x2 neighbourhood."""
    G, R, C = x.shape
    if mode == ROW:
        values = reducer(x, axis=2)[:, :, None]
    elif mode == COLUMN:
        values = reducer(x, axis=1)[:, None, :]
    elif mode == BOTH:
        values = reducer(x.reshape(G, -1), axis=1)[:, None, None]
    else:
        values = reducer(x.reshape(G, R // 2, 2, C // 2, 2), axis=(2, 4))
    return np.broadcast_to(values, (G,) + tuple(result_shape))


def run_reduce(T, dtype, R, C, mode, result_shape, op, S, src, options=()):
    RR, RC = result_shape
    source = REDUCE_KERNEL.format(T=T, R=R, C=C, RR=RR, RC=RC, MODE=MODE_NAMES[mode], OP=OPS[op][0])
    program = clcoop.Program(source).build(options=["-w", *options])
    G = SUBGROUPS_PER_GROUP * GROUPS
    dst = np.zeros(G * RR * RC, dtype)
    program.k((G * S,), (SUBGROUPS_PER_GROUP * S,), src, dst, subgroup_size=S)
    return dst.reshape(G, RR, RC)


SHAPES = [(8, 16), (16, 16), (8, 32), (4, 8)]
RESULT_SHAPES = {  # per mode: result shapes the mode allows, from the source shape
    ROW: lambda R, C: [(R, 1), (R, C), (R, 2 * C)],
    COLUMN: lambda R, C: [(1, C), (R, C)],
    BOTH: lambda R, C: [(1, 1), (R, C)],
    TWO_BY_TWO: lambda R, C: [(R // 2, C // 2)],
}


@pytest.mark.parametrize("S", [8, 16, 32])
@pytest.mark.parametrize("mode", [ROW, COLUMN, BOTH, TWO_BY_TWO], ids=["row", "column", "both", "2x2"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_float_sum_and_max_every_mode_match_numpy(S, mode, shape):
    R, C = shape
    G = SUBGROUPS_PER_GROUP * GROUPS
    src = RNG.standard_normal((G, R, C)).astype(np.float32)
    for result_shape in RESULT_SHAPES[mode](R, C):
        got = run_reduce("float", np.float32, R, C, mode, result_shape, "sum", S, src.reshape(-1))
        np.testing.assert_allclose(got, numpy_reduce(src.astype(np.float64), mode, np.sum, result_shape),
                                   rtol=1e-5, atol=1e-5)
    got = run_reduce("float", np.float32, R, C, mode, RESULT_SHAPES[mode](R, C)[0], "max", S, src.reshape(-1))
    np.testing.assert_array_equal(got, numpy_reduce(src, mode, np.max, RESULT_SHAPES[mode](R, C)[0]))


@pytest.mark.parametrize("S", [8, 16, 32])
@pytest.mark.parametrize("T, dtype", [("char", np.int8), ("uchar", np.uint8), ("short", np.int16),
                                      ("int", np.int32), ("uint", np.uint32), ("long", np.int64),
                                      ("half", np.float16), ("double", np.float64)])
@pytest.mark.parametrize("mode", [ROW, COLUMN, BOTH, TWO_BY_TWO], ids=["row", "column", "both", "2x2"])
def test_any_component_type(S, T, dtype, mode):
    """Integers too (SPIR-V and EXT allow them): a char sum wraps as the user's function does."""
    R, C = 8, 16
    G = SUBGROUPS_PER_GROUP * GROUPS
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    if info is not None:
        src = RNG.integers(max(info.min, -100), min(info.max, 100), (G, R, C), endpoint=True).astype(dtype)
    else:
        src = RNG.integers(-8, 8, (G, R, C)).astype(dtype)        # exact in half: sums are small integers
    result_shape = RESULT_SHAPES[mode](R, C)[0]
    got = run_reduce(T, dtype, R, C, mode, result_shape, "sum", S, src.reshape(-1))
    wrapped = numpy_reduce(src.astype(np.int64 if info is not None else np.float64), mode, np.sum, result_shape)
    np.testing.assert_array_equal(got, wrapped.astype(dtype))
    got = run_reduce(T, dtype, R, C, mode, result_shape, "min", S, src.reshape(-1))
    np.testing.assert_array_equal(got, numpy_reduce(src, mode, np.min, result_shape))


def test_char_sum_wraps():
    src = np.full((SUBGROUPS_PER_GROUP * GROUPS, 8, 16), 100, np.int8)
    got = run_reduce("char", np.int8, 8, 16, ROW, (8, 1), "sum", 16, src.reshape(-1))
    assert (got == np.int8(np.int64(1600).astype(np.int8))).all()       # 1600 mod 256 = 64


@pytest.mark.parametrize("options", [[], ["-cl-opt-disable"]], ids=["O2", "O0"])
def test_results_do_not_depend_on_batching(options):
    """A float sum reduced in the fixed pairwise order: bit-identical with one subgroup at a time."""
    R, C, S = 8, 16, 16
    src = RNG.standard_normal(SUBGROUPS_PER_GROUP * GROUPS * R * C).astype(np.float32)
    source = REDUCE_KERNEL.format(T="float", R=R, C=C, RR=1, RC=1, MODE=MODE_NAMES[BOTH], OP="a + b")
    program = clcoop.Program(source).build(options=["-w", *options])
    outputs = []
    for serial in (False, True):
        dst = np.zeros(SUBGROUPS_PER_GROUP * GROUPS, np.float32)
        program.k((SUBGROUPS_PER_GROUP * GROUPS * S,), (SUBGROUPS_PER_GROUP * S,), src, dst,
                  subgroup_size=S, serial_subgroups=serial)
        outputs.append(dst)
    np.testing.assert_array_equal(outputs[0], outputs[1])


CONTEXTS = """
typedef float acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float col __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 1, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
static float add(float a, float b) { return a + b; }
static col rows(acc m) { return coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add); }
static void put(global float *p, col c) { coop_mat_store(p, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)1); }
kernel void k(global float *p) {
  acc m = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  col c;
  c = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add);
  put(p + 128, coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add));
  put(p + 136, (col)coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add));
  put(p + 144, rows(m));
  put(p + 152, c);
}
"""


def test_reduce_takes_its_type_from_every_context_load_does():
    """Assignment, argument of a user function, cast, return: like coop_mat_load."""
    data = np.zeros(160, np.float32)
    data[:128] = RNG.standard_normal(128).astype(np.float32)
    expected = data[:128].astype(np.float64).reshape(8, 16).sum(axis=1)
    clcoop.Program(CONTEXTS).build(options=["-w"]).k((16,), (16,), data, subgroup_size=16)
    np.testing.assert_allclose(data[128:].reshape(4, 8), np.broadcast_to(expected, (4, 8)), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- per-element functions

PER_ELEMENT_KERNEL = """
typedef float acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, {R}, {C}, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
static float affine(uint row, uint col, float x, float scale, float y, global int *owner, int tag) {{
  owner[row * {C} + col + get_sub_group_id() * {R} * {C}] = (int)get_sub_group_local_id() + tag;
  return x * scale + y + (float)(row * 1000 + col);
}}
kernel void k(global float *a, global float *b, global float *out, global int *owner, float scale) {{
  size_t g = get_group_id(0) * get_num_sub_groups() + get_sub_group_id();
  acc x = coop_mat_load(a + g * {R} * {C}, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t){C});
  acc y = coop_mat_load(b + g * {R} * {C}, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t){C});
  acc r = coop_mat_per_element(x, affine, scale, y, owner + get_group_id(0) * get_num_sub_groups() * {R} * {C},
                               (int)get_group_id(0) * 100);
  coop_mat_store(out + g * {R} * {C}, r, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t){C});
}}
"""


def holder_of_elements(R, C, S):
    """Subgroup-local id of the work-item holding each element, from clcoop-layout --json."""
    layout = layout_json(R, C, S)
    holder = np.full((R, C), -1)
    for item, slots in enumerate(layout["work_items"]):
        for slot in slots:
            if slot is not None:
                holder[slot[0], slot[1]] = item
    return holder


def layout_json(R, C, S, use="accumulator", T="float"):
    """What `clcoop-layout --json` prints."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert layout_main.main(["--rows", str(R), "--cols", str(C), "--subgroup-size", str(S), "--json",
                                 "--use", use, "--type", T]) == 0
    return json.loads(buffer.getvalue())


@pytest.mark.parametrize("options", [[], ["-cl-opt-disable"]], ids=["O2", "O0"])
@pytest.mark.parametrize("S", [8, 16, 32])
@pytest.mark.parametrize("shape", [(8, 16), (16, 8), (6, 16)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_per_element_scalar_and_matrix_extras_and_memory_writes(S, shape, options):
    R, C = shape
    G = SUBGROUPS_PER_GROUP * GROUPS
    a = RNG.standard_normal((G, R, C)).astype(np.float32)
    b = RNG.standard_normal((G, R, C)).astype(np.float32)
    out = np.zeros_like(a)
    owner = np.full((G, R, C), -1, np.int32)
    program = clcoop.Program(PER_ELEMENT_KERNEL.format(R=R, C=C)).build(options=["-w", *options])
    program.k((G * S,), (SUBGROUPS_PER_GROUP * S,), a, b, out, owner, np.float32(0.5), subgroup_size=S)
    rows, cols = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    expected = (a * np.float32(0.5) + b) + (rows * 1000 + cols).astype(np.float32)
    np.testing.assert_array_equal(out, expected)
    # Each element ran once, in the work-item that holds it (as clcoop-layout shows).
    group_tag = (np.arange(G) // SUBGROUPS_PER_GROUP * 100)[:, None, None]
    np.testing.assert_array_equal(owner, holder_of_elements(R, C, S)[None] + group_tag)


def test_per_element_integer_matrix():
    source = """
typedef uchar m8 __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
static uchar relu_shift(uint r, uint c, uchar x, uchar other) { return x > 128 ? (uchar)(x + other) : (uchar)0; }
kernel void k(global uchar *p, global uchar *q) {
  m8 x = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  m8 y = coop_mat_load(q, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(p, coop_mat_per_element(x, relu_shift, y), CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""
    p = RNG.integers(0, 256, 128).astype(np.uint8)
    q = RNG.integers(0, 256, 128).astype(np.uint8)
    expected = np.where(p > 128, (p.astype(np.int64) + q) % 256, 0).astype(np.uint8)
    clcoop.Program(source).build(options=["-w"]).k((16,), (16,), p, q, subgroup_size=16)
    np.testing.assert_array_equal(p, expected)


# ---------------------------------------------------------------- coordinates

COORD_KERNEL = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef {T} mat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, {R}, {C}, {USE})));
kernel void k(global {T} *p, global uint *coords) {{
  mat m = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t){C});
  uint n = coop_mat_length(m);
  for (uint i = 0; i < n; i++) {{
    uint2 rc = coop_mat_get_coord(m, i);
    coords[(get_local_id(0) * n + i) * 2] = rc.x;
    coords[(get_local_id(0) * n + i) * 2 + 1] = rc.y;
  }}
}}
"""
USES = {"a": "CLK_COOPERATIVE_MATRIX_A", "b": "CLK_COOPERATIVE_MATRIX_B", "accumulator": "CLK_COOPERATIVE_MATRIX_ACCUMULATOR"}


@pytest.mark.parametrize("S", [8, 16, 32])
@pytest.mark.parametrize("T, use, R, C", [("float", "accumulator", 8, 16), ("float", "accumulator", 3, 4),
                                          ("char", "a", 8, 32), ("half", "b", 16, 16), ("char", "b", 32, 16),
                                          ("int", "accumulator", 16, 8)])
def test_get_coord_agrees_with_clcoop_layout(S, T, use, R, C):
    layout = layout_json(R, C, S, use, T)
    V = layout["length"]
    coords = np.zeros(S * V * 2, np.uint32)
    program = clcoop.Program(COORD_KERNEL.format(T=T, R=R, C=C, USE=USES[use])).build(options=["-w"])
    dtype = {"float": np.float32, "char": np.int8, "half": np.float16, "int": np.int32}[T]
    program.k((S,), (S,), np.zeros(R * C, dtype), coords, subgroup_size=S)
    expected = [[slot if slot is not None else [R, C] for slot in slots] for slots in layout["work_items"]]
    np.testing.assert_array_equal(coords.reshape(S, V, 2), np.array(expected))


def test_get_coord_index_outside_the_matrix_is_a_fault():
    source = COORD_KERNEL.format(T="float", R=8, C=16, USE=USES["accumulator"]).replace("i < n", "i <= n")
    program = clcoop.Program(source).build(options=["-w"])
    with pytest.raises(RuntimeFault, match="coop_mat_get_coord index 8 is outside the matrix's 8 components"):
        program.k((16,), (16,), np.zeros(128, np.float32), np.zeros(16 * 9 * 2, np.uint32), subgroup_size=16)


# ---------------------------------------------------------------- native engine

def test_native_engine_runs_reductions_without_falling_back():
    """(Reductions, per-element functions and coordinates run natively since issue 29:
    test_native_coop2.py compares the engines bit for bit.)"""
    source = REDUCE_KERNEL.format(T="float", R=8, C=16, RR=8, RC=1, MODE=MODE_NAMES[ROW], OP="a + b")
    src = RNG.standard_normal(4 * 128).astype(np.float32)
    dst = np.zeros(4 * 8, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeFallbackWarning)
        program = clcoop.Program(source).build(options=["-w"], engine="auto")
        program.k((64,), (32,), src, dst, subgroup_size=16)
    assert program.k.engine == "native"
    np.testing.assert_allclose(dst.reshape(4, 8), src.reshape(4, 8, 16).sum(axis=2), rtol=1e-5, atol=1e-5)


def test_fault_in_a_per_element_function_names_the_work_item_holding_the_element():
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
    with pytest.raises(RuntimeFault) as fault:
        clcoop.Program(source).build(options=["-w", "-g"]).k((32,), (32,), np.zeros(128, np.float32),
                                                            subgroup_size=16)
    assert fault.value.work_item == (holder,)
    assert "out-of-bounds write" in str(fault.value) and "out[100000] = x;" in str(fault.value)
