// `clcoop --emit-spirv` on OpenCL C 2.0 atomic_fetch_min/max, which llc-22 leaves imported: native
// OpAtomicSMin/UMin/SMax/UMax with the scope and semantics llc-22 gives atomic_fetch_add (Workgroup
// scope and no semantics by default; order | storage-class bit; OpenCL scope -> SPIR-V scope).
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv -o %t.spv
// RUN: %spirv-val %t.spv
// RUN: %spirv-link %t.spv -o %t.linked.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

// CHECK-NOT: OpCapability Linkage
// CHECK: OpCapability Int64Atomics
// CHECK-NOT: LinkageAttributes
// CHECK-NOT: OpFunctionCall

// CHECK-LABEL: %k = OpFunction
// CHECK: OpAtomicSMax %uint %{{[0-9]+}} %uint_2 %[[NULL:[0-9]+]] %uint_7
// CHECK: OpAtomicUMin %uint %{{[0-9]+}} %uint_2 %uint_512 %uint_7
// CHECK: OpAtomicSMin %uint %{{[0-9]+}} %uint_2 %uint_258 %uint_7
// CHECK: OpAtomicUMax %ulong %{{[0-9]+}} %uint_1 %uint_528 %ulong_7
// CHECK: OpAtomicSMax %ulong %{{[0-9]+}} %uint_3 %uint_4 %ulong_7
// CHECK: OpAtomicSMin %uint %{{[0-9]+}} %[[NULL]] %uint_520 %uint_7
kernel void k(global atomic_int *a, global atomic_uint *u, local atomic_int *l, global atomic_ulong *ul,
              global atomic_long *sl, global int *o) {
  atomic_long *g = sl;
  o[0] = atomic_fetch_max(a, 7);
  o[1] = atomic_fetch_min_explicit(u, 7u, memory_order_relaxed);
  o[2] = atomic_fetch_min_explicit(l, 7, memory_order_acquire, memory_scope_work_group);
  o[3] = atomic_fetch_max_explicit(ul, 7ul, memory_order_seq_cst, memory_scope_device);
  o[4] = atomic_fetch_max_explicit(g, 7l, memory_order_release, memory_scope_sub_group);
  o[5] = atomic_fetch_min_explicit(a, 7, memory_order_acq_rel, memory_scope_all_svm_devices);
}
