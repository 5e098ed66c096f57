// __builtin_unreachable() as the left operand of a comma: the right operand's code goes to
// a fresh block after the `unreachable` (no instruction may follow a terminator). It had
// been emitted after it, and LLVM refused the IR (an internal compiler error; found by
// scripts/fuzz.py --seed 1618). Without a comma the IR is clang-22's (no extra block).
// RUN: %clcoop %s -o - | FileCheck %s

kernel void k(global int *o, int x) {
  if (x == 99) __builtin_unreachable(), __builtin_assume(x > 0);
  if (x == 98) __builtin_unreachable();
  o[0] = 1;
}
// CHECK: if.then:
// CHECK-NEXT: unreachable
// CHECK-EMPTY:
// CHECK-NEXT: unreachable:
// CHECK: call void @llvm.assume(i1
// CHECK-NEXT: br label %if.end
// CHECK: if.then{{[0-9]+}}:
// CHECK-NEXT: unreachable
// CHECK-EMPTY:
// CHECK-NEXT: if.end{{[0-9]+}}:
