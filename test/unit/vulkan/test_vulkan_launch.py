"""The GPU engine's launch path (clcoop/vulkan/runner.py): small arrays in mapped buffers the
kernel uses in place, large ones staged, a recording kept per distinct launch, GPU timestamps
on request, the spinning wait; every result checked against NumPy, on the first Vulkan device
(lavapipe here)."""
from types import SimpleNamespace

import numpy as np
import pytest

from clcoop.errors import DeviceTimeout
from clcoop.vulkan import VulkanProgram, runner as runners
from clcoop.vulkan.runner import DIRECT_IN, DIRECT_OUT, STAGED, placement, runner
from vulkan_modules import SPIN, SPIN_RECORD, VADD, VADD_RECORD, assemble, device_or_skip


@pytest.fixture(scope="module")
def vadd(tmp_path_factory):
    device_or_skip()
    return VulkanProgram(assemble(VADD, VADD_RECORD, tmp_path_factory.mktemp("vadd")))


@pytest.fixture
def run(vadd):
    """The device's Runner, its settings restored after the test."""
    found = runner(vadd.device)
    saved = found.direct_max_bytes, found.spin_s
    yield found
    found.direct_max_bytes, found.spin_s = saved


def _inputs(sizes, seed):
    rng = np.random.default_rng(seed)
    return [rng.random(size, dtype=np.float32) for size in sizes]


def test_placement_puts_small_arrays_in_mapped_memory_and_stages_large_ones():
    where = placement((4096, 100_000, 70_000, 0), (False, True, False, True), 65536)
    assert where.pools == (DIRECT_IN, STAGED, STAGED, DIRECT_OUT)
    assert where.offsets == (0, 0, 100_096, 0)             # staging offsets aligned to 256 bytes
    assert where.staging_bytes == 100_096 + 70_144
    assert placement((4096,), (True,), -1).pools == (STAGED,)


@pytest.mark.parametrize("direct_max_bytes", [-1, 2048, 1 << 30], ids=["all staged", "mixed", "all direct"])
def test_every_placement_gives_numpys_result(vadd, run, direct_max_bytes):
    run.direct_max_bytes = direct_max_bytes
    a, b = _inputs((4096, 500), seed=direct_max_bytes & 0xFF)     # 16 KiB, 2000 bytes
    c = np.full(1024, 7, np.float32)                               # 4 KiB: the tail goes up and comes back
    for _ in range(2):          # the second launch reuses the recording with new data
        a += 1
        vadd.vadd((512,), (64,), a, b, c, 500)
        assert np.array_equal(c[:500], a[:500] + b) and np.all(c[500:] == 7)
    where = placement((a.nbytes, b.nbytes, c.nbytes), (False, False, True), direct_max_bytes)
    kept = {pool: sum(len(buffers) for buffers in run.pools[pool].free.values()) for pool in run.pools}
    assert all(kept[pool] >= where.pools.count(pool) for pool in where.pools)      # taken from, given back to


def test_a_small_launch_records_no_copies(vadd, run, monkeypatch):
    run.direct_max_bytes = 1 << 30
    copies, real = [], run.api.vkCmdCopyBuffer
    monkeypatch.setattr(run.api, "vkCmdCopyBuffer", lambda *args: copies.append(args) or real(*args))
    a, b = _inputs((300, 300), seed=11)
    c = np.zeros(300, np.float32)
    vadd.vadd((320,), (64,), a, b, c, 299)         # a launch not seen before: recorded now
    assert not copies and np.array_equal(c[:299], (a + b)[:299]) and c[299] == 0
    run.direct_max_bytes = -1
    c[:] = 0
    vadd.vadd((320,), (64,), a, b, c, 299)         # staged: three arrays up, one back
    assert len(copies) == 4 and np.array_equal(c[:299], (a + b)[:299]) and c[299] == 0


def test_a_recording_is_kept_per_distinct_launch(vadd, run):
    a, b = _inputs((256, 256), seed=12)
    c = np.zeros(256, np.float32)
    vadd.vadd((256,), (64,), a, b, c, 256)
    first = run.recorded
    vadd.vadd((256,), (64,), a, b, c, 100)          # another scalar: another recording
    assert run.recorded is not first
    a += 1
    timings = vadd.vadd((256,), (64,), a, b, c, 256)   # the first again: its recording, new data
    assert run.recorded is first and timings.record == 0.0
    assert np.array_equal(c, a + b)


def test_gpu_times_are_asked_for(vadd):
    description = device_or_skip()
    a, b = _inputs((128, 128), seed=13)
    c = np.zeros(128, np.float32)
    assert vadd.vadd((128,), (64,), a, b, c, 128).gpu == []
    timings = vadd.vadd((128,), (64,), a, b, c, 128, repeat=2, gpu_times=True)
    if description.timestamp_period_ns:
        assert len(timings.gpu) == 2 and all(0 < t < timings.wait + timings.submit for t in timings.gpu)
    assert vadd.vadd((128,), (64,), a, b, c, 128, repeat=2).gpu == []     # recorded again without them
    assert np.array_equal(c, a + b)


def test_the_spinning_wait_sees_the_end_and_still_times_out(tmp_path, vadd, run):
    run.spin_s = 5.0
    a, b = _inputs((64, 64), seed=14)
    c = np.zeros(64, np.float32)
    vadd.vadd((64,), (64,), a, b, c, 64)
    assert np.array_equal(c, a + b)
    prog = VulkanProgram(assemble(SPIN, SPIN_RECORD, tmp_path), device=vadd.device.description.index)
    assert prog.device is vadd.device
    out = np.zeros(64, np.float32)
    prog.spin((64,), (64,), out, 10, timeout=30)
    for items in (1 << 13, 1 << 16, 1 << 19):          # as test_vulkan_dispatch's timeout test
        try:
            prog.spin((items,), (64,), np.zeros(items, np.float32), 50_000, timeout=0.0001)
        except DeviceTimeout:
            break                                       # the spin ended at the timeout, not after 5 s
    else:
        pytest.fail("no launch of up to 2**19 work-items of 50000 iterations timed out after 0.1 ms")
    vadd.vadd((64,), (64,), a, b, c, 64, timeout=120)   # waits for the long one, then runs
    assert np.array_equal(c, a + b)


@pytest.mark.parametrize("environment, device_type, seconds", [
    (None, "CPU", 0.0), (None, "discrete GPU", runners.DEFAULT_SPIN_S), ("250", "CPU", 0.00025),
    ("0", "discrete GPU", 0.0), ("x", "integrated GPU", runners.DEFAULT_SPIN_S)])
def test_the_spin_time(monkeypatch, environment, device_type, seconds):
    if environment is None:
        monkeypatch.delenv(runners.SPIN_ENV, raising=False)
    else:
        monkeypatch.setenv(runners.SPIN_ENV, environment)
    assert runners.default_spin(SimpleNamespace(device_type=device_type)) == pytest.approx(seconds)


def test_the_kernels_reason_is_found_once(vadd, monkeypatch):
    from clcoop.vulkan import program as programs
    calls = []
    monkeypatch.setattr(programs, "unsupported_reason", lambda *a: calls.append(a[0]))
    vadd._reasons.clear()
    assert vadd.reason("vadd") is None and vadd.reason("vadd") is None
    assert calls == ["vadd"]


HISTOGRAM = """__kernel void hist(__global const int *v, __global int *bins, int n) {
    size_t i = get_global_id(0);
    if (i < (size_t)n) atomic_add(&bins[v[i] & 7], 1);
}"""


def test_a_module_with_atomics_keeps_its_written_arrays_in_device_memory(vadd, run, monkeypatch):
    """Atomics on host memory across PCIe are not for every platform: the bins are staged, the
    values read in place."""
    import clcoop
    assert placement((4000, 32), (False, True), 65536, direct_writes=False).pools == (DIRECT_IN, STAGED)
    assert not vadd.has_atomics
    program = clcoop.Program(HISTOGRAM).build(engine="vulkan")
    copies, real = [], run.api.vkCmdCopyBuffer
    monkeypatch.setattr(run.api, "vkCmdCopyBuffer", lambda *args: copies.append(args) or real(*args))
    values = np.random.default_rng(15).integers(0, 1000, 1000).astype(np.int32)
    bins = np.full(8, 3, np.int32)
    program.hist((1024,), (64,), values, bins, np.int32(1000))
    assert np.array_equal(bins, np.bincount(values & 7, minlength=8) + 3)
    assert len(copies) == 2                # the bins up and back; the values in place


def test_a_full_device_local_host_visible_heap_falls_back_to_host_memory(monkeypatch):
    """Without resizable BAR the device-local host-visible heap is 256 MiB: an input then goes
    to host memory instead of failing the launch."""
    from clcoop.errors import DeviceOutOfMemory
    from clcoop.vulkan import memory, vk
    asked = []

    def buffer(device, size, usage, wanted, preferred=0, with_address=False):
        asked.append(preferred)
        if preferred & vk.MEMORY_PROPERTY_DEVICE_LOCAL_BIT:
            raise DeviceOutOfMemory("out of memory during allocating (VK_ERROR_OUT_OF_DEVICE_MEMORY)")
        return (size, wanted, preferred, with_address)
    monkeypatch.setattr(memory, "Buffer", buffer)
    made = memory.direct_input_buffer(None, 4096)
    assert asked == [vk.MEMORY_PROPERTY_DEVICE_LOCAL_BIT, vk.MEMORY_PROPERTY_HOST_CACHED_BIT]
    assert made == (4096, memory.HOST_MEMORY, vk.MEMORY_PROPERTY_HOST_CACHED_BIT, True)


def test_launches_that_differ_only_in_their_arrays_share_a_recording(vadd, run):
    """prepare's launch key holds the arrays' host addresses; the buffers on the device do
    not depend on them: cycling through more output arrays than the kernel keeps plans for
    records once."""
    a, b = _inputs((512, 512), seed=16)
    outputs = [np.zeros(512, np.float32) for _ in range(12)]
    for turn in range(2):
        for c in outputs:
            timings = vadd.vadd((512,), (64,), a, b, c, 512)
            assert np.array_equal(c, a + b)
            if turn:
                assert timings.record == 0.0
