// FP_CONTRACT pragmas: an unknown state is a warning (the pragma is ignored); inside a
// compound statement only at its start (OpenCL C 3.0 6.11.1, C99 7.12.2). clang-22's output.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s
kernel void k(global float *o, float a) {
  o[0] = a;
#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL FP_CONTRACT MAYBE
}
#pragma STDC FP_CONTRACT WHAT
// CHECK: fp-contract-pragma.cl:6:16: error: '#pragma fp_contract' can only appear at file scope or at the start of a compound statement
// CHECK: fp-contract-pragma.cl:7:28: warning: expected 'ON' or 'OFF' or 'DEFAULT' in pragma [-Wunknown-pragmas]
// CHECK: fp-contract-pragma.cl:9:26: warning: expected 'ON' or 'OFF' or 'DEFAULT' in pragma [-Wunknown-pragmas]
// CHECK: 2 warnings and 1 error generated.
