"""OpenCL C relational functions of floats (OpenCL C 3.0 6.15.6: isnan, isinf, isfinite,
isnormal, signbit, isequal, ..., isunordered) on the native engine: scalars return 1 for
true, vectors -1 in each true element, checked against NumPy over every pair of special
values (signed zeros, infinities, NaNs, subnormals, the smallest normals) for half, float
and double, and bit for bit against the interpreter."""
import numpy as np
import pytest

import clcoop

ONE = ("isnan", "isinf", "isfinite", "isnormal", "signbit")
TWO = ("isequal", "isnotequal", "isgreater", "isgreaterequal", "isless", "islessequal",
       "isordered", "isunordered")
TYPES = {"half": np.float16, "float": np.float32, "double": np.float64}


def oracle(name, x, y):
    tiny = np.finfo(x.dtype).tiny
    return {"isnan": np.isnan(x), "isinf": np.isinf(x), "isfinite": np.isfinite(x),
            "isnormal": np.isfinite(x) & (np.abs(x) >= tiny), "signbit": np.signbit(x),
            "isequal": x == y, "isnotequal": x != y, "isgreater": x > y, "isgreaterequal": x >= y,
            "isless": x < y, "islessequal": x <= y, "isordered": ~(np.isnan(x) | np.isnan(y)),
            "isunordered": np.isnan(x) | np.isnan(y)}[name]


def special_values(dtype):
    info = np.finfo(dtype)
    v = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan, info.tiny, -info.tiny,
         info.tiny / 2, -info.tiny / 2, info.max, -info.max, 7.5]
    return np.array(v, dtype)


def source(type_name, width):
    vec = f"{type_name}{width}" if width > 1 else type_name
    calls = [f"{f}(x)" for f in ONE] + [f"{f}(x, y)" for f in TWO]
    if width == 1:
        body = "".join(f"    o[{k} * n + i] = {c};\n" for k, c in enumerate(calls))
        load = "x = a[i], y = b[i];"
    else:
        # Lanes: (x, y, y, x) against (y, x, x, y): every lane a different pair order.
        body = "".join(f"    o[{k} * n + i] = dot4(convert_int4({c}));\n" for k, c in enumerate(calls))
        load = f"x = ({vec})(a[i], b[i], b[i], a[i]), y = ({vec})(b[i], a[i], a[i], b[i]);"
    return f"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
int dot4(int4 r) {{ return r.x * 1 + r.y * 10 + r.z * 100 + r.w * 1000; }}
__kernel void k(__global const {type_name} *a, __global const {type_name} *b, __global int *o) {{
    size_t i = get_global_id(0), n = get_global_size(0);
    {vec} {load}
{body}}}"""


@pytest.mark.slow          # every type and width on both engines
@pytest.mark.parametrize("type_name", TYPES)
@pytest.mark.parametrize("width", [1, 4])
def test_relational_functions_match_numpy_and_the_interpreter(type_name, width):
    values = special_values(TYPES[type_name])
    a, b = np.repeat(values, values.size), np.tile(values, values.size)
    n = a.size
    outs = {}
    for engine in ("native", "interp"):
        prog = clcoop.Program(source(type_name, width)).build(engine=engine)
        if engine == "native":
            assert prog.k.fallback_reason is None
        o = np.zeros(13 * n, np.int32)
        prog.k(n, 15, a, b, o)
        outs[engine] = o.reshape(13, n)
    for k, name in enumerate(ONE + TWO):
        if width == 1:
            want = oracle(name, a, b).astype(np.int32)
        else:
            lanes = [(a, b), (b, a), (b, a), (a, b)]
            want = sum(-oracle(name, x, y).astype(np.int32) * 10 ** j for j, (x, y) in enumerate(lanes))
        np.testing.assert_array_equal(outs["native"][k], want, err_msg=name)
    np.testing.assert_array_equal(outs["native"], outs["interp"])
