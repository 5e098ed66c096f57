// __fp8_e4m3 / __fp8_e5m2 (SPV_EXT_float8, docs/coopmat2-semantics.md "fp8"): a scalar is an i8 of bits,
// mangled as a vendor type (u10__fp8_e4m3); every conversion is a call named as the
// SPIRV-LLVM-Translator names it (__builtin_spirv_Convert<S>To<D>EXT, saturating
// __builtin_spirv_ClampConvert<S>To<D>INTEL), an fp8 parameter mangled c; a matrix component is the
// inline type OpTypeFloat 8 <encoding> (4214 E4M3, 4215 E5M2), named u10__fp8_e4m3 in callees.
// RUN: %clcoop %s -o - | FileCheck %s

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable

// A program-scope initializer folds the conversion to the pattern: 1.0 is 0x38 ('8'), 1e6 saturates
// to 448 (0x7E, '~'), -2.5 is 0xC2.
// CHECK: @folded = addrspace(2) constant [3 x i8] c"8~\C2"
constant __fp8_e4m3 folded[3] = {(__fp8_e4m3)1.0f, convert___fp8_e4m3_sat(1e6f), (__fp8_e4m3)-2.5};

// CHECK-LABEL: define spir_func i8 @from_float(float %x)
// CHECK: call spir_func i8 @_Z36__builtin_spirv_ConvertFP32ToE4M3EXTf(float
__fp8_e4m3 from_float(float x) { return (__fp8_e4m3)x; }

// CHECK-LABEL: define spir_func i8 @sat_from_half(half %x)
// CHECK: call spir_func i8 @_Z43__builtin_spirv_ClampConvertFP16ToE5M2INTELDh(half
__fp8_e5m2 sat_from_half(half x) { return convert___fp8_e5m2_sat(x); }

// CHECK-LABEL: define spir_func i8 @sat_from_uint(i32 %x)
// CHECK: call spir_func i8 @_Z42__builtin_spirv_ClampConvertU32ToE4M3INTELj(i32
__fp8_e4m3 sat_from_uint(uint x) { return convert___fp8_e4m3_sat_rte(x); }

// CHECK-LABEL: define spir_func double @to_double(i8 %x)
// CHECK: call spir_func double @_Z36__builtin_spirv_ConvertE5M2ToFP64EXTc(i8
double to_double(__fp8_e5m2 x) { return (double)x; }

// CHECK-LABEL: define spir_func i8 @e5m2_to_e4m3(i8 %x)
// CHECK: call spir_func i8 @_Z36__builtin_spirv_ConvertE5M2ToE4M3EXTc(i8
__fp8_e4m3 e5m2_to_e4m3(__fp8_e5m2 x) { return (__fp8_e4m3)x; }

// CHECK-LABEL: define spir_func i8 @to_char(i8 %x)
// CHECK: call spir_func i8 @_Z34__builtin_spirv_ConvertE4M3ToI8EXTc(i8
char to_char(__fp8_e4m3 x) { return convert_char(x); }

typedef __fp8_e4m3 mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef __fp8_e5m2 mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 32, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef half mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef __fp8_e5m2 mat_q __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef char mat_i __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

// CHECK-LABEL: define spir_kernel void @mm(
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", target("spirv.Type", target("spirv.Literal", 8), target("spirv.Literal", 4214), 22, 1, 1), 3, 8, 32, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIu10__fp8_e4m3Li3ELi8ELi32ELi0EEvPU3AS1u10__fp8_e4m3im(
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", target("spirv.Type", target("spirv.Literal", 8), target("spirv.Literal", 4215), 22, 1, 1), 3, 32, 16, 1) @_Z32__spirv_CooperativeMatrixLoadKHRIu10__fp8_e5m2Li3ELi32ELi16ELi1EEvPU3AS1u10__fp8_e5m2im(
// CHECK: @_Z34__spirv_CooperativeMatrixMulAddKHRIDhLi3ELi8ELi16ELi2Eu10__fp8_e4m3Li3ELi8ELi32ELi0Eu10__fp8_e5m2Li3ELi32ELi16ELi1EDhLi3ELi8ELi16ELi2EEv
// A half -> E5M2 matrix cast is an FConvert; char -> E5M2 (both i8 in the IR) a ConvertSToF, not a no-op.
// CHECK: @_Z16__spirv_FConvertIu10__fp8_e5m2Li3ELi8ELi16ELi2EDhLi3ELi8ELi16ELi2EEv
// CHECK: @_Z19__spirv_ConvertSToFIu10__fp8_e5m2Li3ELi8ELi16ELi2EcLi3ELi8ELi16ELi2EEv
kernel void mm(global __fp8_e4m3 *a, global __fp8_e5m2 *b, global half *c, global __fp8_e5m2 *q, global char *ci) {
  mat_a ma = coop_mat_load(a, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)32);
  mat_b mb = coop_mat_load(b, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  mat_c mc = coop_mat_init(0.0h);
  mc = coop_mat_mulAdd(ma, mb, mc);
  coop_mat_store(q, (mat_q)mc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  mat_i mi = coop_mat_load(ci, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(q, (mat_q)mi, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
