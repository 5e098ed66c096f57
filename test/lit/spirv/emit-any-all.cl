// `clcoop --emit-spirv` of any()/all() (pocl's test_halfs, test_length_distance, test_min_max):
// llc-22 lowers `_Z3anyi`, `_Z3allDv2_i` & co. to OpAny/OpAll of the integer argument itself
// (a scalar, or an integer vector), where they take a bool vector: spirv-val rejects the module
// ("Expected operand to be vector bool: Any") and clcoop reported an internal error.
// clang-22's IR fails the same way (clang-22 -cc1 -triple spir64-unknown-unknown
// -finclude-default-header -emit-llvm, then llc-22 -mtriple=spirv64-unknown-unknown: an LLVM
// bug). clcoop now defines them before llc (OpenCL C 3.0 6.15.9: 1 when the sign bit is set):
// a scalar by a signed compare with 0, a vector by OpAny/OpAll of the lanes' compares.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv -o %t.spv
// RUN: %spirv-val %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK-DAG: OpName %[[ANY_INT:[a-z0-9_]+]] "__clcoop.any.i32"
// CHECK-DAG: OpName %[[ALL_CHAR:[a-z0-9_]+]] "__clcoop.all.i8"
// CHECK-DAG: OpName %[[ANY_LONG:[a-z0-9_]+]] "__clcoop.any.i64"
// CHECK-DAG: OpName %[[ALL_SHORT:[a-z0-9_]+]] "__clcoop.all.i16"
// CHECK-DAG: OpName %[[ANY_INT2:[a-z0-9_]+]] "__clcoop.any.v2i32"
// CHECK-DAG: OpName %[[ALL_CHAR16:[a-z0-9_]+]] "__clcoop.all.v16i8"
// CHECK: OpFunction %void
// CHECK: OpFunctionCall %uint %[[ANY_INT]]
// CHECK: OpFunctionCall %uint %[[ALL_CHAR]]
// CHECK: OpFunctionCall %uint %[[ANY_LONG]]
// CHECK: OpFunctionCall %uint %[[ALL_SHORT]]
// CHECK: OpFunctionCall %uint %[[ANY_INT2]]
// CHECK: OpFunctionCall %uint %[[ALL_CHAR16]]
// CHECK: %[[ANY_INT]] = OpFunction %uint
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = OpFunctionParameter %uint
// CHECK-NEXT: OpLabel
// CHECK-NEXT: %[[SET:[0-9]+]] = OpSLessThan %bool %[[X]] %{{[a-z0-9_]+}}
// CHECK-NEXT: %[[R:[0-9]+]] = OpSelect %uint %[[SET]] %uint_1 %{{[a-z0-9_]+}}
// CHECK-NEXT: OpReturnValue %[[R]]
// CHECK: %[[ALL_CHAR]] = OpFunction %uint
// CHECK-NEXT: OpFunctionParameter %uchar
// CHECK: OpSLessThan %bool
// CHECK: %[[ANY_LONG]] = OpFunction %uint
// CHECK-NEXT: OpFunctionParameter %ulong
// CHECK: OpSLessThan %bool
// CHECK: %[[ALL_SHORT]] = OpFunction %uint
// CHECK-NEXT: OpFunctionParameter %ushort
// CHECK: OpSLessThan %bool
// CHECK: %[[ANY_INT2]] = OpFunction %uint
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = OpFunctionParameter %v2uint
// CHECK-NEXT: OpLabel
// CHECK-NEXT: %[[SIGNS:[0-9]+]] = OpSLessThan %v2bool %[[V]]
// CHECK-NEXT: OpAny %bool %[[SIGNS]]
// CHECK: %[[ALL_CHAR16]] = OpFunction %uint
// CHECK-NEXT: %[[W:[a-z0-9_]+]] = OpFunctionParameter %v16uchar
// CHECK-NEXT: OpLabel
// CHECK-NEXT: %[[SIGNS16:[0-9]+]] = OpSLessThan %v16bool %[[W]]
// CHECK-NEXT: OpAll %bool %[[SIGNS16]]

kernel void k(global int *out, global int *i, global char *c, global long *l, global short *s,
              global int2 *v, global char16 *w)
{
    out[0] = any(i[0]);
    out[1] = all(c[0]);
    out[2] = any(l[0]);
    out[3] = all(s[0]);
    out[4] = any(v[0]);
    out[5] = all(w[0]);
}
