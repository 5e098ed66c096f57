// A struct, union or enum after another type specifier, with no declarator, is clang's
// error (C11 6.7.2p2), not an internal compiler error: pycparser read the tag as a type
// name there and failed (found by scripts/fuzz.py --seed 1618).
// RUN: %not %clcoop %s -fsyntax-only 2>&1 | FileCheck %s --implicit-check-not="internal compiler error"

struct pair { int a; double union either { char c[3]; short s; }; };
// CHECK: combined-tag-specifier.cl:[[@LINE-1]]:{{[0-9]+}}: error: cannot combine with previous 'double' declaration specifier

int struct S { int a; };
// CHECK: combined-tag-specifier.cl:[[@LINE-1]]:{{[0-9]+}}: error: cannot combine with previous 'int' declaration specifier

kernel void k(global int *o) { o[0] = 1; }
