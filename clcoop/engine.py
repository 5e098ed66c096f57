"""The execution engines behind Program and Kernel: the protocol every engine implements,
and the registry, the one place that names them.

Anchor: LLVM's ExecutionEngine and EngineBuilder. `EngineBuilder(module).setEngineKind(k)
.create()` picks an engine by kind and hands it the module; the ExecutionEngine it returns
runs the module's functions. Here `build(name, module)` is the EngineBuilder: it imports
the engine's package on first use (the compile path, `clcoop` and `clcoop.frontend`, never
imports an engine) and returns the engine's build of a loaded module. api.Program keeps
the builds; api.Kernel.__call__ picks the engine of a kernel, has the launch checked and
converted once (clcoop/prepare.py) and hands it over, falls back to the reference engine
(engine="auto") and reports why.

The protocol. An engine is a class named in ENGINES (clcoop/interp/engine.py is the
smallest one):

    class VulkanEngine:
        name = "vulkan"                           # its name in ENGINES
        fallback_warning = EngineFallbackWarning  # issued when a kernel or a launch of it
                                                  # goes to the reference engine instead
        @classmethod
        def build(cls, module) -> "VulkanEngine"
        def reason(self, kernel_name) -> str | None
        def launch(self, kernel, prepared) -> None
        def close(self) -> None

- build(module): the engine's build of every kernel of `module` (interp.loader.Module:
  `.kernels` {name: KernelInfo}, `.layout`, `.globals`, `.ir`). A kernel the engine cannot
  run is no error: reason() says why. It raises (clcoop.ClcoopError) only for a module it
  cannot take at all.
- reason(kernel_name): None when the engine runs the kernel, else why not, in a user's
  words (Kernel.fallback_reason; "kernel 'k' runs in the interpreter: <reason>").
- launch(kernel, prepared): one launch. kernel: the KernelInfo; prepared: a
  clcoop.prepare.PreparedLaunch, checked and converted (sizes, sub-group size, options,
  one LaunchArgument per parameter; `prepared.values[i]` is the caller's argument i, the
  NumPy array of a buffer). On return the caller's written buffers hold the results. It
  raises clcoop.RuntimeFault for a fault of the kernel, worded as the reference engine
  words it, with the caller's buffers as they were passed; LaunchNotTaken(reason) for a
  launch it cannot run (the caller's buffers as they were passed): the caller runs that
  launch on the reference engine and warns once per kernel and reason.
- close(): frees what the build holds (a rebuild of the program closes the old builds).

The reference engine (REFERENCE, the interpreter) takes every kernel and every launch.
"""
import importlib

from clcoop.errors import ArgumentError

# name -> "module:class". Adding an engine: its package, one line here, and the docs.
ENGINES = {
    "interp": "clcoop.interp.engine:InterpreterEngine",
    "native": "clcoop.native.engine:NativeEngine",
    "vulkan": "clcoop.vulkan.engine:VulkanEngine",
}
# The reference semantics: runs every kernel; the engine launches fall back to.
REFERENCE = "interp"
# engine="auto": each kernel on the first of these engines that takes it, else REFERENCE.
AUTO = "auto"
AUTO_ORDER = ("native",)
# What Program.build(engine=), Program.from_ir(engine=) and `clcoop-run --engine` accept.
CHOICES = (*ENGINES, AUTO)


class EngineFallbackWarning(UserWarning):
    """A kernel, or one launch of it, runs on the reference engine instead of the engine
    asked for (the message says why)."""


class LaunchNotTaken(Exception):
    """Raised by an engine's launch for a launch it cannot run, before it changed any
    caller's buffer (or after restoring them); the message says why, in a user's words."""


def check_name(name):
    """`name` when it names an engine or is AUTO, else ArgumentError naming the choices."""
    if name not in ENGINES and name != AUTO:
        raise ArgumentError(f"unknown engine {name!r} (choose one of {', '.join((*ENGINES, AUTO))})")
    return name


def engines_for(choice):
    """The engines a program built with engine=`choice` tries for each kernel, in order
    (the reference engine is always behind them)."""
    check_name(choice)
    if choice == AUTO:
        return AUTO_ORDER
    return () if choice == REFERENCE else (choice,)


def engine_class(name):
    """The class registered as `name`, its package imported now."""
    module_name, _, class_name = ENGINES[name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            raise ArgumentError(f"the {name} engine is not available in this installation "
                                f"(no module {module_name})") from None
        raise ArgumentError(f"the {name} engine needs the Python package '{exc.name}', which "
                            f"is not installed (pip install {exc.name})") from None
    return getattr(module, class_name)


def build(name, module):
    """The `name` engine's build of a loaded module (EngineBuilder.create)."""
    return engine_class(name).build(module)
