// A translation unit without a kernel (everything under a false #if) still gives a valid, empty
// SPIR-V module: the EXT transpose decoration pass looked for a type to stand before and
// crashed (StopIteration, an internal error) when the module had none.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv -o %t.spv 2>&1 | FileCheck %s --allow-empty --check-prefix=NOCRASH
// RUN: %spirv-val %t.spv
// NOCRASH-NOT: internal
#ifdef NEVER_DEFINED
kernel void k(global int *p) { p[0] = 1; }
#endif
