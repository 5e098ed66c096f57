"""The vector forms of the OpenCL C integer built-ins on the Vulkan target (component by
component over clcoop/spirv/vulkan_builtins.py's scalar sequences): run on a Vulkan device
(lavapipe here) against the interpreter bit for bit, and against NumPy for a few."""
import numpy as np
import pytest

from test_vulkan_target import compile_vulkan, interpret, vulkan_device  # noqa: F401
from test_vulkan_target import pytestmark  # noqa: F401  (llc-22, opt-22, spirv-val)

PATH = "test/unit/kernels/vulkan_int_vectors.cl"


def values(rng, dtype, shape):
    info = np.iinfo(dtype)
    data = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    data.reshape(-1)[:4] = [0, info.max, info.min, 1]          # the extremes
    return data


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_vector_integer_built_ins_match_the_interpreter(vulkan_device, opt_level):
    from clcoop.vulkan.program import VulkanProgram
    program = VulkanProgram(compile_vulkan(PATH, opt_level))
    rng = np.random.default_rng(13)
    n = 64
    a, b = values(rng, np.int32, (n + 2, 4)), values(rng, np.uint32, (n + 1, 2))
    c, d = values(rng, np.int64, (n + 2, 2)), values(rng, np.uint8, (n + 1, 4))
    results = []
    for engine in ("vulkan", "interpreter"):
        outs = [np.zeros((5 * n, 4), np.int32), np.zeros((3 * n, 2), np.uint32), np.zeros((2 * n, 2), np.int64),
                np.zeros((3 * n, 4), np.uint8)]
        args = ((n,), (32,), a, b, c, d, *outs)
        if engine == "vulkan":
            program.kernel("int_vectors")(*args)
        else:
            interpret(PATH, "int_vectors", *args)
        results.append(outs)
    for got, want in zip(*results):
        np.testing.assert_array_equal(got, want)
    ao, bo, _, dout = results[0]
    popcount = np.vectorize(lambda v: bin(int(v) & 0xFFFFFFFF).count("1"))
    np.testing.assert_array_equal(ao[:n], popcount(a[:n]))
    np.testing.assert_array_equal(bo[:n], ((b[:n].astype(np.uint64) * b[1:].astype(np.uint64)) >> 32).astype(np.uint32))
    np.testing.assert_array_equal(dout[n:2 * n], np.where(d[:n] > d[1:], d[:n] - d[1:], 0).astype(np.uint8))
