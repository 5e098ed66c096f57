// `clcoop --emit-spirv` of ldexp(floatn x, int k) (pocl's test_ldexp): llc-22 passes the scalar
// k to OpenCL.std ldexp, which needs as many components as x, so spirv-val rejects the module
// ("expected the exponent to have the same number of components as Result Type") and clcoop
// reported an internal error. clang-22's IR fails the same way (clang-22 -cc1 -triple
// spir64-unknown-unknown -finclude-default-header -emit-llvm, then llc-22: an LLVM bug). clcoop
// now defines ldexp(vector, int) before llc: k splatted, then the vector-exponent ldexp.
// Scalar ldexp and the vector-exponent overload stay single OpExtInst ldexp.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv -o %t.spv
// RUN: %spirv-val %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK-DAG: OpName %[[F2:[a-z0-9_]+]] "__clcoop.ldexp.v2float"
// CHECK-DAG: OpName %[[D3:[a-z0-9_]+]] "__clcoop.ldexp.v3double"
// CHECK-DAG: OpName %[[H16:[a-z0-9_]+]] "__clcoop.ldexp.v16half"
// CHECK: OpFunction %void
// CHECK: OpFunctionCall %v2float %[[F2]]
// CHECK: OpFunctionCall %v2float %[[F2]]
// CHECK: OpExtInst %v2float %{{[0-9]+}} ldexp %{{[0-9]+}} %{{[0-9]+}}
// CHECK: OpExtInst %float %{{[0-9]+}} ldexp %{{[0-9]+}} %{{[0-9]+}}
// CHECK: OpFunctionCall %v3double %[[D3]]
// CHECK: OpFunctionCall %v16half %[[H16]]
// CHECK: %[[F2]] = OpFunction %v2float
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = OpFunctionParameter %v2float
// CHECK-NEXT: %[[K:[a-z0-9_]+]] = OpFunctionParameter %uint
// CHECK: %[[FIRST:[0-9]+]] = OpCompositeInsert %v2uint %[[K]]
// CHECK-NEXT: %[[ALL:[0-9]+]] = OpVectorShuffle %v2uint %[[FIRST]] %{{[0-9]+}} 0 0
// CHECK-NEXT: OpExtInst %v2float %{{[0-9]+}} ldexp %[[X]] %[[ALL]]
// CHECK: %[[D3]] = OpFunction %v3double
// CHECK: OpVectorShuffle %v3uint %{{[0-9]+}} %{{[0-9]+}} 0 0 0
// CHECK-NEXT: OpExtInst %v3double %{{[0-9]+}} ldexp
// CHECK: %[[H16]] = OpFunction %v16half
// CHECK: OpVectorShuffle %v16uint %{{[0-9]+}} %{{[0-9]+}} 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
// CHECK-NEXT: OpExtInst %v16half %{{[0-9]+}} ldexp

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

kernel void k(global float2 *f, global int *e, global int2 *e2, global float *s,
              global double3 *d, global half16 *h)
{
    f[0] = ldexp(f[1], e[0]);
    f[2] = ldexp(f[3], 4);
    f[4] = ldexp(f[5], e2[0]);
    s[0] = ldexp(s[1], e[1]);
    d[0] = ldexp(d[1], e[2]);
    h[0] = ldexp(h[1], e[3]);
}
