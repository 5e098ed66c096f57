"""The native engine's generated built-in definitions (built with native/irbuild.py), each
verified by LLVM and run on edge values against NumPy (generated_functions.py runs one
definition alone, without a kernel around it)."""
import numpy as np
import pytest

from clcoop.native import integer_dot_ir
from generated_functions import compile_definition

_CHAR = [-128, -127, -1, 0, 1, 2, 126, 127]
_UCHAR = [0, 1, 2, 127, 128, 254, 255]


def _dot(a, b):
    return (a.astype(np.int64) * b.astype(np.int64)).sum(axis=1)


@pytest.mark.parametrize("signs", ["ss", "su", "us", "uu"])
def test_packed_dot_and_saturating_accumulate(signs):
    """dot_4x8packed_xy and dot_acc_sat_4x8packed_xy on every edge byte, against the
    products summed in int64 and clamped (cl_khr_integer_dot_product)."""
    rng = np.random.default_rng(5)
    dtypes = [np.int8 if s == "s" else np.uint8 for s in signs]
    values = [np.array(_CHAR if s == "s" else _UCHAR, dt) for s, dt in zip(signs, dtypes)]
    a = np.stack([rng.choice(values[0], 4) for _ in range(40)] + [np.full(4, values[0][0])])
    b = np.stack([rng.choice(values[1], 4) for _ in range(40)] + [np.full(4, values[1][0])])
    result = "int" if "s" in signs else "uint"
    name = f"dot_4x8packed_{signs}_{result}"
    plain = compile_definition(integer_dot_ir.integer_dot_definition("f", name, [], "i32", ["i32", "i32"]),
                               "f", "i32", ["i32", "i32"])
    want = _dot(a, b)
    got = plain(a.view(np.uint32), b.view(np.uint32), out_dtype=np.int32 if result == "int" else np.uint32)
    assert np.array_equal(got.astype(np.int64), want)
    sat = compile_definition(integer_dot_ir.integer_dot_definition("g", "dot_acc_sat" + name[3:], [], "i32",
                                                                   ["i32", "i32", "i32"]),
                             "g", "i32", ["i32", "i32", "i32"])
    lo, hi = (-(1 << 31), (1 << 31) - 1) if result == "int" else (0, (1 << 32) - 1)
    acc_dtype = np.int32 if result == "int" else np.uint32
    for acc in (lo, hi, 0, lo + 5, hi - 5):
        accs = np.full(len(a), acc, np.int64).astype(acc_dtype)
        got = sat(a.view(np.uint32), b.view(np.uint32), accs, out_dtype=acc_dtype)
        assert np.array_equal(got.astype(np.int64), np.clip(want + acc, lo, hi)), acc


def test_vector_dot_of_char4():
    """dot(char4, uchar4): the <4 x i8> form, each operand widened by its own signedness."""
    mparams = [("vec", 4, ("int", 8, True)), ("vec", 4, ("int", 8, False))]
    f = compile_definition(integer_dot_ir.integer_dot_definition("h", "dot", mparams, "i32", ["<4 x i8>"] * 2),
                           "h", "i32", ["<4 x i8>"] * 2)
    a = np.array([[-128, -128, -128, -128], [127, -1, 0, 5]], np.int8)
    b = np.array([[255, 255, 255, 255], [255, 0, 7, 200]], np.uint8)
    assert np.array_equal(f(a, b, out_dtype=np.int32), _dot(a, b))


def _edge_floats(dtype):
    info = np.finfo(dtype)
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0, 10.0, -10.0, 88.0, -88.0, 100.0,
              float(info.tiny), float(info.smallest_subnormal), float(info.max), -float(info.max), 1e-3, 0.999]
    rng = np.random.default_rng(11)
    bits = rng.integers(0, 1 << (8 * np.dtype(dtype).itemsize), 60, dtype=np.uint64)
    random = bits.astype(np.uint16 if dtype == np.float16 else np.uint32).view(dtype)
    return np.concatenate([np.array(values, dtype), random])


@pytest.mark.parametrize("dtype, ret", [(np.float16, "half"), (np.float32, "<2 x float>")])
@pytest.mark.parametrize("function", ["exp", "log", "tanh", "sin", "acosh", "expm1"])
def test_transcendental_math(function, dtype, ret):
    """math_ir's definitions (scalar half, float2 lane by lane) bit for bit as the
    interpreter's NumPy in double rounded once, NaNs with NumPy's payload, on edge values
    and random bit patterns (the hard cases go through math_ir.hard_case)."""
    from clcoop.native import math_ir
    numpy_function = math_ir.UNARY[function][1]
    f = compile_definition(math_ir.definition("m", function, ret, [ret]), "m", ret, [ret])
    x = _edge_floats(dtype)
    lanes = 2 if ret.startswith("<") else 1
    args = x.reshape(-1, lanes) if lanes > 1 else x
    got = f(args, out_dtype=dtype, out_count=lanes).reshape(-1)
    with np.errstate(all="ignore"):
        want = np.asarray(numpy_function(x.astype(np.float64))).astype(dtype)
    uint = np.uint16 if dtype == np.float16 else np.uint32
    assert np.array_equal(got.view(uint), want.view(uint)), (x[got.view(uint) != want.view(uint)])
