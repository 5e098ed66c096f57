"""clcoop/native/coop_ir.py: the generated mul-add against the interpreter's
coopmat.mul_add (the reference semantics), bit for bit, for the tile shapes and component
types of the examples, every signedness flag and saturation."""
import ctypes
import re

import numpy as np
import pytest

from clcoop.interp import coopmat
from clcoop.native import coop_ir
from clcoop.native.jit import Engine
from clcoop.native.support import Unsupported

LLVM_NAMES = {np.dtype(np.float16): "half", np.dtype(np.float32): "float", np.dtype(np.float64): "double",
              np.dtype(np.int8): "i8", np.dtype(np.uint8): "i8", np.dtype(np.int16): "i16",
              np.dtype(np.uint16): "i16", np.dtype(np.int32): "i32", np.dtype(np.uint32): "i32",
              np.dtype(np.int64): "i64", np.dtype(np.uint64): "i64"}


def native_mul_add(a, b, c, operands, result_dtype):
    m, k = a.shape
    n = b.shape[1]
    types = tuple(LLVM_NAMES[np.dtype(x)] for x in (a.dtype, b.dtype, c.dtype, result_dtype))
    engine = Engine(coop_ir.mul_add_ir("mad", m, n, k, types, operands).replace(
        "define internal void @mad", "define void @mad"))
    try:
        function = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 4)(engine.address("mad"))
        r = np.zeros((m, n), result_dtype)
        a, b, c = (np.ascontiguousarray(x) for x in (a, b, c))
        function(a.ctypes.data, b.ctypes.data, c.ctypes.data, r.ctypes.data)
        return r
    finally:
        engine.close()


def reference(a, b, c, operands, result_dtype):
    return coopmat.mul_add(a[None], b[None], c[None], operands, result_dtype)[0]


def assert_same_bits(x, y):
    assert x.dtype == y.dtype and x.shape == y.shape
    assert np.array_equal(x.view(f"u{x.dtype.itemsize}"), y.view(f"u{y.dtype.itemsize}"))


# (16, 8, 32), (8, 8, 64), (8, 4, 40): NumPy's sgemm sums these in 16 interleaved chains on
# AVX-512 OpenBLAS, (8, 16, 16) in 2 on AVX2 OpenBLAS: the interpreter's reference is the one
# fused chain whatever the host's BLAS (interp/fused_chain.py), so the routine matches it on
# every host. (8, 16, 6), (2, 16, 10): a k loop of one step per iteration
# (STEPS_PER_ITERATION does not divide k).
@pytest.mark.parametrize("m,n,k", [(8, 16, 16), (16, 16, 16), (8, 8, 8), (8, 16, 32), (4, 16, 256),
                                   (16, 8, 32), (8, 8, 64), (8, 4, 40), (16, 24, 32), (8, 16, 6), (2, 16, 10)])
@pytest.mark.parametrize("elem,acc", [(np.float32, np.float32), (np.float16, np.float32),
                                      (np.float16, np.float16), (np.float64, np.float64)])
def test_float_mul_add_is_the_interpreters_bit_for_bit(m, n, k, elem, acc):
    """Bit for bit as the interpreter for every shape, with operands whose magnitudes spread
    over 2^-20..2^20 (so that the sums round, and a product of float or double factors is
    inexact: only a fused step gives the reference's bits)."""
    rng = np.random.default_rng(m * 1000 + n * 10 + k)

    def draw(shape, dtype):
        return (rng.standard_normal(shape) * np.exp2(rng.integers(-20, 21, shape))).astype(dtype)
    if elem == np.float16:
        def draw(shape, dtype, draw=draw):
            return draw(shape, np.float32).clip(-60000, 60000).astype(dtype)
    a, b, c = draw((m, k), elem), draw((k, n), elem), draw((m, n), acc)
    assert_same_bits(native_mul_add(a, b, c, 0, acc), reference(a, b, c, 0, acc))


def test_float_specials_and_signed_zeros():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((8, 16)).astype(np.float32)
    b = rng.standard_normal((16, 16)).astype(np.float32)
    a[0, :] = -0.0                      # a row of -0 products: +0 + c, as BLAS with beta = 0
    a[1, 3] = np.inf
    b[2, 5] = -np.inf
    a[2, :] *= 1e30                     # overflow to inf
    c = rng.standard_normal((8, 16)).astype(np.float32)
    c[0, :4] = -0.0
    got, want = native_mul_add(a, b, c, 0, np.float32), reference(a, b, c, 0, np.float32)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    assert_same_bits(got[finite], want[finite])


INTEGER_CASES = [  # (a, b, c, result, operands)
    (np.int8, np.int8, np.int32, np.int32, 0b01111),
    (np.uint8, np.uint8, np.uint32, np.uint32, 0),
    (np.int8, np.uint8, np.int32, np.int32, 0b01101),
    (np.int8, np.int8, np.int32, np.int32, 0b11111),      # saturating, signed result
    (np.uint8, np.uint8, np.int8, np.uint8, 0b10000),     # saturating to uint8
    (np.int8, np.int8, np.int8, np.int8, 0b11111),
    (np.int16, np.int16, np.int32, np.int32, 0b00111),
    (np.int32, np.int32, np.int32, np.int32, 0b11111),    # saturating int32 (i128 inside)
    (np.int32, np.int32, np.int64, np.int64, 0b01111),    # wrapping int64
]


@pytest.mark.parametrize("ta,tb,tc,tr,operands", INTEGER_CASES)
def test_integer_mul_add_is_the_interpreters(ta, tb, tc, tr, operands):
    rng = np.random.default_rng(operands + 7)

    def draw(shape, t):
        info = np.iinfo(t)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=t)
    a, b, c = draw((8, 32), ta), draw((32, 16), tb), draw((8, 16), tc)
    assert_same_bits(native_mul_add(a, b, c, operands, tr), reference(a, b, c, operands, tr))


def test_saturation_reaches_both_bounds():
    a = np.full((4, 8), 127, np.int8)
    b = np.full((8, 4), 127, np.int8)
    b[:, 1] = -128
    c = np.zeros((4, 4), np.int8)
    got = native_mul_add(a, b, c, 0b11111, np.int8)
    assert got[0, 0] == 127 and got[0, 1] == -128
    assert_same_bits(got, reference(a, b, c, 0b11111, np.int8))


def test_what_is_not_generated_says_why():
    with pytest.raises(Unsupported, match="64-bit integers"):
        coop_ir.mul_add_ir("m", 8, 8, 8, ("i64", "i64", "i64", "i64"), 0b10000)
    with pytest.raises(Unsupported, match="mixes integer and floating-point"):
        coop_ir.mul_add_ir("m", 8, 8, 8, ("i8", "i8", "float", "float"), 0)


@pytest.mark.parametrize("elem,acc,operands", [(np.float32, np.float32, 0), (np.float16, np.float32, 0),
                                               (np.int8, np.int32, 15), (np.int8, np.int8, 31)])
def test_strided_mul_add_reads_rows_in_place(elem, acc, operands):
    """The subgroup fast path's interface: a and b rows read where a load found them
    (row strides in bytes), the same bits as the dense routine and the interpreter."""
    m, n, k = 8, 16, 16
    rng = np.random.default_rng(9)
    if np.dtype(elem).kind == "f":
        big_a = rng.standard_normal((m, 40)).astype(elem)
        big_b = rng.standard_normal((k, 24)).astype(elem)
        c = rng.standard_normal((m, n)).astype(acc)
    else:
        big_a = rng.integers(-128, 128, (m, 40)).astype(elem)
        big_b = rng.integers(-128, 128, (k, 24)).astype(elem)
        c = rng.integers(-100, 100, (m, n)).astype(acc)
    a, b = big_a[:, 3:3 + k], big_b[:, 5:5 + n]
    types = tuple(LLVM_NAMES[np.dtype(x)] for x in (elem, elem, acc, acc))
    engine = Engine(coop_ir.mul_add_ir("mad", m, n, k, types, operands, strided=True).replace(
        "define internal void @mad", "define void @mad"))
    try:
        ptr, i64 = ctypes.c_void_p, ctypes.c_int64
        function = ctypes.CFUNCTYPE(None, ptr, i64, ptr, i64, ptr, ptr)(engine.address("mad"))
        r = np.zeros((m, n), acc)
        function(a.ctypes.data, big_a.strides[0], b.ctypes.data, big_b.strides[0], c.ctypes.data, r.ctypes.data)
    finally:
        engine.close()
    assert_same_bits(r, reference(a, b, c, operands, np.dtype(acc)))
    assert_same_bits(r, native_mul_add(a, b, c, operands, np.dtype(acc)))


# The default run: two of the shapes (--all: four).
@pytest.mark.parametrize("m,n,k", [(8, 16, 16), (8, 8, 8), pytest.param(16, 16, 16, marks=pytest.mark.slow),
                                   pytest.param(8, 16, 32, marks=pytest.mark.slow)])
@pytest.mark.parametrize("a_columns,b_columns", [(False, True), (True, False), (True, True)])
@pytest.mark.parametrize("elem,acc,operands", [(np.float32, np.float32, 0), (np.float16, np.float32, 0),
                                               (np.float16, np.float16, 0), (np.int8, np.int32, 15)])
def test_mul_add_reads_operands_by_columns(m, n, k, a_columns, b_columns, elem, acc, operands):
    """A column-major load's tile read in place: a and/or b given by columns (column
    strides in bytes), square power-of-two b transposed at entry, other shapes gathered per
    row; the same bits as the interpreter."""
    rng = np.random.default_rng(m + n + k)
    if np.dtype(elem).kind == "f":
        a = rng.standard_normal((m, k)).astype(elem)
        b = rng.standard_normal((k, n)).astype(elem)
        c = rng.standard_normal((m, n)).astype(acc)
    else:
        a = rng.integers(-128, 128, (m, k)).astype(elem)
        b = rng.integers(-128, 128, (k, n)).astype(elem)
        c = rng.integers(-100, 100, (m, n)).astype(acc)
    # Each operand inside a wider buffer, by rows or by columns (columns: the rows of a
    # column-major buffer).
    big_a = np.zeros((k, m + 7) if a_columns else (m, k + 7), elem)
    big_b = np.zeros((n, k + 5) if b_columns else (k, n + 5), elem)
    if a_columns:
        big_a[:, 2:2 + m] = a.T
    else:
        big_a[:, 2:2 + k] = a
    if b_columns:
        big_b[:, 3:3 + k] = b.T
    else:
        big_b[:, 3:3 + n] = b
    types = tuple(LLVM_NAMES[np.dtype(x)] for x in (elem, elem, acc, acc))
    source = coop_ir.mul_add_ir("mad", m, n, k, types, operands, strided=True, columns=(a_columns, b_columns))
    engine = Engine(source.replace("define internal void @mad", "define void @mad"))
    try:
        ptr, i64 = ctypes.c_void_p, ctypes.c_int64
        function = ctypes.CFUNCTYPE(None, ptr, i64, ptr, i64, ptr, ptr)(engine.address("mad"))
        r = np.zeros((m, n), acc)
        function(big_a[:, 2:].ctypes.data, big_a.strides[0], big_b[:, 3:].ctypes.data, big_b.strides[0],
                 c.ctypes.data, r.ctypes.data)
    finally:
        engine.close()
    assert_same_bits(r, reference(a, b, c, operands, np.dtype(acc)))


@pytest.mark.parametrize("ta,tb,operands", [(np.int8, np.int8, 0b01111), (np.uint8, np.uint8, 0b01000),
                                            (np.int8, np.uint8, 0b01101), (np.uint8, np.int8, 0b01110)])
@pytest.mark.parametrize("fill", ["random", "extremes"])
def test_eight_bit_operands_are_summed_two_steps_at_a_time(ta, tb, operands, fill):
    """8-bit a and b, sums modulo 2^32: two k steps per instruction (adjacent products
    summed in pairs, pmaddwd / vpdpwssd). The same bits as the interpreter's step-by-step
    sums, at the extremes too (-128 * -128 and 255 * 255 pairs)."""
    rng = np.random.default_rng(11)
    m, n, k = 8, 16, 32

    def draw(shape, t):
        info = np.iinfo(t)
        if fill == "extremes":
            return rng.choice(np.array([info.min, info.max], t), size=shape)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=t)
    a, b, c = draw((m, k), ta), draw((k, n), tb), draw((m, n), np.int32)
    types = tuple(LLVM_NAMES[np.dtype(x)] for x in (ta, tb, np.int32, np.int32))
    assert "%bw = shufflevector" in coop_ir.mul_add_ir("mad", m, n, k, types, operands)
    assert_same_bits(native_mul_add(a, b, c, operands, np.int32), reference(a, b, c, operands, np.int32))


def test_pairs_are_not_used_where_the_order_or_the_width_matters():
    # Saturating sums, 16-bit operands, an odd k, b gathered by columns: one step at a time.
    for types, operands, k, columns in ((("i8", "i8", "i32", "i32"), 0b11111, 32, (False, False)),
                                        (("i16", "i16", "i32", "i32"), 0b00111, 32, (False, False)),
                                        (("i8", "i8", "i32", "i32"), 0b01111, 7, (False, False)),
                                        (("i8", "i8", "i32", "i32"), 0b01111, 32, (False, True))):
        text = coop_ir.mul_add_ir("mad", 8, 16, k, types, operands, strided=columns[1], columns=columns)
        assert "%bw = shufflevector" not in text


def test_a_routine_is_built_once_per_process_and_named_per_caller():
    """mul_add_ir builds a shape's routine once (building it with llvmlite costs milliseconds)
    and gives each caller's copy its own name: only the define line differs."""
    from clcoop.native import coop_ir
    types = ("float", "float", "float", "float")
    first = coop_ir.mul_add_ir("__clcoop_mad.0", 8, 16, 16, types)
    hits = coop_ir._routine_text.cache_info().hits
    second = coop_ir.mul_add_ir("__clcoop_mad.5", 8, 16, 16, types)
    assert coop_ir._routine_text.cache_info().hits == hits + 1
    assert first.splitlines()[0].startswith("define internal void @__clcoop_mad.0(")
    assert second.splitlines()[0].startswith("define internal void @__clcoop_mad.5(")
    assert first.splitlines()[1:] == second.splitlines()[1:]


def test_the_k_loop_takes_four_steps_per_iteration_rows_interleaved():
    """coop_ir.STEPS_PER_ITERATION: an iteration of the loop is 4 k steps, each
    step's m row FMAs before the next step's (the chains interleaved, each in k order), so
    the rows' addresses are formed once per 4 steps, not per step (docs/performance.md)."""
    text = coop_ir.mul_add_ir("m", 8, 16, 16, ("float",) * 4, strided=True)
    loop = text[text.index("kloop:"):text.index("finish:")]
    fmas = re.findall(r"%\"?(acc\d+\.n[.\d]*)\"? = call <16 x float> @llvm\.fma\.v16f32\(.*, <16 x float> %\"?([\w.]+)", loop)
    assert [name for name, _ in fmas] == [f"acc{i}.n{f'.{j}' if j else ''}" for j in range(4) for i in range(8)]
    # Each FMA adds to its row's previous step: the chain of a row is in k order.
    assert [acc for _, acc in fmas] == [f"acc{i}" if j == 0 else f"acc{i}.n{f'.{j - 1}' if j > 1 else ''}"
                                        for j in range(4) for i in range(8)]
    assert re.search(r"%\"?kk\.next\"? = add i64 %\"?kk\"?, 4", loop)


def test_a_rows_are_read_from_registers_not_indexed_addresses():
    """coop_ir._a_rows_of_iteration: the strided routine's broadcasts of a's elements address
    them as disp(register), never base + index (un-laminated on Intel cores): FMAs with an
    embedded broadcast on AVX-512 hosts, vbroadcastss loads on AVX2 ones."""
    import llvmlite.binding as llvm
    from clcoop.native import jit
    jit.ensure_llvm()
    text = coop_ir.mul_add_ir("mad", 8, 16, 16, ("float",) * 4, strided=True).replace(
        "define internal void @mad", "define void @mad")
    module = llvm.parse_assembly(text)
    jit.optimize_module(module, jit.host_target_machine(), 3)
    asm = jit.host_target_machine().emit_assembly(module)
    lines = asm.splitlines()
    broadcasts = [line for line in lines if re.match(r"\s*vfmadd\d+ps\s", line) and "{1to" in line] or \
        [line for line in lines if re.match(r"\s*vbroadcastss\s+[^%]*\(", line)]
    assert len(broadcasts) >= 8 * coop_ir.STEPS_PER_ITERATION       # the loop's body at least
    assert [line for line in broadcasts if re.search(r"\(%\w+,%\w+", line)] == []
