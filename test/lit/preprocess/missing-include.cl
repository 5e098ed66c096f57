// RUN: %not %clcoop %s -o %t.ll 2>&1 | FileCheck %s
kernel void k(void) {}
#include "does_not_exist.h"
// CHECK: missing-include.cl:3:10: error: 'does_not_exist.h' file not found
// CHECK-NEXT: #include "does_not_exist.h"
// CHECK-NEXT: {{^         \^$}}
  #  include <also_missing.h>
// CHECK: missing-include.cl:7:14: error: 'also_missing.h' file not found
// CHECK: 2 errors generated.
