// `v[i]` with a non-constant index (a clang extension; Rodinia and pocl use it): extractelement,
// and for stores and compound assignments load/insertelement/store of the whole vector, with the
// vector and the index each evaluated once, as clang-22 at -O0. Same CHECK lines for both.
// RUN: %clcoop %s -o - | FileCheck %s
// RUN: %if clang %{ %clang -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 -finclude-default-header -emit-llvm -O0 -disable-llvm-passes %s -o - | FileCheck %s %}
kernel void k(global short *o, global short16 *in, int i) {
  short16 v = in[0];
  o[0] = v[i];
  v[i + 1] = 7;
  in[1][i] += 5;
}
// CHECK: [[V:%[0-9]+]] = load <16 x i16>, ptr %v, align 32
// CHECK-NEXT: [[I:%[0-9]+]] = load i32, ptr %i.addr, align 4
// CHECK-NEXT: %vecext = extractelement <16 x i16> [[V]], i32 [[I]]
// CHECK: %add = add nsw i32 %{{[0-9]+}}, 1
// CHECK-NEXT: [[V:%[0-9]+]] = load <16 x i16>, ptr %v, align 32
// CHECK-NEXT: %vecins = insertelement <16 x i16> [[V]], i16 7, i32 %add
// CHECK-NEXT: store <16 x i16> %vecins, ptr %v, align 32
// CHECK: [[P:%arrayidx[0-9]*]] = getelementptr inbounds{{( nuw)?}} <16 x i16>, ptr addrspace(1) %{{[0-9]+}}, i64 1
// CHECK-NEXT: [[I:%[0-9]+]] = load i32, ptr %i.addr, align 4
// CHECK-NEXT: [[W:%[0-9]+]] = load <16 x i16>, ptr addrspace(1) [[P]], align 32
// CHECK-NEXT: [[E:%vecext[0-9]*]] = extractelement <16 x i16> [[W]], i32 [[I]]
// CHECK: [[W2:%[0-9]+]] = load <16 x i16>, ptr addrspace(1) [[P]], align 32
// CHECK-NEXT: [[N:%vecins[0-9]*]] = insertelement <16 x i16> [[W2]], i16 %{{.*}}, i32 [[I]]
// CHECK-NEXT: store <16 x i16> [[N]], ptr addrspace(1) [[P]], align 32
