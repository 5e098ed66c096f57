// An error in the expansion of a user's macro is reported at the invocation with one
// "expanded from macro" note per macro, outermost first, as clang-22 does (not in the
// default header, which was the last file written before the expansion).
// RUN: %not %clcoop %s -o %t 2>&1 | FileCheck %s
#define DEF(T) T##2 BADTOKEN f(T##2 a) { return a; }
DEF(char)
// CHECK-NOT: opencl-c-coop.h
// CHECK: macro-expansion-location.cl:6:1: error: expected ';' after top level declarator
// CHECK-NEXT: DEF(char)
// CHECK-NEXT: ^
// CHECK-NEXT: macro-expansion-location.cl:5:21: note: expanded from macro 'DEF'
// CHECK: 1 error generated.
