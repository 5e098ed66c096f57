// A kernel called from another kernel: LLVM forbids calls to spir_kernel functions, so the call goes
// to a spir_func copy named as clang names it (__clang_ocl_kern_imp_<name>); the kernel itself stays
// a spir_kernel with its metadata. The output verifies at -O2 too.
// RUN: %clcoop %s -o - | FileCheck %s
// RUN: %clcoop -O2 %s -o - | FileCheck %s --check-prefix=O2

// CHECK-LABEL: define spir_kernel void @inner(ptr addrspace(1) %a) {{.*}}!kernel_arg_addr_space
// CHECK-LABEL: define spir_kernel void @outer(
// CHECK: call spir_func void @__clang_ocl_kern_imp_inner(ptr addrspace(1) %0)
// CHECK-LABEL: define spir_func void @__clang_ocl_kern_imp_inner(ptr addrspace(1) %a)
// CHECK: store i32 1, ptr addrspace(1) %arrayidx
// O2-LABEL: define spir_kernel void @outer(
// O2-NOT: unreachable
// O2: ret void
kernel void inner(global int *a) { a[0] = 1; }
kernel void outer(global int *a) { inner(a); a[1] = 2; }
