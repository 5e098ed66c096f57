// `Aligned` on a matrix load/store through a device address is what the address proves: the
// buffer's own 16 bytes (docs/vulkan-abi.md) and offsets that are multiples of 16 bytes give 16
// (k steps by 16 halves; the row offset is a multiple of 16 rows); an offset of one element, or
// one the compiler cannot bound, gives the component size only.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s -O2 --emit-spirv --target-env=vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// CHECK-DAG: OpCooperativeMatrixLoadKHR %{{.*}} %uint_0 %{{[0-9]+}} Aligned|NonPrivatePointer 16
// CHECK-DAG: OpCooperativeMatrixLoadKHR %{{.*}} %uint_0 %{{[0-9]+}} Aligned|NonPrivatePointer 2
// CHECK-DAG: OpCooperativeMatrixStoreKHR %{{.*}} %uint_0 %{{[0-9]+}} Aligned|NonPrivatePointer 16
// CHECK-DAG: OpCooperativeMatrixStoreKHR %{{.*}} %uint_0 %{{[0-9]+}} Aligned|NonPrivatePointer 4

typedef half mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef half mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));

__kernel void k(__global const half *A, __global const half *B, __global float *C, int K, int shift)
{
    const size_t row = get_group_id(0) * 16;
    mat_c acc = coop_mat_init(0.0f);
    for (int k = 0; k < K; k += 16) {
        mat_a a = coop_mat_load(A + row * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
        mat_b b = coop_mat_load(B + 1 + k, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)K);
        acc = coop_mat_mulAdd(a, b, acc);
    }
    coop_mat_store(C + row * 16, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
    coop_mat_store(C + shift, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
