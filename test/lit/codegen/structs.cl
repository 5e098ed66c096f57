// Structs and unions: named LLVM struct types, member GEPs named after the field, aggregate copies,
// static locals as internal globals named <function>.<var>.
// RUN: %clcoop %s -o - | FileCheck %s

typedef struct P { int a; float b[3]; } P;
typedef union U { int i; float f; } U;

// CHECK-DAG: %struct.P = type { i32, [3 x float] }
// CHECK-DAG: %union.U = type { i32 }
// CHECK-DAG: @k.calls = internal addrspace(1) global i32 0, align 4
// CHECK-LABEL: define spir_kernel void @k(
// CHECK: %q = alloca %struct.P, align 4
// CHECK: %[[V:[0-9]+]] = load %struct.P, ptr addrspace(1) %arrayidx
// CHECK-NEXT: store %struct.P %[[V]], ptr %q
// CHECK: %a = getelementptr inbounds %struct.P, ptr %q, i32 0, i32 0
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
