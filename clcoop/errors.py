"""Exceptions that reach users. Each carries a message meant to be printed as is."""


class ClcoopError(Exception):
    """Base of every error clcoop reports to a user (never an internal bug)."""


class CompileError(ClcoopError):
    """The source was rejected; `diagnostics` holds every located message."""

    def __init__(self, diagnostics, rendered=None):
        self.diagnostics = list(diagnostics)
        self.rendered = rendered
        super().__init__(rendered or "\n".join(str(d) for d in self.diagnostics))


class ArgumentError(ClcoopError, TypeError):
    """Wrong use of the Python API or of a command line: bad kernel arguments, sizes."""


class IRError(ClcoopError):
    """LLVM IR given to the interpreter could not be parsed or uses something unsupported."""


class RuntimeFault(ClcoopError):
    """A kernel did something invalid while running (out-of-bounds access, divergent barrier...).

    The message names the kernel, the work-item ids, the buffer, and the source line
    (`location`, a clcoop.ir.source_map.SourcePoint, when the IR has debug line
    information) or else the IR instruction.
    """

    def __init__(self, message, kernel=None, work_item=None, instruction=None, buffer=None,
                 location=None):
        self.kernel = kernel
        self.location = location
        self.work_item = work_item
        self.instruction = instruction
        self.buffer = buffer
        super().__init__(message)


class ToolMissing(ClcoopError):
    """An external tool (llc-22, spirv-val, ...) is needed and not installed."""


class CompilerWarning(UserWarning):
    """A compiler warning from Program.build(), issued through Python's `warnings` module
    (the text is clang-style, with the source line); `diagnostic` is the Diagnostic."""

    def __init__(self, message, diagnostic=None):
        self.diagnostic = diagnostic
        super().__init__(message)


class DeviceError(ClcoopError):
    """The GPU engine (clcoop.vulkan) could not run a launch. The subclasses say why."""


class DeviceUnavailable(DeviceError):
    """No Vulkan loader, or no device with what the kernel needs (the message lists the devices)."""


class UnsupportedOnDevice(DeviceError):
    """The kernel's matrix types, multiply-adds or subgroup size are not among the device's
    (the message lists what the device supports)."""


class DeviceLost(DeviceError):
    """VK_ERROR_DEVICE_LOST: the driver lost the device (a kernel fault or a reset); the
    engine's objects are unusable, a new engine must be made."""


class DeviceTimeout(DeviceError):
    """A launch did not finish within the engine's timeout."""


class DeviceOutOfMemory(DeviceError):
    """VK_ERROR_OUT_OF_DEVICE_MEMORY / OUT_OF_HOST_MEMORY while allocating or launching."""
