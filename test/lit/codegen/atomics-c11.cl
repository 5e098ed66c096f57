// OpenCL C 2.0+ atomics (OpenCL C 3.0 6.15.12): atomic_int & co. are _Atomic types; the
// functions are clang-22's overloads (named address spaces and __generic), mangled as clang
// mangles them (PU3AS1VU7_Atomici); kernel argument metadata spells them like clang.
// (atomic_fetch_min/max are not here: llc-22 cannot lower them, see test_spirv_pipeline.)
// RUN: %clcoop %s -o - | FileCheck %s

// CHECK: @g = addrspace(1) global i32 0
global atomic_int g;

// CHECK-LABEL: define spir_kernel void @k(
// CHECK-SAME: !kernel_arg_type ![[TY:[0-9]+]] !kernel_arg_base_type ![[BT:[0-9]+]]
kernel void k(global atomic_int *a, global atomic_ulong *u, local atomic_float *f, global int *o) {
  // CHECK: call spir_func void @_Z11atomic_initPU3AS3VU7_Atomicff(ptr addrspace(3) %{{.*}}, float 0.000000e+00)
  atomic_init(f, 0.0f);
  // CHECK: call spir_func i32 @_Z16atomic_fetch_addPU3AS1VU7_Atomicii(ptr addrspace(1) %{{.*}}, i32 1)
  o[0] = atomic_fetch_add(a, 1);
  // CHECK: call spir_func i64 @_Z25atomic_fetch_add_explicitPU3AS1VU7_Atomicmm12memory_order12memory_scope(ptr addrspace(1) %{{.*}}, i64 7, i32 0, i32 2)
  o[1] = (int)atomic_fetch_add_explicit(u, 7ul, memory_order_relaxed, memory_scope_device);
  int expected = 5;
  // CHECK: call spir_func {{(zeroext )?}}i1 @_Z30atomic_compare_exchange_strongPU3AS1VU7_AtomiciPii(ptr addrspace(1) %{{.*}}, ptr %expected, i32 9)
  o[2] = atomic_compare_exchange_strong(a, &expected, 9);
  // CHECK: call spir_func i32 @_Z16atomic_fetch_addPU3AS1VU7_Atomicii(ptr addrspace(1) @g, i32 2)
  atomic_fetch_add(&g, 2);
  // CHECK: call spir_func float @_Z11atomic_loadPU3AS3VU7_Atomicf(ptr addrspace(3) %{{.*}})
  o[3] = (int)atomic_load(f);
  // CHECK: call spir_func {{(zeroext )?}}i1 @_Z24atomic_flag_test_and_setPU3AS1VU7_Atomici(
  o[4] = atomic_flag_test_and_set((volatile global atomic_flag *)a);
}
// CHECK: ![[TY]] = !{!"atomic_int*", !"atomic_ulong*", !"atomic_float*", !"int*"}
// CHECK: ![[BT]] = !{!"_Atomic(int)*", !"_Atomic(unsigned long)*", !"_Atomic(float)*", !"int*"}
