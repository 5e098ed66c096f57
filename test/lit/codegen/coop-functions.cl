// Matrices are passed to and returned from spir_func functions by value, kept in .addr allocas,
// and merged by phis (?:).
// RUN: %clcoop %s -o - | FileCheck %s

typedef float accf __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

// CHECK-LABEL: define spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @twice(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %x)
// CHECK: %x.addr = alloca target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)
// CHECK: store target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %x, ptr %x.addr
// CHECK: ret target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %add
accf twice(accf x) { return x + x; }

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @twice(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)
// CHECK: cond.end:
// CHECK-NEXT: %cond = phi target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)
kernel void k(global float *p, int flag) {
  accf acc = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  acc = flag ? twice(acc) : acc;
  coop_mat_store(p, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
}
