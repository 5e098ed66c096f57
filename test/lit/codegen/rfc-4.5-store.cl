// RFC section 4.5, coop_mat_store.
// RUN: %clcoop %s -o - | FileCheck %s
//
// RFC text:
//   %1 = load target("spirv.CooperativeMatrixKHR", half, 2, 4, 0, 0), ptr %m
//   call void @_Z33__spirv_CooperativeMatrixStoreKHR(ptr %2, target("spirv.CooperativeMatrixKHR", half, 2, 4, 0, 0) %1, i32 0, i32 3)
// Deviations: scope in the type (3, 2, 4, 0); spir_func call; template tail and mangled pointer in
// the name; size_t stride (i64). Unlike the RFC, clcoop loads the pointer before the matrix
// (arguments are evaluated left to right, as clang does). The RFC stores an uninitialized m;
// here m is loaded first so the stored value is defined.

typedef half matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 2, 4, CLK_COOPERATIVE_MATRIX_A)));

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: store target("spirv.CooperativeMatrixKHR", half, 3, 2, 4, 0) %call, ptr %m
// CHECK-NEXT: %[[P:[0-9]+]] = load ptr addrspace(1), ptr %A.addr
// CHECK-NEXT: %[[M:[0-9]+]] = load target("spirv.CooperativeMatrixKHR", half, 3, 2, 4, 0), ptr %m
// CHECK-NEXT: call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIDhLi3ELi2ELi4ELi0EEvPU3AS1Dhim(ptr addrspace(1) %[[P]], target("spirv.CooperativeMatrixKHR", half, 3, 2, 4, 0) %[[M]], i32 0, i64 3)
kernel void k(global half *A) {
  matA m = coop_mat_load(A, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 4);
  coop_mat_store(A, m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 3);
}
