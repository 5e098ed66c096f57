"""The ctypes declarations of the Vulkan API (clcoop/vulkan/vk.py) and how its failures
become clcoop exceptions."""
import ctypes
from types import SimpleNamespace

import pytest

from clcoop.errors import DeviceError, DeviceLost, DeviceOutOfMemory
from clcoop.vulkan import device, memory, vk
from vulkan_modules import device_or_skip

# sizeof() of each structure from vulkan_core.h (header 1.3.239, x86-64, clang-22), measured
# with a C program that also compared every member's offsetof with ctypes' (575 checks).
HEADER_SIZES = {
    "VkApplicationInfo": 48, "VkBufferCopy": 24, "VkBufferCreateInfo": 56, "VkBufferDeviceAddressInfo": 24,
    "VkCommandBufferAllocateInfo": 32, "VkCommandBufferBeginInfo": 32, "VkCommandPoolCreateInfo": 24,
    "VkComputePipelineCreateInfo": 96, "VkConformanceVersion": 4, "VkDeviceCreateInfo": 72,
    "VkDeviceQueueCreateInfo": 40, "VkExtensionProperties": 260, "VkExtent3D": 12, "VkFenceCreateInfo": 24,
    "VkInstanceCreateInfo": 64, "VkMemoryAllocateFlagsInfo": 24, "VkMemoryAllocateInfo": 32, "VkMemoryBarrier": 24,
    "VkMemoryHeap": 16, "VkMemoryRequirements": 24, "VkMemoryType": 8, "VkPhysicalDeviceFeatures": 220,
    "VkPhysicalDeviceFeatures2": 240, "VkPhysicalDeviceLimits": 504, "VkPhysicalDeviceMemoryProperties": 520,
    "VkPhysicalDeviceProperties": 824, "VkPhysicalDeviceProperties2": 840, "VkPhysicalDeviceSparseProperties": 20,
    "VkPhysicalDeviceVulkan11Features": 64, "VkPhysicalDeviceVulkan11Properties": 112,
    "VkPhysicalDeviceVulkan12Features": 208, "VkPhysicalDeviceVulkan12Properties": 736,
    "VkPhysicalDeviceVulkan13Features": 80, "VkPhysicalDeviceVulkan13Properties": 216,
    "VkPipelineLayoutCreateInfo": 48, "VkPipelineShaderStageCreateInfo": 48,
    "VkPipelineShaderStageRequiredSubgroupSizeCreateInfo": 24, "VkPushConstantRange": 12,
    "VkQueryPoolCreateInfo": 32, "VkQueueFamilyProperties": 24, "VkShaderModuleCreateInfo": 40,
    "VkSpecializationInfo": 32, "VkSpecializationMapEntry": 16, "VkSubmitInfo": 72,
}
# The extension structures (the registry's later headers): sType, pNext, then 32-bit members.
EXTENSION_SIZES = {
    "VkPhysicalDeviceCooperativeMatrixFeaturesKHR": 24, "VkCooperativeMatrixPropertiesKHR": 56,
    "VkPhysicalDeviceCooperativeMatrix2FeaturesNV": 48, "VkPhysicalDeviceCooperativeMatrix2PropertiesNV": 32,
    "VkCooperativeMatrixFlexibleDimensionsPropertiesNV": 56, "VkPhysicalDeviceShaderBfloat16FeaturesKHR": 32,
}


@pytest.mark.skipif(ctypes.sizeof(ctypes.c_void_p) != 8, reason="the sizes were measured on a 64-bit target")
@pytest.mark.parametrize("name, size", sorted({**HEADER_SIZES, **EXTENSION_SIZES}.items()))
def test_structure_sizes_match_the_c_header(name, size):
    assert ctypes.sizeof(getattr(vk, name)) == size


def test_limits_members_sit_where_the_header_puts_them():
    # (offsetof from the same C program)
    limits = vk.VkPhysicalDeviceLimits
    assert limits.maxComputeSharedMemorySize.offset == 216
    assert limits.maxComputeWorkGroupInvocations.offset == 232
    assert limits.timestampPeriod.offset == 424
    assert vk.VkPhysicalDeviceVulkan13Properties.maxSubgroupSize.offset == 20


def test_failures_become_clcoop_exceptions():
    assert vk.check(vk.SUCCESS, "x") == 0 and vk.check(vk.INCOMPLETE, "x") == vk.INCOMPLETE
    with pytest.raises(DeviceLost, match="lost during the launch .VK_ERROR_DEVICE_LOST.*interpreter first"):
        vk.check(vk.ERROR_DEVICE_LOST, "the launch")
    for result in (vk.ERROR_OUT_OF_DEVICE_MEMORY, vk.ERROR_OUT_OF_HOST_MEMORY, vk.ERROR_OUT_OF_POOL_MEMORY):
        with pytest.raises(DeviceOutOfMemory, match="out of memory during allocating"):
            vk.check(result, "allocating")
    with pytest.raises(DeviceError, match="vkCreateDevice failed: VK_ERROR_FEATURE_NOT_PRESENT"):
        vk.check(vk.ERROR_FEATURE_NOT_PRESENT, "vkCreateDevice")
    with pytest.raises(DeviceError, match="VkResult -12345"):
        vk.check(-12345, "x")


def test_a_lost_device_refuses_every_later_launch():
    fake = SimpleNamespace(lost=None, closed=False)
    with pytest.raises(DeviceLost):
        device.Device.check(fake, vk.ERROR_DEVICE_LOST, "waiting for the launch")
    assert "VK_ERROR_DEVICE_LOST" in fake.lost
    with pytest.raises(DeviceLost, match="can no longer be used"):
        device.Device.require_usable(fake)
    fake = SimpleNamespace(lost=None, closed=False)
    with pytest.raises(DeviceOutOfMemory):
        device.Device.check(fake, vk.ERROR_OUT_OF_DEVICE_MEMORY, "x")
    assert fake.lost is None


def test_an_impossible_allocation_is_out_of_memory():
    description = device_or_skip()
    dev = device.device(description.index)
    with pytest.raises(DeviceOutOfMemory, match="out of memory"):
        memory.device_buffer(dev, 1 << 52)
    assert dev.lost is None
