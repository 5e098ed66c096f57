"""llvmlite MCJIT engines and their lifetime (docs/native.md, "Engine lifetime").

Ownership rules that keep freeing an engine from crashing:
- create_mcjit_compiler(module, tm) hands the module to the engine: the engine deletes it.
  The ModuleRef must not be closed or used afterwards (llvmlite marks it owned; closing it
  again, or letting a second engine take it, frees it twice).
- The TargetMachine must outlive the engine that was built from it: the engine keeps
  using it for code generation, so Engine holds a reference and drops it after the engine.
- ctypes function pointers point into the engine's code: they are only called while the
  Engine is open, and close() waits for no caller (runtime.py joins its threads first).
- close() is idempotent and also runs from a weakref finalizer, never from __del__ during
  interpreter shutdown after llvmlite's own library is unloaded.
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


def host_target_machine(opt=3):
    """One target machine for the host (no fast-math: IEEE results as the interpreter)."""
    global _target_machine
    ensure_llvm()
    import llvmlite.binding as llvm
    with _init_lock:
        if _target_machine is None:
            target = llvm.Target.from_triple(llvm.get_process_triple())
            _target_machine = target.create_target_machine(
                cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
                opt=opt, jit=True)
        return _target_machine


def _close_engine(engine, keep):
    engine.close()     # frees the engine and the module it owns
    keep.clear()       # the target machine may go only after the engine


class Engine:
    """A compiled module: functions by name as addresses; close() frees it once."""

    def __init__(self, ir_text, opt=3):
        import llvmlite.binding as llvm
        tm = host_target_machine()
        module = llvm.parse_assembly(ir_text)
        module.triple = llvm.get_process_triple()
        module.data_layout = str(tm.target_data)
        module.verify()
        pto = llvm.create_pipeline_tuning_options(speed_level=opt)
        pto.loop_vectorization = True
        pto.slp_vectorization = True
        pb = llvm.create_pass_builder(tm, pto)
        pm = pb.getModulePassManager()
        pm.run(module, pb)
        self.optimized_ir = str(module)
        engine = llvm.create_mcjit_compiler(module, tm)
        engine.finalize_object()
        engine.run_static_constructors()
        self._engine = engine
        self._keep = [tm, pb, pto]
        self._finalizer = weakref.finalize(self, _close_engine, engine, self._keep)

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
