"""The math sequences the Vulkan target writes where GLSL.std.450 is less precise than OpenCL C
requires (clcoop/spirv/vulkan_math.py, docs/vulkan.md "Math"): their IR is compiled for this
CPU and measured in ulp against NumPy's float64 (an independent oracle) over many inputs,
against the OpenCL C 3.0 full-profile bounds (7.4); fmod bit for bit against np.fmod; then the
module runs on a Vulkan device (lavapipe here) and is measured the same way."""
import ctypes
import math

import numpy as np
import pytest

from clcoop.spirv import vulkan_math
from test_vulkan_target import compile_vulkan, spirv_val, disassemble, vulkan_device  # noqa: F401
from test_vulkan_target import pytestmark  # noqa: F401  (llc-22, opt-22, spirv-val)

# OpenCL C 3.0 7.4, float (full profile): the bound each sequence must meet.
BOUNDS = {"exp": 3, "exp2": 3, "exp10": 3, "log": 3, "log2": 3, "log10": 3, "sin": 4, "cos": 4, "tan": 5,
          "sinh": 4, "cosh": 4, "tanh": 5, "asin": 4, "acos": 4, "atan": 5, "atan2": 6,
          "asinh": 4, "acosh": 4, "atanh": 5, "log1p": 2, "expm1": 3, "cbrt": 2, "hypot": 4,
          "erf": 16, "erfc": 16, "pow": 16, "powr": 16,
          "fdiv": 2.5}
ORACLES = {"exp": np.exp, "exp2": np.exp2, "exp10": lambda x: 10.0 ** x, "log": np.log, "log2": np.log2,
           "log10": np.log10, "sin": np.sin, "cos": np.cos, "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh,
           "tanh": np.tanh, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
           "acosh": np.arccosh, "atanh": np.arctanh, "log1p": np.log1p, "expm1": np.expm1, "cbrt": np.cbrt,
           "erf": np.vectorize(math.erf, otypes=[np.float64]), "erfc": np.vectorize(math.erfc, otypes=[np.float64])}
RNG = np.random.default_rng(2828)


def jit(kind, type_text="float"):
    """vulkan_math's definition of `kind`, compiled for this CPU with llvmlite (no fast-math
    flags: LLVM neither fuses nor reassociates, as Vulkan's correctly rounded OpFAdd/OpFMul)."""
    import llvmlite.binding as llvm
    text, declarations = vulkan_math.definition(kind, "f", type_text)
    text = text.replace("define internal spir_func", "define").replace(" alwaysinline", "")
    text = text.replace("call spir_func", "call")
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly("\n".join(declarations) + "\n" + text)
    module.verify()
    engine = llvm.create_mcjit_compiler(module, llvm.Target.from_default_triple().create_target_machine())
    engine.finalize_object()
    c_type = {"float": ctypes.c_float, "double": ctypes.c_double}[type_text]
    arguments = [c_type] * (2 if kind in vulkan_math.BINARY else 1)
    if kind in vulkan_math.INT_OPERAND:
        arguments = [c_type, ctypes.c_int32]
    function = ctypes.CFUNCTYPE(c_type, *arguments)(engine.get_function_address("f"))
    function.engine = engine
    return function


def ulp_errors(got, exact):
    """|got - exact| in units of the float ulp at the exact value (2^(e-23) for exact in
    [2^e, 2^(e+1)), 2^-149 below the normal range); an exact value beyond the float range must
    give the infinity of its sign (error 0, else inf), NaN must give NaN."""
    got = np.asarray(got, np.float64)
    exact = np.asarray(exact, np.float64)
    errors = np.zeros(exact.shape)
    nan = np.isnan(exact)
    errors[nan] = np.where(np.isnan(got[nan]), 0.0, np.inf)
    overflow = ~nan & (np.abs(exact) >= np.float64(np.finfo(np.float32).max) * (1 + 2.0 ** -25))
    errors[overflow] = np.where(got[overflow] == np.sign(exact[overflow]) * np.inf, 0.0, np.inf)
    rest = ~nan & ~overflow
    _, exponent = np.frexp(exact[rest])
    ulp = np.maximum(np.ldexp(1.0, exponent - 24), 2.0 ** -149)
    with np.errstate(invalid="ignore"):
        errors[rest] = np.abs(got[rest] - exact[rest]) / ulp
    return np.nan_to_num(errors, nan=np.inf)


def inputs(kind, count=20000):
    """Inputs over each function's whole float domain: random bit patterns (every binade
    alike) and a uniform sample where the function changes most."""
    patterns = RNG.integers(0, 0x7F800000, count, dtype=np.uint32).view(np.float32)
    signs = RNG.choice(np.float32([-1, 1]), count)
    focus = {"exp": (-104, 89), "exp2": (-151, 129), "exp10": (-46, 39), "log": (0.25, 4), "log2": (0.25, 4),
             "log10": (0.25, 4), "sin": (-10, 10), "cos": (-10, 10), "tan": (-10, 10), "sinh": (-2, 2),
             "cosh": (-90, 90), "tanh": (-3, 3), "asin": (-1, 1), "acos": (-1, 1), "atan": (-5, 5),
             "asinh": (-3, 3), "acosh": (1, 3), "atanh": (-1, 1), "log1p": (-1, 3), "expm1": (-3, 3),
             "cbrt": (-3, 3), "erf": (-5, 5), "erfc": (-5, 12)}[kind]
    uniform = RNG.uniform(*focus, count).astype(np.float32)
    # near multiples of pi/2 (the reduction's hardest case), the worst float for it, powers of 2
    hard = np.float32([16367173 * 2.0 ** 72, 1.5707964, 3.1415927, 4.712389, 2.0 ** 127, 2.0 ** -149, 1.0,
                       0.70710677, 1.4142135, 88.72283, 88.72284, -103.97208, -87.33654, 89.41598, 89.41599,
                       0.625, 0.62499994, 38.53184, 38.53184, -45.0, 0.7853982, 0.5, 0.50000006,
                       2.4142137, 0.41421357, 2.0 ** -12, 2.0 ** -13, 1.0000001, 0.99999994, 3e38,
                       1.9999999, 2.0, 3.83, 10.05, 10.06])
    values = np.concatenate([patterns * signs, uniform, hard, -hard])
    if kind.startswith("log"):
        values = np.abs(values)
    return values


@pytest.mark.parametrize("kind", sorted(ORACLES))
def test_sequence_meets_the_opencl_bound_on_the_cpu(kind):
    function = jit(kind)
    x = inputs(kind)
    got = np.array([function(float(v)) for v in x], np.float32)
    with np.errstate(all="ignore"):
        exact = ORACLES[kind](x.astype(np.float64))
    errors = ulp_errors(got, exact)
    worst = int(np.argmax(errors))
    assert errors[worst] <= BOUNDS[kind], (kind, x[worst], got[worst], exact[worst], errors[worst])


SPECIALS = {  # C99 F.9 / OpenCL C 7.5.1, which the sequences handle themselves
    "exp": [(np.inf, np.inf), (-np.inf, 0.0), (np.nan, np.nan), (0.0, 1.0), (-0.0, 1.0), (200.0, np.inf), (-200.0, 0.0)],
    "exp2": [(np.inf, np.inf), (-np.inf, 0.0), (np.nan, np.nan), (10.0, 1024.0), (-149.0, 2.0 ** -149), (128.0, np.inf)],
    "log": [(0.0, -np.inf), (-0.0, -np.inf), (-1.0, np.nan), (np.inf, np.inf), (np.nan, np.nan), (1.0, 0.0)],
    "log2": [(0.0, -np.inf), (-2.0, np.nan), (np.inf, np.inf), (8.0, 3.0), (2.0 ** -149, -149.0), (2.0 ** -130, -130.0)],
    "log10": [(0.0, -np.inf), (-np.inf, np.nan), (np.inf, np.inf), (1.0, 0.0)],
    "sin": [(np.inf, np.nan), (-np.inf, np.nan), (np.nan, np.nan), (0.0, 0.0), (-0.0, -0.0), (2.0 ** -140, 2.0 ** -140)],
    "cos": [(np.inf, np.nan), (np.nan, np.nan), (0.0, 1.0), (-0.0, 1.0)],
    "exp10": [(np.inf, np.inf), (-np.inf, 0.0), (np.nan, np.nan), (0.0, 1.0), (2.0, 100.0), (39.0, np.inf)],
    "tan": [(np.inf, np.nan), (np.nan, np.nan), (0.0, 0.0), (-0.0, -0.0)],
    "sinh": [(np.inf, np.inf), (-np.inf, -np.inf), (np.nan, np.nan), (-0.0, -0.0), (90.0, np.inf), (-90.0, -np.inf)],
    "cosh": [(np.inf, np.inf), (-np.inf, np.inf), (np.nan, np.nan), (0.0, 1.0), (-90.0, np.inf)],
    "tanh": [(np.inf, 1.0), (-np.inf, -1.0), (np.nan, np.nan), (-0.0, -0.0), (50.0, 1.0), (-50.0, -1.0)],
    "asin": [(-0.0, -0.0), (1.0, np.pi / 2), (-1.0, -np.pi / 2), (1.0000001, np.nan), (np.inf, np.nan), (np.nan, np.nan)],
    "acos": [(1.0, 0.0), (-1.0, np.pi), (0.0, np.pi / 2), (-1.0000001, np.nan), (np.nan, np.nan)],
    "atan": [(-0.0, -0.0), (np.inf, np.pi / 2), (-np.inf, -np.pi / 2), (1.0, np.pi / 4), (np.nan, np.nan)],
    "asinh": [(-0.0, -0.0), (np.inf, np.inf), (-np.inf, -np.inf), (np.nan, np.nan)],
    "acosh": [(1.0, 0.0), (np.inf, np.inf), (0.99999994, np.nan), (-np.inf, np.nan), (np.nan, np.nan)],
    "atanh": [(-0.0, -0.0), (1.0, np.inf), (-1.0, -np.inf), (1.0000001, np.nan), (np.inf, np.nan), (np.nan, np.nan)],
    "log1p": [(-0.0, -0.0), (-1.0, -np.inf), (-1.5, np.nan), (np.inf, np.inf), (np.nan, np.nan), (2.0 ** -30, 2.0 ** -30)],
    "expm1": [(-0.0, -0.0), (np.inf, np.inf), (-np.inf, -1.0), (np.nan, np.nan), (89.0, np.inf), (2.0 ** -30, 2.0 ** -30)],
    "cbrt": [(-0.0, -0.0), (np.inf, np.inf), (-np.inf, -np.inf), (np.nan, np.nan), (-27.0, -3.0), (2.0 ** -147, 2.0 ** -49)],
    "erf": [(-0.0, -0.0), (np.inf, 1.0), (-np.inf, -1.0), (np.nan, np.nan), (4.0, 1.0), (-30.0, -1.0)],
    "erfc": [(np.inf, 0.0), (-np.inf, 2.0), (np.nan, np.nan), (0.0, 1.0), (30.0, 0.0), (-30.0, 2.0)],
}


# C99 F.9.4.4 (pow), F.9.1.4 (atan2) and OpenCL C 7.5.1 (powr): (x, y, result), the result
# the float nearest the value (pi/2 and the like)
BINARY_SPECIALS = {
    "atan2": [(0.0, -0.0, np.pi), (-0.0, -0.0, -np.pi), (0.0, 0.0, 0.0), (-0.0, 0.0, -0.0), (0.0, -3.0, np.pi),
              (-0.0, -3.0, -np.pi), (0.0, 3.0, 0.0), (-0.0, 3.0, -0.0), (-2.0, 0.0, -np.pi / 2), (-2.0, -0.0, -np.pi / 2),
              (2.0, 0.0, np.pi / 2), (2.0, -np.inf, np.pi), (-2.0, -np.inf, -np.pi), (2.0, np.inf, 0.0),
              (-2.0, np.inf, -0.0), (np.inf, 3.0, np.pi / 2), (-np.inf, -3.0, -np.pi / 2),
              (np.inf, -np.inf, 3 * np.pi / 4), (-np.inf, -np.inf, -3 * np.pi / 4), (np.inf, np.inf, np.pi / 4),
              (-np.inf, np.inf, -np.pi / 4), (np.nan, 1.0, np.nan), (1.0, np.nan, np.nan), (1.0, 1.0, np.pi / 4)],
    "hypot": [(np.inf, np.nan, np.inf), (np.nan, -np.inf, np.inf), (np.nan, 1.0, np.nan), (-0.0, 0.0, 0.0),
              (3e38, 3e38, np.inf), (3.0, -4.0, 5.0), (2.0 ** -149, 2.0 ** -149, 2.0 ** -149)],
    "pow": [(np.nan, 0.0, 1.0), (np.nan, -0.0, 1.0), (1.0, np.nan, 1.0), (-1.0, np.inf, 1.0), (-1.0, -np.inf, 1.0),
            (-0.0, -3.0, -np.inf), (0.0, -3.0, np.inf), (-0.0, -2.0, np.inf), (-0.0, -0.5, np.inf),
            (-0.0, 3.0, -0.0), (-0.0, 2.0, 0.0), (-0.0, 0.5, 0.0), (0.5, -np.inf, np.inf), (2.0, -np.inf, 0.0),
            (0.5, np.inf, 0.0), (2.0, np.inf, np.inf), (-np.inf, -3.0, -0.0), (-np.inf, -2.0, 0.0),
            (-np.inf, 3.0, -np.inf), (-np.inf, 0.5, np.inf), (np.inf, -1.0, 0.0), (np.inf, 2.0, np.inf),
            (-2.0, 0.5, np.nan), (-2.0, 3.0, -8.0), (-2.0, 2.0 ** 24, np.inf), (-0.5, 2.0 ** 25 + 2, 0.0),
            (2.0, np.nan, np.nan), (np.nan, 1.0, np.nan), (4.0, 0.5, 2.0), (2.0, -149.0, 2.0 ** -149), (2.0, 128.0, np.inf)],
    "powr": [(0.0, 0.0, np.nan), (-0.0, -0.0, np.nan), (np.inf, 0.0, np.nan), (1.0, np.inf, np.nan),
             (1.0, -np.inf, np.nan), (-1.0, 2.0, np.nan), (-np.inf, 2.0, np.nan), (2.0, np.nan, np.nan),
             (np.nan, 0.0, np.nan), (0.0, -1.0, np.inf), (-0.0, -np.inf, np.inf), (0.0, 2.0, 0.0),
             (np.inf, -1.0, 0.0), (np.inf, 2.0, np.inf), (1.0, 5.0, 1.0), (0.5, np.inf, 0.0), (2.0, -np.inf, 0.0),
             (4.0, 0.5, 2.0)],
}


@pytest.mark.parametrize("kind", sorted(BINARY_SPECIALS))
def test_binary_special_values(kind):
    function = jit(kind)
    for x, y, want in BINARY_SPECIALS[kind]:
        got = np.float32(function(x, y))
        if np.isnan(want):
            assert np.isnan(got), (kind, x, y, got)
        else:
            assert got == np.float32(want) and np.signbit(got) == np.signbit(np.float32(want)), (kind, x, y, got, want)


def pow_inputs(count=20000):
    """(x, y): x over every binade, y where the result stays finite for many x, and negative x
    with integer y."""
    x = np.concatenate([RNG.integers(0, 0x7F800000, count, dtype=np.uint32).view(np.float32),
                        RNG.uniform(0, 4, count).astype(np.float32),
                        -RNG.integers(1, 10, count // 4).astype(np.float32) * RNG.uniform(0.5, 1.5, count // 4).astype(np.float32)])
    y = np.concatenate([RNG.uniform(-40, 40, count), RNG.uniform(-200, 200, count),
                        RNG.integers(-30, 30, count // 4)]).astype(np.float32)
    return x, y


@pytest.mark.parametrize("kind, oracle", [("atan2", np.arctan2), ("hypot", np.hypot)])
def test_binary_function_meets_the_opencl_bound_on_the_cpu(kind, oracle):
    function = jit(kind)
    count = 20000
    patterns = RNG.integers(0, 0x7F800000, (2, count), dtype=np.uint32).view(np.float32)
    y, x = np.concatenate([patterns * RNG.choice(np.float32([-1, 1]), (2, count)),
                           RNG.uniform(-5, 5, (2, count)).astype(np.float32)], axis=1)
    got = np.array([function(float(a), float(b)) for a, b in zip(y, x)], np.float32)
    errors = ulp_errors(got, oracle(y.astype(np.float64), x.astype(np.float64)))
    assert errors.max() <= BOUNDS[kind], (y[errors.argmax()], x[errors.argmax()])


@pytest.mark.parametrize("kind", ["pow", "powr"])
def test_pow_meets_the_opencl_bound_on_the_cpu(kind):
    """pow through 2^(y log2|x|) with log2 in double (error about 2^-50): the 16 ulp that
    OpenCL C allows, where Vulkan's Pow (exp2(y log2 x) in float) loses |y log2 x| 2^-24."""
    function = jit(kind)
    x, y = pow_inputs()
    got = np.array([function(float(a), float(b)) for a, b in zip(x, y)], np.float32)
    with np.errstate(all="ignore"):
        exact = np.power(x.astype(np.float64), y.astype(np.float64))
    if kind == "powr":
        exact = np.where(x < 0, np.nan, exact)
    errors = ulp_errors(got, exact)
    worst = int(np.argmax(errors))
    assert errors[worst] <= BOUNDS[kind], (kind, x[worst], y[worst], got[worst], exact[worst])


@pytest.mark.parametrize("kind", sorted(SPECIALS))
def test_special_values(kind):
    function = jit(kind)
    for x, want in SPECIALS[kind]:
        got = np.float32(function(x))
        if np.isnan(want):
            assert np.isnan(got), (kind, x, got)
        else:
            assert got == np.float32(want) and np.signbit(got) == np.signbit(np.float32(want)), (kind, x, got, want)


def same_bits(got, want):
    """Equal bit patterns, any NaN matching any NaN."""
    got, want = np.asarray(got), np.asarray(want)
    unsigned = {4: np.uint32, 8: np.uint64, 2: np.uint16}[got.dtype.itemsize]
    return (got.view(unsigned) == want.view(unsigned)) | (np.isnan(got) & np.isnan(want))


@pytest.mark.parametrize("type_text", ["float", "double"])
def test_fmod_is_exact(type_text):
    """fmod is exact (IEEE 754): bit for bit as np.fmod (C's fmod) over random bit patterns
    (every exponent difference, subnormals), signed zeros, infinities and NaNs."""
    dtype, unsigned = (np.float32, np.uint32) if type_text == "float" else (np.float64, np.uint64)
    info = np.iinfo(unsigned)
    count = 20000 if type_text == "float" else 5000
    x = RNG.integers(0, info.max, count, dtype=unsigned, endpoint=True).view(dtype)
    y = RNG.integers(0, info.max, count, dtype=unsigned, endpoint=True).view(dtype)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -3.0, 5.5, np.finfo(dtype).max,
                        np.finfo(dtype).tiny, np.finfo(dtype).smallest_subnormal], dtype)
    x = np.concatenate([x, np.repeat(special, len(special))])
    y = np.concatenate([y, np.tile(special, len(special))])
    function = jit("fmod", type_text)
    got = np.array([function(float(a), float(b)) for a, b in zip(x, y)], dtype)
    with np.errstate(all="ignore"):
        want = np.fmod(x, y)
    wrong = ~same_bits(got, want)
    assert not wrong.any(), list(zip(x[wrong][:5], y[wrong][:5], got[wrong][:5], want[wrong][:5]))


def test_division_is_within_the_bound_for_every_divisor():
    """Divisors beyond 2^126 and subnormal ones (where Vulkan's OpFDiv has no bound) are
    scaled first: the quotient stays correctly rounded on a correctly rounding divider."""
    function = jit(vulkan_math.DIVISION)
    count = 5000
    y = np.concatenate([RNG.uniform(1, 2, count) * 2.0 ** RNG.integers(126, 128, count),
                        RNG.integers(1, 0x800000, count).astype(np.uint32).view(np.float32).astype(np.float64),
                        RNG.standard_normal(count)]).astype(np.float32) * RNG.choice(np.float32([-1, 1]), 3 * count)
    x = (RNG.standard_normal(3 * count) * 2.0 ** RNG.integers(-140, 120, 3 * count)).astype(np.float32)
    x[:10] = [0, -0.0, np.inf, 1e-45, 3e38, -3e38, 1, 1, np.nan, 2.0 ** -126]
    got = np.array([function(float(a), float(b)) for a, b in zip(x, y)], np.float32)
    with np.errstate(all="ignore"):
        exact = x.astype(np.float64) / y.astype(np.float64)
    errors = ulp_errors(got, exact)
    assert errors.max() <= BOUNDS["fdiv"], (x[errors.argmax()], y[errors.argmax()])
    # the scaled path matters: y beyond 2^126 and subnormal y are among the inputs
    assert (np.abs(y) > 2.0 ** 126).any() and ((np.abs(y) < 2.0 ** -126) & (y != 0)).any()


def test_two_over_pi_table():
    """The reduction's 192 bits of 2/pi against mpmath (an independent computation of pi)."""
    import mpmath
    with mpmath.workprec(400):
        want = int(mpmath.floor(2 / mpmath.pi * mpmath.mpf(2) ** 192))
    words = vulkan_math.two_over_pi_words()
    assert sum(w << (32 * i) for i, w in enumerate(words)) == want


# ------------------------------------------------------------- the module: what it contains, and a run

def test_the_module_has_no_glsl_instruction_for_the_exact_functions(tmp_path):
    """exp, exp2, log, log2, sin, cos are sequences (no GLSL Exp, Log, Sin...); native_exp keeps
    GLSL.std.450's Exp (native_ precision is the implementation's); a division by a variable
    scales its operands, a division by 2 stays one OpFDiv."""
    data = compile_vulkan("test/unit/kernels/vulkan_exact_math.cl", 2)
    done = spirv_val(data, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    text = disassemble(data, tmp_path)
    for name in ("Exp", "Exp2", "Log", "Log2", "Sin", "Cos", "Tan", "Sinh", "Cosh", "Tanh", "Pow"):
        assert f"GLSL.std.450 {name} " not in text and f" {name} %" not in text, name
    assert "OpUMod %ulong" in text                  # fmod's remainder steps
    assert "OpConvertSToF %double" in text          # the reduction's fraction


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_sequences_on_a_vulkan_device_meet_the_opencl_bounds(vulkan_device, opt_level):
    """The module on a Vulkan device (lavapipe on a machine without a GPU): float, float4 and
    half results against NumPy's float64 in ulp, fmod bit for bit. (lavapipe's own GLSL
    precision is not the GPU's; what is measured here is the emitted sequences.)"""
    from clcoop.vulkan.program import VulkanProgram
    program = VulkanProgram(compile_vulkan("test/unit/kernels/vulkan_exact_math.cl", opt_level))
    n = 4096
    x = np.concatenate([RNG.uniform(-104, 89, n // 2), RNG.uniform(-1e5, 1e5, n // 4),
                        RNG.uniform(0, 4, n // 4)]).astype(np.float32)
    y = RNG.uniform(-20, 20, n).astype(np.float32)
    y[:4] = [2.0 ** 127, -1.5 * 2.0 ** 126, 3.0, 0.0]
    out, half_out = np.zeros(10 * n, np.float32), np.zeros(2 * n, np.float16)
    program.kernel("exact_math")((n,), (64,), x, y, out, half_out)
    wide = x.astype(np.float64)
    with np.errstate(all="ignore"):
        for row, kind in enumerate(["exp", "exp2", "log", "log2", "log10", "sin", "cos"]):
            errors = ulp_errors(out[row * n:(row + 1) * n], ORACLES[kind](wide))
            assert errors.max() <= BOUNDS[kind], (kind, x[errors.argmax()], errors.max())
        errors = ulp_errors(out[7 * n:8 * n], wide / y.astype(np.float64))
        assert errors.max() <= BOUNDS["fdiv"]
        assert same_bits(out[8 * n:9 * n], np.fmod(x, y)).all()
        # float4: sin(w) + cos(w) summed; each component within 4 ulp of values below 2
        w = np.stack([wide, -wide, y.astype(np.float64), 0.5 * wide])
        exact = (np.sin(w) + np.cos(w)).sum(axis=0)
        assert np.abs(out[9 * n:] - exact).max() <= 8 * 4 * 2.0 ** -23 + 4 * 2.0 ** -22
        # half: through float, one rounding to half (within 1 half ulp of the exact value)
        halves = y.astype(np.float16)
        exact_exp = np.exp(halves.astype(np.float64))
        finite = np.abs(exact_exp) < 65504
        half_ulp = np.spacing(np.abs(exact_exp.astype(np.float16))).astype(np.float64)
        assert (np.abs(half_out[:n].astype(np.float64) - exact_exp)[finite] <= half_ulp[finite]).all()
        assert same_bits(half_out[n:], np.fmod(x.astype(np.float16), halves)).all()


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_more_sequences_on_a_vulkan_device(vulkan_device, opt_level):
    """exp10, tan, sinh, cosh, tanh, pow, powr and pow of a negative x with an integer y, through
    the module on a Vulkan device, against NumPy's float64 in ulp."""
    from clcoop.vulkan.program import VulkanProgram
    program = VulkanProgram(compile_vulkan("test/unit/kernels/vulkan_exact_math.cl", opt_level))
    n = 4096
    x = np.concatenate([RNG.uniform(-40, 40, n // 2), RNG.uniform(-3, 3, n // 4),
                        RNG.uniform(-1e4, 1e4, n // 4)]).astype(np.float32)
    y = RNG.uniform(-30, 30, n).astype(np.float32)
    out = np.zeros(21 * n, np.float32)
    program.kernel("more_math")((n,), (64,), x, y, out)
    wide, power = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        for row, kind in list(enumerate(["exp10", "tan", "sinh", "cosh", "tanh"])) + [(8, "atan")]:
            errors = ulp_errors(out[row * n:(row + 1) * n], ORACLES[kind](wide))
            assert errors.max() <= BOUNDS[kind], (kind, x[errors.argmax()], errors.max())
        expected = [np.power(wide, power), np.power(np.abs(wide), power), np.power(-np.abs(wide), np.trunc(power))]
        for row, exact in zip((5, 6, 7), expected):
            errors = ulp_errors(out[row * n:(row + 1) * n], exact)
            assert errors.max() <= BOUNDS["pow"], (row, x[errors.argmax()], y[errors.argmax()], errors.max())
        # asin, acos, atanh of x / 32 (exact; NaN beyond 1), atan2(x, y), asinh, acosh(|x|), log1p,
        # expm1, cbrt, hypot(x, y), erf, erfc
        ratio = (x / np.float32(32)).astype(np.float64)
        for row, kind, exact in ((9, "asin", np.arcsin(ratio)), (10, "acos", np.arccos(ratio)),
                                 (11, "atan2", np.arctan2(wide, power)), (12, "asinh", np.arcsinh(wide)),
                                 (13, "acosh", np.arccosh(np.abs(wide))), (14, "atanh", np.arctanh(ratio)),
                                 (15, "log1p", np.log1p(wide)), (16, "expm1", np.expm1(wide)),
                                 (17, "cbrt", np.cbrt(wide)), (18, "hypot", np.hypot(wide, power)),
                                 (19, "erf", ORACLES["erf"](wide)), (20, "erfc", ORACLES["erfc"](wide))):
            errors = ulp_errors(out[row * n:(row + 1) * n], exact)
            assert errors.max() <= BOUNDS[kind], (kind, x[errors.argmax()], errors.max())


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_half_and_native_functions_on_a_vulkan_device(vulkan_device, opt_level):
    """half_sin over [-2^16, 2^16] and half_log near 1 (where GLSL's bounds miss half_'s 8192
    ulp) and half_divide/half_recip by divisors beyond 2^126 are the sequences (within their
    OpenCL C full-precision bounds here); native_divide/native_recip are one OpFDiv (2.5 ulp in
    Vulkan's range: lavapipe divides exactly)."""
    from clcoop.vulkan.program import VulkanProgram
    program = VulkanProgram(compile_vulkan("test/unit/kernels/vulkan_exact_math.cl", opt_level))
    n = 2048
    x = np.concatenate([RNG.uniform(-2.0 ** 16, 2.0 ** 16, n // 2), RNG.uniform(0.999, 1.001, n // 2)]).astype(np.float32)
    y = np.concatenate([RNG.uniform(1, 2, n // 2) * 2.0 ** 127, RNG.uniform(-20, 20, n // 2)]).astype(np.float32)
    out = np.zeros(6 * n, np.float32)
    program.kernel("half_and_native")((n,), (64,), x, y, out)
    wide, divisor = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        rows = [(np.sin(wide), 4), (np.log(np.abs(wide)), 3), (wide / divisor, 2.5), (1.0 / divisor, 2.5)]
        for row, (exact, bound) in enumerate(rows):
            errors = ulp_errors(out[row * n:(row + 1) * n], exact)
            assert errors.max() <= bound, (row, x[errors.argmax()], y[errors.argmax()], errors.max())
        inside = np.abs(y) <= 2.0 ** 126
        for row, exact in ((4, wide / divisor), (5, 1.0 / divisor)):
            errors = ulp_errors(out[row * n:(row + 1) * n], exact)
            assert errors[inside].max() <= 2.5


def test_a_transcendental_function_on_double_is_refused_at_its_line():
    """No GLSL.std.450 instruction and no sequence for exp on double: a located error that says
    so (fmod on double is a sequence and compiles)."""
    from clcoop.errors import CompileError
    from clcoop.frontend import driver
    from clcoop.spirv.vulkan import ir_to_vulkan_spirv
    source = ("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n__kernel void k(__global double *x) {\n"
              "  x[0] = fmod(x[0], x[1]);\n  x[1] = exp(x[2]);\n}\n")
    result = driver.compile_source(source, driver.CompileOptions(filename="k.cl", debug_info=True))
    with pytest.raises(CompileError) as caught:
        ir_to_vulkan_spirv(result.ir)
    message = str(caught.value)
    assert "k.cl:4:" in message and "'exp' on double" in message and "float" in message, message


@pytest.mark.filterwarnings("ignore::RuntimeWarning")            # NumPy's overflow to infinity
def test_ldexp_is_exact_and_pown_rootn_meet_the_opencl_bound_on_the_cpu():
    """ldexp bit for bit as np.ldexp (subnormal results and overflow included); pown and rootn
    within OpenCL C's 16 ulp against NumPy's float64, their special values (OpenCL C 7.5.1)."""
    count = 20000
    x = (RNG.integers(0, 0x7F800000, count, dtype=np.uint32).view(np.float32)
         * RNG.choice(np.float32([-1, 1]), count))
    k = RNG.integers(-300, 300, count).astype(np.int32)
    ldexp = jit("ldexp")
    got = np.array([ldexp(float(a), int(n)) for a, n in zip(x, k)], np.float32)
    assert same_bits(got, np.ldexp(x, k)).all()
    x = np.concatenate([x[:count // 2], RNG.uniform(-3, 3, count // 2).astype(np.float32)])
    k = RNG.integers(-40, 40, count).astype(np.int32)
    pown = jit("pown")
    got = np.array([pown(float(a), int(n)) for a, n in zip(x, k)], np.float32)
    errors = ulp_errors(got, np.power(x.astype(np.float64), k.astype(np.float64)))
    assert errors.max() <= BOUNDS["pow"], (x[errors.argmax()], k[errors.argmax()])
    k = np.where(k % 9 == 0, 3, k % 9).astype(np.int32)
    rootn = jit("rootn")
    got = np.array([rootn(float(a), int(n)) for a, n in zip(x, k)], np.float32)
    wide = x.astype(np.float64)
    exact = np.where((x < 0) & (k % 2 == 1), -np.power(np.abs(wide), 1.0 / k), np.power(wide, 1.0 / k))
    errors = ulp_errors(got, exact)
    assert errors.max() <= BOUNDS["pow"], (x[errors.argmax()], k[errors.argmax()])
    specials = [(pown, np.nan, 0, 1.0), (pown, -0.0, -3, -np.inf), (pown, 0.0, -2, np.inf), (pown, -0.0, 3, -0.0),
                (pown, -np.inf, -3, -0.0), (pown, -2.0, 2 ** 24 + 1, -np.inf), (pown, -1.0, 2 ** 30 + 1, -1.0),
                (rootn, 8.0, 0, np.nan), (rootn, -8.0, 3, -2.0), (rootn, -8.0, 2, np.nan), (rootn, -0.0, -3, -np.inf),
                (rootn, 0.0, -2, np.inf), (rootn, -0.0, 2, 0.0), (rootn, -np.inf, -3, -0.0), (rootn, np.nan, 2, np.nan),
                (ldexp, 1.0, 128, np.inf), (ldexp, 1.0, -149, 2.0 ** -149), (ldexp, -3.0, -2 ** 31, -0.0)]
    for function, a, n, want in specials:
        got = np.float32(function(a, n))
        if np.isnan(want):
            assert np.isnan(got), (a, n, got)
        else:
            assert got == np.float32(want) and np.signbit(got) == np.signbit(np.float32(want)), (a, n, got, want)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")            # NumPy's overflow to infinity
@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_int_operand_functions_and_sincos_on_a_vulkan_device(vulkan_device, opt_level):
    from clcoop.vulkan.program import VulkanProgram
    program = VulkanProgram(compile_vulkan("test/unit/kernels/vulkan_exact_math.cl", opt_level))
    n = 2048
    x = np.concatenate([RNG.uniform(-5, 5, n // 2), RNG.uniform(-1e4, 1e4, n // 2)]).astype(np.float32)
    k = RNG.integers(-200, 200, n).astype(np.int32)
    out, vout = np.zeros(5 * n, np.float32), np.zeros((2 * n, 4), np.float32)
    program.kernel("int_operand_math")((n,), (64,), x, k, out, vout)
    wide = x.astype(np.float64)
    assert same_bits(out[:n], np.ldexp(x, k)).all()
    power = np.fmod(k, 40).astype(np.float64)                    # C's % truncates
    root = np.fmod(k, 9)
    with np.errstate(all="ignore"):
        assert ulp_errors(out[n:2 * n], np.power(wide, power)).max() <= BOUNDS["pow"]
        exact = np.where((x < 0) & (root % 2 == 1), -np.power(np.abs(wide), 1.0 / root), np.power(wide, 1.0 / root))
        exact = np.where(root == 0, np.nan, exact)
        assert ulp_errors(out[2 * n:3 * n], exact).max() <= BOUNDS["pow"]
    assert ulp_errors(out[3 * n:4 * n], np.sin(wide)).max() <= BOUNDS["sin"]
    assert ulp_errors(out[4 * n:], np.cos(wide)).max() <= BOUNDS["cos"]
    w = np.stack([x, -x, np.float32(0.5) * x, np.full(n, 2, np.float32)], axis=1)
    exponents = np.stack([k, -k, np.full(n, 3), np.fmod(k, 7)], axis=1).astype(np.int32)
    np.testing.assert_array_equal(vout[:n], np.ldexp(w, exponents) + np.ldexp(w, 2))
    wide_w = w.astype(np.float64)
    assert np.abs(vout[n:] - (np.sin(wide_w) + np.cos(wide_w))).max() <= 4 * 2.0 ** -22
