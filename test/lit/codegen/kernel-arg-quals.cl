// kernel_arg_type_qual order ("restrict const volatile"), struct/enum/vector base types, as clang-22 writes them.
// RUN: %clcoop %s -o - | FileCheck %s

typedef struct S { int a; float b; } S;
typedef enum E { X, Y } E;

// CHECK: define spir_kernel void @q(ptr addrspace(1) %p, ptr addrspace(1) %s, i32 %e, i32 %u, ptr addrspace(1) %c, i32 %ci)
// CHECK-DAG: !{i32 1, i32 1, i32 0, i32 0, i32 1, i32 0}
// CHECK-DAG: !{!"int*", !"S*", !"E", !"uint", !"uchar2*", !"int"}
// CHECK-DAG: !{!"int*", !"struct S*", !"enum E", !"uint", !"uchar __attribute__((ext_vector_type(2)))*", !"int"}
// CHECK-DAG: !{!"restrict const volatile", !"", !"", !"", !"", !""}
kernel void q(global const volatile int * restrict p, global S *s, E e, uint u, global uchar2 *c, const int ci) { }
