// -g: debug line information like clang-22 -gline-tables-only (issue 12 item 4): one
// DICompileUnit for OpenCL, a DIFile, a distinct DISubprogram per function, a DILocation on
// the instructions of each statement and expression, the DWARF module flags.
// RUN: %clcoop -g %s -o - | FileCheck %s
// RUN: %clcoop -g -O2 %s -o - | FileCheck %s --check-prefix=O2
// RUN: %clcoop %s -o - | FileCheck %s --check-prefix=NODEBUG
// RUN: %clcoop -g -g0 %s -o - | FileCheck %s --check-prefix=NODEBUG

int twice(int x) {
  return 2 * x;
}

__kernel void scale(__global int *out, int n) {
  int i = get_global_id(0);
  if (i < n)
    out[i] = twice(i);
}

// CHECK: define spir_func i32 @twice(i32 %x) {{.*}}!dbg ![[TWICE:[0-9]+]]
// CHECK: %mul = mul nsw i32 2, %{{.*}}, !dbg ![[MUL:[0-9]+]]
// CHECK: define spir_kernel void @scale({{.*}}) {{.*}}!dbg ![[SCALE:[0-9]+]] !kernel_arg_addr_space
// CHECK: %call = call spir_func i64 @_Z13get_global_idj(i32 0), !dbg ![[GID:[0-9]+]]
// CHECK: %call{{[0-9]*}} = call spir_func i32 @twice(i32 %{{.*}}), !dbg ![[CALL:[0-9]+]]
// CHECK: store i32 %call{{[0-9]*}}, ptr addrspace(1) %arrayidx, align 4, !dbg ![[STORE:[0-9]+]]

// CHECK: !llvm.dbg.cu = !{![[CU:[0-9]+]]}
// CHECK: !llvm.module.flags = !{![[DWARF:[0-9]+]], ![[DIV:[0-9]+]]}
// CHECK: ![[CU]] = distinct !DICompileUnit(language: DW_LANG_OpenCL, file: ![[FILE:[0-9]+]], producer: "clcoop version {{.*}}", isOptimized: false, runtimeVersion: 0, emissionKind: LineTablesOnly, nameTableKind: None)
// CHECK: ![[FILE]] = !DIFile(filename: "{{.*}}debug-info.cl", directory: "{{.+}}")
// CHECK: ![[DWARF]] = !{i32 7, !"Dwarf Version", i32 5}
// CHECK: ![[DIV]] = !{i32 2, !"Debug Info Version", i32 3}
// CHECK: ![[TWICE]] = distinct !DISubprogram(name: "twice", scope: ![[FILE]], file: ![[FILE]], line: 9, type: ![[FNTYPE:[0-9]+]], scopeLine: 9, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: ![[CU]])
// CHECK: ![[FNTYPE]] = !DISubroutineType(types: ![[EMPTY:[0-9]+]])
// CHECK: ![[MUL]] = !DILocation(line: 10, column: 10, scope: ![[TWICE]])
// CHECK: ![[SCALE]] = distinct !DISubprogram(name: "scale", scope: ![[FILE]], file: ![[FILE]], line: 13, type: ![[KTYPE:[0-9]+]], scopeLine: 13, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: ![[CU]])
// CHECK: ![[KTYPE]] = !DISubroutineType(cc: DW_CC_LLVM_DeviceKernel, types: ![[EMPTY]])
// CHECK: ![[GID]] = !DILocation(line: 14, column: 11, scope: ![[SCALE]])
// CHECK: ![[CALL]] = !DILocation(line: 16, column: 14, scope: ![[SCALE]])
// CHECK: ![[STORE]] = !DILocation(line: 16, column: 5, scope: ![[SCALE]])

// After the -O2 pipeline (verified by LLVM 22): twice is inlined, its multiply keeps its
// line, inlined at the call.
// O2: define spir_kernel void @scale({{.*}}) {{.*}}!dbg ![[SCALE:[0-9]+]]
// O2: shl nsw i32 %{{.*}}, 1, !dbg ![[MUL:[0-9]+]]
// O2: store i32 {{.*}}, !dbg ![[STORE:[0-9]+]]
// O2: distinct !DICompileUnit(language: DW_LANG_OpenCL, {{.*}}isOptimized: true, {{.*}}emissionKind: LineTablesOnly
// O2: ![[TWICE:[0-9]+]] = distinct !DISubprogram(name: "twice"
// O2: ![[SCALE]] = distinct !DISubprogram(name: "scale", {{.*}}spFlags: DISPFlagDefinition | DISPFlagOptimized
// O2: ![[MUL]] = !DILocation(line: 10, column: 10, scope: ![[TWICE]], inlinedAt: ![[AT:[0-9]+]])
// O2: ![[AT]] = distinct !DILocation(line: 16, column: 14, scope: ![[SCALE]])

// NODEBUG-NOT: !dbg
// NODEBUG-NOT: DICompileUnit
// NODEBUG-NOT: Dwarf Version
