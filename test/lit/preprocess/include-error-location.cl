// An error inside an included file is reported at the header's own file and line.
// RUN: %not %clcoop -I %S/Inputs %s -o %t.ll 2>&1 | FileCheck %s
#include "bad_syntax.h"
// CHECK: bad_syntax.h:2:20: error: expected ';' after top level declarator
// CHECK-NEXT: int from_header = 1
// CHECK-NEXT: {{^                   \^$}}
