// clang's -Wimplicit-enum-enum-cast (on by default in the clang-22 driver): an enumerator
// or a value of one enum type converted implicitly to another enum type, with clang-22's
// words and columns. A use enumerator passed as a coop_mat_store layout is the mistake it
// catches here (CLK_COOPERATIVE_MATRIX_B is 1: it would store column-major); the RFC
// declares the parameter `const coop_matrix_layout_t`. clcoop keeps no typedef sugar on
// user enums: clang spells `b_t v` as 'b_t' (aka 'enum b_t'), clcoop as 'enum b_t'.
// RUN: %clcoop %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %not %clcoop -Werror %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=WERROR
// clang's groups: -Wenum-conversion holds -Wimplicit-enum-enum-cast.
// RUN: %clcoop -Wno-enum-conversion %s -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// RUN: %clcoop -Wno-implicit-enum-enum-cast %s -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET

#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef enum a_t { A0, A1 } a_t;
typedef enum b_t { B0, B1 } b_t;
void f(a_t x) {}
kernel void k(global float *C) {
  mat_c c = coop_mat_init(0.0f);
  coop_mat_store(C, c, CLK_COOPERATIVE_MATRIX_B, (size_t)16);
  coop_mat_store(C, c, (coop_matrix_layout_t)CLK_COOPERATIVE_MATRIX_B, (size_t)16);
  coop_mat_store(C, c, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(C, c, 0, (size_t)16);
  f(B1); b_t v = B0; f(v); a_t w = B1; w = v; f(1); f(A1); f((a_t)v);
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_scope_device, memory_order_relaxed);
}

// CHECK: enum-conversion.cl:20:24: warning: implicit conversion from enumeration type 'enum coop_matrix_use_t' to different enumeration type 'coop_matrix_layout_t' (aka 'enum coop_matrix_layout_t') [-Wimplicit-enum-enum-cast]
// CHECK-NEXT: coop_mat_store(C, c, CLK_COOPERATIVE_MATRIX_B, (size_t)16);
// CHECK-NOT: enum-conversion.cl:{{21|22|23}}:
// CHECK: enum-conversion.cl:24:5: warning: implicit conversion from enumeration type 'enum b_t' to different enumeration type 'enum a_t' [-Wimplicit-enum-enum-cast]
// CHECK: enum-conversion.cl:24:24: warning: implicit conversion from enumeration type 'enum b_t' to different enumeration type 'enum a_t' [-Wimplicit-enum-enum-cast]
// CHECK: enum-conversion.cl:24:36: warning: implicit conversion from enumeration type 'enum b_t' to different enumeration type 'enum a_t' [-Wimplicit-enum-enum-cast]
// CHECK: enum-conversion.cl:24:44: warning: implicit conversion from enumeration type 'enum b_t' to different enumeration type 'enum a_t' [-Wimplicit-enum-enum-cast]
// CHECK-NOT: enum-conversion.cl:24:{{[0-9]+}}: warning
// CHECK: enum-conversion.cl:25:48: warning: implicit conversion from enumeration type 'enum memory_scope' to different enumeration type 'enum memory_order' [-Wimplicit-enum-enum-cast]
// CHECK: enum-conversion.cl:25:69: warning: implicit conversion from enumeration type 'enum memory_order' to different enumeration type 'enum memory_scope' [-Wimplicit-enum-enum-cast]
// CHECK: 7 warnings generated.

// WERROR: enum-conversion.cl:20:24: error: implicit conversion from enumeration type 'enum coop_matrix_use_t' to different enumeration type 'coop_matrix_layout_t' (aka 'enum coop_matrix_layout_t') [-Werror,-Wimplicit-enum-enum-cast]

// QUIET-NOT: warning
