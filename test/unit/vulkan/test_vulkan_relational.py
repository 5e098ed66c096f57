"""select and bitselect on the Vulkan target (clcoop/spirv/vulkan_builtins.py): run on a Vulkan
device (lavapipe here) against the interpreter and NumPy."""
import numpy as np
import pytest

from test_vulkan_target import compile_vulkan, interpret, vulkan_device  # noqa: F401
from test_vulkan_target import pytestmark  # noqa: F401  (llc-22, opt-22, spirv-val)

PATH = "test/unit/kernels/vulkan_select.cl"


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_select_and_bitselect_match_the_interpreter_and_numpy(vulkan_device, opt_level):
    from clcoop.vulkan.program import VulkanProgram
    program = VulkanProgram(compile_vulkan(PATH, opt_level))
    rng = np.random.default_rng(12)
    n = 64
    x = rng.standard_normal((n + 1, 4)).astype(np.float32)
    m = rng.integers(-2 ** 31, 2 ** 31, (n, 4), dtype=np.int64).astype(np.int32)
    m[:, 0] = rng.choice([0, 1, -1, 2 ** 30], n)              # nonzero but MSB clear selects a
    s = rng.standard_normal(n + 1).astype(np.float32)
    k = rng.integers(-3, 3, n + 2, dtype=np.int32)
    u = rng.integers(0, 2 ** 32, (n + 1, 2), dtype=np.uint64).astype(np.uint32)
    results = []
    for engine in ("vulkan", "interpreter"):
        outs = [np.zeros((2 * n, 4), np.float32), np.zeros(n, np.float32), np.zeros(n, np.int32),
                np.zeros((n, 2), np.uint32)]
        args = ((n,), (32,), x, m, s, k, u, *outs)
        if engine == "vulkan":
            program.kernel("selects")(*args)
        else:
            interpret(PATH, "selects", *args)
        results.append(outs)
    for got, want in zip(*results):
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    fout, sout, kout, uout = results[0]
    np.testing.assert_array_equal(fout[0::2], np.where(m < 0, x[1:], x[:-1]))
    bits = x.view(np.uint32)
    mask = m.view(np.uint32)
    np.testing.assert_array_equal(fout[1::2].view(np.uint32), (bits[:-1] & ~mask) | (bits[1:] & mask))
    np.testing.assert_array_equal(sout, np.where(k[:n] != 0, s[1:], s[:-1]))
    np.testing.assert_array_equal(kout, (k[:n] & ~k[2:]) | (k[1:n + 1] & k[2:]))
    c = np.stack([k[:n], k[1:n + 1]], axis=1)
    np.testing.assert_array_equal(uout, np.where(c < 0, u[1:], u[:-1]))
