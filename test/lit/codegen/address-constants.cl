// Program-scope pointers initialized with address constants (C99 6.6p9) become constant
// expressions: clang-22 accepts these and folds them to i8 GEPs; clcoop keeps typed GEPs.
// RUN: %clcoop %s -o - | FileCheck %s

global int g[4];
constant float t[2] = {1.0f, 2.0f};
typedef struct S { int a; int b[3]; } S;
global S s;
global int *p = &g[1];
constant float *q = t;
generic int *gen = &g[0];
global int *ps = &s.b[1];
global int *p2 = g + 2;

// CHECK: @p = addrspace(1) global ptr addrspace(1) getelementptr inbounds (i32, ptr addrspace(1) @g, i64 1), align 8
// CHECK: @q = addrspace(1) global ptr addrspace(2) @t, align 8
// CHECK: @gen = addrspace(1) global ptr addrspace(4) addrspacecast (ptr addrspace(1) @g to ptr addrspace(4)), align 8
// CHECK: @ps = addrspace(1) global ptr addrspace(1) getelementptr inbounds (i32, ptr addrspace(1) getelementptr inbounds (%struct.S, ptr addrspace(1) @s, i64 0, i32 1), i64 1), align 8
// CHECK: @p2 = addrspace(1) global ptr addrspace(1) getelementptr (i32, ptr addrspace(1) @g, i64 2), align 8

kernel void k(global int *o) { o[0] = *p + *gen + *ps + *p2 + (int)q[1]; }
