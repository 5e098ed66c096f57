"""Hostile IR against both engines (issue 25, docs/native.md "Safety contract"): a call
whose types are not the built-in's it names, constructors, and what the checks derive
from the instruction rather than from a name. Buffers are slices of larger arrays whose
other elements are sentinels: nothing outside the slice may change."""
import warnings

import numpy as np
import pytest

import clcoop
from clcoop.errors import ArgumentError, IRError
from clcoop.native.support import NativeFallbackWarning

HEAD = 'target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"\n' \
       'target triple = "spir64-unknown-unknown"\n'

# vload4 then vstore4 (clang-22's names); {T} is the vector type written in the IR.
VLOAD_IR = HEAD + """
define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b) {
entry:
  %0 = addrspacecast ptr addrspace(1) %b to ptr addrspace(4)
  %v = call spir_func {T} @_Z6vload4mPU3AS4Kf(i64 0, ptr addrspace(4) %0)
  %1 = addrspacecast ptr addrspace(1) %a to ptr addrspace(4)
  call spir_func void @_Z7vstore4Dv4_fmPU3AS4f({T} %v, i64 0, ptr addrspace(4) %1)
  ret void
}
declare spir_func {T} @_Z6vload4mPU3AS4Kf(i64, ptr addrspace(4))
declare spir_func void @_Z7vstore4Dv4_fmPU3AS4f({T}, i64, ptr addrspace(4))
"""


def guarded(n, dtype=np.float32, pad=2048, fill=0):
    """(whole array, its middle slice of n elements): the rest are sentinels."""
    whole = np.full(n + 2 * pad, -7, dtype)
    inner = whole[pad:pad + n]
    inner[:] = fill
    return whole, inner


def run_both(ir, engine, *args):
    prog = clcoop.Program.from_ir(ir, engine=engine)
    prog.k((1,), (1,), *args)
    return prog


@pytest.mark.parametrize("vector", ["<16 x float>", "<1024 x float>", "<3 x float>"])
def test_vload_vstore_with_another_vector_type_are_refused(vector):
    ir = VLOAD_IR.replace("{T}", vector)
    wa, a = guarded(4)
    wb, b = guarded(4, fill=1)
    before_a, before_b = wa.copy(), wb.copy()
    prog = clcoop.Program.from_ir(ir, engine="native")
    reason = prog.kernel("k").fallback_reason
    assert reason is not None and "'vload4'" in reason and "<4 x float>" in reason and vector in reason
    with pytest.raises(ArgumentError, match="vload4"):
        prog.k((1,), (1,), a, b)
    # auto: the kernel falls back, and the interpreter refuses the call when it translates it.
    with pytest.warns(NativeFallbackWarning, match="vload4"):
        prog = clcoop.Program.from_ir(ir, engine="auto")
    with pytest.raises(IRError, match=r"in @k: the built-in 'vload4' .* returns <4 x float>"):
        prog.k((1,), (1,), a, b)
    with pytest.raises(IRError, match="vload4"):
        run_both(ir, "interp", a, b)
    assert np.array_equal(wa, before_a) and np.array_equal(wb, before_b)


def test_vload_vstore_of_the_right_type_still_run():
    ir = VLOAD_IR.replace("{T}", "<4 x float>")
    for engine in ("native", "interp"):
        wa, a = guarded(4)
        wb, b = guarded(4)
        b[:] = [1, 2, 3, 4]
        before = wa.copy()
        prog = run_both(ir, engine, a, b)
        if engine == "native":
            assert prog.kernel("k").fallback_reason is None
        assert a.tolist() == [1, 2, 3, 4]
        before[2048:2052] = [1, 2, 3, 4]
        assert np.array_equal(wa, before)


def test_vload_renamed_consistently_is_still_refused():
    """`vload4` whose mangled pointee and IR type agree on 16 floats: the name says 4."""
    ir = VLOAD_IR.replace("{T}", "<16 x float>").replace("Dv4_f", "Dv16_f")
    prog = clcoop.Program.from_ir(ir, engine="native")
    assert "returns <4 x float>" in prog.kernel("k").fallback_reason
    ir = VLOAD_IR.replace("{T}", "<4 x float>").replace("_Z7vstore4Dv4_f", "_Z8vstore16Dv4_f")
    prog = clcoop.Program.from_ir(ir, engine="native")
    assert "'vstore16'" in prog.kernel("k").fallback_reason and "stores 16 x float" in prog.kernel("k").fallback_reason


def test_a_call_with_another_function_type_than_declared_is_refused():
    """The declaration says <4 x float>, the call <16 x float>: valid IR (opaque pointers),
    an ABI mismatch on the host."""
    ir = VLOAD_IR.replace("{T}", "<4 x float>").replace(
        "%v = call spir_func <4 x float>", "%v = call spir_func <16 x float>").replace(
        "void @_Z7vstore4Dv4_fmPU3AS4f(<4 x float> %v", "void @_Z7vstore4Dv4_fmPU3AS4f(<16 x float> %v")
    prog = clcoop.Program.from_ir(ir, engine="native")
    assert "has the function type <16 x float> (i64, ptr addrspace(4)), but @_Z6vload4mPU3AS4Kf is " \
           "declared as <4 x float> (i64, ptr addrspace(4))" in prog.kernel("k").fallback_reason
    with pytest.raises(IRError, match="has the function type"):
        run_both(ir, "interp", np.zeros(4, np.float32), np.zeros(4, np.float32))


HELPER_IR = HEAD + """
define spir_func <4 x float> @helper(ptr addrspace(1) %p) {
entry:
  %v = load <4 x float>, ptr addrspace(1) %p
  ret <4 x float> %v
}
define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b) {
entry:
  %v = call spir_func <64 x float> @helper(ptr addrspace(1) %b)
  store <64 x float> %v, ptr addrspace(1) %a
  ret void
}
"""


def test_a_defined_function_called_with_another_type_is_refused():
    prog = clcoop.Program.from_ir(HELPER_IR, engine="native")
    assert "but @helper is defined as <4 x float> (ptr addrspace(1))" in prog.kernel("k").fallback_reason
    with pytest.raises(IRError, match="@helper is defined as"):
        run_both(HELPER_IR, "interp", np.zeros(64, np.float32), np.zeros(64, np.float32))


# Built-in calls whose IR types are not the ones the name spells: (declaration and call
# text, the words of the reason).
BAD_CALLS = [
    ("i64 @_Z10atomic_addPU3AS1Vii(ptr addrspace(1) %a, i64 1)", "argument 2 of the built-in 'atomic_add'"),
    ("i64 @_Z10atomic_addPU3AS1Vil(ptr addrspace(1) %a, i64 1)", "is not its pointer's pointee"),
    ("i64 @_Z10atomic_incPU3AS1Vi(ptr addrspace(1) %a)", "returns i32"),
    ("i64 @_Z16atomic_fetch_addPU3AS1VU7_Atomicii(ptr addrspace(1) %a, i32 1)", "returns i32"),
    ("i32 @_Z11atomic_loadPU3AS1VU7_Atomicl(ptr addrspace(1) %a)", "returns i64"),
    ("float @_Z13get_global_idj(i32 0)", "returns an integer"),
    ("i64 @_Z13get_global_idj(i64 0)", "is i32 by its name, but the call passes i64"),
    ("<4 x i32> @_Z12convert_int4Dv4_f(<8 x float> zeroinitializer)", "argument 1"),
    ("<8 x i32> @_Z12convert_int4Dv4_f(<4 x float> zeroinitializer)", "returns <4 x i32>"),
    ("<4 x i32> @_Z5isnanDv4_d(<4 x double> zeroinitializer)", "returns <4 x i64>"),
    ("<4 x i32> @_Z12convert_int4Dv8_f(<8 x float> zeroinitializer)", "converts 4 element(s), but its operand is <8 x float>"),
    ("i64 @_Z3maxii(i32 1, i32 2)", "returns i32"),
    ("<4 x float> @_Z6vload4mPU3AS1Ki(i64 0, ptr addrspace(1) %a)", "returns <4 x i32>"),
    ("<4 x float> @_Z6vload4mPU3AS3Kf(i64 0, ptr addrspace(1) %a)", "is ptr addrspace(3) by its name"),
    ("i32 @_Z20sub_group_reduce_addi(i64 1)", "argument 1"),
]


@pytest.mark.parametrize("call, words", BAD_CALLS)
def test_builtin_calls_that_do_not_match_their_name_are_refused(call, words):
    ret, rest = call.split(" @", 1)
    name, args = rest.split("(", 1)
    name = "@" + name
    types = ", ".join(a.strip().rsplit(" ", 1)[0] for a in args[:-1].split(", ")) if args != ")" else ""
    ir = HEAD + f"""
define spir_kernel void @k(ptr addrspace(1) %a) {{
entry:
  %r = call spir_func {ret} {name}({args}
  store {ret} %r, ptr addrspace(1) %a
  ret void
}}
declare spir_func {ret} {name}({types})
"""
    prog = clcoop.Program.from_ir(ir, engine="native")
    assert words in prog.kernel("k").fallback_reason
    with pytest.raises(IRError, match=r"in @k: "):
        run_both(ir, "interp", np.zeros(64, np.int32))


def test_the_demangler_counts_qualified_types_once():
    """Itanium ABI 5.1.5.3: `U3AS1V` on one type is one substitution candidate, and
    _Atomic(T) another: clang's S4_ in the explicit compare-exchange is its memory_order."""
    from clcoop.ir.demangle import demangle
    base, params = demangle("_Z37atomic_compare_exchange_weak_explicitPU3AS1VU7_AtomiciPU3AS1ii"
                            "12memory_orderS4_12memory_scope")
    assert params == [("ptr", 1, ("int", 32, True)), ("ptr", 1, ("int", 32, True)), ("int", 32, True),
                      ("other", "memory_order"), ("other", "memory_order"), ("other", "memory_scope")]
    assert demangle("_Z6selectDv4_fS_Dv4_i")[1][1] == ("vec", 4, ("float", 32))


CTOR_IR = HEAD + """
@{TABLE} = appending global [1 x {{ i32, ptr, ptr }}] [{{ i32, ptr, ptr }} {{ i32 65535, ptr @evil, ptr null }}]
define spir_func void @evil() {{
entry:
  ret void
}}
define spir_kernel void @k(ptr addrspace(1) %a) {{
entry:
  call spir_func void @evil()
  store float 1.0, ptr addrspace(1) %a
  ret void
}}
"""


@pytest.mark.parametrize("table, kind", [("llvm.global_ctors", "constructors"), ("llvm.global_dtors", "destructors")])
@pytest.mark.parametrize("engine", ["native", "auto", "interp"])
def test_modules_with_constructors_are_refused(table, kind, engine):
    """MCJIT ran the constructor without the context argument every generated function
    takes (LLVM aborted the process); the interpreter raised a bare KeyError."""
    with pytest.raises(IRError, match=rf"@{table} names @evil: module {kind} are not supported"):
        clcoop.Program.from_ir(CTOR_IR.format(TABLE=table), engine=engine)


def test_a_function_address_in_a_global_is_refused_and_llvm_used_is_not():
    ir = CTOR_IR.format(TABLE="llvm.global_ctors").split("\n")
    fp = "\n".join(line if not line.startswith("@llvm") else "@fp = addrspace(1) global ptr @evil" for line in ir)
    with pytest.raises(IRError, match="@fp holds the address of the function @evil: function pointers"):
        clcoop.Program.from_ir(fp, engine="auto")
    used = "\n".join(line if not line.startswith("@llvm") else
                     '@llvm.used = appending global [1 x ptr] [ptr @evil], section "llvm.metadata"' for line in ir)
    prog = clcoop.Program.from_ir(used, engine="native")
    a = np.zeros(1, np.float32)
    prog.k((1,), (1,), a)
    assert a[0] == 1.0


RECURSIVE_IR = HEAD + """
define spir_func i32 @f(i32 %n) {
entry:
  %c = icmp eq i32 %n, 0
  br i1 %c, label %done, label %more
more:
  %m = sub i32 %n, 1
  %r = call spir_func i32 @g(i32 %m)
  %s = add i32 %r, 1
  ret i32 %s
done:
  ret i32 0
}
define spir_func i32 @g(i32 %n) {
entry:
  %r = call spir_func i32 @f(i32 %n)
  ret i32 %r
}
define spir_kernel void @k(ptr addrspace(1) %a) {
entry:
  %r = call spir_func i32 @f(i32 100000)
  store i32 %r, ptr addrspace(1) %a
  ret void
}
"""


def test_recursion_is_an_ir_error_in_the_interpreter():
    """It overflowed Python's stack (RecursionError) after 100000 / 2 nested calls."""
    with pytest.raises(IRError, match=r"in @k: recursion through @f \(OpenCL C 3.0 6.11"):
        run_both(RECURSIVE_IR, "interp", np.zeros(1, np.int32))
    prog = clcoop.Program.from_ir(RECURSIVE_IR, engine="native")
    assert "recursion through @" in prog.kernel("k").fallback_reason


MATRIX_HEADER = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
"""
MISALIGNED = MATRIX_HEADER + """
__kernel void k(__global const float *a, __global float *b) {
    mat_c m = coop_mat_load((__global const float *)((__global const char *)a + 2), CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
    coop_mat_store(b, m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


@pytest.mark.parametrize("template", [True, False])
def test_a_misaligned_matrix_load_names_its_element_type(template):
    """The fault's element type comes from the IR matrix type; a load callee spelled without
    template arguments (as other producers spell it) gave "of 0 bytes at address 0x...".
    """
    from clcoop.errors import RuntimeFault
    ir = clcoop.Program(MISALIGNED).build().ir
    if not template:
        ir = ir.replace("_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim",
                        "_Z32__spirv_CooperativeMatrixLoadKHRPU3AS1fim")
        assert "LoadKHRPU3AS1fim" in ir
    prog = clcoop.Program.from_ir(ir, engine="native")
    assert prog.k.fallback_reason is None
    with pytest.raises(RuntimeFault) as info:
        prog.k(16, 16, np.zeros(200, np.float32), np.zeros(128, np.float32))
    assert "misaligned" in str(info.value) and "bytes at address" not in str(info.value)
    assert "of float32 at byte offset 2 of buffer 'a' (200 elements)" in str(info.value)


EXTERNAL_IR = HEAD + """
@_Py_NoneStruct = external addrspace(2) constant [4 x i64]
define spir_kernel void @k(ptr addrspace(1) %a) {
entry:
  %v = load i64, ptr addrspace(2) @_Py_NoneStruct
  store i64 %v, ptr addrspace(1) %a
  ret void
}
"""


def test_an_external_variable_is_not_resolved_to_a_host_symbol():
    """MCJIT resolved the declaration to the process's symbol of that name (Python's None
    object), and the launch read through its address."""
    prog = clcoop.Program.from_ir(EXTERNAL_IR, engine="native")
    assert "the external variable @_Py_NoneStruct" in prog.k.fallback_reason


@pytest.mark.parametrize("name", ["__clcoop_chk", "__clcoop_local.t", "__clcoop_run.k"])
def test_the_engines_names_are_reserved(name):
    ir = HEAD + f"""
define spir_func void @"{name}"() {{
entry:
  ret void
}}
define spir_kernel void @k(ptr addrspace(1) %a) {{
entry:
  call spir_func void @"{name}"()
  store float 1.0, ptr addrspace(1) %a
  ret void
}}
"""
    prog = clcoop.Program.from_ir(ir, engine="native")
    assert f"the name @{name} (names beginning with __clcoop are the native engine's)" in prog.k.fallback_reason
    a = np.zeros(1, np.float32)
    clcoop.Program.from_ir(ir).k((1,), (1,), a)
    assert a[0] == 1.0


ALIGNED_CLAIM = """
import numpy as np, clcoop
src = '''kernel void k(global float *a, global float *b) {
    size_t i = get_global_id(0);
    float4 v = *(global float4 *)(a + 1 + 4 * i);
    *(global float4 *)(b + 1 + 4 * i) = v * 2.0f; }'''
prog = clcoop.Program(src).build(options=["-O2"], engine="native")
assert "align 16" in prog.ir and prog.k.fallback_reason is None
a = np.arange(70, dtype=np.float32)
b = np.zeros(70, np.float32)
prog.k(16, 16, a, b)
assert (b[1:65] == 2 * a[1:65]).all() and b[0] == 0 and (b[65:] == 0).all()
poison = '''target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"
define spir_kernel void @k(ptr addrspace(1) %a) {
entry:
  store <4 x float> zeroinitializer, ptr addrspace(1) poison, align 16
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i64 9223372036854775807
  store float 1.0, ptr addrspace(1) %p, align 4
  ret void
}'''
prog = clcoop.Program.from_ir(poison, engine="native")
assert prog.k.fallback_reason is None
try:
    prog.k((1,), (1,), np.zeros(4, np.float32))
except clcoop.RuntimeFault as exc:
    print("fault", str(exc).splitlines()[0])
print("ok")
"""


def test_accesses_claiming_more_alignment_or_through_poison_do_not_crash():
    """clang's `align 16` on a float4 access of a 4-aligned address let LLVM use movaps:
    the process died with SIGSEGV (the check guarantees the element's alignment, so the
    access now claims no more); a poison address (hostile IR, an inbounds GEP that
    overflowed) is frozen before its check. A child process, since the failure is a crash."""
    import subprocess
    import sys
    result = subprocess.run([sys.executable, "-c", ALIGNED_CLAIM], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "fault kernel 'k'" in result.stdout and result.stdout.strip().endswith("ok")


def test_code_llvm_proves_unreachable_traps_instead_of_falling_through():
    """Without -trap-unreachable the block compiles to nothing, and execution that reaches
    it (undefined behaviour of the IR) runs into whatever code follows."""
    import llvmlite.binding as llvm
    from clcoop.native import jit
    jit.ensure_llvm()
    module = llvm.parse_assembly("define void @f(i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\n"
                                 "a:\n  unreachable\nb:\n  ret void\n}\n")
    assert "ud2" in jit._new_target_machine().emit_assembly(module)


def test_stack_arrays_of_a_function_stay_within_the_stack_budget():
    """Arrays only loaded and stored whole stay on the native stack, each under
    MAX_STACK_BYTES; three of 40000 bytes together are past it, so the third lives in the
    work-item's arena (many such arrays overflowed the thread's stack)."""
    from clcoop.ir.loader import load_module
    from clcoop.native import codegen
    from clcoop.native.context import MAX_STACK_BYTES
    body = "".join(f"  %s{i} = alloca [10000 x i32], align 4\n" for i in range(3))
    body += "".join(f"  store i32 {i}, ptr %s{i}, align 4\n" for i in range(3))
    body += "".join(f"  %v{i} = load i32, ptr %s{i}, align 4\n" for i in range(3))
    body += "  %x = add i32 %v0, %v1\n  %y = add i32 %x, %v2\n  store i32 %y, ptr addrspace(1) %a\n"
    ir = HEAD + f"define spir_kernel void @k(ptr addrspace(1) %a) {{\nentry:\n{body}  ret void\n}}\n"
    module = load_module(ir)
    gen = codegen._ModuleGen(module, __import__("llvmlite.binding", fromlist=["x"]).parse_assembly(ir),
                             codegen.NativeModule())
    fg = codegen._FunctionGen(gen, gen.functions["k"], True)
    fg._plan_allocas()
    assert 40000 * len(fg.safe_allocas) <= MAX_STACK_BYTES and len(fg.arena) == 3 - len(fg.safe_allocas) >= 1
    out = np.zeros(1, np.int32)
    clcoop.Program.from_ir(ir, engine="native").k((1,), (1,), out)
    assert out[0] == 3


OVERLOADS = """
kernel void k(global float4 *a, global float *b) {
  a[0] = step(b[0], a[1]); a[2] = smoothstep(b[1], b[2], a[3]); a[4] = step(a[5], a[6]);
  a[7] = smoothstep(a[8], a[9], a[10]); b[3] = step(b[4], b[5]);
  a[11] = mix(a[12], a[13], b[6]); a[14] = clamp(a[15], b[7], b[8]); a[16] = fmax(a[17], b[9]);
  a[18] = ldexp(a[19], 3); a[20] = pown(a[21], (int4)(2)); a[22] = rootn(a[23], (int4)(3));
  b[10] = dot(a[24], a[25]); b[11] = fast_length(a[26]); a[27] = fast_normalize(a[28]);
  a[29] = native_divide(a[30], a[31]); a[32] = half_sqrt(a[33]); b[12] = ilogb(b[13]);
  float4 ip; a[34] = fract(a[35], &ip); a[36] = ip; a[37] = select(a[38], a[39], (int4)(-1));
  a[40] = copysign(a[41], a[42]); a[43] = maxmag(a[44], a[45]); a[46] = sign(a[47]);
  a[48] = shuffle(a[49], (uint4)(3, 2, 1, 0)); b[14] = any((int4)(0, 0, -1, 0));
  b[15] = isnan(b[16]); ((global int4 *)a)[50] = isless(a[51], a[52]);
}"""


@pytest.mark.parametrize("opt", [0, 2])
def test_overloads_whose_result_is_not_the_first_operand_are_accepted(opt):
    """step(float edge, float4 x) returns x's type, shuffle the mask's length, any and
    isnan an int: valid calls the signature check must not refuse (clang-22's IR)."""
    from interp_helpers import clang_ir_text
    ir = clang_ir_text(OVERLOADS, opt)
    a = np.linspace(-2, 2, 64 * 4, dtype=np.float32).reshape(64, 4)
    b = np.linspace(-1, 1, 20, dtype=np.float32)
    a1, b0 = a[1].copy(), b[0]
    clcoop.Program.from_ir(ir).k((1,), (1,), a, b)
    assert np.array_equal(a[0], np.where(a1 < b0, 0, 1).astype(np.float32))    # OpenCL C 6.15.4
    assert np.array_equal(a[48], a[49][::-1]) and b[14] == 1


# ---------------------------------------------------------------- memory of dropped programs
# (issue 25, "A leak"; clcoop/native/jit.py's docstring: llvmlite 0.50 never frees what each
# run of LLVM's pipeline registers, so the pipeline runs in a child process.)

HEAP_PROBE = r"""
import ctypes, gc, sys
import numpy as np
libc = ctypes.CDLL("libc.so.6")
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
libc.mallinfo2.restype = Info
def heap():
    info = libc.mallinfo2()
    return info.uordblks + info.hblkhd
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
def step():
    {step}
for _ in range({warm}):
    step()
gc.collect()
before = heap(), rss()
for _ in range({count}):
    step()
gc.collect()
print(heap() - before[0], rss() - before[1])
"""


def grown_by(step, setup, warm, count):
    """(malloc'd bytes, RSS bytes) a fresh process grows by over `count` runs of `step`
    after `warm` runs (Python source, after `setup`)."""
    import subprocess
    import sys
    code = setup + "\n" + HEAP_PROBE.format(step=step, warm=warm, count=count)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    heap, rss = (int(x) for x in out.stdout.split())
    return heap, rss


def test_dropped_engines_leave_nothing_allocated():
    # 200 engines of a one-function module: in-process, each run of the pipeline left
    # about 60 KiB allocated (12 MiB in all); now under 20 bytes each, the bound is 1 MiB.
    heap, _ = grown_by("Engine('define i32 @f(i32 %x) {\\n  %y = mul i32 %x, 3\\n  ret i32 %y\\n}\\n').close()",
                       "from clcoop.native.jit import Engine, compiled_modules\n"
                       "compiled_modules.limit = 0   # (each engine compiles: none is a cached copy)",
                       warm=10, count=200)
    assert heap < 1 << 20, f"{heap / 200:.0f} bytes per engine"


@pytest.mark.slow
def test_dropped_programs_bound_the_process_growth():
    # 300 trivial native programs, each built, launched once (which builds a narrower copy
    # for its 16 work-items) and dropped: in-process optimization left 360 KiB allocated per
    # program, 574 KiB of RSS (about 170 MiB in all). Now the heap stays within 4 MiB (8 KiB
    # a program measured). RSS measured 2.6 MiB in a quiet run and 25 MiB in a busy one
    # (glibc adds arenas when the worker threads contend): the bound is 64 MiB.
    setup = ("import clcoop\n"
             "from clcoop.native.jit import compiled_modules\n"
             "compiled_modules.limit = 0   # (each program compiles: none is a cached copy)\n"
             "IR = clcoop.Program('__kernel void k(__global float *a) { a[get_global_id(0)] += 1.0f; }')"
             ".build(engine='interp').ir")
    heap, rss = grown_by("clcoop.Program.from_ir(IR, engine='native').k(16, 16, np.zeros(16, np.float32))",
                         setup, warm=50, count=300)
    assert heap < 4 << 20, f"{heap / 300:.0f} bytes per program"
    assert rss < 64 << 20, f"{rss / 300:.0f} bytes of RSS per program"


def test_optimizer_process_is_replaced(monkeypatch):
    # After OPTIMIZER_RUNS runs, and when it died between requests (killed), a new one.
    from clcoop.native import jit
    text = "define i32 @f(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n"
    monkeypatch.setattr(jit, "OPTIMIZER_RUNS", 2)
    monkeypatch.setattr(jit.compiled_modules, "limit", 0)     # (every engine runs the optimizer)
    if jit._optimizer.proc is not None:      # earlier tests' runs count: start a fresh one
        jit._optimizer.proc.kill()
        jit._optimizer.proc.wait()
    jit.Engine(text).close()
    first = jit._optimizer.proc.pid
    jit.Engine(text).close()
    assert jit._optimizer.proc.pid == first
    jit.Engine(text).close()
    assert jit._optimizer.proc.pid != first
    jit._optimizer.proc.kill()
    jit._optimizer.proc.wait()
    engine = jit.Engine(text)
    assert engine.address("f") and "add i32 %x, 1" in engine.optimized_ir
    engine.close()


def test_optimizer_reports_llvm_words():
    # A module LLVM rejects: its words come back from the optimizer process, which serves on.
    from clcoop.native import jit
    with pytest.raises(RuntimeError, match="expected"):
        jit.Engine("define i32 @f(i32 %x) {\n  ret i32 %x %x\n}\n")
    engine = jit.Engine("define i32 @g() {\n  ret i32 7\n}\n")
    assert engine.address("g")
    engine.close()


def test_memset_of_no_bytes_touches_nothing():
    # llvm.memset of length 0 is a no-op (LangRef), wherever its pointer points: the
    # native check faulted "out-of-bounds write of 0 bytes" where the interpreter ran.
    ir = HEAD + """
declare void @llvm.memset.p1.i64(ptr addrspace(1), i8, i64, i1)
declare void @llvm.memcpy.p1.p1.i64(ptr addrspace(1), ptr addrspace(1), i64, i1)
define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, i64 %n) {
  %p = getelementptr i8, ptr addrspace(1) %a, i64 4096
  call void @llvm.memset.p1.i64(ptr addrspace(1) %p, i8 1, i64 %n, i1 false)
  call void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) %b, ptr addrspace(1) %p, i64 %n, i1 false)
  ret void
}"""
    for engine in ("interp", "native"):
        whole, inner = guarded(16, np.int8)
        other = np.zeros(16, np.int8)
        prog = clcoop.Program.from_ir(ir, engine=engine)
        prog.k(1, 1, inner, other, np.int64(0))
        assert (inner == 0).all() and (other == 0).all()
        assert (whole[:2048] == -7).all() and (whole[2048 + 16:] == -7).all()


def test_optimizer_that_cannot_start_optimizes_here(monkeypatch):
    # A sys.executable that is not a Python running jit.py (an embedding application):
    # the pipeline runs in this process, the engine builds.
    import sys
    from clcoop.native import jit
    jit._optimizer.stop()
    monkeypatch.setattr(jit.compiled_modules, "limit", 0)     # (the engine runs the optimizer)
    monkeypatch.setattr(sys, "executable", "/bin/true")
    engine = jit.Engine("define i32 @h(i32 %x) {\n  %y = shl i32 %x, 1\n  ret i32 %y\n}\n")
    assert engine.address("h") and jit._optimizer.proc is None
    engine.close()


def test_a_kernels_own_inline_assembly_is_never_compiled_natively():
    # The engine's generated code may hold inline asm now (coop_ir's row registers: jit
    # initializes LLVM's asm parser for it). A kernel's own inline assembly is still refused
    # by what its IR calls (codegen: device code for a GPU ISA), and the interpreter runs the
    # empty-template barrier it can run.
    source = """
__kernel void k(__global float *a) {
  float x = a[get_global_id(0)];
  __asm__ volatile("" : "+r"(x));
  a[get_global_id(0)] = x * 2.0f;
}"""
    a = np.arange(16, dtype=np.float32)
    with pytest.warns(NativeFallbackWarning, match="inline assembly"):
        prog = clcoop.Program(source).build(engine="auto")
        prog.k(16, 16, a)
    assert prog.k.engine == "interp" and "inline assembly" in prog.k.fallback_reason
    np.testing.assert_array_equal(a, np.arange(16, dtype=np.float32) * 2)
