// At -O2 the matrix calls stay calls (convergent, may touch memory) and the accumulator lives in phis.
// RUN: %clcoop -O2 %s -o - | FileCheck %s

typedef float mA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float mB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float mC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

// CHECK-LABEL: define spir_kernel void @k(
// CHECK-NOT: alloca
// CHECK: phi target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHR
// CHECK: call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHR
// CHECK: declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHR{{.*}} #[[A:[0-9]+]]
// CHECK: attributes #[[A]] = { convergent nounwind }
kernel void k(global float *A, global float *B, global float *C, int K) {
  mC acc = coop_mat_init(0.0f);
  for (int k = 0; k < K; k += 16) {
    mA a = coop_mat_load(A + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, K);
    mB b = coop_mat_load(B + k * 16, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
    acc = coop_mat_mulAdd(a, b, acc);
  }
  coop_mat_store(C, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
}
