// A C cast between matrix types converts components (SPV_KHR 3.42.11) and uses (NV2/EXT) when
// scope, rows and cols agree; other casts and implicit conversions are errors.
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s

typedef float matA __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float matB __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 8, CLK_COOPERATIVE_MATRIX_B)));
typedef float matC __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int matI __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

kernel void k(global float *p) {
  matC c; matI i = (matI)c; matA a;
  a = (matA)c;
  c = (matC)1.0f;
  float f = (float)c;
  i = c;
  c[0] = c[1] * 2.0f;
  float e = c[0.5f];
}

// CHECK: {{.*}}coop-conversion.cl:12:7: error: invalid conversion between cooperative matrix types 'matC' and 'matA': rows and columns must match
// CHECK: {{.*}}coop-conversion.cl:12:7: note: 8x8 to 8x16
// CHECK: {{.*}}coop-conversion.cl:13:7: error: invalid cast from 'float' to 'matC'
// CHECK: {{.*}}coop-conversion.cl:14:13: error: invalid cast from 'matC' to 'float'
// CHECK: {{.*}}coop-conversion.cl:15:7: error: incompatible cooperative matrix types
// CHECK: {{.*}}coop-conversion.cl:15:7: note: 'matC' converted to 'matI'
// CHECK: {{.*}}coop-conversion.cl:17:15: error: array subscript is not an integer
// CHECK: 5 errors generated.
