; Element-wise operators on a float accumulator become native SPIR-V arithmetic (SPV_KHR_cooperative_matrix
; "Arithmetic Instructions"); scalar multiply is a splat plus OpFMul (issue 9: no OpMatrixTimesScalar in OpenCL).
; The imports llc-22 leaves for them are gone, so spirv-link accepts the module alone.
; REQUIRES: llc, spirv-tools
; RUN: %python -m clcoop.spirv %s -o %t.spv
; RUN: %spirv-val %t.spv
; RUN: %spirv-link %t.spv -o %t.linked.spv
; RUN: %spirv-dis %t.spv | FileCheck %s
; Without the rewrite, llc-22's module imports the operators and spirv-link rejects it:
; RUN: %python -m clcoop.spirv --raw %s -o %t.raw.spv
; RUN: %not %spirv-link %t.raw.spv -o %t.raw.linked.spv 2>&1 | FileCheck %s --check-prefix=RAW
; RAW: Unresolved external reference

; CHECK-NOT: OpCapability Linkage
; CHECK-NOT: LinkageAttributes
; CHECK-DAG: %[[F:float]] = OpTypeFloat 32
; CHECK-DAG: %[[M:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %[[F]] %uint_3 %uint_8 %uint_16 %uint_2
; CHECK: OpFunction %void
; CHECK: %[[X:[0-9]+]] = OpCooperativeMatrixLoadKHR %[[M]]
; CHECK: %[[Y:[0-9]+]] = OpCooperativeMatrixLoadKHR %[[M]]
; CHECK: OpFAdd %[[M]] %[[X]] %[[Y]]
; CHECK: OpFSub %[[M]] %[[X]] %[[Y]]
; CHECK: OpFMul %[[M]] %[[X]] %[[Y]]
; CHECK: OpFDiv %[[M]] %[[X]] %[[Y]]
; CHECK: OpFNegate %[[M]] %[[X]]
; CHECK: %[[S:[0-9]+]] = OpCompositeConstruct %[[M]] %alpha
; CHECK-NEXT: OpFMul %[[M]] %[[X]] %[[S]]
; CHECK-NOT: OpFunctionCall
; CHECK: OpFunctionEnd

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1), i32, i64)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), i32, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryAddIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinarySubIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryMulIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryDivIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarNegIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarMulIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEvf(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), float)

define spir_kernel void @ops(ptr addrspace(1) %X, ptr addrspace(1) %Y, float %alpha, ptr addrspace(1) %out) {
entry:
  %x = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %X, i32 0, i64 16)
  %y = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %Y, i32 0, i64 16)
  %add = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryAddIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %x, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %y)
  %sub = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinarySubIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %x, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %y)
  %mul = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryMulIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %x, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %y)
  %div = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixBinaryDivIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %x, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %y)
  %neg = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarNegIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %x)
  %scaled = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixScalarMulIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEvf(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %x, float %alpha)
  %o1 = getelementptr inbounds float, ptr addrspace(1) %out, i64 128
  %o2 = getelementptr inbounds float, ptr addrspace(1) %out, i64 256
  %o3 = getelementptr inbounds float, ptr addrspace(1) %out, i64 384
  %o4 = getelementptr inbounds float, ptr addrspace(1) %out, i64 512
  %o5 = getelementptr inbounds float, ptr addrspace(1) %out, i64 640
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %out, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %add, i32 0, i64 16)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %o1, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %sub, i32 0, i64 16)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %o2, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %mul, i32 0, i64 16)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %o3, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %div, i32 0, i64 16)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %o4, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %neg, i32 0, i64 16)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %o5, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %scaled, i32 0, i64 16)
  ret void
}
