// Matrices live in private storage only: not at program scope, not in __local/__global/__constant,
// no pointers to them, no arrays of them, no address-of.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));

matA program_scope;

kernel void k(global float *p) {
  local matA in_local;
  matA ok;
  matA *ptr;
  matA arr[2];
  void *addr = &ok;
}

// CHECK: {{.*}}coop-storage.cl:7:6: error: cooperative matrix type cannot be declared at program scope
// CHECK: {{.*}}coop-storage.cl:10:14: error: cooperative matrix type cannot be declared in the '__local' address space
// CHECK: {{.*}}coop-storage.cl:12:9: error: pointer to cooperative matrix type is not allowed
// CHECK: {{.*}}coop-storage.cl:13:8: error: array of cooperative matrix type is not supported
// CHECK: {{.*}}coop-storage.cl:14:16: error: cannot take the address of a cooperative matrix
// CHECK: 5 errors generated.
