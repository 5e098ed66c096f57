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


def ensure_llvm():
    global _initialized
    with _init_lock:
        if not _initialized:
            import llvmlite.binding as llvm
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            _initialized = True


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
        engine.finalize_object()
        engine.run_static_constructors()
        self._engine = engine
        self._finalizer = weakref.finalize(self, engine.close)

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
