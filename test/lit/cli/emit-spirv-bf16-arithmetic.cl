// --emit-spirv of bf16 arithmetic is a clear error naming the extension it would need
// (SPV_KHR_bfloat16 has no arithmetic; spirv-val 2025.5 refuses SPV_INTEL_bfloat16_arithmetic);
// the interpreter runs the same kernel (test/unit/interp/test_bf16.py).
// REQUIRES: llc, spirv-tools
// RUN: %not %clcoop %s --emit-spirv -o %t.spv 2>&1 | FileCheck %s
// CHECK: error: {{.*}}arithmetic on __bf16 values (fmul) cannot be emitted as SPIR-V{{.*}}SPV_INTEL_bfloat16_arithmetic

kernel void k(global __bf16 *p) { p[0] = p[1] * p[2]; }
