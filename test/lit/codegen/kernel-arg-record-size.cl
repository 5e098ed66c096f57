// A kernel with a pointer to a struct carries clcoop's !clcoop.arg_record_size: per parameter,
// the struct pointee's size in bytes (0: no struct pointee). Opaque pointers no longer say
// it, and a launch checks a struct buffer's records against it (clcoop/prepare.py). Kernels
// without struct pointers carry nothing of clcoop's own, as clang's IR.
// RUN: %clcoop %s -O2 -o - | FileCheck %s
// RUN: %clcoop %s -O0 -o - | FileCheck %s

typedef struct { float d; char q[32]; } blk8;
struct pair { int a; double b; };
union either { char c[3]; short s; };

// CHECK: define spir_kernel void @k({{.*}} !kernel_arg_type_qual ![[Q:[0-9]+]] !clcoop.arg_record_size ![[SIZES:[0-9]+]] {
kernel void k(global blk8 *b, global const struct pair *p, float x, local union either *u, global float *o) {
  o[0] = b[0].d + (float)p[0].b + x + u[0].c[1];
}

// CHECK: define spir_kernel void @plain(
// CHECK-NOT: arg_record_size
// CHECK-SAME: {
kernel void plain(global float *o) { o[0] = 1.0f; }

// CHECK: ![[SIZES]] = !{i32 36, i32 16, i32 0, i32 4, i32 0}
