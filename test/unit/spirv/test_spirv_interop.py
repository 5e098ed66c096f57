"""Checked interop (issue 4, item 1): llc-22 takes clcoop's IR unmodified.

For every example kernel (both triples) and every lit-test kernel clcoop compiles, plus the hand-written IR
of test/lit/spirv: `llc -O0` and `-O2` succeed, spirv-val passes on llc's own output, each
OpCooperativeMatrixLoad/StoreKHR names the pointee type the callee's mangling intends (never a uchar
fallback for a wider type: stride counts pointee elements, SPV_KHR issue 3), and spirv-link accepts
llc's module alone when the kernel uses no operators or element access. With them, only clcoop's
rewritten module (`--emit-spirv`) links.
"""

import os
import re
import subprocess
import sys

import pytest

import spirv_extract as ex  # noqa: E402
import spirv_inputs as inputs  # noqa: E402

from clcoop.spirv import find_tool, ir_to_spirv, llc_spirv, validate, validate_known  # noqa: E402
from clcoop.spirv import SpirvError  # noqa: E402
from clcoop.spirv.binary import read_module, write_module  # noqa: E402
from clcoop.spirv.function_operands import has_function_operands  # noqa: E402
from clcoop.spirv.rewrite import classify, classify_atomic, rewrite_cooperative_calls  # noqa: E402
from clcoop.spirv.tensor import is_tensor_callee, rewrite_tensor_calls  # noqa: E402
from clcoop.spirv.float8 import conversion_of, rewrite_float8, uses_float8  # noqa: E402
from clcoop.spirv import coop2, known_part  # noqa: E402
from clcoop.spirv.llc_workarounds import work_around_llc  # noqa: E402
from tool_marks import needs_tools  # noqa: E402


pytestmark = needs_tools("llc", "spirv-val", "spirv-link", "spirv-dis")

CALLEE_RE = re.compile(r"@(_Z\w+)\(")
ADDRESS_QUERY_RE = re.compile(r"@__to_(global|local|private)\(")


# spir64 in the default run; the 32-bit triple of every example is slow (docs/testing.md).
TRIPLES = [inputs.TRIPLES[0], *(pytest.param(t, marks=pytest.mark.slow) for t in inputs.TRIPLES[1:])]


def uses_imported_operations(ir_text):
    """Calls llc-22 leaves imported: matrix operators, element access, integer atomic_fetch_min/max,
    tensor layouts, views, loads and stores, clang's __to_global & co. (ir_to_spirv handles each)."""
    return any(classify(name) or classify_atomic(name) or is_tensor_callee(name) or conversion_of(name)
               for name in CALLEE_RE.findall(ir_text)) \
        or bool(ADDRESS_QUERY_RE.search(ir_text))


def links_alone(data, tmp_path):
    path = tmp_path / "alone.spv"
    path.write_bytes(data)
    done = subprocess.run([find_tool("spirv-link"), str(path), "-o", str(tmp_path / "linked.spv")],
                          capture_output=True, text=True)
    return done.returncode == 0, done.stdout + done.stderr


def sorted_events(functions):
    return sorted(event for blocks in functions.values() for events in blocks.values() for event in events)


DEFINITION_RE = re.compile(r"^\s*(%\w+) = Op\w+ (%\w+)", re.MULTILINE)
LOAD_RE = re.compile(r"OpCooperativeMatrixLoadKHR %\w+ (%\w+)")
STORE_RE = re.compile(r"OpCooperativeMatrixStoreKHR (%\w+)")


def dis_pointer_types(data, tmp_path):
    """From spirv-dis text: the pointer type name of each matrix load/store, in order."""
    path = tmp_path / "m.spv"
    path.write_bytes(data)
    text = subprocess.run([find_tool("spirv-dis"), "--no-color", str(path)], capture_output=True,
                          text=True, check=True).stdout
    types = dict(DEFINITION_RE.findall(text))
    found = []
    for line in text.splitlines():
        access = LOAD_RE.search(line) or STORE_RE.search(line)
        if access:
            found.append(types[access.group(1)])
    return found


def has_bf16_arithmetic(ir_text):
    try:
        coop2.reject_bfloat16_arithmetic_ir(ir_text)
    except SpirvError:
        return True
    return False


def check_interop(ir_text, triple, tmp_path):
    if has_bf16_arithmetic(ir_text):
        # llc-22 refuses it (LLVM ERROR): --emit-spirv says why instead, before running llc.
        with pytest.raises(SpirvError, match="SPV_INTEL_bfloat16_arithmetic"):
            ir_to_spirv(ir_text, triple)
        return
    ir_events = ex.ir_events(ir_text)
    for opt_level in (0, 2):
        raw = llc_spirv(ir_text, triple, opt_level)
        tensors = any(is_tensor_callee(name) for name in CALLEE_RE.findall(ir_text))
        if has_function_operands(ir_text) or tensors:
            # llc-22 with SPV_INTEL_function_pointers (the only way it keeps which function is
            # meant) defines OpConstantFunctionPointerINTEL before the function it names, which
            # spirv-val rejects; the rewrite drops those constants (clcoop/spirv/function_operands.py).
            # Tensor layouts and views: llc-22 emits OpTypeTensorLayoutNV / OpTypeTensorViewNV but
            # not their capability, which the rewrite declares (clcoop/spirv/tensor.py).
            with pytest.raises(SpirvError, match="has not been defined|capabilities: TensorAddressingNV"):
                validate(raw)
            validate_known(write_module(rewrite_tensor_calls(rewrite_cooperative_calls(read_module(raw)))))
        elif uses_float8(ir_text):
            # llc-22 writes the fp8 types (OpTypeFloat 8 <encoding>) but no Float8EXT; the rewrite
            # declares it and SPV_EXT_float8 (clcoop/spirv/float8.py).
            with pytest.raises(SpirvError, match="capabilities: Float8EXT"):
                validate(raw)
            validate_known(write_module(rewrite_float8(rewrite_cooperative_calls(read_module(raw)))))
        elif work_around_llc(ir_text) != ir_text:
            # llc-22 bugs clang-22's IR meets too (OpAny/OpAll on a scalar, ldexp's scalar
            # exponent, zext of a trunc): its own module is invalid; ir_to_spirv rewrites the IR
            # first (clcoop/spirv/llc_workarounds.py), and that module is valid.
            with pytest.raises(SpirvError, match="vector bool|exponent to have the same number|same bit width"):
                validate(raw)
            validate(llc_spirv(work_around_llc(ir_text), triple, opt_level))
        elif coop2.conversion_needs(read_module(raw)):
            # llc-22 declares no capability for a conversion that changes the use (clcoop/spirv/coop2.py).
            with pytest.raises(SpirvError, match="Use of Matrix type and Result Type"):
                validate(raw)
            validate_known(write_module(rewrite_tensor_calls(rewrite_cooperative_calls(read_module(raw)))))
        else:
            validate(raw)
        spirv_events = ex.spirv_events(raw)
        if opt_level == 0:
            assert ex.drop_empty(spirv_events) == ex.drop_empty(ir_events)
        else:  # -O2 may move instructions between blocks: same multiset
            assert sorted_events(spirv_events) == sorted_events(ir_events)
        # The pointee check on spirv-dis text too: a uchar pointer only where the IR meant an 8-bit type.
        meant = [e[3] for e in sorted_events(ir_events) if e[0] in ("load", "store")]
        pointer_types = dis_pointer_types(raw, tmp_path)
        assert len(pointer_types) == len(meant)
        if ("i", 8) not in meant:
            assert not [t for t in pointer_types if t.endswith("_uchar")], pointer_types
        ok, message = links_alone(raw, tmp_path)
        if uses_imported_operations(ir_text):
            assert not ok  # llc-22 leaves them as imports (notes/llc22-cooperative-matrix.md)
        else:
            assert ok, message
    if uses_imported_operations(ir_text) or "MulAddKHR" in ir_text:
        emitted = ir_to_spirv(ir_text, triple)
        # SPIRV-Tools 2025.5 (spirv-link too) does not know GetCoordinateEXT nor the EXT
        # conversions: link what it knows.
        ok, message = links_alone(known_part(emitted), tmp_path)
        assert ok, message
        assert ex.mul_add_operand_errors(emitted) == []


@pytest.mark.parametrize("triple", TRIPLES)
@pytest.mark.parametrize("path", inputs.example_files(), ids=os.path.basename)
def test_example_interop(path, triple, tmp_path):
    status, ir, err = inputs.clcoop(path, triple)
    assert status == 0, err
    ir_text = ir.decode("utf-8")
    assert f'target triple = "{triple}"' in ir_text
    check_interop(ir_text, triple, tmp_path)


# Lit folders whose tests are about what the compiler prints: a source there may be meant to be
# rejected. Everywhere else (codegen/, cli/, run/, ...) a kernel that stops compiling is a failure.
REJECTING_FOLDERS = ("diagnostics", "parse", "preprocess")
EXPECTS_FAILURE_RE = re.compile(r"RUN:.*%?not %clcoop")


def expected_to_be_rejected(path):
    """A source under a diagnostics-style folder with a RUN line that expects clcoop to fail."""
    folder = os.path.relpath(path, os.path.join(inputs.ROOT, "test", "lit")).split(os.sep)[0]
    with open(path, encoding="utf-8", errors="replace") as handle:
        return folder in REJECTING_FOLDERS and bool(EXPECTS_FAILURE_RE.search(handle.read()))


@pytest.mark.slow
@pytest.mark.parametrize("path", inputs.lit_cl_files(), ids=inputs.relative)
def test_lit_kernel_interop(path, tmp_path):
    status, ir, err = inputs.clcoop(path, "spir64-unknown-unknown")
    if status != 0:
        assert status == 1 and expected_to_be_rejected(path), err
        return      # a source meant to be rejected: no IR to check
    ir_text = ir.decode("utf-8")
    refused = refused_by_emit_spirv(ir_text)
    if refused is not None:
        # --emit-spirv says why it cannot emit the kernel (an OpenCL C built-in llc-22 leaves
        # imported, inline assembly with outputs): llc-22's own module is then indeed unusable.
        ok, _message = links_alone(llc_spirv(ir_text, "spir64-unknown-unknown"), tmp_path) \
            if "unlowered" in refused else (False, "")
        assert not ok, refused
        return
    check_interop(ir_text, "spir64-unknown-unknown", tmp_path)


REFUSALS = ("unlowered (an imported function no library defines)", "inline assembly with outputs")


def refused_by_emit_spirv(ir_text):
    """ir_to_spirv's message when it refuses the IR for a reason of REFUSALS, else None."""
    try:
        ir_to_spirv(ir_text, "spir64-unknown-unknown")
    except SpirvError as error:
        if any(reason in str(error) for reason in REFUSALS):
            return str(error)
    return None         # emitted, or refused for a reason check_interop expects (bf16 arithmetic)


@pytest.mark.parametrize("path", inputs.lit_ll_files(), ids=inputs.relative)
def test_lit_ir_interop(path, tmp_path):
    with open(path, encoding="utf-8") as handle:
        ir_text = handle.read()
    triple = re.search(r'target triple = "([^"]+)"', ir_text).group(1)
    check_interop(ir_text, triple, tmp_path)


def test_pointee_check_sees_the_uchar_fallback(tmp_path):
    """Without the pointer parameter in the mangling, llc-22 falls back to uchar: the check must see it."""
    ir = ('target triple = "spir64-unknown-unknown"\n'
          'declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) '
          '@_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEv(ptr addrspace(1), i32, i64)\n'
          'define spir_kernel void @k(ptr addrspace(1) %p) {\nentry:\n'
          '  %m = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) '
          '@_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEv(ptr addrspace(1) %p, i32 0, i64 16)\n'
          '  ret void\n}\n')
    assert dis_pointer_types(llc_spirv(ir, "spir64-unknown-unknown"), tmp_path) == ["%_ptr_CrossWorkgroup_uchar"]


@pytest.mark.parametrize("opt_level", [0, pytest.param(2, marks=pytest.mark.slow)])
@pytest.mark.parametrize("triple", TRIPLES)
@pytest.mark.parametrize("path", inputs.example_params(), ids=os.path.basename)
def test_example_emit_spirv_is_complete(path, triple, opt_level, tmp_path):
    """`clcoop --emit-spirv` (issue 4, item 2): valid (what spirv-val 2025.5 can check: validate_known,
    docs/tensor.md), and links alone, operators included."""
    status, spirv, err = inputs.clcoop(path, triple, emit_spirv=True, opt_level=opt_level)
    assert status == 0, err
    validate_known(spirv)
    assert ex.mul_add_operand_errors(spirv) == []
    ok, message = links_alone(spirv, tmp_path)
    assert ok, message


FLOAT_MUL_ADD_SIGNED = """
typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float matB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float matC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void k(global float *p) {
  matA a = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  matB b = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  matC c = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  c = coop_matmul_add(a, b, c, FLAGS);
  coop_mat_store(p, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
}
"""


@pytest.mark.parametrize("flags, kept", [
    ("CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED", 0),
    ("15", 0),
    ("CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_SATURATING_ACCUMULATION", 16)])
def test_float_mul_add_drops_signedness(flags, kept, tmp_path):
    """Issue 10: the RFC 4.5 example's MATRIX_RESULT_SIGNED on float matrices must not reach the SPIR-V
    (2.16.1: signed bits only for integer matrices); llc-22 copies it, which the check sees."""
    source = tmp_path / "k.cl"
    source.write_text(FLOAT_MUL_ADD_SIGNED.replace("FLAGS", flags))
    status, ir, err = inputs.clcoop(str(source), "spir64-unknown-unknown")
    assert status == 0, err
    raw = llc_spirv(ir.decode("utf-8"), "spir64-unknown-unknown")
    assert ex.mul_add_operand_errors(raw)          # the check can fail: llc keeps the bits
    status, spirv, err = inputs.clcoop(str(source), "spir64-unknown-unknown", emit_spirv=True)
    assert status == 0, err
    validate(spirv)
    assert ex.mul_add_operand_errors(spirv) == []
    (muladd,) = [e for events in ex.spirv_events(spirv).values() for block in events.values() for e in block
                 if e[0] == "muladd"]
    assert muladd[2] == kept
