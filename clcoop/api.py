"""pyopencl-style API of the interpreter.

    prog = clcoop.Program(source).build(options=["-DTILE=16"])
    prog.gemm(global_size, local_size, A, B, C, 64, 64, 64, subgroup_size=16)
    prog.run("gemm", global_size, local_size, A, B, C, 64, 64, 64)
    clcoop.Program.from_ir(ir_text)

Kernel arguments:
- NumPy arrays are __global (or __constant) buffers. They must be C-contiguous and their
  dtype must match the pointee type of the parameter (kernel_arg_type, e.g. float* needs
  float32).
- A `__bf16 *` buffer is a NumPy array of ml_dtypes.bfloat16, or of uint16 holding the bit
  patterns (docs/coopmat2-semantics.md "bf16").
- Python numbers and NumPy scalars are converted to the parameter's type (signedness
  from !kernel_arg_type); values that do not fit raise ArgumentError.
- clcoop.LocalMemory(nbytes) is a __local pointer parameter (one buffer per work-group).

Launch options: subgroup_size= (default 16 or the kernel's intel_reqd_sub_group_size),
instruction_limit= (instructions a work-item may execute before the launch is stopped with
a RuntimeFault; protects against runaway loops), max_lanes= (work-items run at once in one
batch of work-groups; bounds memory), global_offset=, serial_subgroups= (True: run every
sub-group alone, one after the other, instead of whole batches of work-groups at once; a
kernel's results must not depend on it, which makes it a test oracle. A work-group barrier or
collective then faults unless a work-group is one sub-group; a module with workgroup-scope
matrices runs one whole work-group at a time instead).

Engines: build(engine="interp") (the default, the reference semantics), engine="native"
(kernels compiled by LLVM for the host, docs/native.md; calling a kernel the native engine
does not take raises ArgumentError with the reason) or engine="auto" (native where the
kernel is supported, else the interpreter, with a clcoop.native.NativeFallbackWarning and
the reason in Kernel.fallback_reason).

Buffers and faults: the kernel runs on private copies of the writable buffers, which are
copied back into the caller's arrays only when the whole launch succeeds. When the
kernel faults (clcoop.RuntimeFault) the caller's arrays are left untouched. A native launch
proven before it starts not to fault runs on the caller's arrays directly (docs/native.md,
"In-place launches").
"""
import functools
import re
import warnings

import numpy as np

from clcoop.errors import ArgumentError, CompileError, CompilerWarning, RuntimeFault
from clcoop.interp import execute, translate
from clcoop.interp.loader import load_module
from clcoop.interp.memory import Memory
from clcoop.interp.coopmat2 import to_bfloat16
from clcoop.interp.scalars import BFLOAT16, scalar_dtype
from clcoop.launch_cache import CachedLaunch, LaunchCache, data_address, launch_key
from clcoop.native.support import NativeFallbackWarning, WorkItemPathUnavailable
from clcoop.private_buffers import PrivateBuffers

DEFAULT_SUBGROUP_SIZE = 16
SUPPORTED_SUBGROUP_SIZES = (1, 2, 4, 8, 16, 32, 64, 128)


class LocalMemory:
    """A __local buffer of `nbytes` bytes per work-group (pyopencl.LocalMemory)."""

    def __init__(self, nbytes):
        if int(nbytes) <= 0:
            raise ArgumentError(f"LocalMemory size must be positive, got {nbytes}")
        self.nbytes = int(nbytes)

    def __repr__(self):
        return f"LocalMemory({self.nbytes})"


class Program:
    """OpenCL C source (compiled by clcoop) or LLVM IR to run in the interpreter."""

    def __init__(self, source=None):
        self.source = source
        self.ir = None
        self.build_log = ""
        self._module = None
        self._translator = None
        self.engine = "interp"
        self._native = None
        self._private_buffers = PrivateBuffers()   # the native launches' backups
        self._launches = LaunchCache(self._private_buffers)   # their plans, for the next ones
        self._interpreter_launch_reasons = set()   # (kernel, reason) of native launches run by the interpreter
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
        _check_engine(engine)
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
        _check_engine(engine)
        prog = cls(None)
        prog._set_ir(ir_text, engine)
        return prog

    def _set_ir(self, ir_text, engine="interp"):
        self.ir = ir_text
        self._module = load_module(ir_text)
        self._translator = translate.Translator(self._module)
        self.engine = engine
        self._launches.clear()
        for name in self._kernel_objects:        # (cached by __getattr__)
            self.__dict__.pop(name, None)
        self._kernel_objects = {}
        if self._native is not None:
            self._native.close()
            self._native = None
        if engine != "interp":
            import warnings
            from clcoop.native.runtime import NativeProgram
            self._native = NativeProgram(self._module)
            if engine == "auto":
                for name in sorted(self._module.kernels):
                    reason = self._native.reason(name)
                    if reason is not None:
                        warnings.warn(f"kernel '{name}' runs in the interpreter: {reason}",
                                      NativeFallbackWarning, stacklevel=3)

    def native_reason(self, name):
        """Why kernel `name` does not run natively (None when it does or engine='interp')."""
        return self._native.reason(name) if self._native is not None else None

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

    def __repr__(self):
        params = ", ".join(t for t in self.info.arg_types) or ", ".join(str(t) for _, t in self.info.params)
        return f"<clcoop.Kernel {self.name}({params})>"

    @property
    def fallback_reason(self):
        """Why this kernel runs in the interpreter under engine='native'/'auto', else None."""
        return self.program.native_reason(self.name)

    @property
    def engine(self):
        """'native' or 'interp': the engine that runs this kernel."""
        if self.program.engine == "interp" or self.fallback_reason is not None:
            return "interp"
        return "native"

    def __call__(self, global_size, local_size, *args, subgroup_size=None,
                 instruction_limit=execute.DEFAULT_INSTRUCTION_LIMIT,
                 max_lanes=execute.DEFAULT_MAX_LANES, global_offset=None, serial_subgroups=False):
        program = self.program
        native = program._native       # None under engine="interp"
        # A kernel in native.drivers runs natively (fallback_reason is None): the test
        # runs before every launch, so it is the cheap one.
        runs_natively = native is not None and self.name in native.drivers
        if program.engine == "native" and not runs_natively:
            raise ArgumentError(f"kernel '{self.name}' cannot run on the native engine: "
                                f"{self.fallback_reason} (build with engine='auto' to run it in the "
                                f"interpreter)")
        # serial_subgroups is the interpreter's oracle mode (one sub-group at a time).
        if runs_natively and not serial_subgroups:
            if self._native_launch(global_size, local_size, args, subgroup_size, instruction_limit,
                                   global_offset):
                return None
        return launch(self.program._module, self.program._translator, self.info, global_size,
                      local_size, args, subgroup_size, instruction_limit, max_lanes, global_offset,
                      serial_subgroups)

    def _native_launch(self, global_size, local_size, args, subgroup_size, instruction_limit,
                       global_offset):
        """A launch on the native engine: planned anew, or the plan of an earlier launch with
        the same sizes and arguments run again (launch_cache.py). False when the launch is
        one the kernel's native build does not take (support.WorkItemPathUnavailable): the
        caller runs it in the interpreter; nothing ran on the caller's arrays."""
        program = self.program
        program._native.prewake(self.name)
        key = launch_key(global_size, local_size, args, subgroup_size, instruction_limit, global_offset,
                         LocalMemory)
        entry = program._launches.take(self.name, key) if key is not None else None
        if entry is None:
            def in_place(nd, launch_args, written, keys):
                # A launch proven fault-free runs on the caller's arrays (native/ranges.py).
                facts = _proof_facts(self.info, launch_args, written, keys)
                return facts is not None and program._native.proves_in_place(
                    self.info, nd, *facts, instruction_limit)
            prepared = prepare_launch(program._module, self.info, global_size, local_size, args,
                                      subgroup_size, global_offset, program._private_buffers, in_place,
                                      backup=True)
            try:
                plan = program._native.plan_launch(self.info, prepared, instruction_limit)
            except WorkItemPathUnavailable as why:
                program._private_buffers.give(prepared.copies)
                _warn_interpreter_launch(program, self.name, str(why))
                return False
            except BaseException:
                program._private_buffers.give(prepared.copies)
                raise
            entry = CachedLaunch(plan, list(zip(prepared.copy_params, (p for _, p in prepared.copies))))
            backups = prepared.copies
        else:
            backups = [(args[i], backup) for i, backup in entry.copies]
            for user_array, backup in backups:
                np.copyto(backup, user_array.reshape(backup.shape))

        def restore():
            # The written buffers as the caller passed them (a fault, or the fast path's
            # restart on the per-work-item path).
            for user_array, backup in backups:
                np.copyto(user_array, backup.reshape(user_array.shape))
        try:
            program._native.run_plan(entry.plan, restore)
        except RuntimeFault:
            restore()
            program._launches.put(self.name, key, entry)
            raise
        except WorkItemPathUnavailable as why:
            restore()
            program._launches.put(self.name, key, entry)
            _warn_interpreter_launch(program, self.name, str(why))
            return False
        except BaseException:
            # Not a fault of the kernel (an internal error, an interrupt): forget the entry.
            restore()
            program._launches.discard(self.name, key, entry)
            raise
        program._launches.put(self.name, key, entry)
        return True


def _warn_interpreter_launch(program, name, why):
    """Once per kernel and reason: a launch of a native kernel ran in the interpreter."""
    if (name, why) not in program._interpreter_launch_reasons:
        program._interpreter_launch_reasons.add((name, why))
        warnings.warn(f"{why}: this launch runs in the interpreter", NativeFallbackWarning, stacklevel=4)


ENGINES = ("interp", "native", "auto")


def _check_engine(engine):
    if engine not in ENGINES:
        raise ArgumentError(f"unknown engine {engine!r} (choose one of {', '.join(ENGINES)})")


# ============================================================================ launch

def _int_tuple(value, what):
    """An int or a sequence of ints as a tuple (ArgumentError otherwise)."""
    if isinstance(value, (int, np.integer)):
        return (int(value),)
    try:
        return tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise ArgumentError(f"{what} must be an int or a tuple of 1 to 3 ints, got {value!r}") from None


def _sizes(value, what):
    sizes = _int_tuple(value, what)
    if not 1 <= len(sizes) <= 3 or any(s <= 0 for s in sizes):
        raise ArgumentError(f"{what} must have 1 to 3 positive sizes, got {value!r}")
    return sizes


def _offsets(value, dims):
    """global_offset: one offset >= 0 per dimension of the global size (zero offsets are
    valid; clEnqueueNDRangeKernel and pyopencl take global_work_offset of work_dim)."""
    offsets = _int_tuple(value, "global_offset")
    if len(offsets) != dims or any(o < 0 for o in offsets):
        raise ArgumentError(f"global_offset must have {dims} non-negative offset(s), one per "
                            f"dimension of global_size, got {value!r}")
    return offsets


def _pick_local_size(global_size, limit=256):
    """Like pyopencl with local_size=None: the largest divisor per dimension, first dim first."""
    local, budget = [], limit
    for g in global_size:
        best = 1
        for d in range(1, min(g, budget) + 1):
            if g % d == 0:
                best = d
        local.append(best)
        budget //= best
    return tuple(local)


class PreparedLaunch:
    """A launch's checked sizes and arguments, shared by both engines. in_place: the
    written buffers are the caller's arrays themselves (no copies; prepare_launch)."""

    def __init__(self, nd, subgroup_size, memory, call_args, copies, in_place=False, copy_params=()):
        self.nd = nd
        self.subgroup_size = subgroup_size
        self.memory = memory
        self.call_args = call_args
        self.copies = copies
        self.in_place = in_place
        self.copy_params = copy_params   # the parameter index of each copy's array

    def copy_back(self):
        for user_array, private in self.copies:
            np.copyto(user_array, private.reshape(user_array.shape))


def launch(module, translator, info, global_size, local_size, args, subgroup_size=None,
           instruction_limit=execute.DEFAULT_INSTRUCTION_LIMIT, max_lanes=execute.DEFAULT_MAX_LANES,
           global_offset=None, serial_subgroups=False):
    prepared = prepare_launch(module, info, global_size, local_size, args, subgroup_size, global_offset)
    nd, S, memory, call_args = prepared.nd, prepared.subgroup_size, prepared.memory, prepared.call_args
    globals_addr = _map_globals(module, memory)
    ex = execute.Executor(module, translator, info, nd, S, memory, instruction_limit,
                          serial_subgroups=bool(serial_subgroups))
    groups_per_batch = max(1, max_lanes // nd.wg_size)
    with np.errstate(all="ignore"):
        for first in range(0, nd.total_groups, groups_per_batch):
            count = min(groups_per_batch, nd.total_groups - first)
            ex.run_batch(first, count, call_args, globals_addr)
    prepared.copy_back()
    _save_program_globals(module, memory, globals_addr)
    return None


def prepare_launch(module, info, global_size, local_size, args, subgroup_size=None, global_offset=None,
                   private_buffers=None, in_place=None, backup=False):
    """Check sizes and arguments; writable buffers become private copies (PreparedLaunch),
    taken from `private_buffers` (private_buffers.PrivateBuffers) when given, unless
    in_place(nd, args, written, keys) says the launch cannot fault (the native engine's proof,
    native/ranges.py): then they are mapped as they are, with nothing to copy back. backup:
    the written buffers are mapped as they are and `copies` holds backups of them, which the
    caller copies back over them if the launch fails (one copy for a launch that succeeds,
    where private copies cost two: in and back; the native engine's launches)."""
    gsize = _sizes(global_size, "global_size")
    if local_size is None:
        lsize = _pick_local_size(gsize)
        if info.reqd_work_group_size:
            lsize = tuple(info.reqd_work_group_size[:len(gsize)])
    else:
        lsize = _sizes(local_size, "local_size")
    if len(lsize) != len(gsize):
        raise ArgumentError(f"global_size {gsize} and local_size {lsize} have different dimensions")
    for d, (g, l) in enumerate(zip(gsize, lsize)):
        if g % l:
            raise ArgumentError(f"global size {g} is not a multiple of the local size {l} in "
                                f"dimension {d} (required by OpenCL 1.x uniform work-groups)")
    if info.reqd_work_group_size:
        want = tuple(info.reqd_work_group_size) + (1,) * 3
        have = lsize + (1,) * (3 - len(lsize))
        if have[:3] != want[:3]:
            raise ArgumentError(f"kernel '{info.name}' requires the work-group size "
                                f"{tuple(want[:3])} (reqd_work_group_size), got local size {lsize}")
    S = _subgroup_size(info, subgroup_size)
    offset = _offsets(global_offset, len(gsize)) if global_offset is not None else ()
    nd = execute.NDRange(gsize, lsize, offset)
    if len(args) != len(info.params):
        names = ", ".join(n or f"arg{i}" for i, (n, _) in enumerate(info.params))
        raise ArgumentError(f"kernel '{info.name}' takes {len(info.params)} arguments ({names}), "
                            f"got {len(args)}")
    written, keys = _written_buffers(info, args)
    direct = bool(in_place is not None and in_place(nd, args, written, keys))
    memory = Memory(pointer_bytes=module.layout.pointer_bytes)
    call_args, copies = _convert_args(module, info, args, memory, written, private_buffers, direct, backup)
    copy_params = [next(i for i, arg in enumerate(args) if arg is user) for user, _ in copies]
    return PreparedLaunch(nd, S, memory, call_args, copies, direct, copy_params)


def _subgroup_size(info, requested):
    if requested is not None:
        S = int(requested)
        if info.reqd_sub_group_size and S != info.reqd_sub_group_size:
            raise ArgumentError(f"kernel '{info.name}' requires sub-group size "
                                f"{info.reqd_sub_group_size} (intel_reqd_sub_group_size), "
                                f"got subgroup_size={S}")
    else:
        S = info.reqd_sub_group_size or DEFAULT_SUBGROUP_SIZE
    if S not in SUPPORTED_SUBGROUP_SIZES:
        raise ArgumentError(f"unsupported sub-group size {S} (supported: "
                            f"{', '.join(map(str, SUPPORTED_SUBGROUP_SIZES))})")
    return S


_SCALAR_TYPES = {
    "char": np.int8, "uchar": np.uint8, "unsigned char": np.uint8, "short": np.int16,
    "ushort": np.uint16, "unsigned short": np.uint16, "int": np.int32, "uint": np.uint32,
    "unsigned int": np.uint32, "long": np.int64, "ulong": np.uint64, "unsigned long": np.uint64,
    "half": np.float16, "float": np.float32, "double": np.float64, "bool": np.bool_,
    "size_t": np.uint64, "ptrdiff_t": np.int64, "intptr_t": np.int64, "uintptr_t": np.uint64,
}


# __bf16 buffers: bfloat16 values, or uint16 bit patterns (the same bytes).
BFLOAT16_BUFFER_DTYPES = (BFLOAT16, np.dtype(np.uint16))


@functools.lru_cache(maxsize=None)
def _is_bfloat16_pointer(type_name):
    return type_name.replace("const", "").replace("volatile", "").replace("restrict", "") \
        .rstrip("* ").strip() == "__bf16"


@functools.lru_cache(maxsize=None)
def _pointee_dtype(type_name):
    """'float*' -> float32, 'uint4*' -> uint32, unknown (struct*) -> None."""
    base = type_name.replace("const", "").replace("volatile", "").replace("restrict", "")
    base = base.rstrip("* ").strip()
    m = re.fullmatch(r"([a-z ]+?)(\d+)?", base)
    if not m:
        return None
    return _SCALAR_TYPES.get(m.group(1).strip())


def _buffer_key(arr):
    return (data_address(arr), arr.nbytes)


def _written_buffers(info, args):
    """Keys of arrays that some non-const __global parameter receives: an array passed
    twice (in-place kernels) is mapped once, writable if any use is; and {param: key} of
    the array arguments."""
    written, arrays = set(), []
    for i, (arg, (_, ptype)) in enumerate(zip(args, info.params)):
        if ptype.kind != "ptr" or i in info.byval or not isinstance(arg, np.ndarray):
            continue
        key = _buffer_key(arg)
        qual = info.arg_qualifiers[i] if i < len(info.arg_qualifiers) else ""
        if ptype.addrspace not in (2, 3) and "const" not in qual.split() and arg.flags.writeable:
            written.add(key)
        arrays.append((i, arg, key))
    for a, (i, x, kx) in enumerate(arrays):
        for j, y, ky in arrays[a + 1:]:
            if kx != ky and (kx in written or ky in written) and _may_overlap(x, kx, y, ky) and \
                    np.shares_memory(x, y):
                raise ArgumentError(f"arguments {i} and {j} of kernel '{info.name}' are "
                                    f"overlapping but different views of one array; pass the "
                                    f"same array, or non-overlapping arrays")
    return written, {i: key for i, _, key in arrays}


def _may_overlap(x, xkey, y, ykey):
    """False when x and y, both C-contiguous, have byte ranges apart (np.shares_memory is
    the exact test, and costs more)."""
    if not (x.flags.c_contiguous and y.flags.c_contiguous):
        return True
    (xs, xn), (ys, yn) = xkey, ykey
    return xs < ys + yn and ys < xs + xn


def _proof_facts(info, args, written, keys):
    """What the native engine's proof (native/ranges.py) needs of a launch's arguments:
    ({param: int} of the integer scalars, {param: (nbytes, writable)} of the buffers), or
    None when an argument is one _convert_args refuses (it reports it). written, keys:
    _written_buffers."""
    scalars, buffers = {}, {}
    for i, (arg, (pname, ptype)) in enumerate(zip(args, info.params)):
        if ptype.kind == "ptr":
            if i not in keys or not arg.flags.c_contiguous:
                return None
            buffers[i] = (arg.nbytes, keys[i] in written)
        elif ptype.kind == "int" and i not in info.byval:
            type_name = info.arg_types[i] if i < len(info.arg_types) else str(ptype)
            try:
                scalars[i] = int(_convert_scalar(arg, ptype, type_name, ""))
            except ArgumentError:
                return None
    return scalars, buffers


def _convert_args(module, info, args, memory, written, private_buffers=None, in_place=False, backup=False):
    """Kernel arguments as the engines take them, and the private copies made (written:
    _written_buffers; in_place: written buffers are mapped without copies; backup: mapped
    as they are, the copies their backups)."""
    call_args, copies = [], []
    seen = {}
    for i, (arg, (pname, ptype)) in enumerate(zip(args, info.params)):
        name = pname or f"arg{i}"
        type_name = info.arg_types[i] if i < len(info.arg_types) else str(ptype)
        space = ptype.addrspace if ptype.kind == "ptr" else None
        where = f"argument {i} '{name}' of kernel '{info.name}' ({type_name})"
        if i in info.byval:
            call_args.append(_map_byval(arg, name, where, info.byval[i], module, memory))
        elif ptype.kind == "ptr" and space == 3:
            if not isinstance(arg, LocalMemory):
                raise ArgumentError(f"{where} is a __local pointer: pass clcoop.LocalMemory(nbytes)")
            call_args.append(execute._LocalArg(name, arg.nbytes))
        elif ptype.kind == "ptr":
            call_args.append(_map_buffer(arg, name, where, type_name, memory, copies, seen, written,
                                         private_buffers, in_place, backup))
        else:
            call_args.append(_convert_scalar(arg, ptype, type_name, where))
    return call_args, copies


def _map_byval(arg, name, where, struct_ty, module, memory):
    """A struct passed by value: a NumPy structured scalar/array element or raw bytes of
    exactly the struct's size (its layout follows the target's data layout)."""
    size = module.layout.size(struct_ty)
    if isinstance(arg, (bytes, bytearray)):
        data = np.frombuffer(bytes(arg), np.uint8)
    elif isinstance(arg, (np.void, np.ndarray)):
        data = np.frombuffer(np.ascontiguousarray(arg).tobytes(), np.uint8)
    else:
        raise ArgumentError(f"{where} is a struct passed by value: pass a NumPy structured "
                            f"scalar or {size} bytes, got {type(arg).__name__}")
    if data.size != size:
        raise ArgumentError(f"{where}: the struct has {size} bytes, the argument has {data.size}")
    region = memory.add_region(f"{name} (struct argument)", data.copy(), writable=False, space=0)
    return np.int64(region.base)


def _map_buffer(arg, name, where, type_name, memory, copies, seen, written, private_buffers=None,
                in_place=False, backup=False):
    if isinstance(arg, LocalMemory):
        raise ArgumentError(f"{where} is a __global pointer, not __local: pass a NumPy array")
    if not isinstance(arg, np.ndarray):
        raise ArgumentError(f"{where} is a pointer: pass a NumPy array, got {type(arg).__name__}")
    if not arg.flags.c_contiguous:
        raise ArgumentError(f"{where}: the array is not C-contiguous (use np.ascontiguousarray)")
    want = _pointee_dtype(type_name)
    if _is_bfloat16_pointer(type_name) and arg.dtype not in BFLOAT16_BUFFER_DTYPES:
        raise ArgumentError(f"{where} needs a bfloat16 array (ml_dtypes.bfloat16) or a uint16 array "
                            f"of bf16 bit patterns, got {arg.dtype.name}")
    if want is not None and arg.dtype != np.dtype(want):
        raise ArgumentError(f"{where} needs a {np.dtype(want).name} array, got {arg.dtype.name}")
    key = _buffer_key(arg)
    if key in seen:
        return seen[key]
    read_only = key not in written
    if read_only or in_place:
        data = arg.reshape(-1).view(np.uint8)
    else:
        private = private_buffers.take(arg) if private_buffers is not None else arg.copy()
        copies.append((arg, private))
        data = (arg if backup else private).reshape(-1).view(np.uint8)
    region = memory.add_region(name, data, writable=not read_only)
    seen[key] = np.int64(region.base)
    return seen[key]


def _convert_scalar(arg, ptype, type_name, where):
    if isinstance(arg, (np.ndarray, LocalMemory)) and not (isinstance(arg, np.ndarray) and arg.ndim == 0):
        raise ArgumentError(f"{where} is a scalar: got {type(arg).__name__}")
    if ptype.kind == "vec":
        dtype = scalar_dtype(ptype)
        v = np.asarray(arg)
        if v.shape != (ptype.n,):
            raise ArgumentError(f"{where} is a vector of {ptype.n}: pass a sequence of {ptype.n} numbers")
        return v.astype(dtype)
    if ptype.kind not in ("int", "float"):
        raise ArgumentError(f"{where}: parameters of type {ptype} are not supported")
    if isinstance(arg, (bool, np.bool_)) and ptype.kind == "int" and ptype.bits > 1:
        arg = int(arg)
    if not isinstance(arg, (int, float, np.integer, np.floating, np.bool_, np.ndarray)):
        raise ArgumentError(f"{where} needs a number, got {type(arg).__name__}")
    dtype = scalar_dtype(ptype)
    if dtype == BFLOAT16:
        return to_bfloat16(np.float64(arg))[()]     # one rounding, as a double -> __bf16 cast
    if ptype.kind == "float":
        return dtype.type(arg)
    if isinstance(arg, (float, np.floating)):
        if float(arg) != int(arg):
            raise ArgumentError(f"{where} is an integer, got {arg!r}")
    value = int(arg)
    user_t = _SCALAR_TYPES.get(type_name.strip())
    bits = ptype.bits
    if bits == 1:
        return np.bool_(value != 0)
    unsigned_t = user_t is not None and np.dtype(user_t).kind == "u"
    lo = 0 if unsigned_t else -(1 << (bits - 1))
    hi = (1 << bits) - 1 if unsigned_t else (1 << (bits - 1)) - 1
    if not lo <= value <= hi:
        raise ArgumentError(f"{where}: value {value} does not fit ({lo}..{hi})")
    if value >= 1 << (bits - 1):
        value -= 1 << bits
    return dtype.type(value)


def _save_program_globals(module, memory, globals_addr):
    """Program-scope __global variables keep their values from one launch to the next
    (OpenCL C 6.8: their lifetime is the program's), like on an OpenCL device."""
    state = {}
    for name, gv in module.globals.items():
        if gv.addrspace != 3 and not gv.constant:
            region = memory.region_at(int(globals_addr[name]))
            state[name] = region.data.copy()
    module.global_state = state


def _map_globals(module, memory):
    """Program-scope variables (__constant, __global): one region each for the launch."""
    addrs = {}
    pending = []
    for name, gv in module.globals.items():
        if gv.addrspace == 3:
            continue   # __local: per work-group, mapped per batch
        if gv.init is None:
            raise RuntimeFault(f"external global @{name} has no definition")
        size = module.layout.size(gv.ty)
        region = memory.allocate(f"global variable @{name}", size, writable=not gv.constant,
                                 space=gv.addrspace)
        addrs[name] = np.int64(region.base)
        pending.append((gv, region))
    saved = getattr(module, "global_state", {})
    for gv, region in pending:
        if gv.name in saved:
            region.data[:] = saved[gv.name]
            continue
        data = translate.constant_bytes(gv.init, module.layout, lambda n: addrs[n])
        region.data[:len(data)] = np.frombuffer(data, np.uint8)
    return addrs
