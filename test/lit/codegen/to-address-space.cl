// to_global/to_local/to_private (OpenCL C 3.0 6.15.10): calls to clang's __to_global & co.
// on a generic pointer, as clang-22 emits them. Hidden before OpenCL C 2.0.
// RUN: %clcoop %s -o - | FileCheck %s
// RUN: %if clang %{ %clang -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 -finclude-default-header -emit-llvm -O0 -disable-llvm-passes %s -o - | FileCheck %s %}
// RUN: %not %clcoop -cl-std=CL1.2 %s -o %t 2>&1 | FileCheck %s --check-prefix=CL12
kernel void k(global int *o, local int *l) {
  generic int *g = o;
  global int *gg = to_global(g);
  local int *ll = to_local(l);
  private int *pp = to_private(g);
}
// CHECK: call spir_func ptr addrspace(1) @__to_global(ptr addrspace(4) %{{[0-9]+}})
// CHECK: [[L:%[0-9]+]] = addrspacecast ptr addrspace(3) %{{[0-9]+}} to ptr addrspace(4)
// CHECK-NEXT: call spir_func ptr addrspace(3) @__to_local(ptr addrspace(4) [[L]])
// CHECK: call spir_func ptr @__to_private(ptr addrspace(4) %{{[0-9]+}})
// CL12: error: use of undeclared identifier 'to_global'
