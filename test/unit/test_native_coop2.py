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
from test_coop_function_ops import (COORD_KERNEL, GROUPS, MODE_NAMES, PER_ELEMENT_KERNEL, REDUCE_KERNEL, ROW,
                                    SUBGROUPS_PER_GROUP, USES, holder_of_elements, layout_json)

RNG = np.random.default_rng(2929)


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


@pytest.mark.parametrize("S", [8, 16, 32])
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


@pytest.mark.parametrize("S", [8, 16, 32])
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


def test_reductions_still_fall_back_with_their_reason():
    source = REDUCE_KERNEL.format(T="float", R=8, C=16, RR=8, RC=1, MODE=MODE_NAMES[ROW], OP="a + b")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        program = clcoop.Program(source).build(options=["-w"], engine="auto")
        program.k((32,), (32,), np.zeros(256, np.float32), np.zeros(16, np.float32), subgroup_size=16)
    reasons = [str(w.message) for w in caught if issubclass(w.category, NativeFallbackWarning)]
    assert reasons and "CooperativeMatrixReduceNV is not compiled natively yet" in reasons[0], reasons
