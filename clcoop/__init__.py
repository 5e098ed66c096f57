"""clcoop: OpenCL C with cooperative matrices, compiled to SPIR LLVM IR and run on the CPU.

The compile path (clcoop.frontend) never imports NumPy; the runtime API
(Program, LocalMemory) is loaded on first use so that `import clcoop`
stays cheap for the compiler command line.
"""

from clcoop.version import __version__  # noqa: F401
from clcoop.errors import (ClcoopError, CompileError, RuntimeFault, ArgumentError,  # noqa: F401
                           CompilerWarning, DeviceError, DeviceUnavailable, UnsupportedOnDevice, DeviceLost,
                           DeviceTimeout, DeviceOutOfMemory)

_RUNTIME_NAMES = {"Program", "Kernel", "LocalMemory"}


def __getattr__(name):
    if name in _RUNTIME_NAMES:
        from clcoop import api
        return getattr(api, name)
    if name == "debug":   # clcoop.debug.show(matrix_value, type, subgroup_size)
        from clcoop.interp import debug
        return debug
    raise AttributeError(f"module 'clcoop' has no attribute {name!r}")
