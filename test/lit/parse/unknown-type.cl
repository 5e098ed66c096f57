// An undeclared type name (a typo of a matrix typedef; image2d_t, which clcoop lacks) is
// reported as clang does, at the name; a K&R parameter list has no implicit int in C99.
// RUN: %not %clcoop %s -o %t.ll 2>&1 | FileCheck %s
typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
matAA helper(matA m) { return m; }
kernel void k(global float *p, matB q) { }
kernel void body(global float *p) {
  matC z = 1;
}
static void take( m) {}
kernel void q2(global image2d_t *a) { }
// CHECK: unknown-type.cl:5:1: error: unknown type name 'matAA'
// CHECK: unknown-type.cl:6:32: error: unknown type name 'matB'
// CHECK: unknown-type.cl:8:3: error: unknown type name 'matC'
// CHECK: unknown-type.cl:10:19: error: parameter 'm' was not declared, defaults to 'int'; ISO C99 and later do not support implicit int
// CHECK: unknown-type.cl:11:23: error: unknown type name 'image2d_t'
// CHECK: 5 errors generated.
// RUN: %python -c "open(r'%t.implicit.cl', 'w').write('a{ }\nfoo(int x) { return x; }\nkernel void ok(global int *p) { p[0] = 1; }\n')"
// RUN: %not %clcoop %t.implicit.cl -o %t.ll 2>&1 | FileCheck %s --check-prefix=IMPLICIT
// IMPLICIT: implicit.cl:1:1: error: type specifier missing, defaults to 'int'; ISO C99 and later do not support implicit int
// IMPLICIT: implicit.cl:2:1: error: type specifier missing, defaults to 'int'; ISO C99 and later do not support implicit int
// IMPLICIT: 2 errors generated.
