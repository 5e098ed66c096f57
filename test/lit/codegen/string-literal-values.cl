// A string literal used as a value (not a char-array initializer) is a `__constant char`
// array that decays to `__constant char *` (OpenCL C 3.0 6.10; clang-22 emits a private
// addrspace(2) global). pocl's tests pass them to helpers taking `constant char *`.
// sizeof of a literal is its array size, NUL included.
// RUN: %clcoop %s -o - | FileCheck %s
// RUN: not %clcoop %s -fsyntax-only -DBAD 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %clcoop %s -fsyntax-only -DBAD2 2>&1 | FileCheck %s --check-prefix=BAD2

// CHECK: @.str = private unnamed_addr addrspace(2) constant [6 x i8] c"hello\00"
// CHECK: @.str.1 = private unnamed_addr addrspace(2) constant [3 x i8] c"xy\00"
typedef constant char *string;
int first(string s) { return s[0]; }

kernel void k(global int *o) {
  // CHECK: call spir_func i32 @first(ptr addrspace(2) @.str)
  o[0] = first("hello");
  // CHECK: store ptr addrspace(2) @.str.1, ptr %p
  constant char *p = "xy";
  o[1] = p[1];
  // CHECK: store i32 4, ptr addrspace(1)
  o[2] = sizeof("abc");
#ifdef BAD
  // BAD: string-literal-values.cl:24:12: error: read-only variable is not assignable
  "abc"[0] = 1;
#endif
}

#ifdef BAD2
int generic_param(const char *s) { return s[0]; }
// BAD2: string-literal-values.cl:31:54: error: passing '__constant char *' to parameter of type 'const __generic char *' changes address space of pointer
kernel void k2(global int *o) { o[0] = generic_param("x"); }
#endif
