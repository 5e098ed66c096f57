"""The GPU engine behind the engine boundary (clcoop/engine.py's protocol):
`Program(src).build(engine="vulkan")` compiles the program with the Vulkan target
(clcoop.spirv.vulkan, docs/vulkan-abi.md) and launches its kernels on the Vulkan device.

This is the one module of clcoop/vulkan/ that reaches the compiler, and only in build(): the
rest of the package loads and runs a module with NumPy and the Vulkan loader alone
(`clcoop-run --engine vulkan k.spv`).

A launch arrives checked by clcoop.prepare against the kernel's IR signature; the module's
reflection record, made from the same IR, gives its push-constant layout. What a GPU cannot
do as the CPU engines do: no fault is caught (GPU accesses are not bounds-checked: run a
kernel in the interpreter first); instruction_limit and max_lanes do not apply; the subgroup
size is the kernel's (intel_reqd_sub_group_size or what its matrices assume) or the device's.
"""
import importlib

from clcoop.engine import EngineFallbackWarning
from clcoop.vulkan.program import VulkanProgram

COMPILER = "clcoop.spirv.vulkan"


class VulkanEngine:
    name = "vulkan"
    fallback_warning = EngineFallbackWarning

    def __init__(self, program):
        self.program = program          # the VulkanProgram of the compiled module
        self.module_bytes = program.module_bytes

    @classmethod
    def build(cls, module):
        """Compile a loaded module (interp.loader.Module) for Vulkan and load it on the device;
        clcoop.CompileError (VulkanTargetError) for what the target cannot map, DeviceError
        when there is no usable device."""
        compiler = importlib.import_module(COMPILER)
        return cls(VulkanProgram(compiler.ir_to_vulkan_spirv(module.ir)))

    def reason(self, kernel_name):
        return self.program.reason(kernel_name)

    def launch(self, kernel, prepared):
        # A size the caller gave is required of the device (refused when it cannot run it);
        # else the kernel's (its record: intel_reqd_sub_group_size or what its matrices
        # assume) or the device's decides, not prepare's default.
        requested = prepared.subgroup_size if prepared.subgroup_size_given else None
        self.program.kernel(kernel.name).launch_prepared(prepared, requested)

    def last_timings(self, kernel_name):
        """The runner.Timings of the kernel's last launch (None before one)."""
        return self.program.kernel(kernel_name).last_timings

    def close(self):
        self.program.close()
