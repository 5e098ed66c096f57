; Written for clcoop's tests in the form of the SPIRV-LLVM-Translator's KHR tests
; (test/extensions/KHR/SPV_KHR_cooperative_matrix/cooperative_matrix.ll): an int8 GEMM on
; 12x48 (A), 48x12 (B) and 12x12 (accumulator) matrices, callees named
; `_Z32__spirv_CooperativeMatrixLoadKHR_1`/`_2` (no parameter mangling: the stride counts
; components), `_Z26__spirv_CompositeConstructInt32`, `_Z34__spirv_CooperativeMatrixMulAddKHR`
; with the signedness operands, a generic (addrspace 4) pointer as the translator's
; SYCL inputs use. Each work-group (one subgroup) computes one 12x12 tile of
; C = 7 + A * B for A: M x K, B: K x 12, row-major; len[gid] = coop_mat_length(acc).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

define spir_kernel void @gemm_i8(ptr addrspace(1) %A, ptr addrspace(1) %B, ptr addrspace(1) %C, ptr addrspace(1) %len, i64 %K) {
entry:
  %group = call spir_func i64 @_Z12get_group_idj(i32 0)
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %row0 = mul i64 %group, 12
  %a.row = mul i64 %row0, %K
  %a.tile = getelementptr inbounds i8, ptr addrspace(1) %A, i64 %a.row
  %c.row = mul i64 %row0, 12
  %c.tile = getelementptr inbounds i32, ptr addrspace(1) %C, i64 %c.row
  %c0 = tail call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z26__spirv_CompositeConstructInt32(i32 7)
  br label %for.cond

for.cond:
  %k = phi i64 [ 0, %entry ], [ %k.next, %for.body ]
  %acc = phi target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) [ %c0, %entry ], [ %acc.next, %for.body ]
  %more = icmp ult i64 %k, %K
  br i1 %more, label %for.body, label %exit

for.body:
  %pa = getelementptr inbounds i8, ptr addrspace(1) %a.tile, i64 %k
  %pa.generic = addrspacecast ptr addrspace(1) %pa to ptr addrspace(4)
  %a = tail call spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 12, 48, 0) @_Z32__spirv_CooperativeMatrixLoadKHR_1(ptr addrspace(4) %pa.generic, i32 0, i64 %K, i32 1)
  %b.row = mul i64 %k, 12
  %pb = getelementptr inbounds i8, ptr addrspace(1) %B, i64 %b.row
  %b = tail call spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 48, 12, 1) @_Z32__spirv_CooperativeMatrixLoadKHR_2(ptr addrspace(1) %pb, i32 0, i64 12)
  %acc.next = tail call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z34__spirv_CooperativeMatrixMulAddKHR(target("spirv.CooperativeMatrixKHR", i8, 3, 12, 48, 0) %a, target("spirv.CooperativeMatrixKHR", i8, 3, 48, 12, 1) %b, target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %acc, i32 15)
  %k.next = add i64 %k, 48
  br label %for.cond

exit:
  %n = tail call spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHR(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %acc)
  %plen = getelementptr inbounds i32, ptr addrspace(1) %len, i64 %gid
  store i32 %n, ptr addrspace(1) %plen
  %pc.generic = addrspacecast ptr addrspace(1) %c.tile to ptr addrspace(4)
  tail call spir_func void @_Z33__spirv_CooperativeMatrixStoreKHR(ptr addrspace(4) %pc.generic, target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) %acc, i32 0, i64 12, i32 1)
  ret void
}

declare spir_func i64 @_Z12get_group_idj(i32)
declare spir_func i64 @_Z13get_global_idj(i32)
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z26__spirv_CompositeConstructInt32(i32)
declare spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 12, 48, 0) @_Z32__spirv_CooperativeMatrixLoadKHR_1(ptr addrspace(4), i32, i64, i32)
declare spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 48, 12, 1) @_Z32__spirv_CooperativeMatrixLoadKHR_2(ptr addrspace(1), i32, i64)
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2) @_Z34__spirv_CooperativeMatrixMulAddKHR(target("spirv.CooperativeMatrixKHR", i8, 3, 12, 48, 0), target("spirv.CooperativeMatrixKHR", i8, 3, 48, 12, 1), target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2), i32)
declare spir_func i32 @_Z34__spirv_CooperativeMatrixLengthKHR(target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2))
declare spir_func void @_Z33__spirv_CooperativeMatrixStoreKHR(ptr addrspace(4), target("spirv.CooperativeMatrixKHR", i32, 3, 12, 12, 2), i32, i64, i32)
