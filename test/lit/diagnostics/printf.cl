// printf's checks with clang-22's wording and locations: the format is required and must be
// a `constant char *`; -Wformat's argument-count warnings; matrices and structs cannot be
// passed through the variadic arguments.
// RUN: not %clcoop -Wno-coop-portability %s -fsyntax-only 2>&1 | FileCheck %s
typedef float mat __attribute__((coop_mat(memory_scope_sub_group, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
struct S { int a; };
kernel void k(global char *s, global float *p) {
  printf();
  printf(s, 1);
  printf("a %d %d\n", 1);
  printf("b %d\n", 1, 2);
  printf("c %*.*f %% %s %v4hld\n", 3, 2, 1.0f, "s", (int4)(1));
  mat m = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, 16);
  printf("%f\n", m);
  struct S v = {1};
  printf("%d\n", v);
}
// CHECK: printf.cl:8:10: error: too few arguments to function call, at least argument 'st' must be specified
// CHECK: printf.cl:9:10: error: passing '__global char *' to parameter of type 'const __constant char *' changes address space of pointer
// CHECK: printf.cl:10:17: warning: more '%' conversions than data arguments
// CHECK: printf.cl:11:23: warning: data argument not used by format string
// CHECK: printf.cl:14:18: error: cannot pass a cooperative matrix of type 'mat' to printf; pass its elements
// CHECK: printf.cl:16:18: error: cannot pass a struct of type 'struct S' to printf
// CHECK-NOT: warning:
// CHECK: 2 warnings and 4 errors generated.
