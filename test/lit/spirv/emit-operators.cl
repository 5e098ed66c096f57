// `clcoop --emit-spirv` on every operator and element access, float and int (signed and unsigned):
// a complete module (no imports left) that spirv-val and spirv-link accept, with native instructions.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv -o %t.spv
// RUN: %spirv-val %t.spv
// RUN: %spirv-link %t.spv -o %t.linked.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

typedef float fmat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int imat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef uint umat __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
#define RM CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR

// CHECK-NOT: OpCapability Linkage
// CHECK-NOT: LinkageAttributes
// CHECK-DAG: %[[F:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %float %uint_3 %uint_8 %uint_16 %uint_2
// CHECK-DAG: %[[I:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %uint %uint_3 %uint_8 %uint_16 %uint_2
// CHECK-DAG: %[[PF:[A-Za-z_0-9]+]] = OpTypePointer Function %float
// CHECK-DAG: %[[PI:[A-Za-z_0-9]+]] = OpTypePointer Function %uint

// CHECK-LABEL: %float_ops = OpFunction
// CHECK: OpCooperativeMatrixLoadKHR %[[F]]
// CHECK: OpCooperativeMatrixLoadKHR %[[F]]
// CHECK: OpFAdd %[[F]] %{{[0-9]+}} %{{[0-9]+}}
// CHECK: OpFSub %[[F]] %{{[0-9]+}} %{{[0-9]+}}
// CHECK: OpFMul %[[F]] %{{[0-9]+}} %{{[0-9]+}}
// CHECK: OpFDiv %[[F]] %{{[0-9]+}} %{{[0-9]+}}
// CHECK: OpFNegate %[[F]] %{{[0-9]+}}
// CHECK: %[[S:[0-9]+]] = OpCompositeConstruct %[[F]] %{{[0-9]+}}
// CHECK-NEXT: OpFMul %[[F]] %{{[0-9]+}} %[[S]]
// CHECK: OpAccessChain %[[PF]] %m
// CHECK: OpLoad %float
// CHECK: OpAccessChain %[[PF]] %m
// CHECK: OpStore
// CHECK: OpFunctionEnd
__kernel void float_ops(__global float *p, float alpha, uint i)
{
    fmat x = coop_mat_load(p, RM, 16);
    fmat y = coop_mat_load(p + 128, RM, 16);
    coop_mat_store(p, x + y, RM, 16);
    coop_mat_store(p, x - y, RM, 16);
    coop_mat_store(p, x * y, RM, 16);
    coop_mat_store(p, x / y, RM, 16);
    coop_mat_store(p, -x, RM, 16);
    coop_mat_store(p, x * alpha, RM, 16);
    fmat m = x;
    m[i] = m[i] + 1.0f;
    coop_mat_store(p, m, RM, 16);
}

// CHECK-LABEL: %int_ops = OpFunction
// CHECK: OpCooperativeMatrixLoadKHR %[[I]]
// CHECK: OpCooperativeMatrixLoadKHR %[[I]]
// CHECK: OpIAdd %[[I]] %{{[0-9]+}} %{{[0-9]+}}
// CHECK: OpISub %[[I]] %{{[0-9]+}} %{{[0-9]+}}
// CHECK: OpIMul %[[I]] %{{[0-9]+}} %{{[0-9]+}}
// CHECK: OpSDiv %[[I]] %{{[0-9]+}} %{{[0-9]+}}
// CHECK: OpSNegate %[[I]] %{{[0-9]+}}
// CHECK: %[[T:[0-9]+]] = OpCompositeConstruct %[[I]] %{{[0-9]+}}
// CHECK-NEXT: OpIMul %[[I]] %{{[0-9]+}} %[[T]]
// CHECK: OpUDiv %[[I]]
// CHECK: OpAccessChain %[[PI]]
// CHECK: OpFunctionEnd
__kernel void int_ops(__global int *q, __global uint *u, int k, uint i)
{
    imat a = coop_mat_load(q, RM, 16);
    imat b = coop_mat_load(q + 128, RM, 16);
    coop_mat_store(q, a + b, RM, 16);
    coop_mat_store(q, a - b, RM, 16);
    coop_mat_store(q, a * b, RM, 16);
    coop_mat_store(q, a / b, RM, 16);
    coop_mat_store(q, -a, RM, 16);
    coop_mat_store(q, a * k, RM, 16);
    umat c = coop_mat_load(u, RM, 16);
    umat d = coop_mat_load(u + 128, RM, 16);
    coop_mat_store(u, c / d, RM, 16);
    c[i] = 7u;
    coop_mat_store(u, c, RM, 16);
}
// CHECK-NOT: OpFunctionCall %{{[A-Za-z_0-9]+}} %_Z
