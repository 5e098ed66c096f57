// What clang-22 rejects and clcoop used to accept: an ext_vector_type of bool, a typedef
// redefined with another type (the same type again is C11, a warning under C99 rules as in
// clang), sizeof(void). clang-22's wording and locations.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s
typedef _Bool b4 __attribute__((ext_vector_type(4)));
typedef int T1;
typedef float T1;
typedef int T2;
typedef int T2;
kernel void k(global int *o) { o[0] = sizeof(void); }
// CHECK: over-accepting.cl:5:33: error: invalid vector element type 'bool'
// CHECK: over-accepting.cl:7:15: error: typedef redefinition with different types ('float' vs 'int')
// CHECK: over-accepting.cl:6:13: note: previous definition is here
// CHECK: over-accepting.cl:9:13: warning: redefinition of typedef 'T2' is a C11 feature [-Wtypedef-redefinition]
// CHECK: over-accepting.cl:8:13: note: previous definition is here
// CHECK: over-accepting.cl:10:39: error: invalid application of 'sizeof' to a void type
// CHECK: 1 warning and 3 errors generated.
