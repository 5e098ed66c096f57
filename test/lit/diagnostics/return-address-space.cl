// A function's return type has no address space (OpenCL C 3.0 6.7), also through a
// typedef; a pointer to a named address space is fine. clang-22's error and wording.
// RUN: not %clcoop %s -fsyntax-only 2>&1 | FileCheck %s

// CHECK: return-address-space.cl:6:14: error: return type cannot be qualified with address space
__global int returns_global(void);
constant int *fine(void);
typedef __local int local_int;
// CHECK: return-address-space.cl:10:11: error: return type cannot be qualified with address space
local_int returns_local(void);
// CHECK: return-address-space.cl:12:16: error: return type cannot be qualified with address space
__constant int returns_constant(void) { return 1; }
kernel void k(global int *o) { o[0] = 1; }
// CHECK: 3 errors generated.
