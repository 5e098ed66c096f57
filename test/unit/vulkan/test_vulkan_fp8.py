"""fp8 on the Vulkan target (docs/vulkan.md "fp8"): fp8 matrices are refused at their line with
what the measured device lacks (checked against its recorded description); scalar fp8
conversions are integer code that needs no float8 support, run on a Vulkan device (lavapipe
here) bit for bit against the interpreter and ml_dtypes."""
import json
from pathlib import Path

import numpy as np
import pytest

import clcoop
from clcoop.errors import CompileError
from test_vulkan_target import compile_vulkan, disassemble, spirv_val, vulkan_device  # noqa: F401
from test_vulkan_target import pytestmark  # noqa: F401  (llc-22, opt-22, spirv-val)

ROOT = Path(__file__).resolve().parents[3]
PATH = "test/unit/kernels/vulkan_fp8_scalars.cl"


def test_fp8_matrices_are_refused_naming_what_the_device_lacks():
    with pytest.raises(CompileError) as caught:
        compile_vulkan("examples/gemm_fp8.cl", 2)
    message = str(caught.value)
    assert "gemm_fp8.cl:29:" in message, message                 # the first fp8 matrix load
    assert "VK_EXT_shader_float8" in message and "SPV_EXT_float8" in message
    assert "vulkan_h200.json" in message and "interpreter" in message


def test_the_recorded_device_has_no_float8():
    """What the refusal says of the H200 is what its recorded description lists."""
    device = json.loads((ROOT / "test/unit/data/vulkan_h200.json").read_text())[0]
    assert device["name"] == "NVIDIA H200" and device["driver_info"] == "580.159.04"
    assert not any("float8" in e.lower() for e in device["extensions"])
    components = {m[side] for m in device["khr"] + device["flexible"] for side in "ABC"}
    assert components == {"f16", "bf16", "s8", "u8", "f32", "s32", "u32"}
    assert not any("float8" in feature.lower() for feature in device["features"])


def test_scalar_conversions_need_no_float8(tmp_path):
    data = compile_vulkan(PATH, 2)
    done = spirv_val(data, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    text = disassemble(data, tmp_path)
    assert "Float8" not in text and "SPV_EXT_float8" not in text and "OpTypeFloat 8" not in text
    # the rounding is integer code: lavapipe's double RoundEven is wrong without AVX-512
    assert "RoundEven" not in text


def run_on_both(opt_level, x):
    """(decoded, as_int, encoded) of the kernel on the Vulkan device and in the interpreter,
    for every fp8 pattern (repeated to x's length) and the floats x; the two bit for bit."""
    from clcoop.vulkan.program import VulkanProgram
    program = VulkanProgram(compile_vulkan(PATH, opt_level))
    interpreter = clcoop.Program((ROOT / PATH).read_text()).build(options=["-cl-opt-disable"])
    n = x.size
    bits = (np.arange(n) % 256).astype(np.uint8)
    k = np.random.default_rng(5).integers(-1000, 1000, n, dtype=np.int32)
    results = []
    for run in (program.kernel("fp8_scalars"), interpreter.fp8_scalars):
        decoded, as_int, encoded = np.zeros(3 * n, np.float32), np.zeros(2 * n, np.int32), np.zeros(7 * n, np.uint8)
        run((n,), (64,), bits, x, k, decoded, as_int, encoded)
        results.append((decoded, as_int, encoded))
    for got, want in zip(*results):
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    return bits, results[0]


def assert_encodings_as_ml_dtypes(x, encoded):
    """The non-saturating encodings against ml_dtypes (one rounding, ties to even); E4M3 for
    finite values below 464, where the overflow rules cannot differ."""
    import ml_dtypes
    n = x.size
    np.testing.assert_array_equal(encoded[2 * n:3 * n], x.astype(ml_dtypes.float8_e5m2).view(np.uint8))
    finite = np.isfinite(x) & (np.abs(x) < 464)
    np.testing.assert_array_equal(encoded[:n][finite], x[finite].astype(ml_dtypes.float8_e4m3fn).view(np.uint8))


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_scalar_conversions_on_a_vulkan_device(vulkan_device, opt_level):
    import ml_dtypes
    n = 256
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(np.float32)
    # specials, the largest finite values and just past them, halfway cases, subnormals
    x[:14] = [np.inf, -np.inf, np.nan, 448, 464, 480, 57344, 61440, 1e-9, -0.0, 2.0 ** -10,
              3.0 * 2.0 ** -10, 1.0625, -1.1875]
    bits, (decoded, _, encoded) = run_on_both(opt_level, x)
    # independent of the interpreter: ml_dtypes decodes and rounds (ties to even, non-saturating)
    e4m3 = bits.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    e5m2 = bits.view(ml_dtypes.float8_e5m2).astype(np.float32)
    np.testing.assert_array_equal(decoded[:n].view(np.uint32), e4m3.view(np.uint32))
    np.testing.assert_array_equal(decoded[n:2 * n].view(np.uint32), e5m2.view(np.uint32))
    assert_encodings_as_ml_dtypes(x, encoded)


def halfway_values():
    """Every value halfway between two neighbouring finite fp8 values of either format, and
    the floats next to it on both sides, both signs, padded with zeros to a multiple of 64."""
    import ml_dtypes
    values = []
    for fp8 in (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2):
        finite = np.arange(256, dtype=np.uint8).view(fp8).astype(np.float64)
        finite = np.unique(finite[np.isfinite(finite) & (finite >= 0)])
        middle = ((finite[:-1] + finite[1:]) / 2).astype(np.float32)   # exact: fp8 has 4 bits
        values += [middle, np.nextafter(middle, np.float32(0)), np.nextafter(middle, np.float32(np.inf))]
    x = np.concatenate(values)
    x = np.concatenate([x, -x])
    return np.concatenate([x, np.zeros(-x.size % 64, np.float32)])


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_every_tie_rounds_to_even_on_a_vulkan_device(vulkan_device, opt_level):
    """The encoding's one rounding at every halfway case (lavapipe's double RoundEven, which
    the encoding used until it became integer code, rounds these toward zero on a host
    without AVX-512)."""
    x = halfway_values()
    _, (_, _, encoded) = run_on_both(opt_level, x)
    assert_encodings_as_ml_dtypes(x, encoded)
