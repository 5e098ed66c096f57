; Integer element-wise operators: OpIAdd/OpISub/OpIMul, OpSNegate, scalar multiply as splat + OpIMul, and
; division signed or unsigned by the component code in the callee name (i = int -> OpSDiv, j = uint -> OpUDiv;
; docs/ir-conventions.md). Both matrices are the same SPIR-V type (SPIR-V integers carry no sign here).
; REQUIRES: llc, spirv-tools
; RUN: %python -m clcoop.spirv %s -o %t.spv
; RUN: %spirv-val %t.spv
; RUN: %spirv-link %t.spv -o %t.linked.spv
; RUN: %spirv-dis %t.spv | FileCheck %s

; CHECK-NOT: LinkageAttributes
; CHECK: %[[M:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %uint %uint_3 %uint_8 %uint_16 %uint_2
; CHECK: %int_ops = OpFunction
; CHECK: %[[X:[0-9]+]] = OpCooperativeMatrixLoadKHR %[[M]] %Xs
; CHECK: %[[Y:[0-9]+]] = OpCooperativeMatrixLoadKHR %[[M]] %Ys %uint_1 %ulong_8
; CHECK: OpIAdd %[[M]] %[[X]] %[[Y]]
; CHECK: OpISub %[[M]] %[[X]] %[[Y]]
; CHECK: OpIMul %[[M]] %[[X]] %[[Y]]
; CHECK: OpSDiv %[[M]] %[[X]] %[[Y]]
; CHECK: OpSNegate %[[M]] %[[X]]
; CHECK: %[[S:[0-9]+]] = OpCompositeConstruct %[[M]] %ks
; CHECK-NEXT: OpIMul %[[M]] %[[X]] %[[S]]
; CHECK: %[[U:[0-9]+]] = OpCooperativeMatrixLoadKHR %[[M]] %Xu
; CHECK: %[[V:[0-9]+]] = OpCooperativeMatrixLoadKHR %[[M]] %Yu
; CHECK: OpUDiv %[[M]] %[[U]] %[[V]]
; CHECK: OpSNegate %[[M]] %[[U]]
; CHECK: %[[T:[0-9]+]] = OpCompositeConstruct %[[M]] %ku
; CHECK-NEXT: OpIMul %[[M]] %[[U]] %[[T]]
; CHECK-NOT: OpFunctionCall

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iim(ptr addrspace(1), i32, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIjLi3ELi8ELi16ELi2EEvPU3AS1jim(ptr addrspace(1), i32, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryAddIiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryAddIjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryDivIiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryDivIjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryMulIiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryMulIjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinarySubIiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinarySubIjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarMulIiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), i32)
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarMulIjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEvj(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), i32)
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarNegIiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarNegIjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), i32, i64)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIjLi3ELi8ELi16ELi2EEvPU3AS1jim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), i32, i64)

define spir_kernel void @int_ops(ptr addrspace(1) %Xs, ptr addrspace(1) %Ys, ptr addrspace(1) %Os, i32 %ks, ptr addrspace(1) %Xu, ptr addrspace(1) %Yu, ptr addrspace(1) %Ou, i32 %ku) {
entry:
  %xs = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iim(ptr addrspace(1) %Xs, i32 0, i64 16)
  %ys = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iim(ptr addrspace(1) %Ys, i32 1, i64 8)
  %Adds = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryAddIiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %xs, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %ys)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iim(ptr addrspace(1) %Os, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %Adds, i32 0, i64 16)
  %Subs = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinarySubIiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %xs, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %ys)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iim(ptr addrspace(1) %Os, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %Subs, i32 0, i64 16)
  %Muls = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryMulIiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %xs, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %ys)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iim(ptr addrspace(1) %Os, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %Muls, i32 0, i64 16)
  %Divs = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryDivIiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %xs, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %ys)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iim(ptr addrspace(1) %Os, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %Divs, i32 0, i64 16)
  %negs = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarNegIiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %xs)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iim(ptr addrspace(1) %Os, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %negs, i32 0, i64 16)
  %smuls = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarMulIiLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %xs, i32 %ks)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iim(ptr addrspace(1) %Os, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %smuls, i32 0, i64 16)
  %xu = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIjLi3ELi8ELi16ELi2EEvPU3AS1jim(ptr addrspace(1) %Xu, i32 0, i64 16)
  %yu = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIjLi3ELi8ELi16ELi2EEvPU3AS1jim(ptr addrspace(1) %Yu, i32 1, i64 8)
  %Addu = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryAddIjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %xu, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %yu)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIjLi3ELi8ELi16ELi2EEvPU3AS1jim(ptr addrspace(1) %Ou, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %Addu, i32 0, i64 16)
  %Subu = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinarySubIjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %xu, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %yu)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIjLi3ELi8ELi16ELi2EEvPU3AS1jim(ptr addrspace(1) %Ou, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %Subu, i32 0, i64 16)
  %Mulu = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryMulIjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %xu, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %yu)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIjLi3ELi8ELi16ELi2EEvPU3AS1jim(ptr addrspace(1) %Ou, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %Mulu, i32 0, i64 16)
  %Divu = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryDivIjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %xu, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %yu)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIjLi3ELi8ELi16ELi2EEvPU3AS1jim(ptr addrspace(1) %Ou, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %Divu, i32 0, i64 16)
  %negu = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarNegIjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %xu)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIjLi3ELi8ELi16ELi2EEvPU3AS1jim(ptr addrspace(1) %Ou, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %negu, i32 0, i64 16)
  %smulu = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarMulIjLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEvj(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %xu, i32 %ku)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIjLi3ELi8ELi16ELi2EEvPU3AS1jim(ptr addrspace(1) %Ou, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %smulu, i32 0, i64 16)
  ret void
}
