"""The GPU engine: Vulkan SPIR-V modules (docs/vulkan-abi.md) launched on a Vulkan device
through the loader with ctypes, needing NumPy and libvulkan.so.1 alone (no llvmlite, no
compiler). docs/gpu.md says how it works.

    from clcoop.vulkan import VulkanProgram, run_kernel, descriptions
    prog = VulkanProgram(open("k.spv", "rb").read())
    timings = prog.kernel_name(global_size, local_size, *args)
    outputs, timings = run_kernel(module_bytes, "kernel_name", global_size, local_size, args)
"""
from clcoop.vulkan.capabilities import DeviceDescription, check_kernel, load_description, supported_text
from clcoop.vulkan.device import descriptions
from clcoop.vulkan.program import VulkanKernel, VulkanProgram, run_kernel
from clcoop.vulkan.runner import Timings

__all__ = ["DeviceDescription", "VulkanKernel", "VulkanProgram", "Timings", "check_kernel", "descriptions",
           "load_description", "run_kernel", "supported_text"]
