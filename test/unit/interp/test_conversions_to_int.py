"""Conversions to integers with saturation and rounding modes (OpenCL C 3.0 6.4.3):
convert_<int>[_sat][_rte|_rtz|_rtp|_rtn] from half, float and double, scalar and vector, in
the interpreter against an oracle on Python integers, and on the native engine bit for bit
against the interpreter. 64-bit saturation used to overflow (the limit 2^63 - 1 is no
double: the interpreter returned INT64_MIN for convert_long_sat(1e30))."""
import math

import numpy as np
import pytest

import clcoop

VALUES = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 127.5, 128.0, 255.9, -129.0, 32767.5, 65504.0,
          2.0 ** 31, -2.0 ** 31, 4294967295.0, 1e19, -1e19, 2.0 ** 63, 2.0 ** 64, 1e30,
          math.inf, -math.inf, math.nan]
TARGETS = {"char": (8, True), "uchar": (8, False), "short": (16, True), "ushort": (16, False),
           "int": (32, True), "uint": (32, False), "long": (64, True), "ulong": (64, False)}
SOURCES = {"half": np.float16, "float": np.float32, "double": np.float64}
ROUNDINGS = ("", "_rte", "_rtz", "_rtp", "_rtn")
# Each pair builds a kernel for both engines (1-4 s): two pairs stay in the default run, the
# others are slow (docs/testing.md).
QUICK_PAIRS = {("float", "int"), ("double", "ulong")}


def pairs():
    return [pytest.param(source, target, marks=() if (source, target) in QUICK_PAIRS else pytest.mark.slow)
            for target in TARGETS for source in SOURCES]


def saturated(x, rounding, bits, signed):
    """The value of convert_<target>_sat<rounding>(x), on Python numbers."""
    if math.isnan(x):
        return 0
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if math.isinf(x):
        return hi if x > 0 else lo
    r = {"_rte": round, "_rtp": math.ceil, "_rtn": math.floor}.get(rounding, math.trunc)(x)
    return min(max(int(r), lo), hi)


def kernel(source_type, target):
    lines = [f"    o[{k} * n + i] = convert_{target}_sat{r}(x);" for k, r in enumerate(ROUNDINGS)]
    # Vectors: the same rounding and saturation per element.
    lines.append(f"    {target}4 v = convert_{target}4_sat_rtn(({source_type}4)(x, -x, x, -x));")
    lines.append("    o[5 * n + i] = v.x; o[6 * n + i] = v.y;")
    body = "\n".join(lines)
    return f"""#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void k(__global const {source_type} *a, __global {target} *o) {{
    size_t i = get_global_id(0), n = get_global_size(0);
    {source_type} x = a[i];
{body}
}}"""


@pytest.mark.parametrize("source_type, target", pairs())
def test_saturating_conversions_on_both_engines(source_type, target):
    dtype = SOURCES[source_type]
    with np.errstate(over="ignore"):
        a = np.array(VALUES, np.float64).astype(dtype)
    n = a.size
    bits, signed = TARGETS[target]
    out_dtype = np.dtype(f"{'i' if signed else 'u'}{bits // 8}")
    outs = {}
    for engine in ("interp", "native"):
        prog = clcoop.Program(kernel(source_type, target)).build(engine=engine)
        if engine == "native":
            assert prog.k.fallback_reason is None
        o = np.zeros(7 * n, out_dtype)
        prog.k(n, 1, a, o)
        outs[engine] = o.reshape(7, n)
    xs = [float(x) for x in a]
    want = [[saturated(x, r, bits, signed) for x in xs] for r in ROUNDINGS]
    want += [[saturated(x, "_rtn", bits, signed) for x in xs], [saturated(-x, "_rtn", bits, signed) for x in xs]]
    np.testing.assert_array_equal(outs["interp"], np.array(want, dtype=object).astype(out_dtype))
    np.testing.assert_array_equal(outs["native"], outs["interp"])


def test_in_range_rounding_modes_without_saturation_agree():
    src = """__kernel void k(__global const float *a, __global int *o) {
        size_t i = get_global_id(0), n = get_global_size(0);
        o[i] = convert_int_rte(a[i]); o[n + i] = convert_int_rtp(a[i]);
        o[2 * n + i] = convert_int_rtn(a[i]); o[3 * n + i] = convert_int(a[i]); }"""
    a = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.7, -3.7, 1e6 + 0.5], np.float32)
    xs = [float(x) for x in a]
    want = np.array([[round(x) for x in xs], [math.ceil(x) for x in xs],
                     [math.floor(x) for x in xs], [math.trunc(x) for x in xs]], np.int32)
    for engine in ("interp", "native"):
        o = np.zeros(4 * a.size, np.int32)
        clcoop.Program(src).build(engine=engine).k(a.size, 1, a, o)
        np.testing.assert_array_equal(o.reshape(4, -1), want, err_msg=engine)


@pytest.mark.parametrize("source_type, target", pairs())
def test_out_of_range_conversions_saturate_on_both_engines(source_type, target):
    """C casts (fptosi/fptoui in the IR) and convert_<int> without _sat of NaN, infinities
    and values beyond the range: undefined in OpenCL C (6.4.3.3); both engines saturate,
    NaN -> 0 (docs/native.md, "Safety contract"). The native engine gave INT_MIN or
    0xFFFFFFFF for NaN and infinities, the interpreter 0."""
    src = f"""#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void k(__global const {source_type} *a, __global {target} *o) {{
    size_t i = get_global_id(0), n = get_global_size(0);
    o[i] = ({target})a[i];
    o[n + i] = convert_{target}(a[i]);
    {target}2 v = convert_{target}2_rtp(({source_type}2)(a[i], -a[i]));
    o[2 * n + i] = v.y;
}}"""
    dtype = SOURCES[source_type]
    with np.errstate(over="ignore"):
        a = np.array(VALUES, np.float64).astype(dtype)
    bits, signed = TARGETS[target]
    out_dtype = np.dtype(f"{'i' if signed else 'u'}{bits // 8}")
    xs = [float(x) for x in a]
    want = [[saturated(x, "", bits, signed) for x in xs]] * 2 + [[saturated(-x, "_rtp", bits, signed) for x in xs]]
    want = np.array(want, dtype=object).astype(out_dtype)
    for opt in ([], ["-O2"]):
        for engine in ("interp", "native"):
            prog = clcoop.Program(src).build(options=opt, engine=engine)
            if engine == "native":
                assert prog.k.fallback_reason is None
            o = np.zeros(3 * a.size, out_dtype)
            prog.k(a.size, 1, a, o)
            np.testing.assert_array_equal(o.reshape(3, -1), want, err_msg=f"{engine} {opt}")
