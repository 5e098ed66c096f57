/* clcoop default header: force-included before every source, as clang's
 * -finclude-default-header includes opencl-c-base.h, so kernels need no #include.
 *
 * The driver defines before this file: __OPENCL_C_VERSION__ (from -cl-std) and
 * __SPIR__ / __SPIR64__ (from -triple). __OPENCL_VERSION__ is not predefined, as in
 * clang-22 (an OpenCL runtime passes it; -D__OPENCL_VERSION__=300 does the same).
 *
 * Built-in *functions* are not declared here: the checker knows them
 * (clcoop/frontend/builtins.py), because C declarations cannot express overloads.
 * Only what a C parser and checker can read is here: macros, enums, typedefs.
 */
#ifndef CLCOOP_OPENCL_C_COOP_H
#define CLCOOP_OPENCL_C_COOP_H

/* Language versions (clang predefines these for OpenCL). */
#define CL_VERSION_1_0 100
#define CL_VERSION_1_1 110
#define CL_VERSION_1_2 120
#define CL_VERSION_2_0 200
#define CL_VERSION_3_0 300
#ifndef __OPENCL_C_VERSION__
#define __OPENCL_C_VERSION__ 300
#endif

#define __ENDIAN_LITTLE__ 1
#define __LITTLE_ENDIAN__ 1

/* Feature macros of the cooperative-matrix extension: the RFC's name and the
 * clang pull request's (llvm/llvm-project #221328) name. */
#define __opencl_c_ext_cooperative_matrix 1
#define cl_khr_cooperative_matrix 1

/* Optional features and extensions clcoop implements (OpenCL C 3.0 section 6.2.1), at
 * the language versions clang-22 defines them for; docs/opencl-features.md lists every
 * one clang-22 defines and why clcoop leaves some out (test/unit/test_feature_macros.py
 * compares the sets with clang-22's). */
#define __opencl_c_int64 1
#define cl_khr_fp16 1
#define cl_khr_fp64 1
#define cl_khr_global_int32_base_atomics 1
#define cl_khr_global_int32_extended_atomics 1
#define cl_khr_local_int32_base_atomics 1
#define cl_khr_local_int32_extended_atomics 1
#define cl_khr_int64_base_atomics 1
#define cl_khr_int64_extended_atomics 1
#define cl_khr_byte_addressable_store 1
#define cl_clang_storage_class_specifiers 1
#define cl_intel_subgroups 1
#if __OPENCL_C_VERSION__ >= 200
#define __opencl_c_generic_address_space 1
#define __opencl_c_program_scope_global_variables 1
#define __opencl_c_atomic_order_acq_rel 1
#define __opencl_c_atomic_order_seq_cst 1
#define __opencl_c_atomic_scope_device 1
#define __opencl_c_atomic_scope_all_devices 1
#define __opencl_c_work_group_collective_functions 1
#define cl_ext_float_atomics 1
#define __opencl_c_ext_fp16_global_atomic_add 1
#define __opencl_c_ext_fp16_global_atomic_load_store 1
#define __opencl_c_ext_fp16_global_atomic_min_max 1
#define __opencl_c_ext_fp16_local_atomic_add 1
#define __opencl_c_ext_fp16_local_atomic_load_store 1
#define __opencl_c_ext_fp16_local_atomic_min_max 1
#define __opencl_c_ext_fp32_global_atomic_add 1
#define __opencl_c_ext_fp32_global_atomic_min_max 1
#define __opencl_c_ext_fp32_local_atomic_add 1
#define __opencl_c_ext_fp32_local_atomic_min_max 1
#define __opencl_c_ext_fp64_global_atomic_add 1
#define __opencl_c_ext_fp64_global_atomic_min_max 1
#define __opencl_c_ext_fp64_local_atomic_add 1
#define __opencl_c_ext_fp64_local_atomic_min_max 1
#define cl_intel_required_subgroup_size 1
#define cl_khr_subgroups 1
#define cl_khr_subgroup_shuffle 1
#define cl_khr_subgroup_shuffle_relative 1
#define cl_khr_subgroup_extended_types 1
#define cl_khr_subgroup_ballot 1
#define cl_khr_subgroup_non_uniform_vote 1
#define cl_khr_integer_dot_product 1
#define cl_khr_extended_bit_ops 1
#define __opencl_c_integer_dot_product_input_4x8bit 1
#define __opencl_c_integer_dot_product_input_4x8bit_packed 1
#endif
#if __OPENCL_C_VERSION__ >= 300
#define __opencl_c_fp64 1
#define __opencl_c_subgroups 1
#endif

/* OpenCL C has bool, true and false built in (C99 stdbool semantics). */
#define true 1
#define false 0
#define NULL ((void*)0)

/* Integer limits (opencl-c-base.h). */
#define CHAR_BIT  8
#define SCHAR_MAX 127
#define SCHAR_MIN (-128)
#define CHAR_MAX  SCHAR_MAX
#define CHAR_MIN  SCHAR_MIN
#define UCHAR_MAX 255
#define SHRT_MAX  32767
#define SHRT_MIN  (-32767-1)
#define USHRT_MAX 65535
#define INT_MAX   2147483647
#define INT_MIN   (-2147483647-1)
#define UINT_MAX  0xffffffff
#define LONG_MAX  0x7fffffffffffffffL
#define LONG_MIN  (-0x7fffffffffffffffL-1)
#define ULONG_MAX 0xffffffffffffffffUL

/* Floating-point constants (opencl-c-base.h). INFINITY, HUGE_VALF and NAN are
 * spelled with as_float, a built-in the checker knows, instead of clang's
 * __builtin_inff(). */
/* clang's __builtin_astype(x, T) (opencl-c-base.h builds as_<type> on it): its second
 * argument is a type, which the C parser cannot take as an argument. */
#define __builtin_astype(x, T) as_##T(x)
#define MAXFLOAT 0x1.fffffep127f
#define HUGE_VALF (as_float(0x7f800000))
#define HUGE_VAL (as_double(0x7ff0000000000000L))
#define INFINITY (as_float(0x7f800000))
#define NAN (as_float(INT_MAX))   /* clang-22 opencl-c-base.h: 0x7fffffff, not 0x7fc00000 */
#define FP_ILOGB0 INT_MIN
#define FP_ILOGBNAN INT_MAX

#define FLT_DIG 6
#define FLT_MANT_DIG 24
#define FLT_MAX_10_EXP +38
#define FLT_MAX_EXP +128
#define FLT_MIN_10_EXP -37
#define FLT_MIN_EXP -125
#define FLT_RADIX 2
#define FLT_MAX 0x1.fffffep127f
#define FLT_MIN 0x1.0p-126f
#define FLT_EPSILON 0x1.0p-23f

#define M_E_F         2.71828182845904523536028747135266250f
#define M_LOG2E_F     1.44269504088896340735992468100189214f
#define M_LOG10E_F    0.434294481903251827651128918916605082f
#define M_LN2_F       0.693147180559945309417232121458176568f
#define M_LN10_F      2.30258509299404568401799145468436421f
#define M_PI_F        3.14159265358979323846264338327950288f
#define M_PI_2_F      1.57079632679489661923132169163975144f
#define M_PI_4_F      0.785398163397448309615660845819875721f
#define M_1_PI_F      0.318309886183790671537767526745028724f
#define M_2_PI_F      0.636619772367581343075535053490057448f
#define M_2_SQRTPI_F  1.12837916709551257389615890312154517f
#define M_SQRT2_F     1.41421356237309504880168872420969808f
#define M_SQRT1_2_F   0.707106781186547524400844362104849039f

#define DBL_DIG 15
#define DBL_MANT_DIG 53
#define DBL_MAX_10_EXP +308
#define DBL_MAX_EXP +1024
#define DBL_MIN_10_EXP -307
#define DBL_MIN_EXP -1021
#define DBL_RADIX 2
#define DBL_MAX 0x1.fffffffffffffp1023
#define DBL_MIN 0x1.0p-1022
#define DBL_EPSILON 0x1.0p-52

#define M_E           0x1.5bf0a8b145769p+1
#define M_LOG2E       0x1.71547652b82fep+0
#define M_LOG10E      0x1.bcb7b1526e50ep-2
#define M_LN2         0x1.62e42fefa39efp-1
#define M_LN10        0x1.26bb1bbb55516p+1
#define M_PI          0x1.921fb54442d18p+1
#define M_PI_2        0x1.921fb54442d18p+0
#define M_PI_4        0x1.921fb54442d18p-1
#define M_1_PI        0x1.45f306dc9c883p-2
#define M_2_PI        0x1.45f306dc9c883p-1
#define M_2_SQRTPI    0x1.20dd750429b6dp+0
#define M_SQRT2       0x1.6a09e667f3bcdp+0
#define M_SQRT1_2     0x1.6a09e667f3bcdp-1

/* cl_khr_fp16 constants (OpenCL C 3.0 6.15.2 table "Macros for half"), spelled as
 * clang-22's opencl-c-base.h spells them: `h` literals need `#pragma OPENCL EXTENSION
 * cl_khr_fp16 : enable` where they are used, as in clang. */
#ifdef cl_khr_fp16
#define HALF_DIG 3
#define HALF_MANT_DIG 11
#define HALF_MAX_10_EXP +4
#define HALF_MAX_EXP +16
#define HALF_MIN_10_EXP -4
#define HALF_MIN_EXP -13
#define HALF_RADIX 2
#define HALF_MAX ((0x1.ffcp15h))
#define HALF_MIN ((0x1.0p-14h))
#define HALF_EPSILON ((0x1.0p-10h))

#define M_E_H         2.71828182845904523536028747135266250h
#define M_LOG2E_H     1.44269504088896340735992468100189214h
#define M_LOG10E_H    0.434294481903251827651128918916605082h
#define M_LN2_H       0.693147180559945309417232121458176568h
#define M_LN10_H      2.30258509299404568401799145468436421h
#define M_PI_H        3.14159265358979323846264338327950288h
#define M_PI_2_H      1.57079632679489661923132169163975144h
#define M_PI_4_H      0.785398163397448309615660845819875721h
#define M_1_PI_H      0.318309886183790671537767526745028724h
#define M_2_PI_H      0.636619772367581343075535053490057448h
#define M_2_SQRTPI_H  1.12837916709551257389615890312154517h
#define M_SQRT2_H     1.41421356237309504880168872420969808h
#define M_SQRT1_2_H   0.707106781186547524400844362104849039h
#endif

/* Fence flags (OpenCL C 3.0 section 6.15.12.1, values of opencl-c-base.h). */
typedef uint cl_mem_fence_flags;
#define CLK_LOCAL_MEM_FENCE  0x01
#define CLK_GLOBAL_MEM_FENCE 0x02
#define CLK_IMAGE_MEM_FENCE  0x04

/* Memory scopes and orders (values of clang's __OPENCL_MEMORY_SCOPE_* / __ATOMIC_*).
 * memory_scope_sub_group is 4 in OpenCL; SPIR-V's Subgroup scope is 3. */
typedef enum memory_scope {
  memory_scope_work_item = 0,
  memory_scope_work_group = 1,
  memory_scope_device = 2,
  memory_scope_all_svm_devices = 3,
  memory_scope_all_devices = 3,
  memory_scope_sub_group = 4
} memory_scope;

typedef enum memory_order {
  memory_order_relaxed = 0,
  memory_order_acquire = 2,
  memory_order_release = 3,
  memory_order_acq_rel = 4,
  memory_order_seq_cst = 5
} memory_order;

/* Cooperative-matrix enums. Values are SPIR-V's (SPV_KHR_cooperative_matrix:
 * Cooperative Matrix Layout, Cooperative Matrix Operands, Cooperative Matrix Use, Scope). */
typedef enum coop_matrix_layout_t {
  CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR = 0,
  CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR = 1
} coop_matrix_layout_t;

typedef enum coop_matrix_operands_t {
  CLK_COOPERATIVE_MATRIX_OPERAND_NONE = 0,
  CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED = 1,
  CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED = 2,
  CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED = 4,
  CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED = 8,
  CLK_COOPERATIVE_MATRIX_OPERAND_SATURATING_ACCUMULATION = 16
} coop_matrix_operands_t;

typedef enum coop_matrix_use_t {
  CLK_COOPERATIVE_MATRIX_A = 0,
  CLK_COOPERATIVE_MATRIX_B = 1,
  CLK_COOPERATIVE_MATRIX_ACCUMULATOR = 2
} coop_matrix_use_t;

typedef enum coop_matrix_scope_t {
  CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP = 2,
  CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP = 3
} coop_matrix_scope_t;

/* SPV_NV_cooperative_matrix2 "Cooperative Matrix Reduce" mask. */
typedef enum coop_matrix_reduce_t {
  CLK_COOPERATIVE_MATRIX_REDUCE_ROW = 1,
  CLK_COOPERATIVE_MATRIX_REDUCE_COLUMN = 2,
  CLK_COOPERATIVE_MATRIX_REDUCE_2X2 = 4
} coop_matrix_reduce_t;

/* SPV_NV_tensor_addressing "Tensor Clamp Mode". */
typedef enum coop_matrix_clamp_mode_t {
  CLK_COOPERATIVE_MATRIX_CLAMP_MODE_UNDEFINED = 0,
  CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT = 1,
  CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CLAMP_TO_EDGE = 2,
  CLK_COOPERATIVE_MATRIX_CLAMP_MODE_REPEAT = 3,
  CLK_COOPERATIVE_MATRIX_CLAMP_MODE_REPEAT_MIRRORED = 4
} coop_matrix_clamp_mode_t;

/* SPV_NV_tensor_addressing tensor layouts and views: declare a type with an attribute,
 *   typedef coop_tensor_layout_t L2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CONSTANT)));
 *   typedef coop_tensor_view_t V2 __attribute__((coop_tensor_view(2, false, 1, 0)));
 * The operations (coop_tensor_layout_*, coop_tensor_view_*, coop_mat_load_tensor,
 * coop_mat_store_tensor) are built-ins the checker knows (clcoop/frontend/coop_tensor_check.py). */
typedef __clcoop_tensor_layout coop_tensor_layout_t;
typedef __clcoop_tensor_view coop_tensor_view_t;

#endif /* CLCOOP_OPENCL_C_COOP_H */
