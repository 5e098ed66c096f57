// Module header like clang-22 -cc1 -triple spir64-unknown-unknown -cl-std=CL3.0 (issue 2 item 6).
// RUN: %clcoop %s -o - | FileCheck %s --check-prefix=SPIR64
// RUN: %clcoop -triple spir-unknown-unknown %s -o - | FileCheck %s --check-prefix=SPIR32

// SPIR64: ; ModuleID = '{{.*}}module.cl'
// SPIR64-NEXT: source_filename = "{{.*}}module.cl"
// SPIR64-NEXT: target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
// SPIR64: target triple = "spir64-unknown-unknown"
// SPIR64: define spir_kernel void @k(ptr addrspace(1) %out)
// SPIR64: %out.addr = alloca ptr addrspace(1), align 8
// SPIR64: !opencl.ocl.version = !{![[V:[0-9]+]]}
// SPIR64: !opencl.spir.version = !{![[V]]}
// SPIR64: ![[V]] = !{i32 3, i32 0}

// SPIR32: target datalayout = "e-p:32:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
// SPIR32: target triple = "spir-unknown-unknown"
// SPIR32: %out.addr = alloca ptr addrspace(1), align 4
// SPIR32: call spir_func i32 @_Z13get_global_idj(i32 0)

kernel void k(global int *out) {
  out[get_global_id(0)] = 1;
}
