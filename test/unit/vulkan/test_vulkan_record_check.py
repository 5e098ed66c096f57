"""A Vulkan module's reflection record is checked against the module before anything runs
(clcoop/vulkan/record_check.py, arguments.check_record): a record that is edited, stale or
hostile gets a located ReflectionError, never a kernel that reads a pointer from the wrong
place. Before the check, two buffers given one offset crashed the process on lavapipe
(SIGSEGV: the kernel dereferenced the pointer member left zero)."""
import copy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from clcoop.spirv.binary import read_module, write_module
from clcoop.spirv.reflection import OP_SOURCE_EXTENSION, PREFIX, ReflectionError, decode_string, read_reflection, \
    record_words
from clcoop.spirv.vulkan_types import SCALARS
from clcoop.spirv import reflection
from clcoop.vulkan.arguments import check_record
from clcoop.vulkan.record_check import check_module_record
from test_vulkan_target import compile_vulkan
from vulkan_modules import device_or_skip

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "examples" / "vulkan").glob("*.cl"))


@pytest.fixture(scope="module")
def vector_add():
    return compile_vulkan(str(ROOT / "examples" / "vulkan" / "vector_add.cl"))


def with_record(module_bytes, kernels):
    """The module with its reflection record replaced by `kernels`."""
    module = read_module(module_bytes)
    for inst in module.instructions:
        if inst.opcode == OP_SOURCE_EXTENSION and decode_string(inst.operands).startswith(PREFIX):
            inst.operands = record_words(kernels)
    return write_module(module)


def checked(module_bytes):
    """Both checks, as VulkanProgram runs them when it loads a module."""
    records = read_reflection(module_bytes)
    for name, record in records.items():
        check_record(name, record)
    check_module_record(module_bytes, records)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_module_passes(path):
    checked(compile_vulkan(str(path)))


def _edit(change):
    def apply(kernels):
        change(kernels["vector_add"])
        return kernels
    return apply


MISMATCHES = [
    ("two buffers at one offset", _edit(lambda k: k["args"][1].update(offset=0)),
     "argument 'a' and argument 'b' are both at byte 0"),
    ("an argument the module lacks", _edit(lambda k: k["args"].append(dict(k["args"][3], name="m", offset=32))),
     "argument 'm' at byte 32: the push-constant block has no member there"),
    ("an argument left out", _edit(lambda k: k["args"].pop()),
     "the push-constant member at byte 24 (4 bytes) is no argument's"),
    ("a buffer in a 32-bit member", _edit(lambda k: (k["args"][3].update(kind="global", dtype="float32", size=8),
                                                      k.update(global_offset_offset=None))),
     "is 8 bytes at byte 24, where the block's member is 4"),
    ("the global offset left out", _edit(lambda k: k.update(global_offset_offset=None)),
     "the push-constant member at byte 28 (12 bytes) is no argument's"),
    ("a block smaller than the module's", _edit(lambda k: (k["args"].pop(), k.update(global_offset_offset=None,
                                                                                     push_constant_size=24))),
     "is no argument's"),
    ("a kernel the module does not have", lambda kernels: {"other": kernels["vector_add"]},
     "describes kernel 'other', which is not an entry point of the module (its entry points: vector_add)"),
    ("a specialized value in the local size", _edit(lambda k: k["args"][3].update(spec_ids=[0, 207])),
     "argument 'n' names SpecId 0, which the local size uses too"),
]


@pytest.mark.parametrize("label, change, message", MISMATCHES, ids=[m[0] for m in MISMATCHES])
def test_a_record_that_does_not_match_the_module_is_refused(vector_add, label, change, message):
    edited = with_record(vector_add, change(copy.deepcopy(read_reflection(vector_add))))
    with pytest.raises(ReflectionError) as caught:
        checked(edited)
    assert message in str(caught.value)


MALFORMED = [
    ("dtype object", lambda k: k["args"][0].update(dtype="object"), "unknown dtype 'object'"),
    ("writable a string", lambda k: k["args"][0].update(writable="no"), "writable is 'no', not true or false"),
    ("spec_ids one id", lambda k: k["args"][3].update(spec_ids=[1]), "spec_ids [1] is not two SpecIds"),
    ("extensions not a list", lambda k: k.update(device_extensions=5), "device_extensions 5 is not a list of names"),
    ("features not names", lambda k: k.update(device_features=[5]), "device_features [5] is not a list of names"),
    ("a matrix without sizes", lambda k: k.update(matrices=[{"rows": "x"}]), "matrices [{'rows': 'x'}] is not"),
    ("a mul-add not an entry", lambda k: k.update(mul_adds=[5]), "mul_adds [5] is not"),
    ("subgroup size a word", lambda k: k.update(subgroup_size="big"), "subgroup_size 'big' is not a size"),
]


@pytest.mark.parametrize("label, change, message", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_record_is_refused_before_use(vector_add, label, change, message):
    """Fields the engine reads (to marshal, to check capabilities) with the wrong types were an
    internal error (exit 70) or, for dtype 'object', accepted."""
    edited = with_record(vector_add, _edit(change)(copy.deepcopy(read_reflection(vector_add))))
    with pytest.raises(ReflectionError) as caught:
        checked(edited)
    assert message in str(caught.value)


def test_the_record_dtypes_cover_the_compilers():
    """Every dtype the Vulkan target writes for an OpenCL C scalar type is one a record may name."""
    assert {dtype for _ir, dtype in SCALARS.values()} <= reflection.SCALAR_DTYPES


def test_clcoop_run_refuses_the_mismatched_module_instead_of_crashing(vector_add, tmp_path):
    """End to end on the first Vulkan device (lavapipe in CI): this launch was a SIGSEGV."""
    device_or_skip()
    kernels = _edit(lambda k: k["args"][1].update(offset=0))(copy.deepcopy(read_reflection(vector_add)))
    module = tmp_path / "edited.spv"
    module.write_bytes(with_record(vector_add, kernels))
    for name, value in (("a", np.arange(64, dtype=np.float32)), ("b", np.ones(64, np.float32)),
                        ("c", np.zeros(64, np.float32))):
        np.save(tmp_path / f"{name}.npy", value)
    run = subprocess.run([sys.executable, "-m", "clcoop.cli.run_main", str(module), "--engine", "vulkan",
                          "--global", "64", "--local", "16", "--arg", "a=a.npy", "--arg", "b=b.npy",
                          "--arg", "c=c.npy", "--arg", "n=64", "--out", "out"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stderr
    assert "the reflection record does not match the module" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.fixture(scope="module")
def s8_gemm():
    return compile_vulkan(str(ROOT / "examples" / "vulkan" / "gemm_s8_s32.cl"))


@pytest.mark.parametrize("field, message", [
    ("mul_adds", "the module uses the multiply-add (scope, M, N, K, A, B, C, result, saturating) "
                 "('subgroup', 16, 16, 32, 's8', 's8', 's32', 's32', False), which the record does not list"),
    ("matrices", "the module uses the matrix type (scope, component, rows, cols, use)"),
])
def test_a_record_that_hides_a_matrix_operation_is_refused(s8_gemm, field, message):
    """The device's capabilities are checked against the record: one that left out the
    kernel's matrices or multiply-adds would pass a kernel the device cannot run."""
    kernels = copy.deepcopy(read_reflection(s8_gemm))
    kernels["gemm_s8_s32"][field] = []
    with pytest.raises(ReflectionError) as caught:
        checked(with_record(s8_gemm, kernels))
    assert message in str(caught.value)


MASKS = r"""
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
typedef char mA __attribute__((coop_mat(SG, 16, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef char mB __attribute__((coop_mat(SG, 32, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef int  mC __attribute__((coop_mat(SG, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void k(global char *a, global char *b, global int *c) {
  mA x = coop_mat_load(a, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)32);
  mB y = coop_mat_load(b, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  mC acc = coop_mat_load(c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  acc = coop_mat_mulAdd(x, y, acc, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED |
                                   CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED);
  acc = coop_mat_mulAdd(x, y, acc, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED |
                                   CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED |
                                   CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED |
                                   CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED);
  coop_mat_store(c, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


def test_a_mul_adds_signedness_in_the_record_is_its_operands(tmp_path):
    """SPV_KHR_cooperative_matrix: without Matrix{C,Result}SignedComponentsKHR the accumulator's
    components are unsigned, whatever its OpenCL C type: the record (which the capability check
    reads) said s32 for both calls before, so a device with only u32 results would have passed
    the first."""
    path = tmp_path / "masks.cl"
    path.write_text(MASKS)
    data = compile_vulkan(str(path))
    mul_adds = sorted((m["A"], m["B"], m["C"], m["result"]) for m in read_reflection(data)["k"]["mul_adds"])
    assert mul_adds == [("s8", "s8", "s32", "s32"), ("s8", "s8", "u32", "u32")]
    checked(data)


ENUM = r"""
typedef enum { RED = 1, GREEN = 5 } colour;
kernel void twice(global int *out, colour c) { out[get_global_id(0)] = (int)c * 2; }
"""


def test_an_enum_argument_is_passed_as_its_integer(tmp_path):
    """An enum argument had no dtype in the record, so the launch was refused ('has no dtype')."""
    import clcoop
    path = tmp_path / "enum.cl"
    path.write_text(ENUM)
    arg = read_reflection(compile_vulkan(str(path)))["twice"]["args"][1]
    assert (arg["kind"], arg["dtype"], arg["size"]) == ("scalar", "int32", 4)
    device_or_skip()
    out = np.zeros(16, np.int32)
    clcoop.Program(ENUM).build(engine="vulkan").twice(16, 16, out, 5)
    assert (out == 10).all()
