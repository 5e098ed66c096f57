"""undef and poison values run: the interpreter reads them as zero (docs/ir-conventions.md).

The issue: an uninitialized matrix, stored or used as an accumulator only assigned when
K > 0, ended at -O2 in `internal: matrix value of shape () does not match MatrixLayout`.
Expected results come from NumPy, not from the interpreter.
"""
import warnings

import numpy as np
import pytest

import clcoop

HEADER = """
typedef float mc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float ma __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float mb __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
"""

STORE_UNINITIALIZED = HEADER + """
kernel void k(global float *C) {
    mc c;
    coop_mat_store(C, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""

ACCUMULATE_WHEN_K = HEADER + """
kernel void k(global const float *A, global const float *B, global float *C, int K) {
    mc acc;
    for (int k = 0; k < K; k += 16) {
        ma a = coop_mat_load(A + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
        mb b = coop_mat_load(B + (size_t)k * 16, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
        if (k == 0) { mc zero = coop_mat_init(0.0f); acc = coop_mat_mulAdd(a, b, zero); }
        else acc = coop_mat_mulAdd(a, b, acc);
    }
    coop_mat_store(C, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


def build(source, level):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", clcoop.CompilerWarning)
        return clcoop.Program(source).build([level])


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_store_of_uninitialized_matrix_writes_zeros(level):
    C = np.full((8, 16), 7.0, np.float32)
    build(STORE_UNINITIALIZED, level).k((16,), (16,), C, subgroup_size=16)
    assert np.array_equal(C, np.zeros((8, 16), np.float32))


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("K", [0, 32])
def test_accumulator_assigned_only_when_k_positive(level, K):
    rng = np.random.default_rng(1)
    A = rng.standard_normal((8, max(K, 16))).astype(np.float32)
    B = rng.standard_normal((max(K, 16), 16)).astype(np.float32)
    C = np.full((8, 16), 7.0, np.float32)
    build(ACCUMULATE_WHEN_K, level).k((16,), (16,), A, B, C, K, subgroup_size=16)
    expected = A[:, :K] @ B[:K] if K else np.zeros((8, 16), np.float32)
    assert np.allclose(C, expected, atol=1e-4)


UNDEF_IR = """
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"

declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), i32, i64)

define spir_kernel void @k(ptr addrspace(1) %C, ptr addrspace(1) %V, ptr addrspace(1) %S) {
entry:
  tail call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %C, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) poison, i32 0, i64 16)
  %v = insertelement <4 x i32> poison, i32 5, i64 1
  store <4 x i32> %v, ptr addrspace(1) %V, align 16
  %s = add i32 undef, 3
  store i32 %s, ptr addrspace(1) %S, align 4
  ret void
}
"""


def test_poison_and_undef_matrix_vector_scalar_read_as_zero():
    C = np.full((8, 16), 7.0, np.float32)
    V = np.full(4, 9, np.int32)
    S = np.full(1, 9, np.int32)
    clcoop.Program.from_ir(UNDEF_IR).k((16,), (16,), C, V, S, subgroup_size=16)
    assert np.array_equal(C, np.zeros((8, 16), np.float32))
    assert V.tolist() == [0, 5, 0, 0]
    assert S.tolist() == [3]
