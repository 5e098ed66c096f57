"""Float max and min (clcoop/interp/float_order.py): fmax, fmin, max, min, clamp (OpenCL C
3.0 6.15.2, 6.15.4) and LLVM's maxnum/minnum/maximum/minimum give one answer for every pair,
-0.0 < +0.0, whatever the number of work-items run together (NumPy's own fmax chose between
the zeros by the array's length); clamp is fmin(fmax(x, minval), maxval) as the
specification defines it; vector overloads with a scalar operand (max(float4, float)) work
(they raised a NumPy ValueError). The native engine gives the same bits."""
import numpy as np
import pytest

import clcoop

TYPES = {"half": np.float16, "float": np.float32, "double": np.float64}


def fmax(a, b):        # the rule, written out: NaN loses, then the larger, then +0 over -0
    if np.isnan(b):
        return a
    if np.isnan(a):
        return b
    if a == b:
        return b if np.signbit(a) else a
    return a if a > b else b


def fmin(a, b):
    if np.isnan(b):
        return a
    if np.isnan(a):
        return b
    if a == b:
        return a if np.signbit(a) else b
    return a if a < b else b


def pairs(dtype):
    values = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.5, -7.0], dtype)
    return np.repeat(values, values.size), np.tile(values, values.size)


SCALAR = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void k(__global const REAL *a, __global const REAL *b, __global REAL *o) {
    size_t i = get_global_id(0), n = get_global_size(0);
    REAL x = a[i], y = b[i];
    o[i] = fmax(x, y); o[n + i] = fmin(x, y); o[2 * n + i] = max(x, y); o[3 * n + i] = min(x, y);
    o[4 * n + i] = clamp(x, y, (REAL)1.0f); o[5 * n + i] = mad(x, y, (REAL)0.5f);
}"""


def expected(a, b):
    rows = [[fmax(x, y) for x, y in zip(a, b)], [fmin(x, y) for x, y in zip(a, b)]]
    rows += rows[:2]
    rows.append([fmin(fmax(x, y), a.dtype.type(1)) for x, y in zip(a, b)])
    with np.errstate(invalid="ignore"):
        rows.append(list(a * b + a.dtype.type(0.5)))
    return np.array(rows, a.dtype)


def bits(x):
    return x.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize])


@pytest.mark.parametrize("type_name", TYPES)
@pytest.mark.parametrize("engine", ["interp", "native"])
def test_the_rule_for_every_pair_on_both_engines(type_name, engine):
    a, b = pairs(TYPES[type_name])
    n = a.size
    prog = clcoop.Program(SCALAR.replace("REAL", type_name)).build(engine=engine)
    if engine == "native":
        assert prog.k.fallback_reason is None
    o = np.zeros(6 * n, a.dtype)
    prog.k(n, 9, a, b, o)
    np.testing.assert_array_equal(bits(o.reshape(6, n)), bits(expected(a, b)))


def test_the_interpreter_does_not_depend_on_how_many_work_items_run_together():
    # float32 fmax(-0.0, +0.0) from NumPy was +0.0 in an array of one and mixed in longer
    # ones: 64 copies of the pair, one work-group, and one work-item per group.
    a = np.full(64, -0.0, np.float32)
    b = np.zeros(64, np.float32)
    prog = clcoop.Program(SCALAR.replace("REAL", "float")).build()
    outs = []
    for local in (64, 1):
        o = np.zeros(6 * 64, np.float32)
        prog.k(64, local, a, b, o)
        outs.append(bits(o))
    np.testing.assert_array_equal(outs[0], outs[1])
    assert not np.signbit(o[:64]).any() and np.signbit(o[64:128]).all()


VECTOR = """
__kernel void k(__global const float *a, __global float *o, __global int *io) {
    size_t i = get_global_id(0);
    float4 v = (float4)(a[i], 1.0f, a[i] * 2, -a[i]);
    float4 r = min(v, a[i]) + fmax(v, 2.0f) + clamp(v, 0.0f, 1.0f) + mad(v, v, 0.25f);
    vstore4(r, i, o);
    int4 iv = (int4)((int)i, 2, 7, -1);
    vstore4(max(iv, 3) + clamp(iv, 1, 5) * 10, i, io);
}"""


@pytest.mark.parametrize("engine", ["interp", "native"])
def test_vector_overloads_with_scalar_operands(engine):
    n = 8
    x = np.arange(n, dtype=np.float32) - 3
    o, io = np.zeros(4 * n, np.float32), np.zeros(4 * n, np.int32)
    prog = clcoop.Program(VECTOR).build(engine=engine)
    assert engine == "interp" or prog.k.fallback_reason is None
    prog.k(n, n, x, o, io)
    v = np.stack([x, np.ones(n, np.float32), x * 2, -x], 1)
    want = np.minimum(v, x[:, None]) + np.fmax(v, 2) + np.clip(v, 0, 1) + (v * v + np.float32(0.25))
    np.testing.assert_array_equal(o.reshape(n, 4), want)
    iv = np.stack([np.arange(n), np.full(n, 2), np.full(n, 7), np.full(n, -1)], 1)
    np.testing.assert_array_equal(io.reshape(n, 4), np.maximum(iv, 3) + np.clip(iv, 1, 5) * 10)


def test_clamp_of_a_nan_is_the_lower_bound():
    prog = clcoop.Program("""__kernel void k(__global float *x) {
        x[0] = clamp(x[0], -1.0f, 1.0f); }""").build()
    x = np.array([np.nan], np.float32)
    prog.k(1, 1, x)
    assert x[0] == -1.0      # fmin(fmax(NaN, -1), 1) = fmin(-1, 1)
