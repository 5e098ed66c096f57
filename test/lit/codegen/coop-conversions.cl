// Casts between matrix types (SPV_KHR_cooperative_matrix 3.42.11; choice rules in docs/ir-conventions.md):
// the result matrix comes first in the template args; same LLVM component type -> no call.
// RUN: %clcoop %s -o - | FileCheck %s

#define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
#define ACC CLK_COOPERATIVE_MATRIX_ACCUMULATOR
typedef float  accf __attribute__((coop_mat(SG, 8, 16, ACC)));
typedef half   acch __attribute__((coop_mat(SG, 8, 16, ACC)));
typedef int    acci __attribute__((coop_mat(SG, 8, 16, ACC)));
typedef uint   accu __attribute__((coop_mat(SG, 8, 16, ACC)));
typedef char   accc __attribute__((coop_mat(SG, 8, 16, ACC)));
typedef uchar  accuc __attribute__((coop_mat(SG, 8, 16, ACC)));

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) @_Z16__spirv_FConvertIDhLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(
// CHECK: @_Z19__spirv_ConvertFToSIiLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(
// CHECK: @_Z19__spirv_ConvertFToUIjLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(
// CHECK: @_Z19__spirv_ConvertSToFIfLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(
// CHECK: @_Z19__spirv_ConvertUToFIfLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(
// CHECK: @_Z16__spirv_SConvertIiLi3ELi8ELi16ELi2EcLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2)
// CHECK: @_Z16__spirv_UConvertIiLi3ELi8ELi16ELi2EhLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2)
// int <-> uint: same LLVM type, the value is reused (no conversion call).
// CHECK: %[[I:[0-9]+]] = load target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), ptr %i
// CHECK-NEXT: store target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %[[I]], ptr %u2
kernel void k(global float *p, global char *q) {
  accf f = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  acch h = (acch)f;
  acci i = (acci)f;
  accu u = (accu)f;
  accf f2 = (accf)i;
  accf f3 = (accf)u;
  accc c = coop_mat_load(q, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  accuc uc = coop_mat_load(q, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  acci i2 = (acci)c;
  acci i3 = (acci)uc;
  accu u2 = (accu)i;
}
