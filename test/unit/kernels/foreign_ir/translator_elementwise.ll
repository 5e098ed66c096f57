; Written for clcoop's tests in the form of the SPIRV-LLVM-Translator's KHR tests
; (arithmetic_instructions.ll, conversion_instructions.ll, and the reverse translation's
; SPIR-V friendly names): element-wise SPIR-V opcodes called on 12x12 accumulators.
;   @float_ops: R = (-(X + Y) * X - X / Y) * 2.5          (FAdd FNegate FMul FSub FDiv MatrixTimesScalar)
;   @int_ops:   R = float((-(P + Q) * P - P / Q) + (unsigned)P / (unsigned)Q)
;               (IAdd SNegate IMul ISub SDiv UDiv, then ConvertSToF with an _R tail)
; X, Y, P, Q, R are 12x12 row-major; the loads and stores use the reverse translation's
; `_Z<len>__spirv_CooperativeMatrixLoadKHR_R...` names (types written into the identifier).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

define spir_kernel void @float_ops(ptr addrspace(1) %X, ptr addrspace(1) %Y, ptr addrspace(1) %R) {
entry:
  %x = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z87__spirv_CooperativeMatrixLoadKHR_RPU3AS145__spirv_CooperativeMatrixKHR__float_3_12_12_2PU3AS1Kfili(ptr addrspace(1) %X, i32 0, i64 12, i32 0)
  %y = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z87__spirv_CooperativeMatrixLoadKHR_RPU3AS145__spirv_CooperativeMatrixKHR__float_3_12_12_2PU3AS1Kfili(ptr addrspace(1) %Y, i32 0, i64 12, i32 0)
  %sum = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z12__spirv_FAdd(target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) %x, target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) %y)
  %neg = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z15__spirv_FNegate(target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) %sum)
  %prod = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z12__spirv_FMul(target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) %neg, target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) %x)
  %quot = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z12__spirv_FDiv(target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) %x, target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) %y)
  %diff = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z12__spirv_FSub(target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) %prod, target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) %quot)
  %r = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z25__spirv_MatrixTimesScalar(target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) %diff, float 2.500000e+00)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRPU3AS1fPU3AS145__spirv_CooperativeMatrixKHR__float_3_12_12_2ili(ptr addrspace(1) %R, target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) %r, i32 0, i64 12, i32 0)
  ret void
}

define spir_kernel void @int_ops(ptr addrspace(1) %P, ptr addrspace(1) %Q, ptr addrspace(1) %R) {
entry:
  %p = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z85__spirv_CooperativeMatrixLoadKHR_RPU3AS143__spirv_CooperativeMatrixKHR__int_3_12_12_2PU3AS1Kiili(ptr addrspace(1) %P, i32 0, i64 12, i32 0)
  %q = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z85__spirv_CooperativeMatrixLoadKHR_RPU3AS143__spirv_CooperativeMatrixKHR__int_3_12_12_2PU3AS1Kiili(ptr addrspace(1) %Q, i32 0, i64 12, i32 0)
  %sum = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z12__spirv_IAdd(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %p, target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %q)
  %neg = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z15__spirv_SNegate(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %sum)
  %prod = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z12__spirv_IMul(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %neg, target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %p)
  %squot = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z12__spirv_SDiv(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %p, target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %q)
  %diff = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z12__spirv_ISub(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %prod, target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %squot)
  %uquot = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z12__spirv_UDiv(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %p, target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %q)
  %all = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z12__spirv_IAdd(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %diff, target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %uquot)
  %f = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z78__spirv_ConvertSToF_RPU3AS145__spirv_CooperativeMatrixKHR__float_3_12_12_2_rtePU3AS143__spirv_CooperativeMatrixKHR__int_3_12_12_2(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %all)
  call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRPU3AS1fPU3AS145__spirv_CooperativeMatrixKHR__float_3_12_12_2ili(ptr addrspace(1) %R, target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) %f, i32 0, i64 12, i32 0)
  ret void
}

declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z87__spirv_CooperativeMatrixLoadKHR_RPU3AS145__spirv_CooperativeMatrixKHR__float_3_12_12_2PU3AS1Kfili(ptr addrspace(1), i32, i64, i32)
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z85__spirv_CooperativeMatrixLoadKHR_RPU3AS143__spirv_CooperativeMatrixKHR__int_3_12_12_2PU3AS1Kiili(ptr addrspace(1), i32, i64, i32)
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHRPU3AS1fPU3AS145__spirv_CooperativeMatrixKHR__float_3_12_12_2ili(ptr addrspace(1), target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2), i32, i64, i32)
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z12__spirv_FAdd(target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2), target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z12__spirv_FSub(target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2), target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z12__spirv_FMul(target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2), target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z12__spirv_FDiv(target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2), target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z15__spirv_FNegate(target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z25__spirv_MatrixTimesScalar(target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2), float)
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z12__spirv_IAdd(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2), target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z12__spirv_ISub(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2), target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z12__spirv_IMul(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2), target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z12__spirv_SDiv(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2), target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z12__spirv_UDiv(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2), target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z15__spirv_SNegate(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 12, 12, 2) @_Z78__spirv_ConvertSToF_RPU3AS145__spirv_CooperativeMatrixKHR__float_3_12_12_2_rtePU3AS143__spirv_CooperativeMatrixKHR__int_3_12_12_2(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2))
