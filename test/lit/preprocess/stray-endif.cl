// RUN: %not %clcoop %s -o %t.ll 2>&1 | FileCheck %s
int x;
#endif
#else
// CHECK: stray-endif.cl:3:2: error: #endif without #if
// CHECK: stray-endif.cl:4:2: error: #else without #if
