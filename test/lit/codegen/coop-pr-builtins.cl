// The pull request's spellings: coop_mat_init (splat = __spirv_CompositeConstruct, scalar converted
// to the component type), coop_mat_mulAdd with the operands defaulting to 0, coop_mat_length;
// memory_scope_sub_group maps to SPIR-V Subgroup (3). Pointers in every address space.
// RUN: %clcoop %s -o - | FileCheck %s

typedef half  mA __attribute__((coop_mat(memory_scope_sub_group, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef half  mB __attribute__((coop_mat(memory_scope_sub_group, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float mC __attribute__((coop_mat(memory_scope_sub_group, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z26__spirv_CompositeConstructIfLi3ELi8ELi16ELi2EEvf(float 1.000000e+00)
// CHECK: @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi8ELi16ELi0EEvPU3AS3Dhim(ptr addrspace(3)
// CHECK: @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi16ELi16ELi1EEvPU3AS4Dhim(ptr addrspace(4)
// CHECK: @_Z34__spirv_CooperativeMatrixMulAddKHRIfLi3ELi8ELi16ELi2EDhLi3ELi8ELi16ELi0EDhLi3ELi16ELi16ELi1EfLi3ELi8ELi16ELi2EEvi({{.*}}, i32 0)
// CHECK: call spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIfLi3ELi8ELi16ELi2EEv(
// CHECK: @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPfim(ptr %arraydecay
kernel void k(local half *la, global half *gb, global int *n) {
  mC acc = coop_mat_init(1);
  generic half *b = gb;
  mA a = coop_mat_load(la, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  mB bb = coop_mat_load(b, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  acc = coop_mat_mulAdd(a, bb, acc);
  n[0] = coop_mat_length(acc);
  float tmp[128];
  coop_mat_store(tmp, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
}
