// #error is an error at the directive name (as clang); #warning is a warning.
// RUN: %not %clcoop %s -o %t.ll 2>&1 | FileCheck %s
#ifndef __opencl_c_ext_cooperative_matrix
#error the default header must define the feature macro
#endif
#warning tile size not tuned
#  error "custom failure"
// CHECK: error-directive.cl:6:2: warning: tile size not tuned
// CHECK: error-directive.cl:7:4: error: "custom failure"
// CHECK-NEXT: #  error "custom failure"
// CHECK-NEXT: {{^   \^$}}
// CHECK: 1 warning and 1 error generated.
