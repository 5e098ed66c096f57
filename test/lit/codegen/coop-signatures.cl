// Every distinct signature gets its own callee (llc-22 trusts a callee's declared type): pointer
// address space and pointee, component signedness, shape, use. cv-qualifiers are dropped from the
// mangled pointer; the pointee may differ from the component type (stride counts pointee elements).
// RUN: %clcoop %s -o - | FileCheck %s

#define SG CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP
typedef char  mA __attribute__((coop_mat(SG, 8, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef uchar mAu __attribute__((coop_mat(SG, 8, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef char  mB __attribute__((coop_mat(SG, 32, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef int   mC __attribute__((coop_mat(SG, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi({{.*}}, i32 3)
// CHECK-DAG: declare spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIcLi3ELi8ELi32ELi0EEvPU3AS1cim(ptr addrspace(1), i32, i64)
// CHECK-DAG: declare spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIhLi3ELi8ELi32ELi0EEvPU3AS1cim(ptr addrspace(1), i32, i64)
// CHECK-DAG: declare spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIcLi3ELi8ELi32ELi0EEvPU3AS3cim(ptr addrspace(3), i32, i64)
// CHECK-DAG: declare spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) @_Z32__spirv_CooperativeMatrixLoadKHRIcLi3ELi32ELi16ELi1EEvPU3AS1iim(ptr addrspace(1), i32, i64)
// CHECK-DAG: declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(
// CHECK-DAG: declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), i32, i64)
kernel void k(global char *a, global const int *b, global int *c, local char *l) {
  mA x = coop_mat_load(a, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 32);
  mAu xu = coop_mat_load(a, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 32);
  mA xl = coop_mat_load(l, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 32);
  mB y = coop_mat_load(b, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 4);
  mC acc = coop_mat_init(0);
  acc = coop_matmul_add(x, y, acc, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED);
  coop_mat_store(a, xu, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 32);
  acc = coop_mat_mulAdd(xl, y, acc);
  coop_mat_store(c, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
}
