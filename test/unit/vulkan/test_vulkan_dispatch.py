"""The GPU engine's launches on the first Vulkan device (lavapipe on the development machine
and in CI; any GPU elsewhere), with hand-assembled modules of the contract
(vulkan_modules.py) checked against NumPy."""
import numpy as np
import pytest

from clcoop.errors import ArgumentError, DeviceTimeout, DeviceUnavailable, UnsupportedOnDevice
from clcoop.prepare import LocalMemory
from clcoop.vulkan import VulkanProgram, device, run_kernel
from vulkan_modules import (LOCAL_SUM, LOCAL_SUM_RECORD, SPIN, SPIN_RECORD, VADD, VADD_RECORD, WRITES_READ_ONLY,
                            WRITES_READ_ONLY_RECORD, assemble, device_or_skip)


@pytest.fixture(scope="module")
def vadd(tmp_path_factory):
    device_or_skip()
    return VulkanProgram(assemble(VADD, VADD_RECORD, tmp_path_factory.mktemp("vadd")))


def _inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)


def test_vector_add_matches_numpy_and_leaves_the_tail(vadd):
    a, b = _inputs(1000)
    c = np.full(1024, 7, np.float32)
    timings = vadd.vadd((1024,), (64,), a, b, c, 1000)
    assert np.array_equal(c[:1000], a + b)
    assert np.all(c[1000:] == 7)          # n bounds the writes; the rest went up and came back as it was
    assert timings.submit_to_done > 0 and timings.total >= timings.submit_to_done


def test_global_offset_shifts_the_ids(vadd):
    a, b = _inputs(1000, seed=1)
    c = np.zeros(1000, np.float32)
    vadd.vadd((256,), (64,), a, b, c, 1000, global_offset=(300,))
    assert np.array_equal(c[300:556], (a + b)[300:556])
    assert not c[:300].any() and not c[556:].any()


def test_local_size_is_a_specialization_constant(vadd):
    a, b = _inputs(96, seed=2)
    for local in (1, 3, 32, 96):
        c = np.zeros(96, np.float32)
        vadd.vadd((96,), (local,), a, b, c, 96)
        assert np.array_equal(c, a + b), local


def test_in_place_array_passed_twice(vadd):
    a, _ = _inputs(128, seed=3)
    expected = a + a
    vadd.vadd((128,), (32,), a, a, a, 128)      # c aliases a and b: one buffer, copied back
    assert np.array_equal(a, expected)


def test_only_writable_buffers_come_back(tmp_path):
    device_or_skip()
    prog = VulkanProgram(assemble(WRITES_READ_ONLY, WRITES_READ_ONLY_RECORD, tmp_path))
    a = np.arange(64, dtype=np.float32)
    c = np.zeros(64, np.float32)
    prog.scribble((64,), (16,), a, c)
    assert np.array_equal(c, 2 * np.arange(64, dtype=np.float32))
    assert np.array_equal(a, np.arange(64, dtype=np.float32))   # written on the device, not copied back


def test_local_memory_length_is_a_specialization_constant(tmp_path):
    device_or_skip()
    prog = VulkanProgram(assemble(LOCAL_SUM, LOCAL_SUM_RECORD, tmp_path))
    for local in (4, 16, 64):
        groups = 5
        out = np.zeros(groups, np.float32)
        prog.local_sum((local * groups,), (local,), out, LocalMemory(4 * local), 1000.0)
        lids = np.arange(local, dtype=np.float64)
        expected = [lids.sum() + local * 1000.0 * g for g in range(groups)]
        assert np.array_equal(out, np.array(expected, np.float32)), local


def test_local_memory_must_hold_whole_elements(tmp_path):
    device_or_skip()
    prog = VulkanProgram(assemble(LOCAL_SUM, LOCAL_SUM_RECORD, tmp_path))
    with pytest.raises(ArgumentError, match="whole number of 4-byte elements"):
        prog.local_sum((8,), (8,), np.zeros(1, np.float32), LocalMemory(30), 1.0)


def test_arguments_are_checked_as_by_the_other_engines(vadd):
    a, b = _inputs(64)
    c = np.zeros(64, np.float32)
    with pytest.raises(ArgumentError, match=r"argument 2 'c' of kernel 'vadd' \(float\*\) needs a float32 array"):
        vadd.vadd((64,), (32,), a, b, c.astype(np.float64), 64)
    with pytest.raises(ArgumentError, match="takes 4 arguments"):
        vadd.vadd((64,), (32,), a, b, c)
    with pytest.raises(ArgumentError, match="not C-contiguous"):
        vadd.vadd((64,), (32,), a[::-1], b, c, 64)
    with pytest.raises(ArgumentError, match="does not fit"):
        vadd.vadd((64,), (32,), a, b, c, 1 << 40)
    with pytest.raises(ArgumentError, match="not a multiple of the local size"):
        vadd.vadd((65,), (32,), a, b, c, 64)
    with pytest.raises(ArgumentError, match="maximum work-group size"):
        vadd.vadd((1 << 20,), (1 << 20,), a, b, c, 64)
    with pytest.raises(ArgumentError, match="no kernel named 'nope'"):
        vadd.kernel("nope")
    with pytest.raises(ArgumentError, match="timeout must be a positive number of seconds, got '1'"):
        vadd.vadd((64,), (32,), a, b, c, 64, timeout="1")
    with pytest.raises(ArgumentError, match="subgroup_size must be a positive integer, got '8'"):
        vadd.vadd((64,), (32,), a, b, c, 64, subgroup_size="8")
    with pytest.raises(UnsupportedOnDevice, match="subgroup size 1024 is required, the device has"):
        vadd.vadd((64,), (32,), a, b, c, 64, subgroup_size=1024)
    with pytest.raises(ArgumentError, match="repeat must be a positive integer, got 0"):
        vadd.vadd((64,), (32,), a, b, c, 64, repeat=0)


def test_run_kernel_returns_the_written_buffers_and_timings(tmp_path):
    device_or_skip()
    module = assemble(VADD, VADD_RECORD, tmp_path)
    a, b = _inputs(256, seed=4)
    c = np.zeros(256, np.float32)
    outputs, timings = run_kernel(module, "vadd", (256,), (64,), [a, b, c, 256], repeat=3)
    assert list(outputs) == ["c"] and outputs["c"] is c
    assert np.array_equal(c, a + b)
    if device.descriptions()[0].timestamp_period_ns:
        assert len(timings.gpu) == 3 and all(t >= 0 for t in timings.gpu)
    assert set(timings.as_dict()) == {"upload_s", "record_s", "submit_s", "wait_s", "submit_to_done_s", "download_s",
                                      "runner_s", "total_s", "gpu_s"}
    assert timings.submit_to_done == timings.submit + timings.wait and timings.runner <= timings.total


def test_timeout_is_an_exception_and_the_next_launch_waits(tmp_path):
    device_or_skip()
    prog = VulkanProgram(assemble(SPIN, SPIN_RECORD, tmp_path))
    out = np.zeros(64, np.float32)
    prog.spin((64,), (64,), out, 10, timeout=30)       # the pipeline is built before the timed launch
    assert np.all(out == _spin(10))
    # A busy host may deschedule this thread past a short launch's end: lengthen it until
    # the 0.1 ms wait sees it unfinished. (lavapipe ends any loop after 65535 iterations:
    # the launch grows by work-items, 50000 iterations each.)
    for items in (1 << 13, 1 << 16, 1 << 19):
        long_out = np.zeros(items, np.float32)
        try:
            prog.spin((items,), (64,), long_out, 50_000, timeout=0.0001)
        except DeviceTimeout as timeout:
            assert "did not finish within 0.0001 s" in str(timeout)
            assert not long_out.any()                   # the timed-out launch's results never came back
            break
    else:
        pytest.fail("no launch of up to 2**19 work-items of 50000 iterations timed out after 0.1 ms")
    small = np.zeros(64, np.float32)
    prog.spin((64,), (64,), small, 3, timeout=120)      # waits for the long one, then runs
    assert np.all(small == _spin(3))


def _spin(n):
    acc = 0
    for k in range(n):
        acc = (acc * 1664525 + 1013904223 + k) & 0xFFFFFFFF
    return np.float32(acc)


def test_device_selection_by_environment(monkeypatch):
    description = device_or_skip()
    monkeypatch.setenv(device.DEVICE_ENV, "0")
    assert device.choose(device.descriptions()) == 0
    monkeypatch.setenv(device.DEVICE_ENV, description.name.split()[0].upper())
    assert device.choose(device.descriptions()) == description.index
    monkeypatch.setenv(device.DEVICE_ENV, "no such device")
    with pytest.raises(DeviceUnavailable, match="names no device; the devices are:"):
        device.choose(device.descriptions())
    monkeypatch.setenv(device.DEVICE_ENV, "99")
    with pytest.raises(DeviceUnavailable, match="names no device"):
        device.choose(device.descriptions())


def test_launches_from_several_threads(vadd):
    import threading
    failures = []

    def work(seed):
        a, b = _inputs(300, seed=seed)
        for _ in range(10):
            c = np.zeros(320, np.float32)
            vadd.vadd((320,), (32,), a, b, c, 300)
            if not np.array_equal(c[:300], a + b):
                failures.append(seed)
    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures


def test_a_repeated_launch_reuses_its_recording_and_sees_new_data(vadd):
    from clcoop.vulkan.runner import runner
    a, b = _inputs(256, seed=6)
    c = np.zeros(256, np.float32)
    vadd.vadd((256,), (64,), a, b, c, 256)
    recorded = runner(vadd.device).recorded
    a[:] += 1                                        # new data, same launch: the recording is reused
    vadd.vadd((256,), (64,), a, b, c, 256)
    assert runner(vadd.device).recorded is recorded and np.array_equal(c, a + b)
    c[:] = 0
    vadd.vadd((256,), (64,), a, b, c, 100)           # another scalar: recorded again
    assert runner(vadd.device).recorded is not recorded
    assert np.array_equal(c[:100], (a + b)[:100]) and not c[100:].any()


def test_local_memory_beyond_the_device_is_refused(tmp_path):
    description = device_or_skip()
    prog = VulkanProgram(assemble(LOCAL_SUM, LOCAL_SUM_RECORD, tmp_path))
    too_much = description.max_shared_memory + 4
    with pytest.raises(ArgumentError, match=f"needs {too_much} bytes of Workgroup .__local. memory per work-group "
                                            f".argument 'tmp' {too_much}.*has {description.max_shared_memory} bytes "
                                            f".maxComputeSharedMemorySize.: its LocalMemory arguments take "
                                            f"{too_much} of them"):
        prog.local_sum((8,), (8,), np.zeros(1, np.float32), LocalMemory(too_much), 1.0)


def test_a_record_that_disagrees_with_the_kernel_is_refused():
    from clcoop.prepare import prepare_launch
    from clcoop.spirv.reflection import ReflectionError
    from clcoop.vulkan.arguments import kernel_info, marshal
    record = VADD_RECORD["vadd"]
    prepared = prepare_launch(None, kernel_info("vadd", record), (4,), (4,),
                              [np.zeros(4, np.float32)] * 3 + [4])
    shorter = dict(record, args=record["args"][:3])
    with pytest.raises(ReflectionError, match="lists arguments .global, global, global. that do not match"):
        marshal("vadd", shorter, prepared)
    swapped = dict(record, args=record["args"][:2] + [record["args"][3], record["args"][2]])
    with pytest.raises(ReflectionError, match="do not match the kernel's .buffer, buffer, buffer, scalar."):
        marshal("vadd", swapped, prepared)


@pytest.mark.parametrize("change, message", [
    (lambda r: r.update(push_constant_size=16), "argument 'c' at offset 16 of 8 bytes is not inside the 16-byte"),
    (lambda r: r["args"][3].update(offset=38), "argument 'n' at offset 38 of 4 bytes"),
    (lambda r: r["args"][3].update(size="4"), "argument 'n' at offset 24 of '4' bytes"),
    (lambda r: r.update(global_offset_offset=30), "the global offset at 30 is not inside"),
    (lambda r: r.update(push_constant_size=-8), "push_constant_size -8 is not 0 to 4096"),
    (lambda r: r["args"][0].update(dtype="float128x"), "argument 'a' has an unknown dtype 'float128x'"),
    (lambda r: r["args"][3].pop("dtype"), "argument 'n' has no dtype"),
    (lambda r: r.update(local_size=[0, 1, 1]), r"local_size \[0, 1, 1\] is not three sizes"),
])
def test_an_unusable_record_is_refused_when_the_module_loads(change, message, tmp_path):
    import copy
    from clcoop.spirv.reflection import ReflectionError
    from clcoop.vulkan.arguments import kernel_info
    record = copy.deepcopy(VADD_RECORD["vadd"])
    change(record)
    with pytest.raises(ReflectionError, match=f"kernel 'vadd': unusable reflection record: {message}"):
        kernel_info("vadd", record)


def test_an_interrupted_wait_leaves_the_launch_reserved(vadd, monkeypatch):
    from clcoop.vulkan.runner import runner
    run = runner(vadd.device)
    a, b = _inputs(128, seed=7)
    c = np.zeros(128, np.float32)

    def interrupted(fence, timeout):
        raise KeyboardInterrupt
    monkeypatch.setattr(run, "_wait", interrupted)
    with pytest.raises(KeyboardInterrupt):
        vadd.vadd((128,), (64,), a, b, c, 128)
    assert run.pending is not None and vadd.device.busy and not c.any()
    monkeypatch.undo()
    vadd.vadd((128,), (64,), a, b, c, 128)          # waits for the interrupted launch, then runs
    assert run.pending is None and not vadd.device.busy and np.array_equal(c, a + b)


def test_a_launch_with_a_key_seen_before_is_not_checked_again(vadd, monkeypatch):
    from clcoop.vulkan import program as programs
    calls = []
    real = programs.check_kernel
    monkeypatch.setattr(programs, "check_kernel", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    kernel = vadd.kernel("vadd")
    a, b = _inputs(192, seed=8)
    c = np.zeros(192, np.float32)
    kernel._plans.clear()
    for _ in range(3):
        a += 1
        kernel((192,), (64,), a, b, c, 192)
        assert np.array_equal(c, a + b)                      # new contents go up every launch
    assert calls == ["vadd"]                                  # checked once: the launch key proved the rest
    kernel((192,), (32,), a, b, c, 192)                       # another local size: checked again
    assert calls == ["vadd", "vadd"]


def test_the_push_constants_follow_the_buffers_addresses():
    from clcoop.vulkan.arguments import _push_writer
    push = _push_writer(32, [(0, ("address", 1)), (8, ("address", 0)), (16, b"\x07\x00\x00\x00")])
    first = push([0x1000, 0x2000])
    assert first == (0x2000).to_bytes(8, "little") + (0x1000).to_bytes(8, "little") + b"\x07" + bytes(15)
    assert push([0x1000, 0x2000]) == first
    second = push([0x3000, 0x2000])                           # another buffer: its address is written
    assert second[8:16] == (0x3000).to_bytes(8, "little") and second[:8] == first[:8] and second[16:] == first[16:]
