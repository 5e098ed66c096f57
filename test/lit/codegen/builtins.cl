// OpenCL built-ins are calls to clang's Itanium-mangled names, declared once; barriers are convergent.
// RUN: %clcoop %s -o - | FileCheck %s

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: %call = call spir_func i64 @_Z13get_global_idj(i32 0)
// CHECK: call spir_func i64 @_Z12get_local_idj(i32 1)
// CHECK: call spir_func float @_Z4sqrtf(float
// CHECK: call spir_func float @_Z4fmaxff(float
// CHECK: call spir_func i32 @_Z3minii(i32
// CHECK: call spir_func void @_Z7barrierj(i32 1)
// CHECK: call spir_func i32 @_Z10atomic_addPU3AS1Vii(ptr addrspace(1)
// CHECK-DAG: declare spir_func i64 @_Z13get_global_idj(i32)
// CHECK-DAG: declare spir_func float @_Z4sqrtf(float)
// CHECK-DAG: declare spir_func void @_Z7barrierj(i32) #[[CONV:[0-9]+]]
// CHECK-DAG: attributes #[[CONV]] = { convergent nounwind }
// CHECK-NOT: declare spir_func i64 @_Z13get_global_idj
kernel void k(global float *a, global int *counter, int n) {
  size_t i = get_global_id(0);
  size_t j = get_local_id(1);
  a[i] = fmax(sqrt(a[i]), 0.5f) + min(n, (int)j);
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_add(counter, 1);
  a[get_global_id(0)] += 1.0f;
}
