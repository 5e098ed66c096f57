// m[i] reads and writes go through __spirv_AccessChain(ptr m.addr, size_t i) and a plain
// load/store of the component; coop_mat_length is __spirv_CooperativeMatrixLengthKHR (i32).
// RUN: %clcoop %s -o - | FileCheck %s --check-prefixes=CHECK,SPIR64
// RUN: %clcoop -triple spir-unknown-unknown %s -o - | FileCheck %s --check-prefixes=CHECK,SPIR32

typedef float accf __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: %[[M:[0-9]+]] = load target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), ptr %acc
// CHECK-NEXT: %[[LEN:call[0-9]*]] = call spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %[[M]])
// CHECK-NEXT: icmp ult i32 %{{[0-9]+}}, %[[LEN]]
// SPIR64: %[[R:arrayidx[0-9]*]] = call spir_func ptr @_Z19__spirv_AccessChainIfLi3ELi8ELi16ELi2EEvPvm(ptr %acc, i64 %{{.*}})
// SPIR32: %[[R:arrayidx[0-9]*]] = call spir_func ptr @_Z19__spirv_AccessChainIfLi3ELi8ELi16ELi2EEvPvj(ptr %acc, i32 %{{.*}})
// CHECK-NEXT: %[[V:[0-9]+]] = load float, ptr %[[R]], align 4
// CHECK-NEXT: %[[S:mul[0-9]*]] = fmul float %[[V]], 2.000000e+00
// CHECK: %[[W:arrayidx[0-9]*]] = call spir_func ptr @_Z19__spirv_AccessChainIfLi3ELi8ELi16ELi2EEv
// CHECK-NEXT: store float %[[S]], ptr %[[W]], align 4
kernel void k(global float *p) {
  accf acc = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  for (uint i = 0; i < coop_mat_length(acc); i++)
    acc[i] = acc[i] * 2.0f;
  coop_mat_store(p, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
}
