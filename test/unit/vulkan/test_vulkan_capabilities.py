"""The capability check of the GPU engine against a recorded device description (the H200
of ../shared/notes/gpu-vulkan.md, test/unit/data/vulkan_h200.json, recorded there with clcoop-devices --json): no Vulkan device is
needed, so CI runs it. A kernel's reflection record (docs/vulkan-abi.md) is refused before any
dispatch when its matrices, multiply-adds, subgroup size or extensions are not the device's,
with a message listing what the device supports."""
import json
from dataclasses import replace
from pathlib import Path

import pytest

from clcoop.errors import DeviceError, UnsupportedOnDevice
from clcoop.vulkan.capabilities import (DeviceDescription, check_kernel, kernel_problems, load_description,
                                        supported_text)

H200 = Path(__file__).resolve().parents[1] / "data" / "vulkan_h200.json"


@pytest.fixture(scope="module")
def h200():
    return load_description(H200)


def _matrix(rows, cols, use, component, scope="subgroup"):
    return {"scope": scope, "rows": rows, "cols": cols, "use": use, "component": component}


def _mul_add(M, N, K, A, C, scope="subgroup", B=None, result=None, saturating=False):
    return {"scope": scope, "M": M, "N": N, "K": K, "A": A, "B": B or A, "C": C, "result": result or C,
            "saturating": saturating}


def _gemm(M, N, K, A, C, scope="subgroup", subgroup_size=32, extensions=("VK_KHR_cooperative_matrix",)):
    return {"args": [], "subgroup_size": subgroup_size, "device_extensions": list(extensions),
            "matrices": [_matrix(M, K, "a", A, scope), _matrix(K, N, "b", A, scope),
                         _matrix(M, N, "accumulator", C, scope)],
            "mul_adds": [_mul_add(M, N, K, A, C, scope)]}


@pytest.mark.parametrize("shape, a, c", [((16, 16, 16), "f16", "f32"), ((16, 8, 16), "f16", "f16"),
                                         ((16, 8, 8), "f16", "f32"), ((16, 16, 32), "s8", "s32"),
                                         ((16, 8, 32), "u8", "u32"), ((16, 16, 16), "bf16", "f32")])
def test_the_notes_khr_configurations_pass(h200, shape, a, c):
    check_kernel("gemm", _gemm(*shape, a, c), h200)


def test_f32_inputs_are_refused_with_the_supported_list(h200):
    with pytest.raises(UnsupportedOnDevice) as caught:
        check_kernel("gemm_f32", _gemm(16, 16, 8, "f32", "f32"), h200)
    text = str(caught.value)
    assert text.startswith("kernel 'gemm_f32' cannot run on [0] NVIDIA H200")
    assert "matrix type subgroup 16x8 f32 use a is not supported" in text
    assert "multiply-add subgroup 16x16x8 f32 x f32 + f32 -> f32 is not supported" in text
    assert "the device supports:" in text and "subgroup 16x16x16 f16 x f16 + f32 -> f32" in text
    assert "workgroup with 256 invocations: multiples of 32x32x16" in text


def test_flexible_dimensions_take_multiples_of_the_granularity(h200):
    check_kernel("big", _gemm(64, 128, 64, "f16", "f32"), h200)
    problems = kernel_problems("odd", _gemm(24, 16, 16, "f16", "f32"), h200)
    assert problems == ["matrix type subgroup 24x16 f16 use a is not supported",
                        "matrix type subgroup 24x16 f32 use accumulator is not supported",
                        "multiply-add subgroup 24x16x16 f16 x f16 + f32 -> f32 is not supported"]


def test_without_nv2_only_the_khr_shapes_pass(h200):
    khr_only = replace(h200, flexible=())
    assert kernel_problems("big", _gemm(64, 128, 64, "f16", "f32"), khr_only)
    assert not kernel_problems("tile", _gemm(16, 16, 16, "f16", "f32"), khr_only)


def test_workgroup_scope_depends_on_the_work_group_size(h200):
    record = _gemm(64, 64, 32, "f16", "f32", scope="workgroup",
                   extensions=("VK_KHR_cooperative_matrix", "VK_NV_cooperative_matrix2"))
    check_kernel("wg", record, h200)                              # before the launch: any size
    check_kernel("wg", record, h200, local_size=(256, 1, 1))      # 32x32x16 granularity
    check_kernel("wg", record, h200, local_size=(64, 2, 1))       # 128 invocations: 32x16x16
    odd = _gemm(48, 48, 16, "f16", "f32", scope="workgroup")
    check_kernel("wg", odd, h200, local_size=(64, 1, 1))          # 16x16x16 at 64 invocations
    with pytest.raises(UnsupportedOnDevice, match="workgroup 48x16 f16 use a is not supported"):
        check_kernel("wg", odd, h200, local_size=(256, 1, 1))     # 48 is no multiple of 32
    with pytest.raises(UnsupportedOnDevice, match="workgroup 64x32 f16 use a"):
        check_kernel("wg", record, h200, local_size=(512, 1, 1))  # no configuration for 512


def test_saturating_accumulation_is_refused(h200):
    record = {"args": [], "matrices": [], "mul_adds": [_mul_add(16, 16, 32, "s8", "s32", saturating=True)]}
    with pytest.raises(UnsupportedOnDevice, match=r"16x16x32 s8 x s8 \+ s32 -> s32, saturating is not supported"):
        check_kernel("sat", record, h200)


def test_subgroup_size_and_extensions(h200):
    with pytest.raises(UnsupportedOnDevice, match="subgroup size 16 is required, the device has 32"):
        check_kernel("k", {"args": [], "subgroup_size": 16}, h200)
    with pytest.raises(UnsupportedOnDevice, match="the device lacks VK_EXT_shader_float8"):
        check_kernel("k", {"args": [], "device_extensions": ["VK_EXT_shader_float8"]}, h200)
    ranged = replace(h200, min_subgroup_size=8, max_subgroup_size=64)
    assert not kernel_problems("k", {"subgroup_size": 16}, ranged)
    assert kernel_problems("k", {"subgroup_size": 16}, replace(ranged, subgroup_size_control=False)) == [
        "subgroup size 16 is required, the device has 8 to 64 (chosen by the driver; default 32) and cannot "
        "select one for compute shaders (VK_EXT_subgroup_size_control)"]
    assert kernel_problems("k", {"subgroup_size": 24}, ranged)


def test_a_device_without_cooperative_matrices(h200):
    plain = replace(h200, name="llvmpipe", extensions=(), khr=(), flexible=(), subgroup_size=8,
                    min_subgroup_size=8, max_subgroup_size=8)
    assert not kernel_problems("vadd", {"args": [], "matrices": [], "mul_adds": []}, plain)
    with pytest.raises(UnsupportedOnDevice) as caught:
        check_kernel("gemm", _gemm(16, 16, 16, "f16", "f32"), plain)
    text = str(caught.value)
    assert "the device lacks VK_KHR_cooperative_matrix" in text
    assert "subgroup size 32 is required, the device has 8" in text
    assert "no KHR cooperative-matrix configurations (VK_KHR_cooperative_matrix is missing)" in text


def test_description_json_round_trip(h200, tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps([h200.to_json()]))
    assert load_description(path) == h200
    assert supported_text(load_description(path)) == supported_text(h200)
    with pytest.raises(DeviceError, match="not a clcoop device description"):
        DeviceDescription.from_json({"name": "x"})
    with pytest.raises(DeviceError, match="unreadable device description"):
        DeviceDescription.from_json({"version": 1, "name": "x", "colour": "green"})
