// `clcoop --emit-spirv` on the instructions llc-22 lowers itself: matrix types (component, scope, rows,
// cols, use), loads/stores from global and local memory with both layouts and element strides of the
// named pointee (char, int, half, float), mul-add with each operand mask, length, splat (coop_mat_init)
// and conversions. spir (32-bit) keeps the same instructions with 32-bit strides.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv -o %t.spv
// RUN: %spirv-val %t.spv
// RUN: %spirv-link %t.spv -o %t.linked.spv
// RUN: %spirv-dis %t.spv | FileCheck %s
// RUN: %clcoop %s -triple spir-unknown-unknown --emit-spirv -o %t32.spv
// RUN: %spirv-val %t32.spv
// RUN: %spirv-dis %t32.spv | FileCheck %s --check-prefix=SPIR32

typedef char amat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 32, CLK_COOPERATIVE_MATRIX_A)));
typedef char bmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 32, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef int cmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef half hamat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef half hbmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float fmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef half hcmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

#define RM CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR
#define CM CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR

// CHECK: OpCapability CooperativeMatrixKHR
// CHECK: OpExtension "SPV_KHR_cooperative_matrix"
// CHECK: OpMemoryModel Physical64 OpenCL
// CHECK-DAG: %[[A:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %uchar %uint_3 %uint_8 %uint_32 %{{[0-9]+}}
// CHECK-DAG: %[[B:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %uchar %uint_3 %uint_32 %uint_16 %uint_1
// CHECK-DAG: %[[C:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %uint %uint_3 %uint_8 %uint_16 %uint_2
// CHECK-DAG: %[[HA:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %half %uint_3 %uint_8 %uint_16 %{{[0-9]+}}
// CHECK-DAG: %[[HB:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %half %uint_3 %uint_16 %uint_16 %uint_1
// CHECK-DAG: %[[F:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %float %uint_3 %uint_8 %uint_16 %uint_2
// CHECK-DAG: %[[HC:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %half %uint_3 %uint_8 %uint_16 %uint_2

// CHECK-LABEL: %i8_masks = OpFunction
// Strides count elements of the pointee named here (uchar for char, uint for int: no byte fallback).
// CHECK: %[[PA:[0-9]+]] = OpLoad %_ptr_CrossWorkgroup_uchar %pa_addr
// CHECK-NEXT: OpCooperativeMatrixLoadKHR %[[A]] %[[PA]] %{{[0-9]+}} %ulong_32
// CHECK: OpCooperativeMatrixLoadKHR %[[B]] %{{[0-9a-z_]+}} %uint_1 %ulong_64
// CHECK: %[[PC:[0-9]+]] = OpLoad %_ptr_Workgroup_uint
// CHECK-NEXT: OpCooperativeMatrixLoadKHR %[[C]] %[[PC]] %{{[0-9]+}} %ulong_16
// CHECK: OpCooperativeMatrixMulAddKHR %[[C]] %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} NoneKHR
// CHECK: OpCooperativeMatrixMulAddKHR %[[C]] {{.*}} MatrixASignedComponentsKHR{{$}}
// CHECK: OpCooperativeMatrixMulAddKHR %[[C]] {{.*}} MatrixBSignedComponentsKHR{{$}}
// CHECK: OpCooperativeMatrixMulAddKHR %[[C]] {{.*}} MatrixCSignedComponentsKHR{{$}}
// CHECK: OpCooperativeMatrixMulAddKHR %[[C]] {{.*}} MatrixResultSignedComponentsKHR{{$}}
// CHECK: OpCooperativeMatrixMulAddKHR %[[C]] {{.*}} SaturatingAccumulationKHR{{$}}
// CHECK: OpCooperativeMatrixMulAddKHR %[[C]] {{.*}} MatrixASignedComponentsKHR|MatrixBSignedComponentsKHR|MatrixCSignedComponentsKHR|MatrixResultSignedComponentsKHR|SaturatingAccumulationKHR
// CHECK: %[[PD:[0-9]+]] = OpLoad %_ptr_CrossWorkgroup_uint
// CHECK: OpCooperativeMatrixStoreKHR %[[PD]] %{{[0-9]+}} %uint_1 %ulong_8
// CHECK: OpCooperativeMatrixLengthKHR %uint %[[C]]
// SPIR32: OpMemoryModel Physical32 OpenCL
// SPIR32: OpCooperativeMatrixLoadKHR %{{[A-Za-z_0-9]+}} %{{[0-9a-z_]+}} %{{[0-9]+}} %uint_32
// SPIR32: OpCooperativeMatrixLoadKHR %{{[A-Za-z_0-9]+}} %{{[0-9a-z_]+}} %uint_1 %uint_64
// SPIR32: OpCooperativeMatrixMulAddKHR {{.*}} SaturatingAccumulationKHR
// SPIR32: OpCooperativeMatrixStoreKHR %{{[0-9a-z_]+}} %{{[0-9]+}} %uint_1 %uint_8
__kernel void i8_masks(__global char *pa, __global char *pb, __local int *pc, __global int *pd, __global uint *plen)
{
    amat a = coop_mat_load(pa, RM, 32);
    bmat b = coop_mat_load(pb, CM, 64);
    cmat c = coop_mat_load(pc, RM, 16);
    c = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_NONE);
    c = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED);
    c = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED);
    c = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED);
    c = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED);
    c = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_SATURATING_ACCUMULATION);
    c = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_A_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_B_SIGNED |
                                 CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_C_SIGNED | CLK_COOPERATIVE_MATRIX_OPERAND_MATRIX_RESULT_SIGNED |
                                 CLK_COOPERATIVE_MATRIX_OPERAND_SATURATING_ACCUMULATION);
    coop_mat_store(pd, c, CM, 8);
    plen[0] = coop_mat_length(c);
}

// CHECK-LABEL: %halves = OpFunction
// CHECK: %[[PH:[0-9]+]] = OpLoad %_ptr_CrossWorkgroup_half
// CHECK-NEXT: OpCooperativeMatrixLoadKHR %[[HA]] %[[PH]]
// CHECK: OpCooperativeMatrixLoadKHR %[[HB]] %{{[0-9a-z_]+}} %uint_1 %ulong_16
// CHECK: OpCompositeConstruct %[[F]]
// CHECK: OpCooperativeMatrixMulAddKHR %[[F]] {{.*}} NoneKHR
// CHECK: OpFConvert %[[HC]]
// CHECK: OpConvertFToS %[[C]]
// CHECK: OpConvertSToF %[[F]]
// CHECK: OpConvertFToU %[[C]]
// CHECK: OpConvertUToF %[[F]]
// CHECK: %[[PF:[0-9]+]] = OpLoad %_ptr_CrossWorkgroup_half
// CHECK: OpCooperativeMatrixStoreKHR %[[PF]]
// CHECK: %[[PF2:[0-9]+]] = OpLoad %_ptr_CrossWorkgroup_float
// CHECK: OpCooperativeMatrixStoreKHR %[[PF2]]
// CHECK: OpFunctionEnd
typedef uint umat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
__kernel void halves(__global half *ph, __global float *pf, float alpha)
{
    hamat a = coop_mat_load(ph, RM, 16);
    hbmat b = coop_mat_load(ph, CM, 16);
    fmat c = coop_mat_init(alpha);
    fmat d = coop_matmul_add(a, b, c, CLK_COOPERATIVE_MATRIX_OPERAND_NONE);
    hcmat h = (hcmat)d;
    cmat s = (cmat)d;
    fmat back = (fmat)s;
    umat u = (umat)d;
    fmat back_u = (fmat)u;
    coop_mat_store(ph, h, RM, 16);
    coop_mat_store(pf, back, RM, 16);
    coop_mat_store(pf, back_u, CM, 8);
}
