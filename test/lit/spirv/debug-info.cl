// -g IR stays valid for the SPIR-V backend (issue 12 item 4): llc-22 takes clcoop's -g IR of a
// cooperative-matrix kernel at -O0 and -O2 and spirv-val accepts the result; --emit-spirv -g
// gives a valid module too. llc-22's SPIR-V backend drops line information (with
// --spv-emit-nonsemantic-debug-info it writes only DebugSource/DebugCompilationUnit, no
// lines), so the module carries none.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop -g %examples/gemm_f32.cl -o %t.O0.ll
// RUN: FileCheck %s --check-prefix=IR < %t.O0.ll
// RUN: %llc -O0 -mtriple=spirv64-unknown-unknown --spirv-ext=+SPV_KHR_cooperative_matrix %t.O0.ll -filetype=obj -o %t.O0.spv
// RUN: %spirv-val %t.O0.spv
// RUN: %clcoop -g -O2 %examples/gemm_f32.cl -o %t.O2.ll
// RUN: FileCheck %s --check-prefix=IR < %t.O2.ll
// RUN: %llc -O2 -mtriple=spirv64-unknown-unknown --spirv-ext=+SPV_KHR_cooperative_matrix %t.O2.ll -filetype=obj -o %t.O2.spv
// RUN: %spirv-val %t.O2.spv
// RUN: %clcoop -g --emit-spirv %examples/gemm_f32.cl -o %t.emit.spv
// RUN: %spirv-val %t.emit.spv
// RUN: %spirv-dis %t.emit.spv | FileCheck %s --check-prefix=SPV

// IR: call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z{{.*}}CooperativeMatrixLoadKHR{{.*}}, !dbg ![[LOAD:[0-9]+]]
// IR: ![[LOAD]] = !DILocation(line: {{[0-9]+}}, column: {{[0-9]+}}, scope: !{{[0-9]+}})

// SPV: OpCapability CooperativeMatrixKHR
// SPV: OpCooperativeMatrixLoadKHR
// SPV-NOT: OpLine
