"""llvmlite engines of the native engine: created and freed many times without crashing
(docs/native.md, "Engine lifetime"); a closed engine refuses calls instead of jumping into
freed code."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import clcoop
from clcoop.native.jit import Engine
from clcoop.native.runtime import NativeProgram

ADD_ONE = "define i32 @f(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n"
VECTOR_ADD = """
__kernel void vadd(__global const float *a, __global const float *b, __global float *c) {
  int i = get_global_id(0);
  c[i] = a[i] + b[i];
}
"""


def test_many_engines_are_created_and_freed_in_a_fresh_process():
    # A crash (SIGSEGV) while freeing an engine kills the child, not pytest.
    script = textwrap.dedent(f"""
        import ctypes, gc
        import numpy as np
        import clcoop
        from clcoop.native.jit import Engine
        fn = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32)
        kept = []
        for i in range(300):
            e = Engine({ADD_ONE!r}, opt=1)
            assert fn(e.address("f"))(i) == i + 1
            if i % 3 == 0:
                e.close()          # explicit
                e.close()          # twice is harmless
            elif i % 3 == 1:
                del e              # the finalizer frees it
            else:
                kept.append(e)     # freed at exit
            if i % 50 == 0:
                gc.collect()
        for i in range(20):
            p = clcoop.Program({VECTOR_ADD!r}).build(engine="native")
            a = np.arange(64, dtype=np.float32); c = np.zeros(64, np.float32)
            p.vadd(64, 16, a, a, c)
            assert (c == 2 * a).all()
            if i % 2:
                p._native.close()
            del p
            gc.collect()
        print("freed")
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "freed"


def test_closed_engine_refuses_addresses():
    e = Engine(ADD_ONE, opt=1)
    assert e.address("f")
    e.close()
    assert e.closed
    with pytest.raises(RuntimeError, match="closed"):
        e.address("f")


def test_launch_after_close_is_an_error_not_a_crash():
    prog = clcoop.Program(VECTOR_ADD).build(engine="native")
    a = np.ones(32, np.float32)
    c = np.zeros(32, np.float32)
    prog.vadd(32, 16, a, a, c)
    assert (c == 2).all()
    prog._native.close()
    with pytest.raises(clcoop.ArgumentError, match="native engine was closed"):
        prog.vadd(32, 16, a, a, c)
    with pytest.raises(RuntimeError, match="closed"):
        prog._native.launch(prog.vadd.info, None, 1000)


def test_native_program_reports_compile_time():
    prog = clcoop.Program(VECTOR_ADD).build(engine="native")
    native = prog._native
    assert isinstance(native, NativeProgram)
    assert native.compile_seconds > 0 and native.codegen_seconds > 0


def test_why_a_shared_target_machine_crashed():
    # The cause of the prototype's crash, reproduced in a child process: closing an MCJIT
    # engine frees the TargetMachine it was created with; using that machine again (here
    # for a pass builder, as a second engine would) is a use after free.
    script = textwrap.dedent("""
        import llvmlite.binding as llvm
        llvm.initialize_native_target(); llvm.initialize_native_asmprinter()
        tm = llvm.Target.from_default_triple().create_target_machine()
        e = llvm.create_mcjit_compiler(llvm.parse_assembly(%r), tm)
        assert tm._owned          # llvmlite: the engine owns the machine now
        e.close()
        for _ in range(20):
            pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options())
            m = llvm.parse_assembly(%r)
            pb.getModulePassManager().run(m, pb)
            llvm.create_mcjit_compiler(m, tm).close()
        print("survived")
    """ % (ADD_ONE, ADD_ONE))
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "survived" not in r.stdout


def test_each_engine_has_its_own_target_machine():
    a, b = Engine(ADD_ONE, opt=1), Engine(ADD_ONE, opt=1)
    a.close()
    # b still compiles and runs after a's machine is gone.
    import ctypes
    assert ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32)(b.address("f"))(41) == 42
    c = Engine(ADD_ONE, opt=1)
    assert c.address("f")
    b.close()
    c.close()
