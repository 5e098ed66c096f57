; When a use of &m[i] needs llc's own byte-pointer type (here a byte offset from it), the element address is
; still an OpAccessChain on the matrix variable, followed by one pointer cast for that use only; the plain
; float load goes straight through a typed OpAccessChain.
; REQUIRES: llc, spirv-tools
; RUN: %python -m clcoop.spirv %s -o %t.spv
; RUN: %spirv-val %t.spv
; RUN: %spirv-link %t.spv -o %t.linked.spv
; RUN: %spirv-dis %t.spv | FileCheck %s

; CHECK: %[[M:m_addr]] = OpVariable
; CHECK: %[[C:[0-9]+]] = OpAccessChain %_ptr_Function_float %[[M]]
; CHECK-NEXT: %[[B:[0-9]+]] = OpBitcast %_ptr_Function_uchar %[[C]]
; CHECK-NEXT: %[[O:[0-9]+]] = OpPtrAccessChain %_ptr_Function_uchar %[[B]] %ulong_1
; CHECK-NEXT: OpLoad %uchar %[[O]]
; CHECK-NEXT: %[[F:[0-9]+]] = OpAccessChain %_ptr_Function_float %[[M]]
; CHECK-NEXT: OpLoad %float %[[F]]
; CHECK-NOT: OpFunctionCall

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1), i32, i64)
declare spir_func ptr @_Z19__spirv_AccessChainIfLi3ELi8ELi16ELi2EEvPfm(ptr, i64)
define spir_kernel void @k(ptr addrspace(1) %X, ptr addrspace(1) %out) {
entry:
  %m.addr = alloca target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)
  %x = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %X, i32 0, i64 16)
  store target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %x, ptr %m.addr
  %p = call spir_func ptr @_Z19__spirv_AccessChainIfLi3ELi8ELi16ELi2EEvPfm(ptr %m.addr, i64 0)
  %b = getelementptr i8, ptr %p, i64 1
  %v = load i8, ptr %b
  %w = load float, ptr %p
  store i8 %v, ptr addrspace(1) %out
  store float %w, ptr addrspace(1) %X
  ret void
}
