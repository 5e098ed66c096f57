// `extern` declarations of functions and program-scope variables (C99 6.9.2), defined later in
// the file: one global, as clang-22 emits it; an extern never used needs no definition.
// RUN: %clcoop %s -o - | FileCheck %s
extern int helper(int);
extern constant int table[4];
extern global int unused;
extern constant int table[4];
constant int table[4] = {1, 2, 3, 4};
int helper(int x) { return x + table[x]; }
kernel void k(global int *o) { o[0] = helper(table[1]); }
// CHECK: @table = addrspace(2) constant [4 x i32] [i32 1, i32 2, i32 3, i32 4], align 4
// CHECK-NOT: @unused
// CHECK: define spir_func i32 @helper(i32 %x)
// CHECK: getelementptr inbounds [4 x i32], ptr addrspace(2) @table, i64 0, i64 1
