// -g: code that a function body #includes from another file is located in that file through
// a DILexicalBlockFile of the function's DISubprogram (as clang does); functions defined in a
// header get that header as their DISubprogram's file.
// RUN: %clcoop -g -I %S/Inputs %s -o - | FileCheck %s

#ifdef HEADER_FIRST
#include "debug-helper.h"
#endif
__kernel void k(__global int *out) {
  int i = get_global_id(0);
#include "debug-body.inc"
}

// CHECK: store i32 %mul, ptr addrspace(1) %arrayidx, align 4, !dbg ![[STORE:[0-9]+]]
// CHECK: ![[MAIN:[0-9]+]] = !DIFile(filename: "{{.*}}debug-info-include.cl"
// CHECK: ![[SP:[0-9]+]] = distinct !DISubprogram(name: "k", scope: ![[MAIN]], file: ![[MAIN]], line: 9
// CHECK: ![[BLOCK:[0-9]+]] = !DILexicalBlockFile(scope: ![[SP]], file: ![[INC:[0-9]+]], discriminator: 0)
// CHECK: ![[INC]] = !DIFile(filename: "{{.*}}debug-body.inc"
// CHECK: ![[STORE]] = !DILocation(line: 1, column: 3, scope: ![[BLOCK]])

// The compile unit is the main file even when the first function comes from a header.
// RUN: %clcoop -g -I %S/Inputs -DHEADER_FIRST %s -o - | FileCheck %s --check-prefix=HEADER
// HEADER: distinct !DICompileUnit(language: DW_LANG_OpenCL, file: ![[MAIN:[0-9]+]]
// HEADER: ![[MAIN]] = !DIFile(filename: "{{.*}}debug-info-include.cl"
// HEADER: distinct !DISubprogram(name: "helper", scope: ![[H:[0-9]+]], file: ![[H]], line: 1
// HEADER: ![[H]] = !DIFile(filename: "{{.*}}debug-helper.h"
