; &m[i] taken as a generic pointer (__spirv_AccessChain on an addrspacecast of the matrix slot): the address
; is an OpAccessChain on the Function variable, then OpPtrCastToGeneric (OpBitcast may not change the storage
; class), and llc's casts of the matrix pointer are gone.
; REQUIRES: llc, spirv-tools
; RUN: %python -m clcoop.spirv %s -o %t.spv
; RUN: %spirv-val %t.spv
; RUN: %spirv-link %t.spv -o %t.linked.spv
; RUN: %spirv-dis %t.spv | FileCheck %s

; CHECK: OpStore %[[M:m_addr]]
; CHECK-NEXT: %[[C:[0-9]+]] = OpAccessChain %_ptr_Function_float %[[M]] %ulong_1
; CHECK-NEXT: %[[G:[0-9]+]] = OpPtrCastToGeneric %_ptr_Generic_float %[[C]]
; CHECK-NEXT: %[[V:[0-9]+]] = OpLoad %float %[[G]]
; CHECK-NEXT: %[[W:[0-9]+]] = OpFAdd %float %[[V]] %float_1
; CHECK-NEXT: OpStore %[[G]] %[[W]]
; CHECK-NOT: OpBitcast
; CHECK-NOT: OpFunctionCall

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

%fm = type target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)
%im = type target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2)

declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1), i32, i64)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), i32, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryAddIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarMulIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEvf(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), float)
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarNegIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func ptr addrspace(4) @_Z19__spirv_AccessChainIfLi3ELi8ELi16ELi2EEvPU3AS4fm(ptr addrspace(4), i64)
declare spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))

define spir_kernel void @k(ptr addrspace(1) %X, ptr addrspace(1) %out, float %alpha) {
entry:
  %m.addr = alloca target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2)
  %x = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %X, i32 0, i64 16)
  %s = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryAddIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %x, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %x)
  %t = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarMulIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEvf(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %s, float %alpha)
  %u = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarNegIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %t)
  store target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %u, ptr %m.addr
  %g = addrspacecast ptr %m.addr to ptr addrspace(4)
  %p = call spir_func ptr addrspace(4) @_Z19__spirv_AccessChainIfLi3ELi8ELi16ELi2EEvPU3AS4fm(ptr addrspace(4) %g, i64 1)
  %v = load float, ptr addrspace(4) %p
  %v2 = fadd float %v, 1.0
  store float %v2, ptr addrspace(4) %p
  %r = load target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), ptr %m.addr
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %out, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %r, i32 0, i64 16)
  ret void
}
