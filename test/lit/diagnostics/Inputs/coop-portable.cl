// The kernel of coop-portability.cl written so that clang's pull request accepts it.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef char ma __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef char mb __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 32, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef int mc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

kernel void k(global char *A, global char *B, global int *C, int n) {
  ma a = coop_mat_load(A, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)n);
  mb b = coop_mat_load(B, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  mc c = coop_mat_init(0);
  c = coop_mat_mulAdd(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED |
                                 CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED);
  coop_mat_store(C, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
