// `clcoop --emit-spirv` of the NV2 use conversions and transpose (clcoop/spirv/coop2.py): accumulator -> A
// is OpCooperativeMatrixConvertNV, a conversion that changes use and component type is OpFConvert, a
// transpose into B is OpCooperativeMatrixTransposeNV; CooperativeMatrixConversionsNV and
// SPV_NV_cooperative_matrix2 are declared, and spirv-val accepts the module. (The EXT directions, which
// the 2025.5 tools do not know, are tested in test/unit/spirv/test_spirv_coop2.py.)
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv -o %t.spv
// RUN: %spirv-val %t.spv
// RUN: %spirv-link %t.spv -o %t.linked.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK-DAG: OpCapability CooperativeMatrixConversionsNV
// CHECK-DAG: OpExtension "SPV_NV_cooperative_matrix2"
// CHECK: %[[ACC:[a-zA-Z_0-9]+]] = OpTypeCooperativeMatrixKHR %float %uint_3 %uint_8 %uint_16 %uint_2
// CHECK: %[[A:[a-zA-Z_0-9]+]] = OpTypeCooperativeMatrixKHR %float %uint_3 %uint_8 %uint_16 %{{[0-9]+}}
// CHECK: %[[HA:[a-zA-Z_0-9]+]] = OpTypeCooperativeMatrixKHR %half %uint_3 %uint_8 %uint_16 %{{[0-9]+}}
// CHECK: %[[TB:[a-zA-Z_0-9]+]] = OpTypeCooperativeMatrixKHR %float %uint_3 %uint_16 %uint_8 %uint_1
// CHECK: OpCooperativeMatrixConvertNV %[[A]]
// CHECK: OpFConvert %[[HA]]
// CHECK: OpCooperativeMatrixTransposeNV %[[TB]]
// CHECK-NOT: OpFunctionCall

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
#define ROW CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
typedef float acc_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float a_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef half ah_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float tb_t __attribute__((coop_mat(SG, 16, 8, CLK_COOPERATIVE_MATRIX_B)));

kernel void k(global float *p, global half *q) {
  acc_t c = coop_mat_load(p, ROW, (size_t)16);
  a_t a = (a_t)c;
  ah_t h = (ah_t)c;
  tb_t t = coop_mat_transpose(c);
  coop_mat_store(p, a, ROW, (size_t)16);
  coop_mat_store(q, h, ROW, (size_t)16);
  coop_mat_store(p, t, ROW, (size_t)8);
}
