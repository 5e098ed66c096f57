// -Wcoop-portability (on by default): each place where clang's cooperative-matrix pull request
// (llvm/llvm-project #221328) rejects what clcoop accepts, in the wording of its Sema tests:
// the extension pragma is missing, a stride is not a size_t, the pointee is not the component type;
// and the 3-argument coop_mat_mulAdd on signed integer matrices, where clcoop derives the
// signedness operands from the component types but the pull request passes 0.
// RUN: %clcoop -fsyntax-only %s 2>&1 | FileCheck %s
// RUN: %clcoop -fsyntax-only -Wno-coop-portability %s 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// RUN: %not %clcoop -fsyntax-only -Werror=coop-portability %s 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: %clcoop -fsyntax-only %S/Inputs/coop-portable.cl 2>&1 | FileCheck %s --allow-empty --check-prefix=CLEAN

typedef char ma __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef char mb __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 32, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef int mc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

kernel void k(global char *A, global int *B, global int *C, int n) {
  ma a = coop_mat_load(A, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, n);
  mb b = coop_mat_load(B, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)4);
  mc c = coop_mat_init(0);
  c = coop_mat_mulAdd(a, b, c);
  coop_mat_store(C, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}

// CHECK: coop-portability.cl:11:32: warning: use of type 'ma' requires cl_khr_cooperative_matrix support [-Wcoop-portability]
// CHECK: note: add '#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable' before it; clang's cooperative-matrix pull request (llvm/llvm-project #221328) rejects the type without it
// CHECK-NOT: requires cl_khr_cooperative_matrix
// CHECK: coop-portability.cl:16:68: warning: stride argument must have type 'size_t' [-Wcoop-portability]
// CHECK: note: 'int' is converted to 'size_t' here
// CHECK: coop-portability.cl:17:24: warning: inconsistent between cooperative matrix element type and buffer pointer type [-Wcoop-portability]
// CHECK: coop-portability.cl:19:7: warning: 'coop_mat_mulAdd' without operands multiplies these signed components as signed; clang's cooperative-matrix pull request (llvm/llvm-project #221328) passes 0 here (every component unsigned) [-Wcoop-portability]
// CHECK: note: pass the operands to get the same result with both compilers: CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED
// CHECK: 4 warnings generated.
// QUIET-NOT: warning
// ERROR: coop-portability.cl:11:32: error: use of type 'ma' requires cl_khr_cooperative_matrix support [-Werror,-Wcoop-portability]
// ERROR: 4 errors generated.
// CLEAN-NOT: warning
