// Accesses through a pointer to volatile are `load volatile` / `store volatile` as clang-22
// emits them (C99 6.7.3p6), so -O2 keeps them: Rodinia hybridsort's addOffset spins on a
// volatile __local slot until its tagged store survives; without volatile LLVM folded the
// reload and removed the loop.
// RUN: %clcoop %s -O0 -o - | FileCheck %s
// RUN: %clcoop %s -O2 -o - | FileCheck %s --check-prefix=OPT

// CHECK-LABEL: define {{.*}}@add_offset
// CHECK: load volatile i32, ptr addrspace(3)
// CHECK: store volatile i32 {{.*}}, ptr addrspace(3)
// CHECK: load volatile i32, ptr addrspace(3)
// OPT-LABEL: define {{.*}}@add_offset
// OPT: load volatile i32
// OPT: store volatile i32
// OPT: load volatile i32
// OPT: br i1
uint add_offset(volatile local uint *slot, uint data, uint tag) {
  uint count;
  do {
    count = slot[data] & 0x07FFFFFFU;
    count = tag | (count + 1);
    slot[data] = count;
  } while (slot[data] != count);
  return (count & 0x07FFFFFFU) - 1;
}

typedef struct { int a; float b; } S;
// CHECK-LABEL: define {{.*}}@members
// CHECK: load volatile float
// CHECK: store volatile i32
// CHECK: load volatile i32
// CHECK: store volatile i32
// A plain pointer stays a plain access.
// CHECK: store i32
// CHECK-NOT: volatile
// CHECK: ret void
void members(volatile global S *s, global int *plain) {
  s->a = (int)s->b;
  s->a += 1;
  *plain = 2;
}
