"""OpenCL C built-in functions in the interpreter, checked against NumPy (clang-22 and clcoop)."""
import numpy as np
import pytest

from clcoop.interp.ocl_builtins import demangle
from interp_helpers import program

PRODUCERS = ["clang-O0", "clang-O2", "clcoop"]
RNG = np.random.default_rng(3)


def test_demangler():
    assert demangle("_Z13get_global_idj") == ("get_global_id", [("int", 32, False)])
    assert demangle("_Z6vload4mPU3AS4Kf") == ("vload4", [("int", 64, False), ("ptr", 4, ("float", 32))])
    assert demangle("_Z3dotDv4_fS_") == ("dot", [("vec", 4, ("float", 32))] * 2)
    assert demangle("_Z10atomic_addPU3AS1Vii")[1] == [("ptr", 1, ("int", 32, True)), ("int", 32, True)]
    assert demangle("_Z12vstore_half4Dv4_fmPU3AS4Dh")[1][2] == ("ptr", 4, ("float", 16))


@pytest.mark.parametrize("producer", PRODUCERS)
def test_float_builtins(producer):
    n = 32
    x = RNG.uniform(-3, 3, n).astype(np.float32)
    y = RNG.uniform(-3, 3, n).astype(np.float32)
    out = np.zeros(12 * n, np.float32)
    program("builtins", producer).float_builtins(n, 16, x, y, out)
    o = out.reshape(n, 12)
    a, b = x.astype(np.float64), y.astype(np.float64)
    rnd = lambda v: np.copysign(np.floor(np.abs(v) + 0.5), v)   # noqa: E731
    want = [np.minimum(a, b) + np.maximum(a, b), 0 * a, np.abs(a) ** 1.5, np.arctan2(a, b),
            a + (b - a) * 0.25, (a >= 0) + np.sign(b), np.copysign(2, b) * rnd(np.float32(a * 3)),
            np.exp(a * 0.5) + np.sqrt(np.abs(b)), np.fmod(np.float32(a * 10), 3), np.hypot(a, b),
            (a < b) + 2.0, np.degrees(a) + np.trunc(np.float32(b * 7.5)) + np.ceil(a) + np.rint(np.float32(b * 2.5))]
    for k, w in enumerate(want):
        np.testing.assert_allclose(o[:, k], w, rtol=2e-5, atol=2e-5, err_msg=f"output {k}")


def _wrap32(v):
    return ((np.asarray(v, np.int64) + 2**31) % 2**32 - 2**31).astype(np.int32)


@pytest.mark.parametrize("producer", PRODUCERS)
def test_integer_builtins_and_conversions(producer):
    n = 32
    x = np.concatenate([RNG.integers(-3000, 3000, n - 4), [2**31 - 1, -2**31, 0, -1]]).astype(np.int32)
    u = np.concatenate([RNG.integers(0, 2**32, n - 4), [0, 2**32 - 1, 7, 4000000000]]).astype(np.uint32)
    out = np.zeros(12 * n, np.int32)
    program("builtins", producer).int_builtins(n, 16, x, u, out)
    o = out.reshape(n, 12)
    a, b = x.astype(np.int64), u.astype(np.int64)
    popcount = np.array([bin(v & 0xFFFFFFFF).count("1") for v in a])
    clz = np.array([32 - int(v).bit_length() for v in b])
    rot = lambda v, s, bits=32: ((v << s) | (v >> (bits - s))) & 0xFFFFFFFF   # noqa: E731
    sat = lambda v, lo, hi: np.clip(v, lo, hi)   # noqa: E731
    f32 = (x.astype(np.float32) * np.float32(1e6)).astype(np.float64)
    conv = sat(np.trunc(f32), -2**31, 2**31 - 1).astype(np.int64)
    want = [
        _wrap32(np.abs(a) + np.abs(a - 7)),
        np.minimum(a, 5) + np.maximum(a, -5) + sat(a, -3, 3),
        np.minimum(b, 5) + (np.maximum(b, 100) >> 28),
        popcount + 100 * clz,
        _wrap32(sat(a + 2147483000, -2**31, 2**31 - 1) + sat(b - 4000000000, 0, 2**32)),
        _wrap32((a * 123456789 >> 32) + (b * 3000000000 >> 32)),
        (a + 1000) // 2 + (a + 999 + 1) // 2,
        _wrap32(rot(a & 0xFFFFFFFF, 5) ^ rot(b, 31)),
        _wrap32(np.trunc(conv / 1000) + sat(a, 0, 255) + sat(a, -128, 127)),
        sat(b, 0, 65535) - sat(_wrap32(a * 1000), -32768, 32767),    # int product wraps
        np.where(a < 0, -a, a) + (a < 0) * 10 + (a > 0) * 100,
        _wrap32(a * 3 + 4 + (1 << 16 | 2)),
    ]
    for k, w in enumerate(want):
        np.testing.assert_array_equal(o[:, k], _wrap32(w), err_msg=f"output {k}")


@pytest.mark.parametrize("producer", ["clang-O0", "clang-O2"])
def test_vload_half_vstore_half(producer):
    h = RNG.standard_normal(64).astype(np.float16)
    f = np.zeros(64, np.float32)
    back = np.zeros(64, np.float16)
    program("builtins", producer).half_io(16, 16, h, f, back)
    np.testing.assert_array_equal(f, h.astype(np.float32) * 2)
    np.testing.assert_array_equal(back, (h.astype(np.float32) + 1).astype(np.float16))


@pytest.mark.parametrize("producer", ["clang-O0", "clang-O2"])   # clcoop lacks atomic_int so far
def test_collectives_and_c11_atomics(producer):
    cnt = np.zeros(1, np.int32)
    out = np.zeros(5 * 32, np.int32)
    fo = np.zeros(32, np.float32)
    program("collectives", producer).collectives(32, 16, cnt, out, fo, subgroup_size=8)
    o = out.reshape(32, 5)
    i = np.arange(32)
    assert cnt[0] == 64
    np.testing.assert_array_equal(o[:, 0], np.repeat([120, 376], 16))
    excl = np.where(i % 16 == 0, np.iinfo(np.int32).min, i - 1)     # identity of max: INT_MIN
    np.testing.assert_array_equal(o[:, 1], excl)
    np.testing.assert_array_equal(o[:, 2], i ^ 1)
    np.testing.assert_array_equal(o[:, 3], np.repeat([3, 19], 16))
    any5 = np.repeat([1, 0, 0, 0], 8)
    np.testing.assert_array_equal(o[:, 4], any5 + 2)
    np.testing.assert_array_equal(fo, np.repeat((i.reshape(4, 8).max(1)) * 0.5, 8) + np.repeat([0, 16], 16))


def test_64_bit_mul_hi_and_saturation_are_exact():
    from clcoop.interp.ocl_builtins import _INT_MATH
    a = np.array([2**63, 2**64 - 1, 7, 2**40], np.uint64)
    np.testing.assert_array_equal(_INT_MATH["mul_hi"](np.uint64(5), a),
                                  [(5 * int(v)) >> 64 for v in a])
    np.testing.assert_array_equal(_INT_MATH["add_sat"](np.array([2**64 - 2], np.uint64), np.uint64(3)),
                                  [2**64 - 1])
    np.testing.assert_array_equal(_INT_MATH["sub_sat"](np.array([-2**63 + 1], np.int64), np.int64(5)),
                                  [-2**63])


@pytest.mark.parametrize("opt", [0, 2])
def test_printf_prints_per_work_item_in_order(opt, capfd):
    import subprocess
    import clcoop
    from interp_helpers import CLANG
    if CLANG is None:
        pytest.skip("clang-22 is not installed")
    src = ('__kernel void k(__global int *o) { int i = get_global_id(0);\n'
           '  if (i % 2) printf("item %d: %5.2f %s %x\\n", i, i * 0.5f, "hi", -1); }\n')
    ir = subprocess.run([CLANG, "-cc1", "-triple", "spir64-unknown-unknown", "-cl-std=CL3.0",
                         "-finclude-default-header", "-emit-llvm", f"-O{opt}", "-", "-o", "-"],
                        input=src, capture_output=True, text=True, check=True).stdout
    clcoop.Program.from_ir(ir).k(4, 4, np.zeros(1, np.int32))
    assert capfd.readouterr().out == "item 1:  0.50 hi ffffffff\nitem 3:  1.50 hi ffffffff\n"


@pytest.mark.parametrize("producer", PRODUCERS)
def test_more_math_builtins(producer):
    import math
    out = np.zeros(8, np.float32)
    program("builtins", producer).more_math(8, 8, out)
    x = np.arange(8) * 0.25 + 0.1
    want = [v * 8 + math.sin(math.pi * v) + math.erf(v) + math.gamma(v + 1) + math.atan2(v, 1) / math.pi
            + math.floor(math.log2(v * 8)) for v in x]
    np.testing.assert_allclose(out, want, rtol=1e-5)


@pytest.mark.parametrize("producer", ["clang-O0", "clang-O2"])   # clcoop lacks event_t so far
def test_async_work_group_copies(producer):
    x = np.arange(2 * 16 * 4, dtype=np.float32)
    out = np.zeros(128, np.float32)
    program("async_copy", producer).async_copy(32, 16, x, out)
    want = np.zeros((2, 64), np.float32)
    flat = 2 * x.reshape(2, 64)
    want[:, 0::4] = flat[:, :16]
    want[:, 1::4] = flat[:, 16:32]
    np.testing.assert_array_equal(out, want.ravel())


@pytest.mark.parametrize("producer", ["clang-O0", "clang-O2", "clcoop"])
def test_builtins_with_out_pointers_and_shuffle2(producer):
    x = np.array([1.25, -2.75, 0.5, 7.0], np.float32)
    o = np.zeros(20, np.float32)
    e = np.zeros(8, np.int32)
    program("builtins", producer).out_pointers(4, 4, x, o, e)
    o = o.reshape(4, 5)
    np.testing.assert_allclose(o[:, 0], x - np.floor(x))
    np.testing.assert_array_equal(o[:, 1], np.floor(x))
    np.testing.assert_allclose(o[:, 2], np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(o[:, 3], np.cos(x), rtol=1e-6)
    mant, ex = np.frexp(x)
    np.testing.assert_array_equal(o[:, 4], mant)
    np.testing.assert_array_equal(e[:4], ex)
    np.testing.assert_array_equal(e[4:], (30 + x + 10 + 2).astype(np.int32))   # (w7, v0, w5, v2)


def test_geometric_functions_on_scalars_and_constant_vectors_with_few_lanes():
    import clcoop
    src = ("__kernel void k(__global const float *x, __global float *o) { size_t i = get_global_id(0);\n"
           "  float4 c = (float4)(1.0f, 2.0f, 3.0f, 4.0f);\n"
           "  o[i] = dot(x[i], 2.0f) + length(-x[i]) + dot(c, (float4)(x[i])) + c.w; }\n")
    x = np.array([1.0, -2.0, 3.0, 0.5], np.float32)      # 4 lanes == 4 components
    o = np.zeros(4, np.float32)
    clcoop.Program(src).build().k(4, 4, x, o)
    np.testing.assert_allclose(o, 2 * x + np.abs(x) + 10 * x + 4)


def test_mad_sat_saturates_the_exact_result():
    from clcoop.interp.ocl_builtins import _INT_MATH
    mad_sat = _INT_MATH["mad_sat"]
    np.testing.assert_array_equal(mad_sat(np.array([-2147483647], np.int32), np.int32(3), np.int32(5)),
                                  [-2**31])
    np.testing.assert_array_equal(mad_sat(np.array([2**32 - 1], np.uint32), np.uint32(2**32 - 1),
                                          np.uint32(0)), [2**32 - 1])
    np.testing.assert_array_equal(mad_sat(np.array([2**62], np.int64), np.int64(4), np.int64(-5)),
                                  [2**63 - 1])
