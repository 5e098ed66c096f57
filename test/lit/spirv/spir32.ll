; spir-unknown-unknown goes to spirv32: 32-bit addressing, i32 strides, and the same instructions.
; REQUIRES: llc, spirv-tools
; RUN: %python -m clcoop.spirv %s -o %t.spv
; RUN: %spirv-val %t.spv
; RUN: %spirv-link %t.spv -o %t.linked.spv
; RUN: %spirv-dis %t.spv | FileCheck %s
; RUN: %python -m clcoop.spirv --triple spir-unknown-unknown -O 2 %s -o %t.o2.spv
; RUN: %spirv-val %t.o2.spv

; CHECK: OpMemoryModel Physical32 OpenCL
; CHECK-NOT: OpCapability Int64
; CHECK: OpCooperativeMatrixLoadKHR %{{[A-Za-z_0-9]+}} %pa %{{[0-9]+}} %uint_32
; CHECK: OpCooperativeMatrixLoadKHR %{{[A-Za-z_0-9]+}} %pb %uint_1 %uint_64
; CHECK: OpCooperativeMatrixMulAddKHR {{.*}} SaturatingAccumulationKHR
; CHECK: OpCooperativeMatrixStoreKHR %pd %{{[0-9]+}} %uint_1 %uint_8
; CHECK: OpCooperativeMatrixLengthKHR %uint

target datalayout = "e-p:32:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir-unknown-unknown"

declare spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z19__spirv_ConvertSToFIfLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z19__spirv_ConvertUToFIfLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z26__spirv_CompositeConstructIfLi3ELi8ELi16ELi2EEvf(float)
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIfLi3ELi8ELi16ELi2EDhLi3ELi8ELi16ELi0EDhLi3ELi16ELi16ELi1EfLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 0), target("spirv.CooperativeMatrixKHR", half, 3, 16, 16, 1), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), i32)
declare spir_func target("spirv.CooperativeMatrixKHR", half, 3, 16, 16, 1) @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi16ELi16ELi1EEvPU3AS1Dhij(ptr addrspace(1), i32, i32)
declare spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi8ELi16ELi0EEvPU3AS1Dhij(ptr addrspace(1), i32, i32)
declare spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) @_Z16__spirv_FConvertIDhLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z19__spirv_ConvertFToSIiLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z19__spirv_ConvertFToUIjLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIiLi3ELi8ELi16ELi2EEvPU3AS3iij(ptr addrspace(3), i32, i32)
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0), target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), i32)
declare spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) @_Z32__spirv_CooperativeMatrixLoadKHRIcLi3ELi32ELi16ELi1EEvPU3AS1cij(ptr addrspace(1), i32, i32)
declare spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIcLi3ELi8ELi32ELi0EEvPU3AS1cij(ptr addrspace(1), i32, i32)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIDhLi3ELi8ELi16ELi2EEvPU3AS1Dhij(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2), i32, i32)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fij(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), i32, i32)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iij(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), i32, i32)

define spir_kernel void @coop(ptr addrspace(1) %pa, ptr addrspace(1) %pb, ptr addrspace(3) %pc, ptr addrspace(1) %pd, ptr addrspace(1) %ph, ptr addrspace(1) %pf, float %alpha, ptr addrspace(1) %plen) {
entry:
  %a = call spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIcLi3ELi8ELi32ELi0EEvPU3AS1cij(ptr addrspace(1) %pa, i32 0, i32 32)
  %b = call spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) @_Z32__spirv_CooperativeMatrixLoadKHRIcLi3ELi32ELi16ELi1EEvPU3AS1cij(ptr addrspace(1) %pb, i32 1, i32 64)
  %c = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIiLi3ELi8ELi16ELi2EEvPU3AS3iij(ptr addrspace(3) %pc, i32 0, i32 16)
  %d0 = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %c, i32 0)
  %d1 = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d0, i32 1)
  %d2 = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d1, i32 2)
  %d4 = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d2, i32 4)
  %d8 = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d4, i32 8)
  %d16 = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d8, i32 16)
  %d31 = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d16, i32 31)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iij(ptr addrspace(1) %pd, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d31, i32 1, i32 8)
  %len = call spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d31)
  %ha = call spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi8ELi16ELi0EEvPU3AS1Dhij(ptr addrspace(1) %ph, i32 0, i32 16)
  %hb = call spir_func target("spirv.CooperativeMatrixKHR", half, 3, 16, 16, 1) @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi16ELi16ELi1EEvPU3AS1Dhij(ptr addrspace(1) %ph, i32 1, i32 16)
  %fc = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z26__spirv_CompositeConstructIfLi3ELi8ELi16ELi2EEvf(float %alpha)
  %fd = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIfLi3ELi8ELi16ELi2EDhLi3ELi8ELi16ELi0EDhLi3ELi16ELi16ELi1EfLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 0) %ha, target("spirv.CooperativeMatrixKHR", half, 3, 16, 16, 1) %hb, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %fc, i32 0)
  %h = call spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) @_Z16__spirv_FConvertIDhLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %fd)
  %s = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z19__spirv_ConvertFToSIiLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %fd)
  %u = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z19__spirv_ConvertFToUIjLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %fd)
  %f1 = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z19__spirv_ConvertSToFIfLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %s)
  %f2 = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z19__spirv_ConvertUToFIfLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %u)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIDhLi3ELi8ELi16ELi2EEvPU3AS1Dhij(ptr addrspace(1) %ph, target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) %h, i32 0, i32 16)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fij(ptr addrspace(1) %pf, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %f1, i32 0, i32 16)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fij(ptr addrspace(1) %pf, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %f2, i32 1, i32 8)
  store i32 %len, ptr addrspace(1) %plen
  ret void
}
