// A statement attribute whose name is not an identifier (`__attribute__((0(1)))`): clang's
// "expected ')'" at it, not an internal compiler error (found by scripts/fuzz.py --seed 1620).
// RUN: %not %clcoop %s -fsyntax-only 2>&1 | FileCheck %s --implicit-check-not="internal compiler error"
kernel void k(global int *o) {
  __attribute__((0(1))) for (int i = 0; i < 8; i++) o[i] = i;
  // CHECK: statement-attribute-not-a-name.cl:[[@LINE-1]]:18: error: expected ')'
}
