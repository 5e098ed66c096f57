"""cl_khr_extended_bit_ops on the native engine (clcoop/native/bit_ops_ir.py): the
interpreter test's kernel (test_extended_bit_ops.py) for every integer type, natively without
fallback on both paths (clang-22 -O0 IR keeps private variables: the per-work-item path;
clcoop's IR and clang -O2: the subgroup-wide path), bit-identical to the interpreter and
equal to the Python-integer oracle; vector insert/extract; a field past the width faults
with the interpreter's words, in the same work-item."""
import warnings

import numpy as np
import pytest

import clcoop
import test_extended_bit_ops as interp_test
from clcoop.native.support import NativeFallbackWarning
from interp_helpers import clang_ir_text
from quick_cases import quick_or_slow


def programs(source, producer):
    """(native, interpreter) programs of `source`; no fallback."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeFallbackWarning)
        if producer == "clcoop":
            return clcoop.Program(source).build(engine="native"), clcoop.Program(source).build(engine="interp")
        ir = clang_ir_text(source, opt=int(producer[-1]))
        return clcoop.Program.from_ir(ir, engine="native"), clcoop.Program.from_ir(ir, engine="interp")


PRODUCERS = [("clcoop", "subgroup"), ("clang-O0", "work-item"), ("clang-O2", "subgroup")]
# The default run keeps each producer (and so each path) once, with one narrow, one 32-bit
# and one 64-bit type; --all runs every type with every producer.
QUICK_TYPES = {"uchar": "clang-O0", "int": "clcoop", "ulong": "clang-O2"}


@pytest.mark.parametrize("t, producer, path", quick_or_slow(
    [(t, producer, path) for producer, path in PRODUCERS for t in interp_test.TYPES],
    {(t, producer, path) for t, p in QUICK_TYPES.items() for producer, path in PRODUCERS if producer == p}))
def test_every_integer_type_bit_identical(t, producer, path, monkeypatch):
    dtype = interp_test.TYPES[t]
    width = np.dtype(dtype).itemsize * 8
    native, interp = programs(interp_test.source(t), producer)
    assert native.k.engine == "native" and native.k.fallback_reason is None
    assert native._native.execution_mode("k", 16) == path
    monkeypatch.setattr(interp_test, "RNG", np.random.default_rng(width))
    (a, b, off, cnt, v), got = interp_test.run(native, dtype)
    monkeypatch.setattr(interp_test, "RNG", np.random.default_rng(width))
    _, want = interp_test.run(interp, dtype)
    for g, w in zip(got, want):
        assert g.tobytes() == w.tobytes()
    wrap = lambda xs: np.array([x & ((1 << width) - 1) for x in xs], np.uint64).astype(dtype)   # noqa: E731
    for g, e in zip(got[:4], interp_test.oracle(a, b, off, cnt, width)):
        np.testing.assert_array_equal(g, wrap(e))


VECTORS = """
kernel void k(global {t}{n} *a, global {t}{n} *b, global uint *off, global uint *cnt, global {t}{n} *ins,
              global {t}{n} *xs, global {t}{n} *xu) {{
  size_t i = get_global_id(0);
  ins[i] = bitfield_insert(a[i], b[i], off[i], cnt[i]);
  xs[i] = as_{t}{n}(bitfield_extract_signed(a[i], off[i], cnt[i]));
  xu[i] = as_{t}{n}(bitfield_extract_unsigned(a[i], off[i], cnt[i]));
}}
"""


# The default run: a 3-vector (its poison fourth component) and a 64-bit 8-vector, each
# producer once; --all runs every vector type with both.
@pytest.mark.parametrize("t, n, producer", quick_or_slow(
    [(t, n, producer) for producer in ("clcoop", "clang-O0") for t, n in
     [("uchar", 16), ("short", 3), ("int", 4), ("ulong", 8)]],
    {("short", 3, "clcoop"), ("ulong", 8, "clang-O0")}))
def test_vector_fields(t, n, producer):
    """One offset and count for every component (the interpreter test has vector
    bit_reverse only)."""
    dtype = interp_test.TYPES[t]
    width = np.dtype(dtype).itemsize * 8
    native, interp = programs(VECTORS.format(t=t, n=n), producer)
    assert native.k.engine == "native" and native.k.fallback_reason is None
    rng = np.random.default_rng(width + n)
    N, lanes = 64, 4 if n == 3 else n
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, (N, lanes), dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, (N, lanes), dtype=dtype, endpoint=True)
    cnt = rng.integers(0, width + 1, N).astype(np.uint32)
    off = (rng.integers(0, 1 << 16, N) % (width - cnt + 1)).astype(np.uint32)
    cnt[:3], off[:3] = [0, width, 1], [width, 0, width - 1]
    outs = []
    for program in (native, interp):
        res = [np.zeros((N, lanes), dtype) for _ in range(3)]
        program.k((N,), (16,), a, b, off, cnt, *res)
        outs.append(res)
    for g, w in zip(*outs):
        # (a 3-vector's fourth component: clang stores it as poison)
        assert g[:, :n].tobytes() == w[:, :n].tobytes()
    ins, _, ext_s, ext_u = interp_test.oracle(a[:, :n].reshape(-1), b[:, :n].reshape(-1), np.repeat(off, n),
                                              np.repeat(cnt, n), width)
    wrap = lambda xs: np.array([x & ((1 << width) - 1) for x in xs], np.uint64).astype(dtype)   # noqa: E731
    np.testing.assert_array_equal(outs[0][0][:, :n].reshape(-1), wrap(ins))
    np.testing.assert_array_equal(outs[0][1][:, :n].reshape(-1), wrap(ext_s))
    np.testing.assert_array_equal(outs[0][2][:, :n].reshape(-1), wrap(ext_u))


FAULT = """kernel void k(global {t} *o, global uint *c) {{
  size_t i = get_global_id(0);
  o[i] = bitfield_insert(o[i], o[i + 1], 29u, c[i]);
}}"""


# The default run: each producer once, the vector form on the per-work-item path (clang
# -O0); --all runs both forms with every producer.
@pytest.mark.parametrize("t, producer", quick_or_slow(
    [(t, producer) for producer in ("clcoop", "clang-O0", "clang-O2") for t in ("int", "int4")],
    {("int", "clcoop"), ("int4", "clang-O0"), ("int", "clang-O2")}))
def test_a_field_past_the_width_faults_as_in_the_interpreter(t, producer):
    """Work-item 4's field (29 + 4 > 32) faults: the same words and work-item on both
    engines (the interpreter, which runs the call again for the lanes before the faulting
    one, looped on that lane's field before)."""
    native, interp = programs(FAULT.format(t=t), producer)
    assert native.k.engine == "native"
    messages = []
    for program in (native, interp):
        o = np.zeros((9, 4) if t == "int4" else 9, np.int32)
        with pytest.raises(clcoop.RuntimeFault, match=r"bitfield_insert: offset 29 \+ count 4 exceeds the 32 bits "
                                                      r"of the type \(undefined in cl_khr_extended_bit_ops\)") as info:
            program.k((8,), (8,), o, np.array([0, 1, 2, 3, 4, 5, 3, 3], np.uint32))
        assert info.value.work_item == (4,)
        messages.append(str(info.value).splitlines()[:2])
    assert messages[0] == messages[1]


def test_under_a_lane_varying_branch():
    """A bit op under a branch that differs between lanes (with its guard, the field is
    never past the width): native, on the per-work-item path."""
    source = """kernel void k(global const uint *x, global const uint *c, global int *o) {
      size_t i = get_global_id(0);
      int r = 0;
      if (c[i] <= 24u) r = bitfield_extract_signed((int)x[i], 8u, c[i]) + (int)bit_reverse(x[i]);
      o[i] = r;
    }"""
    native, interp = programs(source, "clcoop")
    assert native.k.engine == "native" and native.k.fallback_reason is None
    rng = np.random.default_rng(1)
    x = rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    c = rng.integers(0, 40, 64).astype(np.uint32)
    outs = []
    for program in (native, interp):
        o = np.zeros(64, np.int32)
        program.k((64,), (16,), x, c, o)
        outs.append(o)
    assert outs[0].tobytes() == outs[1].tobytes()
    assert (outs[0][c > 24] == 0).all()


def test_the_interpreter_tests_fault_kernel():
    source = "kernel void k(global int *o) { o[0] = bitfield_extract_signed(o[1], 30u, 3u); }"
    native, interp = programs(source, "clcoop")
    assert native.k.engine == "native" and native.k.fallback_reason is None
    messages = []
    for program in (native, interp):
        with pytest.raises(clcoop.RuntimeFault, match="offset 30 \\+ count 3 exceeds the 32 bits") as info:
            program.k((1,), (1,), np.zeros(2, np.int32))
        messages.append(str(info.value))
    assert messages[0] == messages[1]
