"""Compute pipelines of one SPIR-V module on one device: a VkShaderModule, a pipeline layout
per push-constant size (no descriptor sets: buffers go by device address,
docs/vulkan-abi.md), and a pipeline per (kernel, specialization, subgroup size), made on first
use and kept.

Specialization constants (Vulkan 1.3, 10.9): SpecId 0-2 are the local size when the kernel
has no reqd_work_group_size, SpecId 100 + i the element count of __local argument i. A map
entry for an id the module does not use changes nothing (VkSpecializationMapEntry), so one
map serves every kernel.

On a device with pipelineExecutableInfo (VK_KHR_pipeline_executable_properties) every pipeline
is created with CAPTURE_STATISTICS, so that the driver's statistics of the very pipeline a
launch uses can be read (statistics.py); the flag "must not affect the final compiled
pipeline" (Vulkan 1.3, 10.1, VkPipelineCreateFlagBits), it may only cost creation time.
CAPTURE_INTERNAL_REPRESENTATIONS (the driver's IR and assembly, large) only for a pipeline
asked for with representations=True, a separate one.
"""
import ctypes
import itertools
import struct

from clcoop.vulkan import vk


class Pipelines:
    def __init__(self, device, module_bytes):
        self.device = device
        self.module = vk.HANDLE(0)
        self.layouts = {}        # push-constant size -> VkPipelineLayout
        self.pipelines = {}      # key -> VkPipeline
        code = bytes(module_bytes)
        self._code = (ctypes.c_uint32 * (len(code) // 4)).from_buffer_copy(code)
        info = vk.VkShaderModuleCreateInfo(vk.ST_SHADER_MODULE_CREATE_INFO, None, 0, len(code),
                                           ctypes.cast(self._code, vk.VP))
        device.check(device.vk.vkCreateShaderModule(device.handle, ctypes.byref(info), None,
                                                    ctypes.byref(self.module)), "creating the shader module")

    def layout(self, push_size):
        layout = self.layouts.get(push_size)
        if layout is None:
            ranges = vk.VkPushConstantRange(vk.SHADER_STAGE_COMPUTE_BIT, 0, push_size)
            info = vk.VkPipelineLayoutCreateInfo(vk.ST_PIPELINE_LAYOUT_CREATE_INFO, None, 0, 0, None,
                                                 1 if push_size else 0,
                                                 ctypes.cast(ctypes.pointer(ranges), vk.VP) if push_size else None)
            layout = vk.HANDLE(0)
            self.device.check(self.device.vk.vkCreatePipelineLayout(self.device.handle, ctypes.byref(info), None,
                                                                    ctypes.byref(layout)), "creating a pipeline layout")
            self.layouts[push_size] = layout
        return layout

    def pipeline(self, kernel, push_size, constants, subgroup_size=None, full_subgroups=False,
                 representations=False):
        """The pipeline of entry point `kernel` specialized with `constants` ({SpecId: uint32,
        or the bytes of a wider constant});
        subgroup_size: the size to require (VK_EXT_subgroup_size_control), or None;
        representations: a pipeline that captures the driver's internal representations too
        (only where the device has pipelineExecutableInfo)."""
        representations = bool(representations and self.device.pipeline_statistics)
        key = (kernel, push_size, tuple(sorted(constants.items())), subgroup_size, full_subgroups, representations)
        pipeline = self.pipelines.get(key)
        if pipeline is None:
            pipeline = self.pipelines[key] = self._create(kernel, push_size, constants, subgroup_size,
                                                          full_subgroups, self._flags(representations))
        return pipeline

    def _flags(self, representations):
        """VkPipelineCreateFlags: the capture flags, only where the extension and its feature
        are enabled (the flag bits are VK_KHR_pipeline_executable_properties')."""
        if not self.device.pipeline_statistics:
            return 0
        return vk.PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR | (
            vk.PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR if representations else 0)

    def _create(self, kernel, push_size, constants, subgroup_size, full_subgroups, pipeline_flags=0):
        ids = sorted(constants)
        values = [constants[i] if isinstance(constants[i], bytes) else struct.pack("<I", constants[i]) for i in ids]
        offsets = list(itertools.accumulate((len(v) for v in values[:-1]), initial=0))
        entries = (vk.VkSpecializationMapEntry * max(len(ids), 1))(
            *[vk.VkSpecializationMapEntry(spec_id, offset, len(value))
              for spec_id, offset, value in zip(ids, offsets, values)])
        packed = b"".join(values)
        data = ctypes.create_string_buffer(packed, len(packed) or 4)
        special = vk.VkSpecializationInfo(len(ids), ctypes.cast(entries, vk.VP), len(packed), ctypes.cast(data, vk.VP))
        required = vk.VkPipelineShaderStageRequiredSubgroupSizeCreateInfo(
            vk.ST_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO, None, subgroup_size or 0)
        flags = vk.PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT if full_subgroups else 0
        name = kernel.encode()
        stage = vk.VkPipelineShaderStageCreateInfo(
            vk.ST_PIPELINE_SHADER_STAGE_CREATE_INFO,
            ctypes.cast(ctypes.pointer(required), vk.VP) if subgroup_size else None, flags,
            vk.SHADER_STAGE_COMPUTE_BIT, self.module.value, name, ctypes.cast(ctypes.pointer(special), vk.VP))
        info = vk.VkComputePipelineCreateInfo(vk.ST_COMPUTE_PIPELINE_CREATE_INFO, None, pipeline_flags, stage,
                                              self.layout(push_size).value, 0, -1)
        pipeline = vk.HANDLE(0)
        self.device.check(self.device.vk.vkCreateComputePipelines(self.device.handle, 0, 1, ctypes.byref(info), None,
                                                                  ctypes.byref(pipeline)),
                          f"creating the pipeline of kernel '{kernel}'")
        return pipeline

    def destroy(self):
        self.device.generation += 1
        api, handle = self.device.vk, self.device.handle
        for pipeline in self.pipelines.values():
            api.vkDestroyPipeline(handle, pipeline, None)
        for layout in self.layouts.values():
            api.vkDestroyPipelineLayout(handle, layout, None)
        if self.module.value:
            api.vkDestroyShaderModule(handle, self.module, None)
        self.pipelines, self.layouts, self.module = {}, {}, vk.HANDLE(0)
