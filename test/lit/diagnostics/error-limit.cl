// -ferror-limit=N (clang's option): stop after N errors; 0 means no limit (clang -cc1's
// default); clcoop's default stops after 20. A value that is not a number is refused.
// RUN: not %clcoop %s -fsyntax-only 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: not %clcoop %s -fsyntax-only -ferror-limit=2 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not %clcoop %s -fsyntax-only -ferror-limit=0 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not %clcoop %s -fsyntax-only -ferror-limit=many 2>&1 | FileCheck %s --check-prefix=BAD

kernel void k(void) {
  int v0 = undeclared0;
  int v1 = undeclared1;
  int v2 = undeclared2;
  int v3 = undeclared3;
  int v4 = undeclared4;
  int v5 = undeclared5;
  int v6 = undeclared6;
  int v7 = undeclared7;
  int v8 = undeclared8;
  int v9 = undeclared9;
  int v10 = undeclared10;
  int v11 = undeclared11;
  int v12 = undeclared12;
  int v13 = undeclared13;
  int v14 = undeclared14;
  int v15 = undeclared15;
  int v16 = undeclared16;
  int v17 = undeclared17;
  int v18 = undeclared18;
  int v19 = undeclared19;
  int v20 = undeclared20;
  int v21 = undeclared21;
  int v22 = undeclared22;
  int v23 = undeclared23;
}

// DEFAULT: error-limit.cl:28:13: error: use of undeclared identifier 'undeclared19'
// DEFAULT-NEXT: int v19 = undeclared19;
// DEFAULT-NEXT: {{^ +\^$}}
// DEFAULT-NEXT: error: too many errors emitted, stopping now
// DEFAULT-NEXT: 21 errors generated.
// TWO: error-limit.cl:9:12: error: use of undeclared identifier 'undeclared0'
// TWO: error-limit.cl:10:12: error: use of undeclared identifier 'undeclared1'
// TWO-NOT: undeclared2
// TWO: error: too many errors emitted, stopping now
// TWO-NEXT: 3 errors generated.
// NONE: error-limit.cl:32:13: error: use of undeclared identifier 'undeclared23'
// NONE-NOT: too many errors
// NONE: 24 errors generated.
// BAD: clcoop: error: invalid integral value 'many' in '-ferror-limit=many'
