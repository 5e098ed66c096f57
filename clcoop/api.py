"""pyopencl-style API of clcoop's engines (clcoop/engine.py): the interpreter, the native engine.

    prog = clcoop.Program(source).build(options=["-DTILE=16"])
    prog.gemm(global_size, local_size, A, B, C, 64, 64, 64, subgroup_size=16)
    prog.run("gemm", global_size, local_size, A, B, C, 64, 64, 64)
    clcoop.Program.from_ir(ir_text)

Kernel arguments:
- NumPy arrays are __global (or __constant) buffers. They must be C-contiguous and their
  dtype must match the pointee type of the parameter (kernel_arg_type, e.g. float* needs
  float32). A read-only array (flags.writeable False) is refused for a parameter the kernel
  may write (a __global pointer to a non-const type).
- A struct pointer (`blk8 *`) takes a NumPy structured array whose records have the
  struct's size and layout: np.dtype([...], align=True) follows OpenCL C's alignment rules
  (each member at a multiple of its size; the record padded to its largest member), or raw
  uint8/int8 bytes of whole records. The record size is checked where the IR gives it
  (clcoop's kernel metadata, or a struct the module declares); the fields are the caller's
  to match.
- A `__bf16 *` buffer is a NumPy array of ml_dtypes.bfloat16, or of uint16 holding the bit
  patterns (docs/coopmat2-semantics.md "bf16").
- Python numbers and NumPy scalars are converted to the parameter's type (signedness
  from !kernel_arg_type); values that do not fit raise ArgumentError.
- clcoop.LocalMemory(nbytes) is a __local pointer parameter (one buffer per work-group; at
  most 1 GiB per work-group in all).

Sizes: global sizes (plus global_offset) below 2**63. Launch options: subgroup_size=
(default 16 or the kernel's intel_reqd_sub_group_size), instruction_limit= (a positive
integer: instructions a work-item may execute before the launch is stopped with
a RuntimeFault; protects against runaway loops), max_lanes= (work-items run at once in one
batch of work-groups; bounds memory), global_offset=, serial_subgroups= (True: run every
sub-group alone, one after the other, instead of whole batches of work-groups at once; a
kernel's results must not depend on it, which makes it a test oracle. A work-group barrier or
collective then faults unless a work-group is one sub-group; a module with workgroup-scope
matrices runs one whole work-group at a time instead), specialize= (names of scalar arguments
whose values an engine may compile in: the GPU engine makes a pipeline per value, so that
loop bounds and tensor dimensions are constants to the driver; the CPU engines run the kernel
unchanged; the results are the same).

Engines (clcoop/engine.py names them): build(engine="interp") (the default, the reference
semantics), engine="native" (kernels compiled by LLVM for the host, docs/native.md; calling
a kernel the native engine does not take raises ArgumentError with the reason) or
engine="auto" (native where the kernel is supported, else the interpreter, with a
clcoop.native.NativeFallbackWarning and the reason in Kernel.fallback_reason). The
arguments are checked and converted once per launch, for every engine (clcoop/prepare.py).

Buffers and faults: the kernel runs on private copies of the writable buffers, which are
copied back into the caller's arrays only when the whole launch succeeds. When the
kernel faults (clcoop.RuntimeFault) the caller's arrays are left untouched. A native launch
proven before it starts not to fault runs on the caller's arrays directly (docs/native.md,
"In-place launches").
"""
import warnings

from clcoop import engine as engines
from clcoop.engine import LaunchNotTaken
from clcoop.errors import ArgumentError, CompileError, CompilerWarning
from clcoop.prepare import DEFAULT_INSTRUCTION_LIMIT, DEFAULT_MAX_LANES
from clcoop.ir.loader import load_module
from clcoop.prepare import LocalMemory, Preparations  # noqa: F401 (clcoop.LocalMemory)


class Program:
    """OpenCL C source (compiled by clcoop) or LLVM IR, built for an engine."""

    def __init__(self, source=None):
        self.source = source
        self.ir = None
        self.build_log = ""
        self._module = None
        self.engine = engines.REFERENCE
        # Engine name -> its build, in the order a kernel tries them (engine.engines_for);
        # the reference engine's build takes the rest.
        self._builds = {}
        self._reference = None
        self._fallback_launches = set()   # (kernel, reason) of launches the reference ran instead
        self._kernel_objects = {}    # name -> Kernel, until the next build

    def build(self, options=(), filename="<source>", engine="interp"):
        """Compile the source with clcoop; raises clcoop.CompileError on errors.

        options: clang's compile options, as a list or one string (clcoop.options: the same
        parser as the `clcoop` command line); the default optimization level is -O2, as
        clBuildProgram's (-O0 or -cl-opt-disable turns it off). The diagnostics are kept in
        `build_log` (clang-style text, "" when there are none), as pyopencl keeps the build
        log; each warning is also issued as a clcoop.CompilerWarning (Python's warnings).
        engine: "interp" (the reference), "native" or "auto" (docs/native.md)."""
        from clcoop.diagnostics import render
        from clcoop.frontend.driver import compile_source
        from clcoop.options import parse_options
        if not isinstance(self.source, str):
            raise ArgumentError("Program(source) needs the OpenCL C source text; "
                                "use Program.from_ir(text) for LLVM IR")
        if isinstance(options, str):
            options = options.split()
        engines.check_name(engine)
        opts = parse_options(list(options or ()), for_build=True).compile_options(filename)
        try:
            result = compile_source(self.source, opts)
        except CompileError as exc:
            self.build_log = exc.rendered or str(exc)
            raise
        self.build_log = result.rendered
        for diagnostic in result.diagnostics:
            warnings.warn(CompilerWarning(render(diagnostic, result.sources), diagnostic),
                          stacklevel=2)
        self._set_ir(result.ir, engine)
        # Faults quote the source line: the compiled text, even if never saved to a file.
        self._module.sources[filename] = self.source
        return self

    @classmethod
    def from_ir(cls, ir_text, engine="interp"):
        """Run LLVM IR from any producer (clcoop, clang-22 ...)."""
        engines.check_name(engine)
        prog = cls(None)
        prog._set_ir(ir_text, engine)
        return prog

    def _set_ir(self, ir_text, engine="interp"):
        self.ir = ir_text
        self._module = load_module(ir_text)
        for name in self._kernel_objects:        # (cached by __getattr__)
            self.__dict__.pop(name, None)
        self._kernel_objects = {}
        for build in self._builds.values():
            build.close()
        self._builds = {}
        self.engine = engine
        self._reference = engines.build(engines.REFERENCE, self._module)
        self._builds = {name: engines.build(name, self._module) for name in engines.engines_for(engine)}
        if engine == engines.AUTO:
            for name in sorted(self._module.kernels):
                build = self._engine_of(name)
                if build is self._reference:
                    warnings.warn(f"kernel '{name}' runs in the interpreter: {self._fallback_reason(name)}",
                                  self._preferred().fallback_warning, stacklevel=3)

    def _preferred(self):
        """The build of the engine asked for (None under engine='interp')."""
        return next(iter(self._builds.values()), None)

    def _fallback_reason(self, name):
        """Why kernel `name` does not run on the engine asked for (None when it does, or
        under engine='interp')."""
        preferred = self._preferred()
        return preferred.reason(name) if preferred is not None else None

    def _engine_of(self, name):
        """The build that runs kernel `name`: the first of the engines asked for that takes
        it, else the reference's (engine='auto'); ArgumentError when the one engine asked for
        does not take it."""
        for build in self._builds.values():
            if build.reason(name) is None:
                return build
        if self.engine not in (engines.AUTO, engines.REFERENCE):
            raise ArgumentError(f"kernel '{name}' cannot run on the {self.engine} engine: "
                                f"{self._fallback_reason(name)} (build with engine='auto' to run it "
                                f"in the interpreter)")
        return self._reference

    def _warn_fallback_launch(self, build, name, why):
        """Once per kernel and reason: a launch the engine did not take ran in the interpreter."""
        if (name, why) not in self._fallback_launches:
            self._fallback_launches.add((name, why))
            warnings.warn(f"{why}: this launch runs in the interpreter", build.fallback_warning,
                          stacklevel=4)

    # The native build's parts, as the native engine's tests reach them.
    @property
    def _native(self):
        build = self._builds.get("native")
        return build.program if build is not None else None

    @_native.setter
    def _native(self, native_program):
        self._builds["native"].program = native_program

    @property
    def _launches(self):
        return self._builds["native"].launches

    @property
    def _private_buffers(self):
        return self._builds["native"].private_buffers

    @property
    def kernel_names(self):
        self._require_built()
        return sorted(self._module.kernels)

    def _require_built(self):
        if self._module is None:
            raise ArgumentError("the program is not built: call .build() first")

    def all_kernels(self):
        """Kernel objects of every kernel in the program (pyopencl's Program.all_kernels)."""
        return [self.kernel(name) for name in self.kernel_names]

    def kernel(self, name):
        """The Kernel object of kernel `name` (one per name until the next build: kernels
        hold no launch state)."""
        kernel = self._kernel_objects.get(name)
        if kernel is not None:
            return kernel
        self._require_built()
        if name not in self._module.kernels:
            avail = ", ".join(self.kernel_names) or "none"
            raise ArgumentError(f"no kernel named '{name}' in the program (available: {avail})")
        kernel = self._kernel_objects[name] = Kernel(self, name)
        return kernel

    def __getattr__(self, name):
        # Only names that are no attribute come here: the kernel is kept as an instance
        # attribute (as functools.cached_property does), so that `prog.k(...)` in a loop
        # finds it directly; _set_ir removes it again.
        if name.startswith("_"):
            raise AttributeError(name)
        kernel = self.kernel(name)
        self.__dict__[name] = kernel
        return kernel

    def run(self, name, global_size, local_size, *args, **kwargs):
        return self.kernel(name)(global_size, local_size, *args, **kwargs)


class Kernel:
    def __init__(self, program, name):
        self.program = program
        self.name = name
        self.info = program._module.kernels[name]
        # Its launches' preparations, kept by launch key (a kept one holds no caller's array).
        self._preparations = Preparations(program._module, self.info)

    def __repr__(self):
        params = ", ".join(t for t in self.info.arg_types) or ", ".join(str(t) for _, t in self.info.params)
        return f"<clcoop.Kernel {self.name}({params})>"

    @property
    def fallback_reason(self):
        """Why this kernel runs in the interpreter under engine='native'/'auto', else None."""
        return self.program._fallback_reason(self.name)

    @property
    def engine(self):
        """The name of the engine that runs this kernel ('native' or 'interp')."""
        try:
            return self.program._engine_of(self.name).name
        except ArgumentError:
            return engines.REFERENCE     # (its launches are refused)

    def __call__(self, global_size, local_size, *args, subgroup_size=None,
                 instruction_limit=DEFAULT_INSTRUCTION_LIMIT, max_lanes=DEFAULT_MAX_LANES,
                 global_offset=None, serial_subgroups=False, specialize=()):
        program = self.program
        engine = program._engine_of(self.name)
        if serial_subgroups:
            engine = program._reference       # the interpreter's oracle mode (one sub-group at a time)
        prepared = self._preparations.prepare(global_size, local_size, args, subgroup_size, instruction_limit,
                                              max_lanes, global_offset, serial_subgroups)
        if specialize:
            prepared = prepared.specialized(self.info, specialize)
        try:
            engine.launch(self.info, prepared)
        except LaunchNotTaken as why:
            program._warn_fallback_launch(engine, self.name, str(why))
            program._reference.launch(self.info, prepared)
