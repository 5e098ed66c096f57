"""Transcendental built-ins natively (native/math_ir.py, issue 29: flash attention's exp and
tanh in per-element functions): half and float, scalars and vectors, bit for bit the
interpreter's (NumPy in double, rounded once), on every half, on random and edge floats and
on floats whose double result lies next to a rounding boundary (the hard cases, computed by
the host callback), against NumPy too."""
import numpy as np
import pytest

import clcoop
from clcoop.native import math_ir

SOURCE = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void f(__global const float *x, __global float *y) { size_t i = get_global_id(0); y[i] = FN(x[i]); }
__kernel void h(__global const half *x, __global half *y) { size_t i = get_global_id(0); y[i] = FN(x[i]); }
__kernel void v(__global const float4 *x, __global float4 *y) { size_t i = get_global_id(0); y[i] = FN(x[i]); }
"""

# Floats whose exp / tanh in double lies within HARD_ULPS double ulp of a float rounding
# boundary (found by a NumPy search over 2^22 uniform floats): the callback computes them.
HARD_INPUTS = {
    "exp": ["0x1.1128560000000p+6", "-0x1.66b3960000000p+1", "-0x1.f9085a0000000p+0", "0x1.15298a0000000p+6",
            "0x1.0364920000000p+1"],
    "tanh": ["-0x1.2e57cc0000000p-1", "-0x1.8bd1940000000p+2", "-0x1.4ddf040000000p+2", "0x1.5969a00000000p+2",
             "0x1.f178fc0000000p+0"],
}

EDGES = np.float32([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 88.72, 88.73, -103.9, -104.0, 1e-45, -1e-45,
                    3.4e38, -3.4e38, 1e-8, 0.5, 2.0, 710.0, -750.0])


def _programs(function):
    return [clcoop.Program(SOURCE).build(options=[f"-DFN={function}"], engine=engine) for engine in ("interp", "native")]


def _floats(function, count=4096, seed=5):
    rng = np.random.default_rng(seed)
    hard = np.float32([float.fromhex(x) for x in HARD_INPUTS.get(function, [])])
    bits = rng.integers(0, 2 ** 32, count, dtype=np.uint64).astype(np.uint32).view(np.float32)
    normal = (rng.standard_normal(count) * 8).astype(np.float32)
    x = np.concatenate([EDGES, hard, bits, normal])
    return np.concatenate([x, np.zeros(-len(x) % 64, np.float32)])


def _run(program, kernel, x, vector=False):
    y = np.zeros_like(x)
    getattr(program, kernel)((len(x) // 4 if vector else len(x),), (16,), x, y)
    return y


# The default run: exp and expm1 (tanh natively runs in test_native_exp_and_tanh_against_long_double
# by default too); --all runs the rest.
@pytest.mark.parametrize("function", ["exp", "expm1",
                                      *(pytest.param(f, marks=pytest.mark.slow) for f in ("tanh", "native_exp", "log", "half_exp", "sin", "acosh")),
                                      pytest.param("exp10", marks=pytest.mark.slow),
                                      pytest.param("tan", marks=pytest.mark.slow),
                                      pytest.param("log1p", marks=pytest.mark.slow),
                                      pytest.param("atanh", marks=pytest.mark.slow)])
def test_native_math_is_the_interpreter_bit_for_bit(function):
    interp, native = _programs(function)
    assert native.kernel("f").engine == "native" and native.kernel("h").engine == "native"
    x = _floats(function)
    for kernel, vector in (("f", False), ("v", True)):
        assert _run(native, kernel, x, vector).tobytes() == _run(interp, kernel, x, vector).tobytes(), kernel
    every_half = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)     # signalling NaNs too
    assert _run(native, "h", every_half).tobytes() == _run(interp, "h", every_half).tobytes()


@pytest.mark.parametrize("function", ["exp", "tanh"])
def test_native_exp_and_tanh_against_long_double(function):
    """An oracle outside both engines: NumPy in long double (the C library's expl/tanhl),
    rounded to float, on random floats (not the hard cases, where a double evaluation may
    legitimately round the other way)."""
    _, native = _programs(function)
    x = _floats(function, count=2048)[len(EDGES) + len(HARD_INPUTS[function]):]
    x = x[np.isfinite(x) & (np.abs(x) < 80)]
    x = np.concatenate([x, np.zeros(-len(x) % 64, np.float32)])
    expected = getattr(np, function)(x.astype(np.longdouble)).astype(np.float32)
    assert _run(native, "f", x).tobytes() == expected.tobytes()


def test_the_hard_cases_reach_numpy():
    """The callback computes NumPy's value from the argument's bits: a half signalling NaN
    reaches NumPy's expm1 as it is, which returns it (widening it in hardware would have
    quieted it: test_native_math_is_the_interpreter_bit_for_bit[expm1] fails so); a float
    hard case is NumPy's double value rounded once."""
    # NumPy's expm1 keeps it where its SIMD loop does (AVX-512 hosts), quiets it (0x7E01)
    # where it does not: the callback gives whatever NumPy gives on this host.
    signalling = np.array([0x7C01], np.uint16).view(np.float16)
    with np.errstate(all="ignore"):
        numpy_bits = int(np.expm1(signalling).view(np.uint16)[0])
    assert math_ir.hard_case(math_ir.FUNCTION_CODES["expm1"], 16, 0x7C01) == numpy_bits
    code = math_ir.FUNCTION_CODES["exp"]
    x = np.float32(float.fromhex(HARD_INPUTS["exp"][0]))
    expected = np.exp(np.float64(x)).astype(np.float32).view(np.uint32)
    assert math_ir.hard_case(code, 32, int(x.view(np.uint32))) == int(expected)


def test_double_math_stays_in_the_interpreter():
    """In double the last bit is NumPy's own: no native definition, the reason names exp."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = clcoop.Program("__kernel void k(__global double *x) { x[0] = exp(x[0]); }").build(engine="auto")
    assert program.kernel("k").engine == "interp"
    assert "'exp'" in program.kernel("k").fallback_reason
