; Element access m[i] (read and write through __spirv_AccessChain on the matrix's private slot) becomes
; OpAccessChain on the Function-storage matrix variable, yielding a pointer to the component type
; (SPV_KHR_cooperative_matrix: OpAccessChain may index a cooperative matrix). llc-22's pointer casts
; around the imported call disappear, and loads/stores use the component type (float, char, half).
; REQUIRES: llc, spirv-tools
; RUN: %python -m clcoop.spirv %s -o %t.spv
; RUN: %spirv-val %t.spv
; RUN: %spirv-link %t.spv -o %t.linked.spv
; RUN: %spirv-dis %t.spv | FileCheck %s

; CHECK-NOT: LinkageAttributes "_Z19__spirv_AccessChain
; CHECK-DAG: %[[PF:[A-Za-z_0-9]+]] = OpTypePointer Function %float
; CHECK-DAG: %[[PC:[A-Za-z_0-9]+]] = OpTypePointer Function %uchar
; CHECK-DAG: %[[PH:[A-Za-z_0-9]+]] = OpTypePointer Function %half

; CHECK: %bump_float = OpFunction
; CHECK: %[[MF:m_addr[_0-9]*]] = OpVariable
; CHECK: %[[I:[0-9]+]] = OpPhi %ulong
; CHECK-NOT: OpBitcast
; CHECK: %[[P:[0-9]+]] = OpAccessChain %[[PF]] %[[MF]] %[[I]]
; CHECK-NEXT: %[[V:[0-9]+]] = OpLoad %float %[[P]]
; CHECK-NEXT: %[[W:[0-9]+]] = OpFAdd %float %[[V]]
; CHECK-NEXT: OpStore %[[P]] %[[W]]

; CHECK: %bump_char = OpFunction
; CHECK: %[[MC:m_addr[_0-9]*]] = OpVariable
; CHECK-NOT: OpBitcast
; CHECK: %[[P:[0-9]+]] = OpAccessChain %[[PC]] %[[MC]]
; CHECK-NEXT: OpLoad %uchar %[[P]]
; CHECK: OpStore %[[P]]

; CHECK: %bump_half = OpFunction
; CHECK: %[[MH:m_addr[_0-9]*]] = OpVariable
; CHECK-NOT: OpBitcast
; CHECK: %[[P:[0-9]+]] = OpAccessChain %[[PH]] %[[MH]]
; CHECK-NEXT: OpLoad %half %[[P]]
; CHECK: OpStore %[[P]]
; CHECK-NOT: OpFunctionCall %_ptr

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

declare spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIDhLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2))
declare spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIcLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2))
declare spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func ptr @_Z19__spirv_AccessChainIDhLi3ELi8ELi16ELi2EEvPDhm(ptr, i64)
declare spir_func ptr @_Z19__spirv_AccessChainIcLi3ELi8ELi16ELi2EEvPcm(ptr, i64)
declare spir_func ptr @_Z19__spirv_AccessChainIfLi3ELi8ELi16ELi2EEvPfm(ptr, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1), i32, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi8ELi16ELi2EEvPU3AS1Dhim(ptr addrspace(1), i32, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIcLi3ELi8ELi16ELi2EEvPU3AS1cim(ptr addrspace(1), i32, i64)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIDhLi3ELi8ELi16ELi2EEvPU3AS1Dhim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2), i32, i64)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIcLi3ELi8ELi16ELi2EEvPU3AS1cim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2), i32, i64)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), i32, i64)

; m[i] = m[i] + 1 for every component the work-item holds, on a float matrix in a private slot.
define spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @bump_float(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %m) {
entry:
  %m.addr = alloca target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)
  store target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %m, ptr %m.addr
  %len = call spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %m)
  %len64 = zext i32 %len to i64
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %p = call spir_func ptr @_Z19__spirv_AccessChainIfLi3ELi8ELi16ELi2EEvPfm(ptr %m.addr, i64 %i)
  %v = load float, ptr %p
  %w = fadd float %v, 1.0
  store float %w, ptr %p
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %len64
  br i1 %done, label %exit, label %loop
exit:
  %r = load target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), ptr %m.addr
  ret target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %r
}

define spir_kernel void @access_float(ptr addrspace(1) %A) {
entry:
  %x = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %A, i32 0, i64 16)
  %y = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @bump_float(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %x)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %A, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %y, i32 0, i64 16)
  ret void
}

; m[i] = m[i] + 1 for every component the work-item holds, on a char matrix in a private slot.
define spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2) @bump_char(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2) %m) {
entry:
  %m.addr = alloca target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2)
  store target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2) %m, ptr %m.addr
  %len = call spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIcLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2) %m)
  %len64 = zext i32 %len to i64
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %p = call spir_func ptr @_Z19__spirv_AccessChainIcLi3ELi8ELi16ELi2EEvPcm(ptr %m.addr, i64 %i)
  %v = load i8, ptr %p
  %w = add i8 %v, 1
  store i8 %w, ptr %p
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %len64
  br i1 %done, label %exit, label %loop
exit:
  %r = load target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2), ptr %m.addr
  ret target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2) %r
}

define spir_kernel void @access_char(ptr addrspace(1) %A) {
entry:
  %x = call spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIcLi3ELi8ELi16ELi2EEvPU3AS1cim(ptr addrspace(1) %A, i32 0, i64 16)
  %y = call spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2) @bump_char(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2) %x)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIcLi3ELi8ELi16ELi2EEvPU3AS1cim(ptr addrspace(1) %A, target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2) %y, i32 0, i64 16)
  ret void
}

; m[i] = m[i] + 1 for every component the work-item holds, on a half matrix in a private slot.
define spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) @bump_half(target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) %m) {
entry:
  %m.addr = alloca target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2)
  store target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) %m, ptr %m.addr
  %len = call spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIDhLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) %m)
  %len64 = zext i32 %len to i64
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %p = call spir_func ptr @_Z19__spirv_AccessChainIDhLi3ELi8ELi16ELi2EEvPDhm(ptr %m.addr, i64 %i)
  %v = load half, ptr %p
  %w = fadd half %v, 0xH3C00
  store half %w, ptr %p
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %len64
  br i1 %done, label %exit, label %loop
exit:
  %r = load target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2), ptr %m.addr
  ret target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) %r
}

define spir_kernel void @access_half(ptr addrspace(1) %A) {
entry:
  %x = call spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi8ELi16ELi2EEvPU3AS1Dhim(ptr addrspace(1) %A, i32 0, i64 16)
  %y = call spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) @bump_half(target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) %x)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIDhLi3ELi8ELi16ELi2EEvPU3AS1Dhim(ptr addrspace(1) %A, target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) %y, i32 0, i64 16)
  ret void
}
