"""Malformed IR from elsewhere (issue 25: `Program.from_ir` takes untrusted IR): every case
gets a clcoop error that says what is wrong and where, never a Python exception and never a
silent run. Cooperative-matrix calls with operands the operation does not take, built-ins
declared with another result, and LLVM's intrinsic tables (call_signatures.py,
interp/engine.py). Where the refusal is a call's signature, both engines refuse the kernel
for the same reason: the native engine when it builds it (its fallback reason), the
interpreter when it translates the call."""
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import clcoop
from clcoop.errors import ClcoopError, IRError
from clcoop.ir import loader

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
from fuzz_ir import call_operands, rewrite_call_operands  # noqa: E402  (the fuzzer's mutation)

HEAD = 'target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"\n' \
       'target triple = "spir64-unknown-unknown"\n'


def matrix(use, rows=16, cols=16, elem="float"):
    return f'target("spirv.CooperativeMatrixKHR", {elem}, 3, {rows}, {cols}, {use})'


def named(elem_code, use, rows=16, cols=16):
    return f"{elem_code}Li3ELi{rows}ELi{cols}ELi{use}E"


A, B, C = matrix(0), matrix(1), matrix(2)
LOAD_A = f"_Z32__spirv_CooperativeMatrixLoadKHRI{named('f', 0)}EvPU3AS1fim"
LOAD_B = f"_Z32__spirv_CooperativeMatrixLoadKHRI{named('f', 1)}EvPU3AS1fim"
LOAD_C = f"_Z32__spirv_CooperativeMatrixLoadKHRI{named('f', 2)}EvPU3AS1fim"
SPLAT = f"_Z26__spirv_CompositeConstructI{named('f', 2)}Evf"
ADD = f"_Z34__spirv_CooperativeMatrixBinaryAddI{named('f', 2) * 3}Ev"
SCALE = f"_Z34__spirv_CooperativeMatrixScalarMulI{named('f', 2) * 2}Evf"
NEGATE = f"_Z34__spirv_CooperativeMatrixScalarNegI{named('f', 2) * 2}Ev"
MUL_ADD = f"_Z34__spirv_CooperativeMatrixMulAddKHRI{named('f', 2)}{named('f', 0)}{named('f', 1)}{named('f', 2)}Evi"
LENGTH = f"_Z34__spirv_CooperativeMatrixLengthKHRI{named('f', 2)}Ev"
STORE = f"_Z33__spirv_CooperativeMatrixStoreKHRI{named('f', 2)}EvPU3AS1fim"

# r = -(a + 2) * 3 + a @ b, n = the length of an accumulator (clcoop's callee names).
MATRIX_IR = HEAD + f"""
define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %r, ptr addrspace(1) %n) {{
entry:
  %m = call spir_func {C} @{LOAD_C}(ptr addrspace(1) %a, i32 0, i64 16)
  %s = call spir_func {C} @{SPLAT}(float 2.0)
  %x = call spir_func {C} @{ADD}({C} %m, {C} %s)
  %y = call spir_func {C} @{SCALE}({C} %x, float 3.0)
  %z = call spir_func {C} @{NEGATE}({C} %y)
  %ma = call spir_func {A} @{LOAD_A}(ptr addrspace(1) %a, i32 0, i64 16)
  %mb = call spir_func {B} @{LOAD_B}(ptr addrspace(1) %b, i32 0, i64 16)
  %p = call spir_func {C} @{MUL_ADD}({A} %ma, {B} %mb, {C} %z, i32 0)
  %len = call spir_func i32 @{LENGTH}({C} %p)
  store i32 %len, ptr addrspace(1) %n
  call spir_func void @{STORE}(ptr addrspace(1) %r, {C} %p, i32 0, i64 16)
  ret void
}}
declare spir_func {C} @{LOAD_C}(ptr addrspace(1), i32, i64)
declare spir_func {A} @{LOAD_A}(ptr addrspace(1), i32, i64)
declare spir_func {B} @{LOAD_B}(ptr addrspace(1), i32, i64)
declare spir_func {C} @{SPLAT}(float)
declare spir_func {C} @{ADD}({C}, {C})
declare spir_func {C} @{SCALE}({C}, float)
declare spir_func {C} @{NEGATE}({C})
declare spir_func {C} @{MUL_ADD}({A}, {B}, {C}, i32)
declare spir_func i32 @{LENGTH}({C})
declare spir_func void @{STORE}(ptr addrspace(1), {C}, i32, i64)
"""


def launch(prog, S=16):
    rng = np.random.default_rng(25)
    a = rng.integers(-3, 4, (16, 16)).astype(np.float32)
    b = rng.integers(-3, 4, (16, 16)).astype(np.float32)
    r = np.zeros((16, 16), np.float32)
    n = np.zeros(1, np.int32)
    prog.k((S,), (S,), a, b, r, n, subgroup_size=S)
    return a, b, r, n


def refusals(ir):
    """(the interpreter's IRError message, the native engine's fallback reason)."""
    with pytest.raises(IRError) as interp:
        launch(clcoop.Program.from_ir(ir, engine="interp"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        native = clcoop.Program.from_ir(ir, engine="native")
    reason = native.kernel("k").fallback_reason
    assert reason is not None, "the native engine took the kernel"
    with pytest.raises(ClcoopError):
        launch(native)
    return str(interp.value), reason


def assert_same_refusal(ir, words):
    """Both engines refuse, for one reason that contains `words`, naming the function and
    the instruction."""
    interp, native = refusals(ir)
    located = re.fullmatch(r"in @k: (.*?): ((?:%\S+ = )?(?:tail )?call .*)", interp, re.S)
    assert located, interp
    reason, instruction = located.groups()
    assert words in reason, reason
    assert reason in native, (reason, native)
    assert "@" in instruction and "call" in instruction


def test_the_matrix_kernel_runs_in_both_engines():
    """The kernel every case below breaks, as written: both engines, against NumPy."""
    for engine in ("interp", "native"):
        prog = clcoop.Program.from_ir(MATRIX_IR, engine=engine)
        assert prog.kernel("k").fallback_reason is None
        a, b, r, n = launch(prog)
        np.testing.assert_array_equal(r, -(a + 2) * 3 + a @ b)
        assert n[0] == 256 // 16


MATRIX_CASES = {
    # IndexError in the interpreter before (operands read by position).
    "mul-add with two operands": (MUL_ADD, lambda ops: ops[:2], None,
                                  "takes a cooperative matrix, a cooperative matrix, a cooperative matrix"),
    "store without layout and stride": (STORE, lambda ops: ops[:2], None,
                                        "CooperativeMatrixStoreKHR (@"),
    "splat without a value": (SPLAT, lambda ops: [], None, "but the call passes 0 argument(s)"),
    "binary add of one matrix": (ADD, lambda ops: ops[:1], None, "but the call passes 1 argument(s)"),
    # ValueError in the interpreter before (a vector where a scalar belongs).
    "load layout as a vector": (LOAD_C, lambda ops: [ops[0], ("<2 x i32>", "zeroinitializer"), ops[2]], None,
                                "argument 2 of the cooperative-matrix operation CooperativeMatrixLoadKHR"),
    "splat of a vector": (SPLAT, lambda ops: [("<4 x float>", "zeroinitializer")], None,
                          "must be a scalar of the matrix's component type, but the call passes <4 x float>"),
    # Ran in the interpreter (a silent conversion or a value dropped); the native engine's
    # generated module did not compile, or it ran as well.
    "splat of a double": (SPLAT, lambda ops: [("double", "2.0")], None,
                          "but the call passes double"),
    "scalar multiply by an i32": (SCALE, lambda ops: [ops[0], ("i32", "3")], None,
                                  "but the call passes i32"),
    "mul-add operands word as a float": (MUL_ADD, lambda ops: ops[:3] + [("float", "0.0")], None,
                                         "argument 4 of the cooperative-matrix operation CooperativeMatrixMulAddKHR"),
    "load stride as a double": (LOAD_C, lambda ops: ops[:2] + [("double", "16.0")], None,
                                "must be an integer scalar, but the call passes double"),
    "load pointer as an integer": (LOAD_A, lambda ops: [("i64", "0")] + ops[1:], None,
                                   "argument 1 of the cooperative-matrix operation CooperativeMatrixLoadKHR "),
    "load with six operands": (LOAD_B, lambda ops: ops + [("i32", "0")] * 3, None,
                               "then at most 3 more (an integer scalar), but the call passes 6 argument(s)"),
    "negate of two matrices": (NEGATE, lambda ops: ops + ops, None, "but the call passes 2 argument(s)"),
    "store returning i32": (STORE, lambda ops: ops, "i32", "returns void, but the call's result is i32"),
    "length returning float": (LENGTH, lambda ops: ops, "float",
                               "returns an integer scalar, but the call's result is float"),
}


@pytest.mark.parametrize("case", sorted(MATRIX_CASES))
def test_matrix_call_with_operands_the_operation_does_not_take(case):
    callee, edit, result, words = MATRIX_CASES[case]
    ir = rewrite_call_operands(MATRIX_IR, callee, edit(call_operands(MATRIX_IR, callee)), result)
    if result == "float":       # the length is stored: store what the call now returns
        ir = ir.replace("store i32 %len", "store float %len")
    assert_same_refusal(ir, words)


def test_matrix_operand_of_another_type_than_the_callee_names():
    """The mul-add's name says A is 16x16; the IR passes (and declares) an 8x16 A."""
    other = matrix(0, rows=8)
    load_a8 = LOAD_A.replace(named("f", 0), named("f", 0, rows=8))
    ir = MATRIX_IR.replace(A, other).replace(f"@{LOAD_A}", f"@{load_a8}")
    assert_same_refusal(ir, f"argument 1 of the cooperative-matrix operation CooperativeMatrixMulAddKHR "
                            f"(@{MUL_ADD}) is {other}, but the callee's name says {A}")


def test_foreign_spelling_with_a_missing_operand_is_refused():
    """Another producer's name (the operation only): the operands are checked as the
    operation's, after coop_spellings reads the name."""
    ir = MATRIX_IR.replace(f"@{NEGATE}", "@_Z15__spirv_FNegate")
    ir = rewrite_call_operands(ir, "_Z15__spirv_FNegate", [])
    assert_same_refusal(ir, "the cooperative-matrix operation CooperativeMatrixScalarNeg (@_Z15__spirv_FNegate) "
                            "takes a cooperative matrix, but the call passes 0 argument(s)")



@pytest.mark.parametrize("spelling", ["clcoop", "translator"])
def test_elementwise_operand_of_another_type_than_the_result_is_refused(spelling):
    """An 8x16 operand added to a 16x16 matrix (the name agrees with the IR types): a
    ValueError (broadcast) in the interpreter before. SPV_KHR_cooperative_matrix: the
    operands of element-wise arithmetic have the result's type."""
    c8 = matrix(2, rows=8)
    add = "_Z12__spirv_FAdd" if spelling == "translator" else \
        f"_Z34__spirv_CooperativeMatrixBinaryAddI{named('f', 2) * 2}{named('f', 2, rows=8)}Ev"
    splat8 = "_Z26__spirv_CompositeConstructf"
    ir = MATRIX_IR.replace(f"@{ADD}", f"@{add}")
    ir = rewrite_call_operands(ir, add, [(C, "%m"), (c8, "%s")])
    ir = ir.replace(f"%s = call spir_func {C} @{SPLAT}(float 2.0)", f"%s = call spir_func {c8} @{splat8}(float 2.0)")
    ir += f"declare spir_func {c8} @{splat8}(float)\n"
    assert_same_refusal(ir, f"argument 2 of the cooperative-matrix operation CooperativeMatrixBinaryAdd (@{add}) "
                            f"is {c8}, but the operation takes its result's type {C}")

# ---------------------------------------------------------------- built-ins' results

SCALAR_IR = HEAD + """
define spir_kernel void @k(ptr addrspace(1) %o) {
entry:
  %g = call spir_func i64 @_Z13get_global_idj(i32 0)
  CALL
  %p = getelementptr inbounds float, ptr addrspace(1) %o, i64 %g
  store float 1.0, ptr addrspace(1) %p
  ret void
}
declare spir_func i64 @_Z13get_global_idj(i32)
DECLARE
"""

# OpenCL C 3.0 6.15.8 / 6.15.9 / 6.15.11: no result. These ran before (the value was never
# made), or gave a TypeError where the result was used.
VOID_BUILTINS = {
    "barrier": ("_Z7barrierj", "i32 1"),
    "work_group_barrier": ("_Z18work_group_barrierj", "i32 1"),
    "mem_fence": ("_Z9mem_fencej", "i32 2"),
    "wait_group_events": ("_Z17wait_group_eventsiP9ocl_event", "i32 0, ptr null"),
}


@pytest.mark.parametrize("name", sorted(VOID_BUILTINS))
@pytest.mark.parametrize("result", ["i32", "float"])
def test_void_builtin_declared_with_a_result_is_refused(name, result):
    mangled, args = VOID_BUILTINS[name]
    params = ", ".join(a.rsplit(" ", 1)[0] for a in args.split(", "))
    ir = SCALAR_IR.replace("CALL", f"%v = call spir_func {result} @{mangled}({args})\n"
                                   f"  %use = freeze {result} %v") \
        .replace("DECLARE", f"declare spir_func {result} @{mangled}({params})")
    assert_same_refusal_scalar(ir, f"the built-in '{name}' (@{mangled}) returns void, but the call's "
                                   f"result is {result}")


def test_printf_declared_void_is_refused():
    ir = SCALAR_IR.replace("CALL", "call spir_func void (ptr addrspace(2), ...) @_Z6printfPU3AS2Kcz(ptr addrspace(2) null)") \
        .replace("DECLARE", "declare spir_func void @_Z6printfPU3AS2Kcz(ptr addrspace(2), ...)")
    with pytest.raises(IRError, match=r"in @k: the built-in 'printf' .* returns i32 .* but the call's result is void"):
        clcoop.Program.from_ir(ir).k(1, 1, np.zeros(1, np.float32))


def assert_same_refusal_scalar(ir, words):
    out = np.zeros(4, np.float32)
    with pytest.raises(IRError) as interp:
        clcoop.Program.from_ir(ir, engine="interp").k(4, 4, out)
    assert str(interp.value).startswith(f"in @k: {words}: "), str(interp.value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        native = clcoop.Program.from_ir(ir, engine="native")
    assert words in (native.kernel("k").fallback_reason or "")
    assert not out.any()


# ---------------------------------------------------------------- LLVM's intrinsic tables

@pytest.mark.parametrize("table", ["llvm.used", "llvm.compiler.used"])
@pytest.mark.parametrize("engine", ["interp", "native"])
def test_used_tables_are_ignored_as_llvm_does_at_run_time(table, engine):
    """A KeyError in the interpreter before (it mapped the table as a variable and looked for
    the kernel's address)."""
    ir = SCALAR_IR.replace("CALL", "").replace("DECLARE", "") + \
        f'@g = addrspace(1) global i32 5\n' \
        f'@{table} = appending global [2 x ptr] [ptr @k, ptr addrspacecast (ptr addrspace(1) @g to ptr)], ' \
        f'section "llvm.metadata"\n'
    out = np.zeros(4, np.float32)
    clcoop.Program.from_ir(ir, engine=engine).k(4, 4, out)
    np.testing.assert_array_equal(out, 1.0)


@pytest.mark.parametrize("engine", ["interp", "native"])
def test_annotations_naming_the_kernel_are_ignored(engine):
    """clang's __attribute__((annotate)) table: refused as a function pointer before."""
    ir = SCALAR_IR.replace("CALL", "").replace("DECLARE", "") + \
        '@.str = private unnamed_addr addrspace(1) constant [4 x i8] c"hot\\00", section "llvm.metadata"\n' \
        '@llvm.global.annotations = appending global [1 x { ptr, ptr addrspace(1), ptr addrspace(1), i32, ' \
        'ptr addrspace(1) }] [{ ptr, ptr addrspace(1), ptr addrspace(1), i32, ptr addrspace(1) } ' \
        '{ ptr @k, ptr addrspace(1) @.str, ptr addrspace(1) @.str, i32 7, ptr addrspace(1) null }], ' \
        'section "llvm.metadata"\n'
    out = np.zeros(4, np.float32)
    clcoop.Program.from_ir(ir, engine=engine).k(4, 4, out)
    np.testing.assert_array_equal(out, 1.0)


def test_reading_the_annotations_table_is_a_clear_error():
    ir = SCALAR_IR.replace("CALL", "%t = load i32, ptr getelementptr (i8, ptr @llvm.global.annotations, i64 24)") \
        .replace("DECLARE", "") + \
        '@llvm.global.annotations = appending global [1 x { ptr, i32 }] [{ ptr, i32 } { ptr @k, i32 7 }], ' \
        'section "llvm.metadata"\n'
    with pytest.raises(IRError, match=r"reads @llvm\.global\.annotations, which holds nothing at run time"):
        clcoop.Program.from_ir(ir).k(4, 4, np.zeros(4, np.float32))


# fuzz_ir seed 1702 case 1636 (a destructor table naming the annotations table) and by hand
# (a variable holding a __local variable's address): a KeyError in the interpreter before.
@pytest.mark.parametrize("named, held, words", [
    ("llvm.global.annotations", '[1 x { ptr, i32 }] [{ ptr, i32 } { ptr null, i32 1 }], section "llvm.metadata"',
     "holds nothing at run time"),
    ("l", "[4 x i32] undef", "is a __local variable"),
])
def test_a_variable_holding_the_address_of_a_global_with_none_is_refused(named, held, words):
    space = " addrspace(3)" if named == "l" else ""
    ir = SCALAR_IR.replace("CALL", "").replace("DECLARE", "") + \
        f"@{named} = internal{space} global {held}\n@g = addrspace(1) global ptr{space} @{named}\n"
    with pytest.raises(IRError, match=rf"the program-scope variable @g holds the address of @{named}, which {words}"):
        clcoop.Program.from_ir(ir).k(4, 4, np.zeros(4, np.float32))


@pytest.mark.parametrize("table, kind", [("llvm.global_ctors", "constructors"), ("llvm.global_dtors", "destructors")])
@pytest.mark.parametrize("engine", ["interp", "native"])
def test_constructor_and_destructor_tables_are_refused(table, kind, engine):
    ir = SCALAR_IR.replace("CALL", "").replace("DECLARE", "") + \
        f"@{table} = appending global [1 x {{ i32, ptr, ptr }}] [{{ i32, ptr, ptr }} {{ i32 65535, ptr @k, ptr null }}]\n"
    with pytest.raises(IRError, match=rf"@{re.escape(table)} names @k: module {kind} are not supported"):
        clcoop.Program.from_ir(ir, engine=engine)


# ---------------------------------------------------------------- tensor layouts and loads

LAYOUT = ('target("spirv.Type", target("spirv.IntegralConstant", i32, 2), '
          'target("spirv.IntegralConstant", i32, 1), 5370, 0, 0)')
CREATE = "_Z28__spirv_CreateTensorLayoutNVIEvu18TensorLayoutNV_2_1"
SET_DIMENSION = "_Z34__spirv_TensorLayoutSetDimensionNVIEvu18TensorLayoutNV_2_1jj"
LOAD_TENSOR = f"_Z37__spirv_CooperativeMatrixLoadTensorNVI{named('f', 2) * 2}EvPU3AS1fu18TensorLayoutNV_2_1ii"

# r = a through a 16 x 16 tensor layout; MASK is the load's Tensor Addressing Operands.
TENSOR_IR = HEAD + f"""
define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %r, ptr addrspace(1) %n) {{
entry:
  %l0 = call spir_func {LAYOUT} @{CREATE}()
  %l = call spir_func {LAYOUT} @{SET_DIMENSION}({LAYOUT} %l0, i32 16, i32 16)
  %keep = call spir_func {C} @{SPLAT}(float 0.0)
  %m = call spir_func {C} @{LOAD_TENSOR}(ptr addrspace(1) %a, {C} %keep, {LAYOUT} %l, i32 0, i32 MASK)
  call spir_func void @{STORE}(ptr addrspace(1) %r, {C} %m, i32 0, i64 16)
  ret void
}}
declare spir_func {LAYOUT} @{CREATE}()
declare spir_func {LAYOUT} @{SET_DIMENSION}({LAYOUT}, i32, i32)
declare spir_func {C} @{SPLAT}(float)
declare spir_func {C} @{LOAD_TENSOR}(ptr addrspace(1), {C}, {LAYOUT}, i32, i32)
declare spir_func void @{STORE}(ptr addrspace(1), {C}, i32, i64)
"""


def test_tensor_kernel_runs():
    a, _, r, _ = launch(clcoop.Program.from_ir(TENSOR_IR.replace("MASK", "0")))
    np.testing.assert_array_equal(r, a)


def test_tensor_load_whose_addressing_operands_name_a_missing_view_faults():
    """Mask 1 (a view; the callee's name spells its type) with no view operand: an
    IndexError in the interpreter before."""
    ir = TENSOR_IR.replace("MASK", "1").replace(LOAD_TENSOR, LOAD_TENSOR + "u19TensorViewNV_2_0_01")
    with pytest.raises(clcoop.RuntimeFault, match=r"CooperativeMatrixLoadTensorNV: the tensor addressing "
                                                  r"operands 0x1 name 1 operand\(s\) after them .* passes 0"):
        launch(clcoop.Program.from_ir(ir))


def test_tensor_layout_operation_with_a_float_operand_is_refused():
    """The dimensions were converted from a float silently before."""
    ir = rewrite_call_operands(TENSOR_IR.replace("MASK", "0"), SET_DIMENSION,
                               [(LAYOUT, "%l0"), ("i32", "16"), ("float", "16.0")])
    with pytest.raises(IRError, match=r"in @k: argument 3 of the cooperative-matrix operation "
                                      r"TensorLayoutSetDimensionNV .* must be an integer scalar, but the call passes float"):
        launch(clcoop.Program.from_ir(ir))


def test_tensor_layout_operation_with_too_few_operands_is_refused_at_translation():
    ir = rewrite_call_operands(TENSOR_IR.replace("MASK", "0"), SET_DIMENSION, [(LAYOUT, "%l0"), ("i32", "16")])
    with pytest.raises(IRError, match=r"'coop_tensor_layout_set_dimension' takes 2 operands after the layout "
                                      r"for a 2-dimensional tensor, 1 given"):
        launch(clcoop.Program.from_ir(ir))


# ---------------------------------------------------------------- function operands

REDUCE = f"_Z33__spirv_CooperativeMatrixReduceNVI{named('f', 2) * 2}EviPFfffE"
PER_ELEMENT = f"_Z39__spirv_CooperativeMatrixPerElementOpNVI{named('f', 2) * 2}EvPFfjjffEf"

# r = 2 * (the sum of each row of a, in every column of that row).
FUNCTION_IR = HEAD + f"""
define internal spir_func float @sum_of(float %x, float %y) {{
  %s = fadd float %x, %y
  ret float %s
}}
define internal spir_func float @scaled(i32 %row, i32 %col, float %x, float %k) {{
  %s = fmul float %x, %k
  ret float %s
}}
define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %r, ptr addrspace(1) %n) {{
entry:
  %m = call spir_func {C} @{LOAD_C}(ptr addrspace(1) %a, i32 0, i64 16)
  %s = call spir_func {C} @{REDUCE}({C} %m, i32 1, ptr @COMBINE)
  %p = call spir_func {C} @{PER_ELEMENT}({C} %s, ptr @ELEMENT, float 2.0)
  call spir_func void @{STORE}(ptr addrspace(1) %r, {C} %p, i32 0, i64 16)
  ret void
}}
declare spir_func {C} @{LOAD_C}(ptr addrspace(1), i32, i64)
declare spir_func {C} @{REDUCE}({C}, i32, ptr)
declare spir_func {C} @{PER_ELEMENT}({C}, ptr, float)
declare spir_func void @{STORE}(ptr addrspace(1), {C}, i32, i64)
"""


def function_ir(combine="sum_of", element="scaled"):
    return FUNCTION_IR.replace("@COMBINE", f"@{combine}").replace("@ELEMENT", f"@{element}")


def test_function_operand_kernel_runs():
    a, _, r, _ = launch(clcoop.Program.from_ir(function_ir()))
    np.testing.assert_array_equal(r, np.repeat(2 * a.sum(axis=1, keepdims=True), 16, axis=1))


@pytest.mark.parametrize("combine, element, words", [
    # A TypeError in the interpreter before (the missing parameters were None).
    ("scaled", "scaled", "the function operand @scaled (argument 3) of CooperativeMatrixReduceNV (@"),
    # Ran before: the row and column went in as floats, the element as the extra operand.
    ("sum_of", "sum_of", "has the type float (float, float), but the operation calls it as float (i32, i32, float, float)"),
    # Ran the kernel as the combine function before.
    ("k", "scaled", "the function operand @k (argument 3) of CooperativeMatrixReduceNV"),
])
def test_function_operand_of_another_type_is_refused(combine, element, words):
    ir = function_ir(combine, element)
    with pytest.raises(IRError) as interp:
        launch(clcoop.Program.from_ir(ir))
    assert str(interp.value).startswith("in @k: ") and words in str(interp.value), str(interp.value)
    assert "call spir_func" in str(interp.value)      # the instruction
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        native = clcoop.Program.from_ir(ir, engine="native")
    assert native.kernel("k").fallback_reason is not None


def test_null_function_operand_is_refused():
    ir = function_ir().replace("i32 1, ptr @sum_of", "i32 1, ptr null")
    with pytest.raises(IRError, match=r"argument 3 of CooperativeMatrixReduceNV .* must be a function defined "
                                      r"in the module, called as float \(float, float\), but it is ptr null"):
        launch(clcoop.Program.from_ir(ir))


def test_function_operand_check_reads_constants_llvmlite_has_no_kind_for():
    """A `target(...) zeroinitializer` operand is a value kind (26) llvmlite's enum lacks:
    `value.value_kind` raised ValueError (fuzz_ir seed 2502 case 986 found it in the native
    engine's call graph); the check reads it as a constant."""
    import llvmlite.binding as llvm
    from clcoop.ir import call_signatures
    from clcoop.ir.loader import parse_type_text
    mod = llvm.parse_assembly(HEAD + f"""
define spir_kernel void @k() {{
  %m = call spir_func {C} @{PER_ELEMENT}({C} zeroinitializer, ptr @k, target("spirv.Event") zeroinitializer)
  ret void
}}
declare spir_func {C} @{PER_ELEMENT}({C}, ptr, target("spirv.Event"))
""")
    call = next(iter(next(iter(mod.get_function("k").blocks)).instructions))
    operands = list(call.operands)[:-1]
    types = [parse_type_text(str(o.type), {}) for o in operands]
    reason = call_signatures.function_operand_mismatch(PER_ELEMENT, parse_type_text(C, {}), types, operands,
                                                       {f.name: f for f in mod.functions}, {"k"})
    assert reason is not None and "@k (argument 2)" in reason and "a kernel" in reason


# ---------------------------------------------------------------- LLVM's parser

VOID_INTRINSIC_IR = HEAD + """
declare void @llvm.memset.p0.i64(ptr addrspace(1), float, i32, i32, i32)
define spir_kernel void @k(ptr addrspace(1) %o) {
  call void @llvm.memset.p0.i64(ptr addrspace(1) %o, float 1.0, i32 4, i32 0, i32 0)
  ret void
}
"""


def test_void_intrinsic_declared_with_operands_llvm_cannot_rewrite_is_refused_not_an_abort():
    """LLVM's parser renames the declaration and rewrites its calls with operands the new
    signature does not take: "Calling a function with a bad signature!", SIGABRT (fuzz_ir
    seed 2502 case 1743: StoreTensorNV's callee renamed @llvm.memset.p0.i64). Run in a
    child process: before the fix, the abort would take the test run with it."""
    probe = ("import clcoop, sys\n"
             "from clcoop.errors import IRError\n"
             "for engine in ('interp', 'native'):\n"
             "    try:\n"
             "        clcoop.Program.from_ir(sys.stdin.read() if engine == 'interp' else IR, engine=engine)\n"
             "    except IRError as e:\n"
             "        print(engine, e)\n")
    done = subprocess.run([sys.executable, "-c", f"IR = {VOID_INTRINSIC_IR!r}\n" + probe],
                          input=VOID_INTRINSIC_IR, capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[3])
    assert done.returncode == 0, done.stderr[-2000:]
    for engine in ("interp", "native"):
        assert f"{engine} the declaration of @llvm.memset.p0.i64 does not match LLVM's intrinsic" in done.stdout


def test_matrix_load_through_a_pointer_of_another_address_space_than_named_is_refused():
    """The name says __global (PU3AS1), the IR passes a __local pointer: the engines access
    the IR's pointer, and the native engine named no buffer in its fault (fuzz_ir seed 2504
    case 358: "read through an invalid pointer" where the interpreter named `W1 (__local)`)."""
    ir = rewrite_call_operands(MATRIX_IR, LOAD_B, [("ptr addrspace(3)", "null"), ("i32", "0"), ("i64", "16")])
    assert_same_refusal(ir, f"argument 1 of the cooperative-matrix operation CooperativeMatrixLoadKHR "
                            f"(@{LOAD_B}) is ptr addrspace(3), but the callee's name says a pointer to "
                            f"address space 1")


# A matrix constant llvmlite's ValueKind enum does not know (kind 26: a target-type
# zeroinitializer) is valid IR: the native build read `.value_kind.name` and raised a
# Python ValueError, and engine="auto" with it (fuzz_ir seed 2503). Both engines run it.
ZERO_MATRIX_STORE = """target triple = "spir64-unknown-unknown"
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), i32, i64)
define spir_kernel void @k(ptr addrspace(1) %o) {
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %o, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) zeroinitializer, i32 0, i64 16)
  ret void
}
"""


@pytest.mark.parametrize("engine", ["interp", "native"])
def test_a_zero_matrix_constant_operand_runs_in_both_engines(engine):
    prog = clcoop.Program.from_ir(ZERO_MATRIX_STORE, engine=engine)
    out = np.full(8 * 16, 7.0, np.float32)
    prog.k((16,), (16,), out, subgroup_size=16)
    assert prog.kernel("k").engine == engine
    np.testing.assert_array_equal(out, 0.0)


# fuzz_ir seed 2503 case 328: a kernel pointer parameter in the private address space ran in
# both engines, every work-group sharing one buffer, with different results. clang refuses
# such a kernel (OpenCL C 3.0 6.11); so does the loader, for IR from elsewhere.
@pytest.mark.parametrize("space, words", [("", "private"), (" addrspace(4)", "generic")])
def test_a_kernel_pointer_parameter_outside_global_constant_local_is_refused(space, words):
    ir = ('target triple = "spir64-unknown-unknown"\n'
          f"define spir_kernel void @k(ptr{space} %p) {{\n  store i32 1, ptr{space} %p\n  ret void\n}}\n")
    for engine in ("interp", "native"):
        with pytest.raises(IRError, match=rf"kernel 'k': parameter 0 'p' is a pointer to the {words} address "
                                          r"space; a kernel's pointer parameters must be __global, __constant "
                                          r"or __local \(OpenCL C 3.0 6.11\)"):
            clcoop.Program.from_ir(ir, engine=engine)


# Found by hand: a packed structure type `<{ i8, i32 }>` was read as a vector and a scalable
# vector's `vscale` as its count: Python's ValueError from Program.from_ir(engine="auto").
def test_a_packed_structure_type_is_read_without_padding():
    ty = loader.parse_type_text("<{ i8, i32 }>", {})
    assert (ty.kind, ty.packed, [f.bits for f in ty.fields]) == ("struct", True, [8, 32])
    ir = HEAD + ("define spir_kernel void @k(ptr addrspace(1) %p) {\n"
                 "  %x = load <{ i8, i32 }>, ptr addrspace(1) %p, align 1\n"
                 "  %y = extractvalue <{ i8, i32 }> %x, 0\n"
                 "  store i8 %y, ptr addrspace(1) %p, align 1\n  ret void\n}\n")
    assert clcoop.Program.from_ir(ir, engine="auto").kernel("k").engine in ("interp", "native")


@pytest.mark.parametrize("ty, words", [("<vscale x 4 x i32>", "unsupported element count 'vscale'"),
                                       ("fp128", "unsupported type 'fp128'")])
def test_a_type_the_engines_do_not_read_falls_back_then_is_refused(ty, words):
    # The native engine had raised the loader's IRError from Program.from_ir(engine="auto")
    # where it falls back with its reason (docs/native.md "Safety contract").
    ir = HEAD + ("define spir_kernel void @k(ptr addrspace(1) %p) {\n"
                 f"  %a = alloca {ty}\n  store {ty} zeroinitializer, ptr %a\n  ret void\n}}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prog = clcoop.Program.from_ir(ir, engine="auto")
    kernel = prog.kernel("k")
    assert kernel.engine == "interp" and words in kernel.fallback_reason
    with pytest.raises(IRError, match=words):
        prog.k((16,), (16,), np.zeros(4, np.int32))


# Found by hand: an atomicrmw on <2 x half> (LLVM takes floating-point vectors) had been a
# NumPy ValueError in the interpreter, and ran natively.
def test_an_atomic_operation_on_a_vector_is_refused_by_both_engines():
    ir = HEAD + ("define spir_kernel void @k(ptr addrspace(1) %p) {\n"
                 "  %x = atomicrmw fmax ptr addrspace(1) %p, <2 x half> <half 0xH3C00, half 0xH3C00> seq_cst\n"
                 "  ret void\n}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prog = clcoop.Program.from_ir(ir, engine="auto")
    assert prog.kernel("k").engine == "interp"
    assert "atomic operations on vectors are not supported" in prog.kernel("k").fallback_reason
    with pytest.raises(IRError, match="atomic operations on vectors are not supported: .*atomicrmw fmax"):
        prog.k((16,), (16,), np.zeros(4, np.float16))


# Found by hand: a matrix load whose stride times the element size passes 2**63 had been an
# OverflowError in the interpreter; the address arithmetic is i64, which wraps, in both
# engines (4 * 2**62 is 0 modulo 2**64: every row is read from the first).
@pytest.mark.parametrize("engine", ["interp", "native"])
def test_a_matrix_stride_past_two_to_the_63_bytes_wraps_as_i64(engine):
    ir = HEAD + f"""declare spir_func {C} @{LOAD_C}(ptr addrspace(1), i32, i64)
declare spir_func void @{STORE}(ptr addrspace(1), {C}, i32, i64)
define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %r) {{
  %m = call spir_func {C} @{LOAD_C}(ptr addrspace(1) %a, i32 0, i64 4611686018427387904)
  call spir_func void @{STORE}(ptr addrspace(1) %r, {C} %m, i32 0, i64 16)
  ret void
}}
"""
    a = np.arange(256, dtype=np.float32)
    r = np.zeros(256, np.float32)
    prog = clcoop.Program.from_ir(ir, engine=engine)
    prog.k((16,), (16,), a, r, subgroup_size=16)
    assert prog.kernel("k").engine == engine
    np.testing.assert_array_equal(r.reshape(16, 16), np.tile(a[:16], (16, 1)))


# Found by hand: a !reqd_work_group_size of 0 had been a ZeroDivisionError at the launch
# and one of -1 a launch that never ended, in both engines.
@pytest.mark.parametrize("sizes", ["i32 0, i32 1, i32 1", "i32 -1, i32 1, i32 1", "i32 16, i32 1, i32 -4"])
def test_a_required_work_group_size_that_is_not_positive_is_refused(sizes):
    ir = HEAD + ("define spir_kernel void @k(ptr addrspace(1) %p) !reqd_work_group_size !0 {\n"
                 f"  store i32 1, ptr addrspace(1) %p\n  ret void\n}}\n!0 = !{{{sizes}}}\n")
    for engine in ("interp", "native"):
        with pytest.raises(IRError, match=r"kernel 'k': !reqd_work_group_size \(.*\) is not a work-group size: "
                                          r"each must be positive \(OpenCL C 3.0 6.11.2\)"):
            clcoop.Program.from_ir(ir, engine=engine)
