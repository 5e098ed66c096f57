// An FP_CONTRACT pragma spelled with _Pragma (C99 6.10.9) is checked as the #pragma line:
// an unknown state warns at the state's word, and one after a statement is an error.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s --implicit-check-not="internal compiler error"
kernel void k(global float *o, float a) {
  _Pragma("OPENCL FP_CONTRACT MAYBE")
  o[0] = a;
  _Pragma("OPENCL FP_CONTRACT OFF")
}
// CHECK: pragma-operator-fp-contract.cl:5:31: warning: expected 'ON' or 'OFF' or 'DEFAULT' in pragma [-Wunknown-pragmas]
// CHECK: pragma-operator-fp-contract.cl:7:19: error: '#pragma fp_contract' can only appear at file scope or at the start of a compound statement
// CHECK: 1 warning and 1 error generated.
