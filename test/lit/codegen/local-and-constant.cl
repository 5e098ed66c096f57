// Kernel-scope __local variables are internal addrspace(3) globals named <kernel>.<var>;
// __constant program-scope arrays are addrspace(2) constants (issue 2 items 6, 7).
// RUN: %clcoop %s -o - | FileCheck %s

// CHECK: @tab = addrspace(2) constant [4 x float] [float 1.000000e+00, float 2.000000e+00, float 3.000000e+00, float 4.000000e+00], align 4
// CHECK: @k.tmp = internal addrspace(3) global [64 x float] undef, align 4
__constant float tab[4] = {1.0f, 2.0f, 3.0f, 4.0f};

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: %arrayidx{{[0-9]*}} = getelementptr inbounds [64 x float], ptr addrspace(3) @k.tmp, i64 0, i64 %{{[0-9]+}}
// CHECK: store float %{{.*}}, ptr addrspace(3) %arrayidx
// CHECK: call spir_func void @_Z7barrierj(i32 1)
// CHECK: getelementptr inbounds [4 x float], ptr addrspace(2) @tab, i64 0, i64 %and
// CHECK: load float, ptr addrspace(2)
kernel void k(global float *a) {
  __local float tmp[64];
  size_t i = get_local_id(0);
  tmp[i] = a[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  a[i] = tmp[63 - i] * tab[i & 3];
}
