// `clcoop --emit-spirv` of fp8 (clcoop/spirv/float8.py, docs/coopmat2-semantics.md "fp8"): llc-22 writes
// the matrix components as OpTypeFloat 8 Float8E4M3EXT / Float8E5M2EXT; the rewrite declares Float8EXT,
// Float8CooperativeMatrixEXT and SPV_EXT_float8, turns each conversion call into the conversion
// instruction on the fp8 type with an OpBitcast to or from the i8 holding the bits, decorates the
// saturating ones SaturatedToLargestFloat8NormalConversionEXT, bitcasts the i8 scalar of coop_mat_init,
// and leaves no imported conversion; spirv-val 2025.5 accepts the module as emitted.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv -o %t.spv
// RUN: %spirv-val %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK-DAG: OpCapability Float8EXT
// CHECK-DAG: OpCapability Float8CooperativeMatrixEXT
// CHECK-DAG: OpExtension "SPV_EXT_float8"
// CHECK-DAG: OpDecorate %[[SAT:[0-9]+]] SaturatedToLargestFloat8NormalConversionEXT
// CHECK-DAG: %[[E4:[a-zA-Z_0-9]+]] = OpTypeFloat 8 Float8E4M3EXT
// CHECK-DAG: %[[E5:[a-zA-Z_0-9]+]] = OpTypeFloat 8 Float8E5M2EXT
// CHECK-DAG: %[[MA:[a-zA-Z_0-9]+]] = OpTypeCooperativeMatrixKHR %[[E4]] %uint_3 %uint_8 %uint_32 %{{[a-zA-Z_0-9]+}}
// CHECK-DAG: %[[MB:[a-zA-Z_0-9]+]] = OpTypeCooperativeMatrixKHR %[[E5]] %uint_3 %uint_32 %uint_16 %uint_1
// CHECK-DAG: %[[MQ:[a-zA-Z_0-9]+]] = OpTypeCooperativeMatrixKHR %[[E4]] %uint_3 %uint_8 %uint_16 %uint_2

// CHECK-LABEL: OpFunction
// CHECK: %[[T0:[0-9]+]] = OpFConvert %[[E4]] %{{[a-zA-Z_0-9]+}}
// CHECK-NEXT: OpBitcast %uchar %[[T0]]
// CHECK: %[[SAT]] = OpConvertSToF %[[E5]] %{{[a-zA-Z_0-9]+}}
// CHECK-NEXT: OpBitcast %uchar %[[SAT]]
// CHECK: %[[T1:[0-9]+]] = OpBitcast %[[E5]] %{{[a-zA-Z_0-9]+}}
// CHECK-NEXT: OpConvertFToU %uint %[[T1]]
// CHECK: OpCooperativeMatrixLoadKHR %[[MA]]
// CHECK: OpCooperativeMatrixLoadKHR %[[MB]]
// CHECK: OpCooperativeMatrixMulAddKHR
// CHECK: %[[Z:[0-9]+]] = OpBitcast %[[E4]] %{{[a-zA-Z_0-9]+}}
// CHECK-NEXT: OpCompositeConstruct %[[MQ]] %[[Z]]
// CHECK: OpFConvert %[[MQ]]
// CHECK-NOT: OpFunctionCall
// CHECK-NOT: Import

#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
#define ROW CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
typedef __fp8_e4m3 mat_a __attribute__((coop_mat(SG, 8, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef __fp8_e5m2 mat_b __attribute__((coop_mat(SG, 32, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef __fp8_e4m3 mat_q __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

kernel void scalars(global float *f, global int *i, global __fp8_e4m3 *e4, global __fp8_e5m2 *e5, global uint *u) {
  e4[0] = (__fp8_e4m3)f[0];
  e5[0] = convert___fp8_e5m2_sat(i[0]);
  u[0] = convert_uint(e5[1]);
}

kernel void mm(global __fp8_e4m3 *a, global __fp8_e5m2 *b, global __fp8_e4m3 *q) {
  mat_a ma = coop_mat_load(a, ROW, (size_t)32);
  mat_b mb = coop_mat_load(b, ROW, (size_t)16);
  mat_c mc = coop_mat_mulAdd(ma, mb, (mat_c)coop_mat_init(0.0f));
  mat_q zero = coop_mat_init((__fp8_e4m3)0.0f);
  coop_mat_store(q, zero, ROW, (size_t)16);
  coop_mat_store(q, (mat_q)mc, ROW, (size_t)16);
}
