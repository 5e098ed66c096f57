// __bf16 as clang-22 lowers it for spir64 (-cc1 -triple spir64 -cl-std=CL3.0 -O0): LLVM bfloat, mangled
// DF16b, arithmetic in bfloat, conversions by fpext/fptrunc/sitofp/fptosi, __bf16 <-> half through float,
// constants 0xR folded with one rounding (1 + 2^-8 is a tie: 0xR3F80), half + __bf16 is half; matrices
// of __bf16 name DF16b in their callees.
// RUN: %clcoop %s -o - | FileCheck %s

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable

// CHECK-LABEL: define spir_func bfloat @add(bfloat %a, bfloat %b)
// CHECK: %add = fadd bfloat
__bf16 add(__bf16 a, __bf16 b) { return a + b; }

// CHECK-LABEL: define spir_func float @widen(bfloat %a)
// CHECK: fpext bfloat %{{.*}} to float
float widen(__bf16 a) { return a; }

// CHECK-LABEL: define spir_func bfloat @narrow(double %x)
// CHECK: fptrunc double %{{.*}} to bfloat
__bf16 narrow(double x) { return (__bf16)x; }

// CHECK-LABEL: define spir_func i32 @to_int(bfloat %x)
// CHECK: fptosi bfloat %{{.*}} to i32
int to_int(__bf16 x) { return (int)x; }

// CHECK-LABEL: define spir_func bfloat @from_int(i32 %x)
// CHECK: sitofp i32 %{{.*}} to bfloat
__bf16 from_int(int x) { return x; }

// CHECK-LABEL: define spir_func half @mixed(half %a, bfloat %b)
// CHECK: %fpext = fpext bfloat %{{.*}} to float
// CHECK-NEXT: %fptrunc = fptrunc float %fpext to half
// CHECK-NEXT: fadd half
half mixed(half a, __bf16 b) { return a + b; }

// CHECK-LABEL: define spir_func bfloat @twice(bfloat %a)
// CHECK: fmul bfloat %{{.*}}, 0xR4000
__bf16 twice(__bf16 a) { return a * 2; }

// A __bf16 printf argument is passed as it is, as clang-22 does (no promotion to double).
// CHECK-LABEL: define spir_func void @show(bfloat %x)
// CHECK: call spir_func i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @.str, bfloat %{{.*}})
void show(__bf16 x) { printf("%f\n", x); }

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: store bfloat 0xR3FC0
// CHECK: store bfloat 0xR3F80
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", bfloat, 3, 8, 16, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIDF16bLi3ELi8ELi16ELi0EEvPU3AS1DF16bim(
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", bfloat, 3, 8, 16, 2) @_Z16__spirv_FConvertIDF16bLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(
// CHECK: !{!"__bf16*", !"float*"}
typedef __bf16 bA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float fC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef __bf16 bC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
kernel void k(global __bf16 *p, global float *q) {
  __bf16 z = 1.5;
  p[0] = z;
  p[1] = 1.00390625;
  bA a = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  fC c = coop_mat_load(q, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(p, (bC)c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(p, a, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
