"""llvmlite MCJIT engines and their lifetime (docs/native.md, "Engine lifetime").

Why freeing an engine crashed: create_mcjit_compiler(module, tm) hands both the module and
the TargetMachine to the engine (llvmlite marks tm._owned; LLVM's EngineBuilder::create(TM)
keeps it in a unique_ptr). Closing the engine deletes that TargetMachine. A target machine
shared by several engines, or used afterwards for a PassBuilder, is then used after free:
the next compile, or the next engine's close, segfaults (test_native_engine reproduces it
with the shared machine). So:
- every Engine gets its own TargetMachine, used by its own PassBuilder (closed before the
  engine is created) and then given to the engine, never to anything else;
- the module belongs to the engine too: it is never closed or reused after
  create_mcjit_compiler;
- ctypes function pointers point into the engine's code: runtime.py calls them only while
  the engine is open, and NativeProgram.close() waits for running launches;
- close() is idempotent and also runs from a weakref finalizer.

Why LLVM's optimization pipeline runs in a child process (docs/native.md, "Memory"):
llvmlite 0.50's create_pass_builder allocates a PassInstrumentationCallbacks that nothing
frees (LLVMPY_CreatePassBuilder: `new PassInstrumentationCallbacks()`, not owned by the
PassBuilder), and every pm.run registers a StandardInstrumentations' callbacks in it. Each
O3 run of a generated module so left about 186 KiB allocated (mallinfo2, 200 runs: the
pass-name table and callbacks; a trivial function's run 60 KiB), 370 KiB per native program
(its build and the narrower build its first launch makes). Reusing one PassBuilder instead
is a use after free: the callbacks of a run point into that run's StandardInstrumentations,
destroyed when it returns, and the next run calls them. So the pipeline runs in a child
process (optimize_text) that is replaced every OPTIMIZER_RUNS runs: the parent parses the
optimized text and compiles it with MCJIT, which frees what it allocates.
"""
import atexit
import collections
import hashlib
import os
import signal
import struct
import subprocess
import sys
import threading
import weakref

_init_lock = threading.Lock()
_initialized = False
_target_machine = None


# Helpers LLVM's code generation may call for what x86-64 has no instruction for (i128
# division, i128 <-> float, half conversions, powi): MCJIT resolves a call from the
# process's symbols, and one that is not there jumps to address 0. libgcc_s has them all.
RUNTIME_HELPERS = ("__udivti3", "__umodti3", "__divti3", "__modti3", "__udivmodti4", "__divmodti4",
                   "__fixsfti", "__fixdfti", "__fixunssfti", "__fixunsdfti", "__floattisf",
                   "__floattidf", "__floatuntisf", "__floatuntidf", "__truncdfhf2", "__truncsfhf2",
                   "__extendhfsf2", "__powisf2", "__powidf2", "__popcountti2", "__clzti2", "__ctzti2")


def ensure_llvm():
    global _initialized
    with _init_lock:
        if not _initialized:
            import llvmlite.binding as llvm
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            # MCJIT assembles the inline asm of a module (coop_ir's row registers) with it.
            llvm.initialize_native_asmparser()
            # A block LLVM proves unreachable (undefined behaviour of untrusted IR: a branch
            # on poison) ends in ud2 instead of nothing, where execution would fall through
            # into whatever code follows (docs/native.md, "Safety contract").
            llvm.set_option("clcoop", "-trap-unreachable")
            _register_runtime_helpers()
            _initialized = True


# libm's functions LLVM calls for an intrinsic the host has no instruction for: llvm.fma
# without FMA hardware (both correctly rounded, as IEEE 754 requires).
LIBM_HELPERS = ("fma", "fmaf")


def _register_runtime_helpers():
    import ctypes.util
    register_symbols(ctypes.util.find_library("m") or "libm.so.6", LIBM_HELPERS)
    register_symbols(ctypes.util.find_library("gcc_s") or "libgcc_s.so.1", RUNTIME_HELPERS)
    from clcoop.native import math_ir
    math_ir.register_host_functions()


def register_symbols(library, names):
    """Makes the functions `names` of a shared library (None: the process itself) callable
    from compiled code: MCJIT resolves a call from the symbols registered with LLVM, and
    does not search the process. A library or name that is missing is left out: Engine's
    check of undefined symbols then refuses code that calls it."""
    import ctypes
    import llvmlite.binding as llvm
    try:
        lib = ctypes.CDLL(library)
    except OSError:
        return
    for name in names:
        function = getattr(lib, name, None)
        if function is not None and not llvm.address_of_symbol(name):
            llvm.add_symbol(name, ctypes.cast(function, ctypes.c_void_p).value)


def undefined_symbols(obj):
    """Names an ELF64 object file uses without defining (its symbol table's undefined
    entries)."""
    import struct
    if obj[:4] != b"\x7fELF" or obj[4] != 2:
        return []
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    names = []
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 2 or not entsize:                 # SHT_SYMTAB
            continue
        strtab = sections[link][4]
        for at in range(offset + entsize, offset + size, entsize):   # entry 0 is null
            name_off, info, _, shndx = struct.unpack_from("<IBBH", obj, at)
            if shndx == 0 and name_off:
                end = obj.index(b"\0", strtab + name_off)
                names.append(obj[strtab + name_off:end].decode())
    return names


def _new_target_machine(opt=3):
    """A target machine for the host (no fast-math: IEEE results as the interpreter)."""
    import llvmlite.binding as llvm
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                        features=llvm.get_host_cpu_features().flatten(),
                                        opt=opt, jit=True)


def host_target_machine():
    """The machine of the IR passes run before code generation (codegen.generate). It is
    never given to an engine, so no engine's close() frees it."""
    global _target_machine
    ensure_llvm()
    with _init_lock:
        if _target_machine is None:
            _target_machine = _new_target_machine()
        return _target_machine


# ---------------------------------------------------------------- optimization
# Runs of the pipeline a child process makes before it is replaced (its leak, above, stays
# under 30 MiB).
OPTIMIZER_RUNS = 128
# The optimizer process's first reply, once it has loaded LLVM; a parent takes no other
# (a new word for each change of the protocol: a process started from another version of
# this file is then refused, not misread).
READY = b"clcoop optimizer 1"


def optimize_module(module, tm, opt):
    """LLVM's default pipeline at level `opt` over the llvmlite module `module`, in place
    (triple and data layout of the host, verified first; no fast-math)."""
    import llvmlite.binding as llvm
    module.triple = llvm.get_process_triple()
    module.data_layout = str(tm.target_data)
    module.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=opt)
    pto.loop_vectorization = opt >= 2
    pto.slp_vectorization = opt >= 2
    pb = llvm.create_pass_builder(tm, pto)
    pm = pb.getModulePassManager()
    try:
        pm.run(module, pb)
    finally:
        pm.close()
        pb.close()
        pto.close()


class _Optimizer:
    """The child process that runs optimize_module (module docstring): requests are the
    level and the IR text, replies a status and the optimized IR or the error's words,
    each a length-prefixed block on its pipes. One request at a time (a lock)."""

    def __init__(self):
        self.forget()

    def forget(self):
        """No process (also in a forked child: the parent's process and pipes are the
        parent's, and so is the state of its lock)."""
        self.lock = threading.Lock()
        self.proc = None
        self.runs = 0

    def optimize(self, ir_text, opt):
        with self.lock:
            if self.proc is not None and (self.runs >= OPTIMIZER_RUNS or self.proc.poll() is not None):
                self.stop()          # (replaced, or it died between requests: killed)
            if self.proc is None:
                if not sys.executable:
                    raise OSError("no Python executable to start the optimizer process with")
                self.proc = subprocess.Popen([sys.executable, "-P", os.path.abspath(__file__), "--optimizer"],
                                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                self.runs = 0
                try:
                    ready = _read_block(self.proc.stdout)
                except EOFError:
                    ready = None
                if ready != READY:
                    # (not a Python that runs this file: optimize_text runs the pipeline here)
                    self.stop(kill=True)
                    raise OSError("the optimizer process did not start")
            try:
                _write_block(self.proc.stdin, bytes([opt]) + ir_text.encode())
                reply = _read_block(self.proc.stdout)
            except BaseException:
                # (Ctrl-C while waiting, or the child died: its state is unknown.)
                status = self.proc.poll()
                self.stop(kill=True)
                if status is None:
                    raise
                raise RuntimeError(f"LLVM's optimizer stopped with status {status} on the module")
            self.runs += 1
            if reply[:1] != b"\0":
                raise RuntimeError(reply[1:].decode(errors="replace"))
            return reply[1:].decode()

    def stop(self, kill=False):
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if kill:
                proc.kill()
            proc.stdin.close()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        proc.stdout.close()


_optimizer = _Optimizer()
os.register_at_fork(after_in_child=_optimizer.forget)
atexit.register(_optimizer.stop)


def optimize_text(ir_text, opt=3):
    """The IR text `ir_text` optimized at level `opt` for the host (optimize_module), run in
    the optimizer process; in this one where no process can be started."""
    try:
        return _optimizer.optimize(ir_text, opt)
    except OSError:
        import llvmlite.binding as llvm
        ensure_llvm()
        module = llvm.parse_assembly(ir_text)
        optimize_module(module, host_target_machine(), opt)
        return str(module)


def _write_block(stream, data):
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _read_block(stream):
    head = stream.read(8)
    if len(head) != 8:
        raise EOFError("the optimizer process closed its output")
    size, = struct.unpack("<Q", head)
    data = stream.read(size)
    if len(data) != size:
        raise EOFError("the optimizer process closed its output")
    return data


def _serve_optimizer():
    """The optimizer process: requests from stdin until it closes. Its target machines
    (one per level) are only ever given to pass builders."""
    import llvmlite.binding as llvm
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C is the parent's to handle
    ensure_llvm()
    machines = {}
    # Replies on a copy of stdout; what LLVM itself prints goes to stderr.
    requests, replies = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    _write_block(replies, READY)
    while True:
        try:
            request = _read_block(requests)
        except EOFError:
            return
        opt, text = request[0], request[1:].decode()
        try:
            module = llvm.parse_assembly(text)
            if opt not in machines:
                machines[opt] = _new_target_machine(opt)
            optimize_module(module, machines[opt], opt)
            reply = b"\0" + str(module).encode()
            module.close()
        except Exception as exc:       # LLVM's words (a parse or verifier error) go back
            reply = b"\1" + str(exc).encode()
        _write_block(replies, reply)


# The most bytes (optimized IR and object code) that CompiledModules keeps.
COMPILED_MODULES_BYTES = 64 << 20


class CompiledModules:
    """What LLVM made of each module text this process compiled (its optimized IR and its
    object code), so that the same text built again (a program built twice, the same
    kernel in several tests) loads the object instead of running the optimizer and the
    code generator, most of a native build's time. Keyed by the optimization level and the
    SHA-256 of the text; in memory only, the least recently used dropped beyond
    COMPILED_MODULES_BYTES. Every engine still loads its own copy of the code (MCJIT's
    object cache), so closing one frees nothing another uses."""

    def __init__(self, limit=COMPILED_MODULES_BYTES):
        self.limit = limit
        self._entries = collections.OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @staticmethod
    def key(ir_text, opt):
        return opt, hashlib.sha256(ir_text.encode()).digest()

    def get(self, key):
        """(optimized IR text, object code) or None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key, optimized_ir, obj):
        size = len(optimized_ir) + len(obj)
        with self._lock:
            if key in self._entries or size > self.limit:
                return
            self._entries[key] = (optimized_ir, obj)
            self._bytes += size
            while self._bytes > self.limit:
                _, (old_ir, old_obj) = self._entries.popitem(last=False)
                self._bytes -= len(old_ir) + len(old_obj)

    def clear(self):
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def __len__(self):
        return len(self._entries)


compiled_modules = CompiledModules()


class Engine:
    """A compiled module: functions by name as addresses; close() frees it once.
    `from_cache` says whether its code came from compiled_modules (nothing compiled)."""

    def __init__(self, ir_text, opt=3):
        import llvmlite.binding as llvm
        ensure_llvm()
        key = CompiledModules.key(ir_text, opt)
        cached = compiled_modules.get(key)
        self.from_cache = cached is not None
        self.optimized_ir, cached_object = cached if cached else (optimize_text(ir_text, opt), None)
        tm = _new_target_machine(opt)          # this engine's own: the engine frees it
        module = llvm.parse_assembly(self.optimized_ir)
        engine = llvm.create_mcjit_compiler(module, tm)
        objects = [cached_object] if cached else []
        engine.set_object_cache(None if cached else lambda _module, buffer: objects.append(bytes(buffer)),
                                lambda _module: cached_object)
        engine.finalize_object()
        self._finalizer = weakref.finalize(self, engine.close)
        # A call of a symbol the process does not have would jump to address 0.
        missing = sorted({name for obj in objects for name in undefined_symbols(obj)
                          if not llvm.address_of_symbol(name)})
        if missing:
            self.close()
            raise RuntimeError(f"the compiled code calls {', '.join(missing)}, which this process "
                               f"does not provide")
        engine.run_static_constructors()
        self._engine = engine
        if not cached and len(objects) == 1:
            compiled_modules.put(key, self.optimized_ir, objects[0])

    @property
    def closed(self):
        return not self._finalizer.alive

    def address(self, name):
        if self.closed:
            raise RuntimeError("the native engine was closed")
        return self._engine.get_function_address(name)

    def global_address(self, name):
        if self.closed:
            raise RuntimeError("the native engine was closed")
        return self._engine.get_global_value_address(name)

    def close(self):
        self._finalizer()


def _package_root():
    """The folder that holds the clcoop package this file belongs to."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


if __name__ == "__main__" and sys.argv[1:] == ["--optimizer"]:
    # Run by path with -P, so neither this folder nor the parent's current directory is on
    # sys.path: the clcoop this process imports must be the parent's own (which may come
    # from an install, PYTHONPATH or the current directory), so its root goes first.
    sys.path.insert(0, _package_root())
    try:
        _serve_optimizer()
    except Exception:
        # Not started (no llvmlite here, say): the parent sees no READY and runs the
        # pipeline itself, which reports any real error there. No traceback on the
        # user's terminal from a helper process.
        sys.exit(1)
