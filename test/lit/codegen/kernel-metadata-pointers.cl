// Kernel argument metadata for pointers to pointers (allowed in OpenCL C 3.0 when every level
// is __global/__constant/__local) and for anonymous structs named by a typedef, exactly as
// clang-22 writes it: the inner pointer keeps its address space ("__global int **"), and
// `typedef struct { ... } S` names the struct S (%struct.S, "S*").
// RUN: %clcoop %s -o - | FileCheck %s
// RUN: not %clcoop %s -fsyntax-only -DBAD 2>&1 | FileCheck %s --check-prefix=BAD

typedef struct { int a; float b; } S;

// CHECK: %struct.S = type { i32, float }
// CHECK: define spir_kernel void @k(ptr addrspace(1) %pp, ptr addrspace(3) %q, ptr addrspace(1) %s, ptr addrspace(1) %o)
// Type and base type are the same here, so LLVM keeps one node for both.
// CHECK-SAME: !kernel_arg_type ![[TY:[0-9]+]] !kernel_arg_base_type ![[TY]]
// CHECK: ![[TY]] = !{!"__global int **", !"__constant int **", !"S*", !"int*"}
kernel void k(global int * global * pp, constant int * local * q, global S *s, global int *o) {
  S copy = *s;
  o[0] = **pp + (int)copy.b + (int[]){5, 6}[1];
}

#ifdef BAD
// BAD: kernel-metadata-pointers.cl:22:32: error: pointer arguments to kernel functions must reside in '__global', '__constant' or '__local' address space
kernel void bad(int * global * pp) {}
#endif
