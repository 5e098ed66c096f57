// At -cl-std=CL1.2 the OpenCL 2.0 and extension built-ins clang-22's opencl-c.h does not
// declare there are undeclared identifiers, as in clang (builtins_by_version.txt); at CL3.0
// the same kernel compiles.
// RUN: %not %clcoop -cl-std=CL1.2 %s -o %t 2>&1 | FileCheck %s
// RUN: %clcoop -cl-std=CL3.0 %s -o %t
kernel void k(global int *o) {
  o[0] = get_enqueued_local_size(0);
  o[1] = sub_group_ballot(1).x;
  o[2] = get_sub_group_size();
  work_group_barrier(0);
}
// CHECK: cl12-hidden-builtins.cl:7:10: error: use of undeclared identifier 'get_enqueued_local_size'
// CHECK: cl12-hidden-builtins.cl:8:10: error: use of undeclared identifier 'sub_group_ballot'
// CHECK-NOT: get_sub_group_size
// CHECK: cl12-hidden-builtins.cl:10:3: error: use of undeclared identifier 'work_group_barrier'
// CHECK: 3 errors generated.
