// vec_type_hint(<type>) (OpenCL C 3.0 6.11.2) takes a type; the kernel gets clang-22's
// !vec_type_hint metadata: a poison value of the type and 1 for a signed integer type.
// RUN: %clcoop %s -o - | FileCheck %s
// RUN: %if clang %{ %clang -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 -finclude-default-header -emit-llvm -O0 %s -o - | FileCheck %s %}
kernel void k(global int *o) __attribute__((vec_type_hint(int))) {}
kernel void __attribute__((vec_type_hint(uint2))) k2(global int *o) {}
__attribute__((vec_type_hint(double8))) kernel void k3(global int *o) {}
// CHECK: define {{.*}}spir_kernel void @k(ptr addrspace(1) {{.*}}!vec_type_hint [[K:![0-9]+]]
// CHECK: define {{.*}}spir_kernel void @k2(ptr addrspace(1) {{.*}}!vec_type_hint [[K2:![0-9]+]]
// CHECK: define {{.*}}spir_kernel void @k3(ptr addrspace(1) {{.*}}!vec_type_hint [[K3:![0-9]+]]
// CHECK-DAG: [[K]] = !{i32 poison, i32 1}
// CHECK-DAG: [[K2]] = !{<2 x i32> poison, i32 0}
// CHECK-DAG: [[K3]] = !{<8 x double> poison, i32 0}
