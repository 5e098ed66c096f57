"""A context-typed matrix built-in (coop_mat_init, coop_mat_load, coop_tensor_view_create)
takes its type from the other matrix operand of + - * / and of a compound assignment, from
a mul-add's result type for its accumulator, and from a cast: compiled by clcoop and run in
both engines against NumPy. Where nothing gives the type, the pull request's error stays
(test/lit/diagnostics/coop-builtin-context.cl)."""
import numpy as np
import pytest

import clcoop

RNG = np.random.default_rng(26)

KERNELS = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#define ROW CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
typedef float mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t L2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
typedef coop_tensor_view_t V2 __attribute__((coop_tensor_view(2, false, 1, 0)));

kernel void k(global float *A, global float *B, global float *C, global float *out, float x) {
  mat_a a = coop_mat_load(A, ROW, (size_t)16);
  mat_b b = coop_mat_load(B, ROW, (size_t)16);
  mat_c c = coop_mat_mulAdd(a, b, coop_mat_init(0.0f));          /* A B */
  c += coop_mat_init(x);                                         /* A B + x */
  c = coop_mat_init(2.0f) * c - coop_mat_load(C, ROW, (size_t)16);  /* 2 (A B + x) - C */
  c = c / coop_mat_init(4.0f) + 3.0f * coop_mat_init(1.0f);      /* ... / 4 + 3 */
  coop_mat_store(out, c, ROW, (size_t)16);
}

kernel void transposed(global float *src, global float *out) {
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 16, 8);
  mat_c m = coop_mat_load_tensor(src, t, (V2)coop_tensor_view_create());
  coop_mat_store(out, m, ROW, (size_t)16);
}
"""


@pytest.mark.parametrize("engine", ["interp", "native"])
def test_context_typed_operands_match_numpy(engine):
    A = RNG.integers(-4, 5, (8, 16)).astype(np.float32)
    B = RNG.integers(-4, 5, (16, 16)).astype(np.float32)
    C = RNG.integers(-50, 50, (8, 16)).astype(np.float32)
    out = np.zeros((8, 16), np.float32)
    program = clcoop.Program(KERNELS).build(engine=engine)
    program.k((16,), (16,), A, B, C, out, np.float32(1.5), subgroup_size=16)
    expected = (2 * (A.astype(np.float64) @ B + 1.5) - C) / 4 + 3       # exact in float32
    np.testing.assert_array_equal(out, expected)


def test_a_cast_types_a_view_passed_as_an_argument():
    src = RNG.standard_normal((16, 8)).astype(np.float32)
    out = np.zeros((8, 16), np.float32)
    clcoop.Program(KERNELS).build().transposed((16,), (16,), src, out, subgroup_size=16)
    np.testing.assert_array_equal(out, src.T)
