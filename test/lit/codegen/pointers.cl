// Pointer arithmetic and differences, address-of, generic address space conversions.
// RUN: %clcoop %s -o - | FileCheck %s

// CHECK-LABEL: define spir_func i32 @first(ptr addrspace(4) %p)
int first(int *p) { return *p; }

// CHECK-LABEL: define spir_kernel void @k(
// CHECK: %add.ptr = getelementptr inbounds i32, ptr addrspace(1) %{{[0-9]+}}, i64 2
// CHECK: %sub.ptr.sub = sub i64
// CHECK: %sub.ptr.div = sdiv exact i64 %sub.ptr.sub, 4
// CHECK: addrspacecast ptr addrspace(1) %{{.*}} to ptr addrspace(4)
// CHECK: addrspacecast ptr %x to ptr addrspace(4)
kernel void k(global int *a) {
  global int *q = a + 2;
  a[0] = (int)(q - a);
  a[1] = first(q);
  int x = 5;
  a[2] = first(&x);
}
