// The scalar of `matrix * scalar` and of coop_mat_init becomes the component type (RFC 4.6; the
// RFC's own `a * 4` on a float matrix multiplies by 4.0f). A constant that changes value on the
// way gets clang's literal-conversion warning; compilation goes on.
// RUN: %clcoop -Wno-coop-portability -fsyntax-only %s 2>&1 | FileCheck %s

typedef int matI __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float matF __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

void f(matI m, matF x) {
  m = m * 2.5f;
  m = m * 2.0f;
  m = 4 * m;
  x = x * 4;
  matI n = coop_mat_init(300.5);
  m = m * 3000000000;
}

// CHECK: {{.*}}coop-scalar-conversion.cl:10:11: warning: implicit conversion from 'float' to 'int' changes value from 2.5 to 2
// CHECK: {{.*}}coop-scalar-conversion.cl:14:26: warning: implicit conversion from 'double' to 'int' changes value from 300.5 to 300
// CHECK: {{.*}}coop-scalar-conversion.cl:15:11: warning: implicit conversion from 'long' to 'int' changes value from 3000000000 to -1294967296
// CHECK: 3 warnings generated.
