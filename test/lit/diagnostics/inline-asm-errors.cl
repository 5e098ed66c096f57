// Inline assembly errors with clang-22's words and columns; `asm` is not a keyword in
// OpenCL C. clcoop refuses two things clang-22 accepts: a struct output (clang passes a
// small struct as an integer register) and memory operands ("m": indirect operands).
// RUN: %not %clcoop %s -o /dev/null 2>&1 | FileCheck %s
kernel void k(global int *p) {
  int x = p[0];
  __asm__("" : "r"(x));
  __asm__("" : "=r"(x + 1));
  __asm__("%3" : "=r"(x));
  __asm__("%[foo]" : "=r"(x));
  __asm__("%" : "=r"(x));
  __asm__("" : "=r"(x) : : "r1");
  asm("");
  struct { int a; } s;
  __asm__("" : "=r"(s));
  __asm__("" : "=m"(x));
}
// CHECK: inline-asm-errors.cl:7:16: error: invalid output constraint 'r' in asm
// CHECK: inline-asm-errors.cl:8:21: error: invalid lvalue in asm output
// CHECK: inline-asm-errors.cl:9:13: error: invalid operand number in inline asm string
// CHECK: inline-asm-errors.cl:10:14: error: unknown symbolic operand name in inline assembly string
// CHECK: inline-asm-errors.cl:11:12: error: invalid % escape in inline assembly string
// CHECK: inline-asm-errors.cl:12:28: error: unknown register name 'r1' in asm
// CHECK: inline-asm-errors.cl:13:3: error: use of undeclared identifier 'asm'
// CHECK: inline-asm-errors.cl:15:21: error: invalid type 'struct (anonymous)' in asm output
// CHECK: inline-asm-errors.cl:16:16: error: memory operand constraint '=m' of inline assembly is not supported by clcoop (only register and immediate operands)
// CHECK: 9 errors generated.
