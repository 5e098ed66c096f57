// Program-scope constant initializers with infinities and NaNs (pocl's common.cl): INFINITY,
// HUGE_VALF, 1.0f/0.0f and 0.0f/0.0f fold to IEEE values exactly as clang-22 folds them.
// NAN (as_float of a constant in clcoop's header) folds too; clang-22 rejects its own NAN
// (as_float(INT_MAX)) here, and as_uint(1.0f) too; clcoop folds both. NAN is clang's bit
// pattern, 0x7fffffff (not 0x7fc00000), in initializers and in code (OpenCL-CTS
// test_numeric_constants stores it).
// RUN: %clcoop %s -o - | FileCheck %s
// RUN: %if clang %{ sed -e 's/ NAN,//' -e 's/as_uint(1.0f)/1065353216u/' %s | %clang -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 -finclude-default-header -emit-llvm -O0 -x cl - -o - | FileCheck %s --check-prefix=CLANG %}
constant float v[] = { INFINITY, -INFINITY, NAN, 0.0f/0.0f, 1.0f/0.0f, HUGE_VALF, MAXFLOAT };
constant double dv[] = { 0.0/0.0, -1.0/0.0 };
constant uint bits = as_uint(1.0f);
kernel void k(global float *o, global double *d) { o[0] = v[0] + dv[0] + bits; o[1] = NAN; }
// CHECK: @v = addrspace(2) constant [7 x float] [float 0x7FF0000000000000, float 0xFFF0000000000000, float 0x7FFFFFFFE0000000, float 0x7FF8000000000000, float 0x7FF0000000000000, float 0x7FF0000000000000, float 0x47EFFFFFE0000000], align 4
// CHECK: @dv = addrspace(2) constant [2 x double] [double 0x7FF8000000000000, double 0xFFF0000000000000], align 8
// CHECK: @bits = addrspace(2) constant i32 1065353216, align 4
// CLANG: @v = addrspace(2) constant [6 x float] [float 0x7FF0000000000000, float 0xFFF0000000000000, float 0x7FF8000000000000, float 0x7FF0000000000000, float 0x7FF0000000000000, float 0x47EFFFFFE0000000], align 4
// CLANG: @dv = addrspace(2) constant [2 x double] [double 0x7FF8000000000000, double 0xFFF0000000000000], align 8
// CLANG: @bits = addrspace(2) constant i32 1065353216, align 4
// CHECK: %astype = bitcast i32 2147483647 to float
// CHECK: store float %astype, ptr addrspace(1)
// CLANG: store float 0x7FFFFFFFE0000000, ptr addrspace(1)
