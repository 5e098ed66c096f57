// Warnings do not stop the compile: the output is written, the warning goes to stderr in
// clang's format, and -w silences it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clcoop %s -o %t/k.ll 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s --check-prefix=IR --input-file %t/k.ll
// RUN: %clcoop -w %s -o %t/quiet.ll 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
#warning this kernel is a placeholder
kernel void k(global int *p) { p[0] = 1; }
// WARN: warnings.cl:7:2: warning: this kernel is a placeholder
// WARN-NEXT: #warning this kernel is a placeholder
// WARN-NEXT: {{^ \^$}}
// WARN: 1 warning generated.
// IR: define spir_kernel void @k(
// QUIET-NOT: warning
