; Every cooperative-matrix instruction llc-22 lowers natively, as spirv-dis shows it: the matrix types
; (component, scope, rows, cols, use), loads/stores with layout and stride (in elements of the named pointee:
; char, int, half, float; never a uchar fallback for wider types), mul-add with each operand mask bit
; (SPV_KHR_cooperative_matrix 3.X: 1/2/4/8 A/B/C/Result signed, 16 saturating), length, the splat and the
; conversions. No operators, so spirv-link takes llc's module as is (and at -O2).
; REQUIRES: llc, spirv-tools
; RUN: %python -m clcoop.spirv %s -o %t.spv
; RUN: %spirv-val %t.spv
; RUN: %spirv-link %t.spv -o %t.linked.spv
; RUN: %spirv-dis %t.spv | FileCheck %s
; RUN: %python -m clcoop.spirv -O 2 %s -o %t.o2.spv
; RUN: %spirv-link %t.o2.spv -o %t.o2.linked.spv
; RUN: %spirv-dis %t.o2.spv | FileCheck %s

; CHECK: OpCapability CooperativeMatrixKHR
; CHECK: OpExtension "SPV_KHR_cooperative_matrix"
; CHECK: OpMemoryModel Physical64 OpenCL
; CHECK-DAG: %[[ZERO:[0-9]+]] = OpConstantNull %uint
; CHECK-DAG: %[[A:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %uchar %uint_3 %uint_8 %uint_32 %[[ZERO]]
; CHECK-DAG: %[[B:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %uchar %uint_3 %uint_32 %uint_16 %uint_1
; CHECK-DAG: %[[C:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %uint %uint_3 %uint_8 %uint_16 %uint_2
; CHECK-DAG: %[[HA:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %half %uint_3 %uint_8 %uint_16 %[[ZERO]]
; CHECK-DAG: %[[HB:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %half %uint_3 %uint_16 %uint_16 %uint_1
; CHECK-DAG: %[[FC:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %float %uint_3 %uint_8 %uint_16 %uint_2
; CHECK-DAG: %[[HC:[A-Za-z_0-9]+]] = OpTypeCooperativeMatrixKHR %half %uint_3 %uint_8 %uint_16 %uint_2
; CHECK: %pa = OpFunctionParameter %_ptr_CrossWorkgroup_uchar
; CHECK: %pc = OpFunctionParameter %_ptr_Workgroup_uint
; CHECK: %pd = OpFunctionParameter %_ptr_CrossWorkgroup_uint
; CHECK: %ph = OpFunctionParameter %_ptr_CrossWorkgroup_half
; CHECK: %pf = OpFunctionParameter %_ptr_CrossWorkgroup_float
; CHECK: %[[LA:[0-9]+]] = OpCooperativeMatrixLoadKHR %[[A]] %pa %[[ZERO]] %ulong_32
; CHECK: %[[LB:[0-9]+]] = OpCooperativeMatrixLoadKHR %[[B]] %pb %uint_1 %ulong_64
; CHECK: %[[LC:[0-9]+]] = OpCooperativeMatrixLoadKHR %[[C]] %pc %[[ZERO]] %ulong_16
; CHECK: %[[D0:[0-9]+]] = OpCooperativeMatrixMulAddKHR %[[C]] %[[LA]] %[[LB]] %[[LC]] NoneKHR
; CHECK: %[[D1:[0-9]+]] = OpCooperativeMatrixMulAddKHR %[[C]] %[[LA]] %[[LB]] %[[D0]] MatrixASignedComponentsKHR{{$}}
; CHECK: %[[D2:[0-9]+]] = OpCooperativeMatrixMulAddKHR %[[C]] %[[LA]] %[[LB]] %[[D1]] MatrixBSignedComponentsKHR{{$}}
; CHECK: %[[D3:[0-9]+]] = OpCooperativeMatrixMulAddKHR %[[C]] %[[LA]] %[[LB]] %[[D2]] MatrixCSignedComponentsKHR{{$}}
; CHECK: %[[D4:[0-9]+]] = OpCooperativeMatrixMulAddKHR %[[C]] %[[LA]] %[[LB]] %[[D3]] MatrixResultSignedComponentsKHR{{$}}
; CHECK: %[[D5:[0-9]+]] = OpCooperativeMatrixMulAddKHR %[[C]] %[[LA]] %[[LB]] %[[D4]] SaturatingAccumulationKHR{{$}}
; CHECK: %[[D6:[0-9]+]] = OpCooperativeMatrixMulAddKHR %[[C]] %[[LA]] %[[LB]] %[[D5]] MatrixASignedComponentsKHR|MatrixBSignedComponentsKHR|MatrixCSignedComponentsKHR|MatrixResultSignedComponentsKHR|SaturatingAccumulationKHR
; CHECK: OpCooperativeMatrixStoreKHR %pd %[[D6]] %uint_1 %ulong_8
; CHECK: %[[LEN:[0-9]+]] = OpCooperativeMatrixLengthKHR %uint %[[C]]
; CHECK: %[[H1:[0-9]+]] = OpCooperativeMatrixLoadKHR %[[HA]] %ph %[[ZERO]] %ulong_16
; CHECK: %[[H2:[0-9]+]] = OpCooperativeMatrixLoadKHR %[[HB]] %ph %uint_1 %ulong_16
; CHECK: %[[SPLAT:[0-9]+]] = OpCompositeConstruct %[[FC]] %alpha
; CHECK: %[[FD:[0-9]+]] = OpCooperativeMatrixMulAddKHR %[[FC]] %[[H1]] %[[H2]] %[[SPLAT]] NoneKHR
; CHECK: %[[H:[0-9]+]] = OpFConvert %[[HC]] %[[FD]]
; CHECK: %[[S:[0-9]+]] = OpConvertFToS %[[C]] %[[FD]]
; CHECK: %[[U:[0-9]+]] = OpConvertFToU %[[C]] %[[FD]]
; CHECK: %[[F1:[0-9]+]] = OpConvertSToF %[[FC]] %[[S]]
; CHECK: %[[F2:[0-9]+]] = OpConvertUToF %[[FC]] %[[U]]
; CHECK: OpCooperativeMatrixStoreKHR %ph %[[H]] %[[ZERO]] %ulong_16
; CHECK: OpCooperativeMatrixStoreKHR %pf %[[F1]] %[[ZERO]] %ulong_16
; CHECK: OpCooperativeMatrixStoreKHR %pf %[[F2]] %uint_1 %ulong_8
; CHECK: OpStore %plen %[[LEN]]
; CHECK-NOT: OpFunctionCall

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

declare spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z19__spirv_ConvertSToFIfLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z19__spirv_ConvertUToFIfLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z26__spirv_CompositeConstructIfLi3ELi8ELi16ELi2EEvf(float)
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIfLi3ELi8ELi16ELi2EDhLi3ELi8ELi16ELi0EDhLi3ELi16ELi16ELi1EfLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 0), target("spirv.CooperativeMatrixKHR", half, 3, 16, 16, 1), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), i32)
declare spir_func target("spirv.CooperativeMatrixKHR", half, 3, 16, 16, 1) @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi16ELi16ELi1EEvPU3AS1Dhim(ptr addrspace(1), i32, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi8ELi16ELi0EEvPU3AS1Dhim(ptr addrspace(1), i32, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) @_Z16__spirv_FConvertIDhLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z19__spirv_ConvertFToSIiLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z19__spirv_ConvertFToUIjLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIiLi3ELi8ELi16ELi2EEvPU3AS3iim(ptr addrspace(3), i32, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0), target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), i32)
declare spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) @_Z32__spirv_CooperativeMatrixLoadKHRIcLi3ELi32ELi16ELi1EEvPU3AS1cim(ptr addrspace(1), i32, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIcLi3ELi8ELi32ELi0EEvPU3AS1cim(ptr addrspace(1), i32, i64)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIDhLi3ELi8ELi16ELi2EEvPU3AS1Dhim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2), i32, i64)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), i32, i64)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iim(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2), i32, i64)

define spir_kernel void @coop(ptr addrspace(1) %pa, ptr addrspace(1) %pb, ptr addrspace(3) %pc, ptr addrspace(1) %pd, ptr addrspace(1) %ph, ptr addrspace(1) %pf, float %alpha, ptr addrspace(1) %plen) {
entry:
  %a = call spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIcLi3ELi8ELi32ELi0EEvPU3AS1cim(ptr addrspace(1) %pa, i32 0, i64 32)
  %b = call spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) @_Z32__spirv_CooperativeMatrixLoadKHRIcLi3ELi32ELi16ELi1EEvPU3AS1cim(ptr addrspace(1) %pb, i32 1, i64 64)
  %c = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z32__spirv_CooperativeMatrixLoadKHRIiLi3ELi8ELi16ELi2EEvPU3AS3iim(ptr addrspace(3) %pc, i32 0, i64 16)
  %d0 = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %c, i32 0)
  %d1 = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d0, i32 1)
  %d2 = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d1, i32 2)
  %d4 = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d2, i32 4)
  %d8 = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d4, i32 8)
  %d16 = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d8, i32 16)
  %d31 = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIiLi3ELi8ELi16ELi2EcLi3ELi8ELi32ELi0EcLi3ELi32ELi16ELi1EiLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 16, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d16, i32 31)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIiLi3ELi8ELi16ELi2EEvPU3AS1iim(ptr addrspace(1) %pd, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d31, i32 1, i64 8)
  %len = call spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHRIiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %d31)
  %ha = call spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 0) @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi8ELi16ELi0EEvPU3AS1Dhim(ptr addrspace(1) %ph, i32 0, i64 16)
  %hb = call spir_func target("spirv.CooperativeMatrixKHR", half, 3, 16, 16, 1) @_Z32__spirv_CooperativeMatrixLoadKHRIDhLi3ELi16ELi16ELi1EEvPU3AS1Dhim(ptr addrspace(1) %ph, i32 1, i64 16)
  %fc = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z26__spirv_CompositeConstructIfLi3ELi8ELi16ELi2EEvf(float %alpha)
  %fd = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z34__spirv_CooperativeMatrixMulAddKHRIfLi3ELi8ELi16ELi2EDhLi3ELi8ELi16ELi0EDhLi3ELi16ELi16ELi1EfLi3ELi8ELi16ELi2EEvi(target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 0) %ha, target("spirv.CooperativeMatrixKHR", half, 3, 16, 16, 1) %hb, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %fc, i32 0)
  %h = call spir_func target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) @_Z16__spirv_FConvertIDhLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %fd)
  %s = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z19__spirv_ConvertFToSIiLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %fd)
  %u = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) @_Z19__spirv_ConvertFToUIjLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %fd)
  %f1 = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z19__spirv_ConvertSToFIfLi3ELi8ELi16ELi2EiLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %s)
  %f2 = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z19__spirv_ConvertUToFIfLi3ELi8ELi16ELi2EjLi3ELi8ELi16ELi2EEv(target("spirv.CooperativeMatrixKHR", i32, 3, 8, 16, 2) %u)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIDhLi3ELi8ELi16ELi2EEvPU3AS1Dhim(ptr addrspace(1) %ph, target("spirv.CooperativeMatrixKHR", half, 3, 8, 16, 2) %h, i32 0, i64 16)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %pf, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %f1, i32 0, i64 16)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRIfLi3ELi8ELi16ELi2EEvPU3AS1fim(ptr addrspace(1) %pf, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %f2, i32 1, i64 8)
  store i32 %len, ptr addrspace(1) %plen
  ret void
}
