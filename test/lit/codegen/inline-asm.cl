// GNU inline assembly as clang-22 lowers it for SPIR: `asm sideeffect` when volatile or
// without outputs, "+c" as "=c" plus a tied input after the others, named operands and %N
// as $N, %% as %, $ as $$, clobbers as ~{memory}; several outputs return a struct.
// RUN: %clcoop %s -o - | FileCheck %s
kernel void k(global float *o, global int *p) {
  float x = o[0];
  __asm__ volatile("" : "+rw"(x));
  int y = p[0], z;
  __asm__ ("foo %0, %1, %[w] %% $" : "+r"(y), "=r"(z) : [w] "r"(y), "r"(x) : "memory");
  __asm__ ("" :: "r"(y));
  __asm volatile ("" ::: "memory");
  o[1] = x; p[1] = y + z;
}
// CHECK: %[[X:[0-9]+]] = load float, ptr %x, align 4
// CHECK-NEXT: %[[R:[0-9]+]] = call float asm sideeffect "", "=rw,0"(float %[[X]]) #[[A:[0-9]+]]
// CHECK-NEXT: store float %[[R]], ptr %x, align 4
// CHECK: %[[S:[0-9]+]] = call { i32, i32 } asm "foo $0, $1, $2 % $$", "=r,=r,r,r,0,~{memory}"(i32 %{{[0-9]+}}, float %{{[0-9]+}}, i32 %{{[0-9]+}}) #[[A]]
// CHECK-NEXT: %[[Y:[0-9]+]] = extractvalue { i32, i32 } %[[S]], 0
// CHECK-NEXT: store i32 %[[Y]], ptr %y, align 4
// CHECK-NEXT: %[[Z:[0-9]+]] = extractvalue { i32, i32 } %[[S]], 1
// CHECK-NEXT: store i32 %[[Z]], ptr %z, align 4
// CHECK: call void asm sideeffect "", "r"(i32 %{{[0-9]+}}) #[[A]]
// CHECK: call void asm sideeffect "", "~{memory}"() #[[A]]
// CHECK: attributes #[[A]] = { convergent nounwind }
