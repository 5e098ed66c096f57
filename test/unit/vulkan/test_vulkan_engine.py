"""Program(src).build(engine="vulkan"): the program compiled by the Vulkan target and launched on
the first Vulkan device (lavapipe here), checked against the interpreter and NumPy."""
import numpy as np
import pytest

import clcoop
from clcoop.errors import ArgumentError, DeviceUnavailable, UnsupportedOnDevice
from clcoop.vulkan import device, vk
from vulkan_modules import device_or_skip

# -O0: the Vulkan target does not take clcoop's -O2 IR yet (opt-22 rejects its rewrite of
# optimized function headers); Program.build's default is -O2.
OPTIONS = ["-O0"]

SOURCE = r"""
kernel void vadd(global const float *a, global const float *b, global float *c, int n) {
    size_t i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}
kernel void mix(global const uint *a, global uint *out, uint salt) {
    size_t i = get_global_id(0);
    uint x = a[i] * 2654435761u;
    out[i] = (x ^ (x >> 13)) + salt * (uint)i + (uint)get_local_id(0);
}
kernel void scalars(global int *out, int4 s, int3 t, uchar u, short v, long w, char c, float f) {
    int i = (int)get_global_id(0);
    out[i] = s.x * i + s.y + s.z * 3 + s.w * 5 + t.x * 7 + t.y * 11 + t.z * 13 + u * 17 + v * 19
             + (int)(w >> 33) + c * 23 + (int)(f * i);
}
kernel void group_sums(global float *out, local float *tmp, float scale) {
    size_t l = get_local_id(0);
    tmp[l] = l + scale * get_group_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        float s = 0;
        for (size_t k = 0; k < get_local_size(0); k++) s += tmp[k];
        out[get_group_id(0)] = s;
    }
}
"""


@pytest.fixture(scope="module")
def programs():
    device_or_skip()
    return (clcoop.Program(SOURCE).build(options=OPTIONS, engine="vulkan"),
            clcoop.Program(SOURCE).build(options=OPTIONS))


def test_vector_add(programs):
    gpu, _ = programs
    rng = np.random.default_rng(0)
    a, b = rng.random(1000, dtype=np.float32), rng.random(1000, dtype=np.float32)
    c = np.zeros(1024, np.float32)
    gpu.vadd((1024,), (64,), a, b, c, 1000)
    assert np.array_equal(c[:1000], a + b) and not c[1000:].any()


def test_integer_results_equal_the_interpreter_bit_for_bit(programs):
    gpu, interp = programs
    a = np.random.default_rng(1).integers(0, 2**32, 512, dtype=np.uint32)
    for local, offset in ((64, None), (8, (40,))):
        on_gpu, reference = np.zeros(512, np.uint32), np.zeros(512, np.uint32)
        size = 512 if offset is None else 256
        gpu.mix((size,), (local,), a, on_gpu, 977, global_offset=offset)
        interp.mix((size,), (local,), a, reference, 977, global_offset=offset)
        assert np.array_equal(on_gpu, reference), (local, offset)


def test_scalar_and_vector_arguments_in_the_push_constants(programs):
    gpu, interp = programs
    args = ((1, -2, 3, 4), (5, -6, 7), 200, -300, (1 << 40) + 12345, -100, 2.5)
    on_gpu, reference = np.zeros(64, np.int32), np.zeros(64, np.int32)
    gpu.scalars((64,), (16,), on_gpu, *args)
    interp.scalars((64,), (16,), reference, *args)
    assert np.array_equal(on_gpu, reference)


def test_local_memory_and_barriers(programs):
    gpu, interp = programs
    on_gpu, reference = np.zeros(6, np.float32), np.zeros(6, np.float32)
    gpu.group_sums((96,), (16,), on_gpu, clcoop.LocalMemory(64), 1000.0)
    interp.group_sums((96,), (16,), reference, clcoop.LocalMemory(64), 1000.0)
    assert np.array_equal(on_gpu, reference)


def test_the_engine_checks_arguments_as_the_others(programs):
    gpu, _ = programs
    with pytest.raises(ArgumentError, match="needs a uint32 array, got int32"):
        gpu.mix((8,), (8,), np.zeros(8, np.int32), np.zeros(8, np.uint32), 1)
    with pytest.raises(ArgumentError, match="value -1 does not fit"):
        gpu.mix((8,), (8,), np.zeros(8, np.uint32), np.zeros(8, np.uint32), -1)


def test_a_matrix_kernel_the_device_lacks_says_what_it_supports():
    description = device_or_skip()
    if "VK_KHR_cooperative_matrix" in description.extensions:
        pytest.skip(f"{description.name} has cooperative matrices (this test wants a device without)")
    with open("examples/gemm_f32.cl") as f:
        gemm = clcoop.Program(f.read()).build(options=OPTIONS, engine="vulkan")
    A = np.zeros((64, 64), np.float32)
    with pytest.raises(ArgumentError) as caught:
        gemm.gemm_f32((64, 8), (16, 1), A, A, A.copy(), 64, 64, 64, 0)
    text = str(caught.value)
    assert "kernel 'gemm_f32' cannot run on the vulkan engine: " + description.title() in text
    assert "the device lacks VK_KHR_cooperative_matrix" in text and "the device supports:" in text


def test_no_vulkan_loader_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(vk, "LOADER_NAMES", ("libclcoop-no-such-vulkan.so.1",))
    monkeypatch.setattr(vk, "_loader", None)
    monkeypatch.setattr(device, "_instance", None)
    with pytest.raises(DeviceUnavailable, match="no Vulkan loader could be opened"):
        clcoop.Program(SOURCE).build(options=OPTIONS, engine="vulkan")


SUBGROUPS = r"""
kernel void sizes(global uint *out) {
    out[get_global_id(0)] = get_sub_group_size();
}
"""


def test_a_subgroup_size_given_is_required_of_the_device():
    description = device_or_skip()
    gpu = clcoop.Program(SUBGROUPS).build(options=OPTIONS, engine="vulkan")
    out = np.zeros(64, np.uint32)
    gpu.sizes((64,), (64,), out)                          # not given: the device's size
    assert set(out) == {description.subgroup_size}
    have = description.subgroup_size
    out[:] = 0
    gpu.sizes((64,), (64,), out, subgroup_size=have)      # given, and the device's: runs
    assert set(out) == {have}
    # prepare's default (16), given explicitly, is no longer taken for "not given".
    impossible = next(s for s in (16, 4, 128) if not description.min_subgroup_size <= s <=
                      description.max_subgroup_size or not description.subgroup_size_control)
    with pytest.raises(UnsupportedOnDevice, match=f"subgroup size {impossible} is required, the device has"):
        gpu.sizes((64,), (64,), out, subgroup_size=impossible)
