// Kernel argument metadata exactly as clang-22 writes it; typedefs kept in kernel_arg_type and
// resolved in kernel_arg_base_type; reqd_work_group_size and intel_reqd_sub_group_size (issue 2 item 6).
// RUN: %clcoop %s -o - | FileCheck %s

typedef float myf;

// CHECK: define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, i32 %n, ptr addrspace(3) %l, ptr addrspace(2) %c, ptr addrspace(1) %v)
// CHECK-SAME: !kernel_arg_addr_space ![[AS:[0-9]+]] !kernel_arg_access_qual ![[AQ:[0-9]+]] !kernel_arg_type ![[TY:[0-9]+]] !kernel_arg_base_type ![[BT:[0-9]+]] !kernel_arg_type_qual ![[TQ:[0-9]+]] !reqd_work_group_size ![[WG:[0-9]+]] !intel_reqd_sub_group_size ![[SG:[0-9]+]]
// CHECK-DAG: ![[AS]] = !{i32 1, i32 1, i32 0, i32 3, i32 2, i32 1}
// CHECK-DAG: ![[AQ]] = !{!"none", !"none", !"none", !"none", !"none", !"none"}
// CHECK-DAG: ![[TY]] = !{!"myf*", !"int*", !"int", !"float*", !"float*", !"float4*"}
// CHECK-DAG: ![[BT]] = !{!"float*", !"int*", !"int", !"float*", !"float*", !"float __attribute__((ext_vector_type(4)))*"}
// CHECK-DAG: ![[TQ]] = !{!"", !"const", !"", !"", !"const", !"volatile"}
// CHECK-DAG: ![[WG]] = !{i32 64, i32 1, i32 1}
// CHECK-DAG: ![[SG]] = !{i32 16}

__attribute__((reqd_work_group_size(64, 1, 1))) __attribute__((intel_reqd_sub_group_size(16)))
kernel void k(global myf *a, global const int *b, int n, local float *l, constant float *c,
              global volatile float4 *v) {
  a[0] = b[0] + n + l[0] + c[0] + v[0].x;
}
