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
"""
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


class Engine:
    """A compiled module: functions by name as addresses; close() frees it once."""

    def __init__(self, ir_text, opt=3):
        import llvmlite.binding as llvm
        ensure_llvm()
        tm = _new_target_machine(opt)          # this engine's own: the engine frees it
        module = llvm.parse_assembly(ir_text)
        module.triple = llvm.get_process_triple()
        module.data_layout = str(tm.target_data)
        module.verify()
        pto = llvm.create_pipeline_tuning_options(speed_level=opt)
        pto.loop_vectorization = opt >= 2
        pto.slp_vectorization = opt >= 2
        pb = llvm.create_pass_builder(tm, pto)
        pm = pb.getModulePassManager()
        pm.run(module, pb)
        pm.close()
        pb.close()
        pto.close()
        self.optimized_ir = str(module)
        engine = llvm.create_mcjit_compiler(module, tm)
        objects = []
        engine.set_object_cache(lambda _module, buffer: objects.append(bytes(buffer)), lambda _module: None)
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
