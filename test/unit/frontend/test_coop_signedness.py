"""Signedness operands of coop_mat_mulAdd (issue: the 3-argument form passed none, so signed
char data was multiplied as unsigned). Without operands the component types decide (a signed
type sets its MatrixXSigned bit, SPV_KHR_cooperative_matrix); given operands are used as given.
Expected results from NumPy."""
import warnings

import numpy as np
import pytest

import clcoop

KERNEL = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef {ab} ma __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef {ab} mb __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 32, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef {c} mc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void k(global {ab} *A, global {ab} *B, global {c} *C) {{
  ma a = coop_mat_load(A, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)32);
  mb b = coop_mat_load(B, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  mc c = coop_mat_load(C, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  c = coop_mat_mulAdd(a, b, c{operands});
  coop_mat_store(C, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}}
"""


def run(ab, c, operands, A, B, C0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", clcoop.CompilerWarning)
        prog = clcoop.Program(KERNEL.format(ab=ab, c=c, operands=operands)).build()
    C = C0.copy()
    prog.k((16,), (16,), A, B, C, subgroup_size=16)
    return C, prog.build_log


@pytest.fixture
def data():
    rng = np.random.default_rng(7)
    A = rng.integers(-128, 128, (8, 32)).astype(np.int8)
    B = rng.integers(-128, 128, (32, 16)).astype(np.int8)
    C0 = rng.integers(-1000, 1000, (8, 16)).astype(np.int32)
    return A, B, C0


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_three_argument_form_multiplies_signed_char_as_signed(data, level):
    A, B, C0 = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", clcoop.CompilerWarning)
        prog = clcoop.Program(KERNEL.format(ab="char", c="int", operands="")).build([level])
    C = C0.copy()
    prog.k((16,), (16,), A, B, C, subgroup_size=16)
    expected = A.astype(np.int64) @ B.astype(np.int64) + C0
    assert np.array_equal(C, expected.astype(np.int32))


def test_unsigned_types_stay_unsigned(data):
    A, B, C0 = (x.view(np.uint8) if x.dtype == np.int8 else x.view(np.uint32) for x in data)
    C, log = run("uchar", "uint", "", A, B, C0)
    expected = (A.astype(np.int64) @ B.astype(np.int64) + C0.astype(np.int64)) % (1 << 32)
    assert np.array_equal(C, expected.astype(np.uint32))
    assert "warning" not in log


def test_explicit_operands_are_used_exactly(data):
    A, B, C0 = data
    C, _ = run("char", "int", ", CLK_COOPERATIVE_MATRIX_OPERAND_NONE", A, B, C0)
    unsigned = A.view(np.uint8).astype(np.int64) @ B.view(np.uint8).astype(np.int64)
    # C and Result unsigned: the sum wraps modulo 2^32 and is stored as the same bits
    expected = ((unsigned + C0.view(np.uint32).astype(np.int64)) % (1 << 32)).astype(np.uint32).view(np.int32)
    assert np.array_equal(C, expected)


def test_the_three_argument_form_notes_the_pull_request(data):
    _, log = run("char", "int", "", *data)
    assert "clang's cooperative-matrix pull request (llvm/llvm-project #221328) passes 0 here" in log
    assert "[-Wcoop-portability]" in log


def test_a_signed_flag_on_an_unsigned_type_warns_and_is_honoured(data):
    A, B, C0 = (x.view(np.uint8) if x.dtype == np.int8 else x.view(np.uint32) for x in data)
    C, log = run("uchar", "uint", ", CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED", A, B, C0)
    assert ("'CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED' contradicts the unsigned component type "
            "'uchar' of matrix A: its components are read as signed") in log
    expected = (A.view(np.int8).astype(np.int64) @ B.astype(np.int64) + C0.astype(np.int64)) % (1 << 32)
    assert np.array_equal(C, expected.astype(np.uint32))
