// Two function-scope statics with one name in different blocks are two objects, named as
// clang-22 names them (f.x, f.x.1); the second used to crash the IR builder with a
// Python traceback (OpenCL-CTS basic progvar_func_scope).
// RUN: %clcoop %s -o - | FileCheck %s

// CHECK: @bump.persistent = internal addrspace(1) global i32 5
// CHECK: @bump.persistent.1 = internal addrspace(1) global i32 100
// CHECK-LABEL: define {{.*}}@bump
// CHECK: load i32, ptr addrspace(1) @bump.persistent,
// CHECK: load i32, ptr addrspace(1) @bump.persistent.1,
kernel void bump(global int *value, int which) {
  if (which) {
    static global int persistent = 5;
    *value = persistent++;
  } else {
    static int persistent = 100;
    *value = persistent++;
  }
}
