"""C11 compare-exchange and the async copies on the Vulkan target (clcoop/spirv/vulkan_builtins.py,
docs/vulkan.md): the instructions the module holds, and a run on a Vulkan device (lavapipe
here) against the interpreter and NumPy."""
import re

import numpy as np
import pytest

import clcoop
from clcoop.errors import CompileError
from clcoop.frontend import driver
from test_vulkan_target import compile_vulkan, disassemble, interpret, spirv_val, vulkan_device  # noqa: F401
from test_vulkan_target import pytestmark  # noqa: F401  (llc-22, opt-22, spirv-val)

PATH = "test/unit/kernels/vulkan_memory_builtins.cl"


def test_compare_exchange_and_barriers_in_the_module(tmp_path):
    """OpAtomicCompareExchange with the given order (seq_cst as acquire-release, relaxed as 0)
    and scope (Device for a buffer, Workgroup for __local or memory_scope_work_group), Unequal
    relaxed; wait_group_events a work-group barrier over __local and __global memory."""
    data = compile_vulkan(PATH, 2)
    done = spirv_val(data, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    text = disassemble(data, tmp_path)
    exchanges = re.findall(r"OpAtomicCompareExchange %(\w+) %\w+ %uint_(\d+) %uint_(\d+) %uint_0 ", text)
    # strong (seq_cst, Device), weak_explicit (relaxed, Device), ulong (seq_cst), __local (acq_rel, Workgroup)
    assert ("uint", "1", str(0x6048)) in exchanges and ("uint", "1", "0") in exchanges
    assert ("ulong", "1", str(0x6048)) in exchanges and ("uint", "2", str(0x6108)) in exchanges
    # WorkgroupMemory | UniformMemory | AcquireRelease | MakeAvailable | MakeVisible
    assert "OpControlBarrier %uint_2 %uint_2 %uint_24904" in text


def test_compare_exchange_on_floats_is_refused_at_its_line():
    source = ("__kernel void k(__global float *x) {\n  float e = 0.0f;\n"
              "  atomic_compare_exchange_strong((volatile __global atomic_float *)x, &e, 1.0f);\n}\n")
    from clcoop.spirv.vulkan import ir_to_vulkan_spirv
    result = driver.compile_source(source, driver.CompileOptions(filename="k.cl", debug_info=True))
    with pytest.raises(CompileError) as caught:
        ir_to_vulkan_spirv(result.ir)
    message = str(caught.value)
    assert "k.cl:3:" in message and "atomic_int" in message and "Vulkan target" in message, message


def launch(run, n, own, found, total, wide, x, xf, out, spread):
    run("compare_exchange", (n,), (32,), own, found, total, wide, x, clcoop.LocalMemory(32 * 4))
    run("async_copies", (128,), (32,), xf, out, spread, clcoop.LocalMemory(64 * 4), clcoop.LocalMemory(32 * 4))


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_on_a_vulkan_device_they_match_the_interpreter(vulkan_device, opt_level):
    from clcoop.vulkan.program import VulkanProgram
    program = VulkanProgram(compile_vulkan(PATH, opt_level))
    rng = np.random.default_rng(4)
    n = 128
    own0 = rng.integers(-50, 50, n, dtype=np.int32)
    x = rng.integers(-9, 9, n, dtype=np.int32)
    wide0 = rng.integers(0, 2 ** 40, n, dtype=np.uint64)
    xf = rng.standard_normal(4 * 2 * 32).astype(np.float32)
    results = []
    for engine in ("vulkan", "interpreter"):
        buffers = [own0.copy(), np.zeros(3 * n, np.int32), np.zeros(1, np.int32), wide0.copy(), x, xf,
                   np.zeros(4 * 64, np.float32), np.zeros(4 * 3 * 32, np.float32)]
        if engine == "vulkan":
            launch(lambda name, *a: program.kernel(name)(*a), n, *buffers)
        else:
            launch(lambda name, *a: interpret(PATH, name, *a), n, *buffers)
        results.append(buffers)
    for got, want in zip(*results):
        np.testing.assert_array_equal(got, want)
    own, found, total, wide, _, _, out, spread = results[0]
    # independent of the interpreter: what C11's compare-exchange means here
    odd = np.arange(n) % 2 == 1
    np.testing.assert_array_equal(own[odd], 1000 + np.arange(n)[odd])
    np.testing.assert_array_equal(own[~odd], own0[~odd])
    np.testing.assert_array_equal(found[0::3], odd.astype(np.int32))
    np.testing.assert_array_equal(found[1::3][~odd], own0[~odd])        # the value found, written back
    assert total[0] == x.sum()
    np.testing.assert_array_equal(wide[odd], wide0[odd])                 # expected one off: unchanged
    np.testing.assert_array_equal(wide[~odd], wide0[~odd] + 2 ** 32)
    np.testing.assert_array_equal(found[2::3], 100 + (np.arange(n) % 32 ^ 1))
    # the async copies, by NumPy
    blocks = xf.reshape(4, 64)
    gathered = blocks[:, 1::2]
    tile = blocks.copy()
    tile[:, :32] = blocks[:, :32] * 2 + blocks[:, ::-1][:, :32] + gathered[:, ::-1]
    np.testing.assert_allclose(out.reshape(4, 64), tile, rtol=0, atol=1e-6)
    want_spread = np.zeros((4, 96), np.float32)
    want_spread[:, 0::3] = gathered
    np.testing.assert_array_equal(spread.reshape(4, 96), want_spread)


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_async_copies_of_vectors_and_bytes_match_the_interpreter(vulkan_device, opt_level):
    from clcoop.vulkan.program import VulkanProgram
    program = VulkanProgram(compile_vulkan(PATH, opt_level))
    rng = np.random.default_rng(8)
    groups = 3
    x = rng.standard_normal((groups * 16, 4)).astype(np.float32)
    c = rng.integers(0, 256, groups * 24, dtype=np.uint8)
    results = []
    for engine in ("vulkan", "interpreter"):
        y, d = np.zeros((groups * 32, 4), np.float32), np.zeros(groups * 8, np.uint8)
        args = ((groups * 32,), (32,), x, y, c, d, clcoop.LocalMemory(16 * 16), clcoop.LocalMemory(8))
        if engine == "vulkan":
            program.kernel("async_vectors")(*args)
        else:
            interpret(PATH, "async_vectors", *args)
        results.append((y, d))
    for got, want in zip(*results):
        np.testing.assert_array_equal(got, want)
    y, d = results[0]
    np.testing.assert_array_equal(d, c.reshape(groups, 8, 3)[:, :, 0].reshape(-1))     # every third byte
    lanes = np.arange(32)
    want_y = x.reshape(groups, 16, 4)[:, 15 - lanes % 16] + d.reshape(groups, 8)[:, lanes % 8, None]
    np.testing.assert_array_equal(y.reshape(groups, 32, 4), want_y.astype(np.float32))


@pytest.mark.parametrize("opt_level", [0, 2], ids=["O0", "O2"])
def test_atomic_flags_match_the_interpreter(vulkan_device, opt_level):
    """atomic_flag_test_and_set[_explicit] (OpAtomicExchange with 1) and atomic_flag_clear[_explicit]
    (OpAtomicStore of 0)."""
    from clcoop.vulkan.program import VulkanProgram
    program = VulkanProgram(compile_vulkan(PATH, opt_level))
    n = 96
    start = np.random.default_rng(10).integers(0, 2, n, dtype=np.int32)
    results = []
    for engine in ("vulkan", "interpreter"):
        buffers = (start.copy(), np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(n, np.int32))
        if engine == "vulkan":
            program.kernel("flags")((n,), (32,), *buffers)
        else:
            interpret(PATH, "flags", (n,), (32,), *buffers)
        results.append(buffers)
    for got, want in zip(*results):
        np.testing.assert_array_equal(got, want)
    own, shared_flag, winners, was = results[0]
    np.testing.assert_array_equal(was, start != 0)
    np.testing.assert_array_equal(own, (np.arange(n) % 2 == 0).astype(np.int32))
    assert shared_flag[0] == 1 and winners[0] == 1
