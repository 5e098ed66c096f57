// opencl_unroll_hint (OpenCL C 3.0 6.11.5) as clang-22 lowers it: a distinct !llvm.loop on the
// loop's back edge; no count = unroll.enable, 1 = unroll.disable, n = unroll.count n.
// The same CHECK lines hold for clcoop's IR and clang-22's.
// RUN: %clcoop %s -o - | FileCheck %s
// RUN: %if clang %{ %clang -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 -finclude-default-header -emit-llvm -O0 -disable-llvm-passes %s -o - | FileCheck %s %}
kernel void k(global int *o) {
  __attribute__((opencl_unroll_hint(1))) for (int i = 0; i < 8; i++) o[i] = i;
  int n = 3;
  __attribute__((opencl_unroll_hint(2))) while (n--) o[n] += 1;
  __attribute__((opencl_unroll_hint)) do { o[0]++; } while (n++ < 2);
  for (int i = 0; i < 2; i++) o[i]--;
}
// CHECK: for.inc:
// CHECK: br label %for.cond, !llvm.loop [[FOR:![0-9]+]]
// CHECK: while.body:
// CHECK: br label %while.cond, !llvm.loop [[WHILE:![0-9]+]]
// CHECK: do.cond:
// CHECK: br i1 %{{.*}}, label %do.body, label %do.end, !llvm.loop [[DO:![0-9]+]]
// CHECK: for.inc{{[0-9]+}}:
// CHECK-NOT: !llvm.loop
// CHECK: ret void
// CHECK-DAG: [[FOR]] = distinct !{[[FOR]], [[FORH:![0-9]+]]}
// CHECK-DAG: [[FORH]] = !{!"llvm.loop.unroll.disable"}
// CHECK-DAG: [[WHILE]] = distinct !{[[WHILE]], [[WHILEH:![0-9]+]]}
// CHECK-DAG: [[WHILEH]] = !{!"llvm.loop.unroll.count", i32 2}
// CHECK-DAG: [[DO]] = distinct !{[[DO]], [[DOH:![0-9]+]]}
// CHECK-DAG: [[DOH]] = !{!"llvm.loop.unroll.enable"}
