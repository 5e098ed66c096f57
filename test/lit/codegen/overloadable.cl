// User functions with __attribute__((overloadable)) (clang's C extension): one function per
// parameter list, Itanium-mangled as clang-22 mangles them, calls resolved as clang does.
// The same CHECK lines hold for clcoop's IR and clang-22's.
// RUN: %clcoop %s -o - | FileCheck %s
// RUN: %if clang %{ %clang -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 -finclude-default-header -emit-llvm -O0 -disable-llvm-passes %s -o - | FileCheck %s %}
__attribute__((overloadable)) float sq(float x) { return x * x; }
__attribute__((overloadable)) int sq(int x) { return x * x; }
int __attribute__((overloadable)) sq(global int *p, global int *q) { return *p * *q; }
__attribute__((overloadable)) float4 sq(float4 v) { return v * v; }
kernel void k(global float *o, global int *p, global float4 *v) {
  o[0] = sq(2.0f) + sq(3) + sq(p, p) + sq((short)2);
  v[0] = sq(v[1]);
}
// CHECK-DAG: define {{.*}}spir_func float @_Z2sqf(float
// CHECK-DAG: define {{.*}}spir_func i32 @_Z2sqi(i32
// CHECK-DAG: define {{.*}}spir_func i32 @_Z2sqPU3AS1iS0_(ptr addrspace(1)
// CHECK-DAG: define {{.*}}spir_func <4 x float> @_Z2sqDv4_f(<4 x float>
// CHECK: call spir_func float @_Z2sqf(float {{.*}}2.000000e+00)
// CHECK: call spir_func i32 @_Z2sqi(i32 {{.*}}3)
// CHECK: call spir_func i32 @_Z2sqPU3AS1iS0_(ptr addrspace(1)
// CHECK: call spir_func i32 @_Z2sqi(i32 {{.*}}2)
// CHECK: call spir_func <4 x float> @_Z2sqDv4_f(<4 x float>
