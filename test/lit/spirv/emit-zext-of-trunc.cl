// `clcoop --emit-spirv` of a zero extension of a truncation from a type wider than the result,
// `(uint)(uchar)x` with a ulong x (pocl's test_bitselect: `(uchar)(CHAR_BIT * sizeof(uchar) - 1)`
// promoted to int, whose size_t arithmetic clcoop's -O0 IR computes where clang folds it):
// llc-22 folds `zext (trunc i64 X to i8) to i32` into an OpBitwiseAnd of the 64-bit X with a
// 32-bit result, which spirv-val rejects ("Expected operands to have the same bit width as
// Result Type: BitwiseAnd"), and clcoop reported an internal error. clang-22's IR for
// `(uint)(uchar)x` fails the same way (an LLVM bug). clcoop now writes, before llc,
// `and (trunc X to i32), 255` for it: an OpUConvert to the result's width, then the mask.
// A truncation from no wider than the result, and sign extensions, are left as they are.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv -o %t.spv
// RUN: %spirv-val %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK-LABEL: %narrow = OpFunction
// CHECK: %[[L:[0-9]+]] = OpLoad %ulong
// CHECK-NEXT: %[[T:[0-9]+]] = OpUConvert %uint %[[L]]
// CHECK-NEXT: OpBitwiseAnd %uint %[[T]] %uint_255
// CHECK: %[[S:[0-9]+]] = OpLoad %ulong
// CHECK-NEXT: %[[TS:[0-9]+]] = OpUConvert %ushort %[[S]]
// CHECK-NEXT: OpBitwiseAnd %ushort %[[TS]] %ushort_255
// CHECK: %[[V:[0-9]+]] = OpLoad %v4ulong
// CHECK-NEXT: %[[TV:[0-9]+]] = OpUConvert %v4uint %[[V]]
// CHECK-NEXT: OpBitwiseAnd %v4uint %[[TV]]
// CHECK: %[[C:[0-9]+]] = OpUConvert %uint %ulong_7
// CHECK-NEXT: %[[M:[0-9]+]] = OpBitwiseAnd %uint %[[C]] %uint_255
// CHECK-NEXT: %[[A:[0-9]+]] = OpBitwiseAnd %uint %[[M]] %uint_31
// CHECK-NEXT: OpShiftLeftLogical %uint %uint_1 %[[A]]
// CHECK-LABEL: %unchanged = OpFunction
// CHECK-NOT: OpBitwiseAnd
// CHECK: %[[N:[0-9]+]] = OpUConvert %uchar
// CHECK-NEXT: OpSConvert %uint %[[N]]
// CHECK: OpFunctionEnd

kernel void narrow(global uint *out, global ulong *in, global ushort *out16, global uint4 *out4,
                   global ulong4 *in4, global int *shift)
{
    out[0] = (uint)(uchar)in[0];
    out16[0] = (ushort)(uchar)in[1];
    out4[0] = convert_uint4(convert_uchar4(in4[0]));
    shift[0] = 1 << (uchar)(CHAR_BIT * sizeof(uchar) - 1);
}

kernel void unchanged(global int *out, global long *in)
{
    out[0] = (char)in[0];
}
