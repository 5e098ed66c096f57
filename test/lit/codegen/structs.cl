// Structs and unions: named LLVM struct types, member GEPs named after the field, aggregate copies
// (llvm.memcpy, as clang-22: test/unit/interp/test_struct_copy.py), static locals as internal globals
// named <function>.<var>.
// RUN: %clcoop %s -o - | FileCheck %s

typedef struct P { int a; float b[3]; } P;
typedef union U { int i; float f; } U;

// CHECK-DAG: %struct.P = type { i32, [3 x float] }
// CHECK-DAG: %union.U = type { i32 }
// CHECK-DAG: @k.calls = internal addrspace(1) global i32 0, align 4
// CHECK-LABEL: define spir_kernel void @k(
// CHECK: %q = alloca %struct.P, align 4
// CHECK: call void @llvm.memcpy.p0.p1.i64(ptr align 4 %q, ptr addrspace(1) align 4 %arrayidx, i64 16, i1 false)
// CHECK: %a = getelementptr inbounds %struct.P, ptr %q, i32 0, i32 0
// CHECK: call void @llvm.memcpy.p1.p0.i64(ptr addrspace(1) align 4 %arrayidx1, ptr align 4 %q, i64 16, i1 false)
// CHECK: %b = getelementptr inbounds %struct.P, ptr addrspace(1) %{{[0-9]+}}, i32 0, i32 1
// CHECK: store float 1.000000e+00, ptr %u
// CHECK: load i32, ptr %u
// CHECK: load i32, ptr addrspace(1) @k.calls
kernel void k(global P *ps, global int *out) {
  static int calls;
  P q = ps[0];
  q.a += 3;
  ps[1] = q;
  ps->b[2] = 4.0f;
  U u;
  u.f = 1.0f;
  out[0] = u.i + calls;
}
