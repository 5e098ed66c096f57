// Use conversions by cast (NV2 OpCooperativeMatrixConvertNV, EXT ConvertUseEXT) and coop_mat_transpose
// (docs/ir-conventions.md): only the use changes -> __spirv_CooperativeMatrixConvertNV; use and component
// type change -> the usual __spirv_*Convert with the new type; transpose -> __spirv_CooperativeMatrixTransposeNV
// with the result (B: NV, A: EXT) first. Mixed signedness of A and B is a plain mul-add.
// RUN: %clcoop %s -o - | FileCheck %s

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
typedef float acc_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float a_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef half ah_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float tb_t __attribute__((coop_mat(SG, 16, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef float ta_t __attribute__((coop_mat(SG, 16, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef uchar ua_t __attribute__((coop_mat(SG, 8, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef char sb_t __attribute__((coop_mat(SG, 32, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef int ic_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int ia_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef uint ua16_t __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_A)));

// CHECK-LABEL: define spir_func void @uses
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 0) @_Z34__spirv_CooperativeMatrixConvertNVIfLi3ELi8ELi16ELi0EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixConvertNVIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi0EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 0)
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 0) @_Z16__spirv_FConvertIDhLi3ELi8ELi16ELi0EfLi3ELi8ELi16ELi2EEv(
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 0) @_Z34__spirv_CooperativeMatrixConvertNVIjLi3ELi8ELi16ELi0EiLi3ELi8ELi16ELi2EEv(
void uses(acc_t c, ic_t ci, global float *p) {
  a_t a = (a_t)c;
  acc_t back = (acc_t)a;
  ah_t h = (ah_t)c;
  ua16_t u = (ua16_t)ci;
}

// CHECK-LABEL: define spir_func void @transposes
// CHECK: %transpose = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 8, 1) @_Z36__spirv_CooperativeMatrixTransposeNVIfLi3ELi16ELi8ELi1EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 8, 0) @_Z36__spirv_CooperativeMatrixTransposeNVIfLi3ELi16ELi8ELi0EfLi3ELi8ELi16ELi2EEv(
void transposes(acc_t c) {
  tb_t b = coop_mat_transpose(c);
  ta_t a = coop_mat_transpose(c);
}

// uchar A x char B: the callee keeps both signednesses; the 3-argument form sets B, C and Result signed (2|4|8).
// CHECK-LABEL: define spir_func void @mixed
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EhLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi({{.*}}, i32 14)
// CHECK: call spir_func {{.*}}MulAddKHR{{.*}}, i32 1)
void mixed(ua_t a, sb_t b, ic_t c) {
  c = coop_mat_mulAdd(a, b, c);
  c = coop_mat_mulAdd(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED);
}
