; Written for clcoop's tests in the form of the IR of the clang pull request
; llvm/llvm-project #221328 (clang/test/CodeGenOpenCL/coop-mat-codegen*.cl at -O0): a
; spir_kernel stub calling the body in @__clang_ocl_kern_imp_<name>, matrices in allocas,
; unmangled callees with a suffix naming the pointer's address space and the matrix types
; (__spirv_CooperativeMatrixLoadKHR_global_f32_sc3_16x16_u0, ..._MulAddKHR_f32_sc3_16x16_u0_
; f32_sc3_16x16_u1_f32_sc3_16x16_u2) and __spirv_CooperativeMatrixFAdd / ScalarMulKHR /
; ScalarNeg for a + b, a * s and -a; coop_mat_mulAdd without operands passes 0.
;   @gemm_f32: for the 16x16 tile of work-group g: D = -(A*B + C) * s + C, len[gid] = length(D)
;     (A: 16 x 16 at a + 16*g rows..., row-major, leading dimension 16)
;   @gemm_i8:  D = A * B + C for 8x32 char A, 32x8 char B, 8x8 int C; operands 0, so the
;     char data is multiplied as unsigned (SPV_KHR_cooperative_matrix).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

define spir_kernel void @gemm_f32(ptr addrspace(1) noundef align 4 %a, ptr addrspace(1) noundef align 4 %b, ptr addrspace(1) noundef align 4 %c, ptr addrspace(1) noundef align 4 %d, ptr addrspace(1) noundef align 4 %len, float noundef %s) {
entry:
  %a.addr = alloca ptr addrspace(1), align 8
  %b.addr = alloca ptr addrspace(1), align 8
  %c.addr = alloca ptr addrspace(1), align 8
  %d.addr = alloca ptr addrspace(1), align 8
  %len.addr = alloca ptr addrspace(1), align 8
  %s.addr = alloca float, align 4
  store ptr addrspace(1) %a, ptr %a.addr, align 8
  store ptr addrspace(1) %b, ptr %b.addr, align 8
  store ptr addrspace(1) %c, ptr %c.addr, align 8
  store ptr addrspace(1) %d, ptr %d.addr, align 8
  store ptr addrspace(1) %len, ptr %len.addr, align 8
  store float %s, ptr %s.addr, align 4
  %0 = load ptr addrspace(1), ptr %a.addr, align 8
  %1 = load ptr addrspace(1), ptr %b.addr, align 8
  %2 = load ptr addrspace(1), ptr %c.addr, align 8
  %3 = load ptr addrspace(1), ptr %d.addr, align 8
  %4 = load ptr addrspace(1), ptr %len.addr, align 8
  %5 = load float, ptr %s.addr, align 4
  call spir_func void @__clang_ocl_kern_imp_gemm_f32(ptr addrspace(1) noundef align 4 %0, ptr addrspace(1) noundef align 4 %1, ptr addrspace(1) noundef align 4 %2, ptr addrspace(1) noundef align 4 %3, ptr addrspace(1) noundef align 4 %4, float noundef %5)
  ret void
}

define spir_func void @__clang_ocl_kern_imp_gemm_f32(ptr addrspace(1) noundef align 4 %a, ptr addrspace(1) noundef align 4 %b, ptr addrspace(1) noundef align 4 %c, ptr addrspace(1) noundef align 4 %d, ptr addrspace(1) noundef align 4 %len, float noundef %s) {
entry:
  %a.addr = alloca ptr addrspace(1), align 8
  %b.addr = alloca ptr addrspace(1), align 8
  %c.addr = alloca ptr addrspace(1), align 8
  %d.addr = alloca ptr addrspace(1), align 8
  %len.addr = alloca ptr addrspace(1), align 8
  %s.addr = alloca float, align 4
  %ma = alloca target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 0), align 8
  %mb = alloca target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 1), align 8
  %mc = alloca target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2), align 8
  %md = alloca target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2), align 8
  store ptr addrspace(1) %a, ptr %a.addr, align 8
  store ptr addrspace(1) %b, ptr %b.addr, align 8
  store ptr addrspace(1) %c, ptr %c.addr, align 8
  store ptr addrspace(1) %d, ptr %d.addr, align 8
  store ptr addrspace(1) %len, ptr %len.addr, align 8
  store float %s, ptr %s.addr, align 4
  %group = call spir_func i64 @_Z12get_group_idj(i32 noundef 0)
  %tile = mul i64 %group, 256
  %0 = load ptr addrspace(1), ptr %a.addr, align 8
  %pa = getelementptr inbounds float, ptr addrspace(1) %0, i64 %tile
  %call = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 0) @__spirv_CooperativeMatrixLoadKHR_global_f32_sc3_16x16_u0(ptr addrspace(1) noundef %pa, i32 noundef 0, i64 noundef 16)
  store target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 0) %call, ptr %ma, align 8
  %1 = load ptr addrspace(1), ptr %b.addr, align 8
  %call1 = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 1) @__spirv_CooperativeMatrixLoadKHR_global_f32_sc3_16x16_u1(ptr addrspace(1) noundef %1, i32 noundef 1, i64 noundef 16)
  store target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 1) %call1, ptr %mb, align 8
  %2 = load ptr addrspace(1), ptr %c.addr, align 8
  %call2 = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) @__spirv_CooperativeMatrixLoadKHR_global_f32_sc3_16x16_u2(ptr addrspace(1) noundef %2, i32 noundef 0, i64 noundef 16)
  store target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) %call2, ptr %mc, align 8
  %3 = load target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 0), ptr %ma, align 8
  %4 = load target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 1), ptr %mb, align 8
  %5 = load target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2), ptr %mc, align 8
  %call3 = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) @__spirv_CooperativeMatrixMulAddKHR_f32_sc3_16x16_u0_f32_sc3_16x16_u1_f32_sc3_16x16_u2(target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 0) %3, target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 1) %4, target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) %5, i32 noundef 0)
  %neg = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) @__spirv_CooperativeMatrixScalarNeg(target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) %call3)
  %6 = load float, ptr %s.addr, align 4
  %scaled = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) @__spirv_CooperativeMatrixScalarMulKHR(target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) %neg, float noundef %6)
  %7 = load target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2), ptr %mc, align 8
  %sum = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) @__spirv_CooperativeMatrixFAdd(target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) %scaled, target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) %7)
  store target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) %sum, ptr %md, align 8
  %8 = load ptr addrspace(1), ptr %d.addr, align 8
  %pd = getelementptr inbounds float, ptr addrspace(1) %8, i64 %tile
  %9 = load target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2), ptr %md, align 8
  call spir_func void @__spirv_CooperativeMatrixStoreKHR_global_f32_sc3_16x16_u2(ptr addrspace(1) noundef %pd, target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) %9, i32 noundef 0, i64 noundef 16)
  %10 = load target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2), ptr %md, align 8
  %n = call spir_func i32 @__spirv_CooperativeMatrixLengthKHR_f32_sc3_16x16_u2(target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) %10)
  %gid = call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
  %11 = load ptr addrspace(1), ptr %len.addr, align 8
  %plen = getelementptr inbounds i32, ptr addrspace(1) %11, i64 %gid
  store i32 %n, ptr addrspace(1) %plen, align 4
  ret void
}

define spir_kernel void @gemm_i8(ptr addrspace(1) noundef align 1 %a, ptr addrspace(1) noundef align 1 %b, ptr addrspace(1) noundef align 4 %c) {
entry:
  call spir_func void @__clang_ocl_kern_imp_gemm_i8(ptr addrspace(1) noundef align 1 %a, ptr addrspace(1) noundef align 1 %b, ptr addrspace(1) noundef align 4 %c)
  ret void
}

define spir_func void @__clang_ocl_kern_imp_gemm_i8(ptr addrspace(1) noundef align 1 %a, ptr addrspace(1) noundef align 1 %b, ptr addrspace(1) noundef align 4 %c) {
entry:
  %ma = call spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) @__spirv_CooperativeMatrixLoadKHR_global_i8_sc3_8x32_u0(ptr addrspace(1) noundef %a, i32 noundef 0, i64 noundef 32)
  %mb = call spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 32, 8, 1) @__spirv_CooperativeMatrixLoadKHR_global_i8_sc3_32x8_u1(ptr addrspace(1) noundef %b, i32 noundef 0, i64 noundef 8)
  %mc = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 8, 2) @__spirv_CooperativeMatrixLoadKHR_global_i32_sc3_8x8_u2(ptr addrspace(1) noundef %c, i32 noundef 0, i64 noundef 8)
  %md = call spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 8, 2) @__spirv_CooperativeMatrixMulAddKHR_i8_sc3_8x32_u0_i8_sc3_32x8_u1_i32_sc3_8x8_u2(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) %ma, target("spirv.CooperativeMatrixKHR", i8, 3, 32, 8, 1) %mb, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 8, 2) %mc, i32 noundef 0)
  call spir_func void @__spirv_CooperativeMatrixStoreKHR_global_i32_sc3_8x8_u2(ptr addrspace(1) noundef %c, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 8, 2) %md, i32 noundef 0, i64 noundef 8)
  ret void
}

declare spir_func i64 @_Z12get_group_idj(i32 noundef)
declare spir_func i64 @_Z13get_global_idj(i32 noundef)
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 0) @__spirv_CooperativeMatrixLoadKHR_global_f32_sc3_16x16_u0(ptr addrspace(1) noundef, i32 noundef, i64 noundef)
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 1) @__spirv_CooperativeMatrixLoadKHR_global_f32_sc3_16x16_u1(ptr addrspace(1) noundef, i32 noundef, i64 noundef)
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) @__spirv_CooperativeMatrixLoadKHR_global_f32_sc3_16x16_u2(ptr addrspace(1) noundef, i32 noundef, i64 noundef)
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) @__spirv_CooperativeMatrixMulAddKHR_f32_sc3_16x16_u0_f32_sc3_16x16_u1_f32_sc3_16x16_u2(target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 0), target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 1), target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2), i32 noundef)
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) @__spirv_CooperativeMatrixScalarNeg(target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) @__spirv_CooperativeMatrixScalarMulKHR(target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2), float noundef)
declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2) @__spirv_CooperativeMatrixFAdd(target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2), target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2))
declare spir_func void @__spirv_CooperativeMatrixStoreKHR_global_f32_sc3_16x16_u2(ptr addrspace(1) noundef, target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2), i32 noundef, i64 noundef)
declare spir_func i32 @__spirv_CooperativeMatrixLengthKHR_f32_sc3_16x16_u2(target("spirv.CooperativeMatrixKHR", float, 3, 16, 16, 2))
declare spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0) @__spirv_CooperativeMatrixLoadKHR_global_i8_sc3_8x32_u0(ptr addrspace(1) noundef, i32 noundef, i64 noundef)
declare spir_func target("spirv.CooperativeMatrixKHR", i8, 3, 32, 8, 1) @__spirv_CooperativeMatrixLoadKHR_global_i8_sc3_32x8_u1(ptr addrspace(1) noundef, i32 noundef, i64 noundef)
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 8, 2) @__spirv_CooperativeMatrixLoadKHR_global_i32_sc3_8x8_u2(ptr addrspace(1) noundef, i32 noundef, i64 noundef)
declare spir_func target("spirv.CooperativeMatrixKHR", i32, 3, 8, 8, 2) @__spirv_CooperativeMatrixMulAddKHR_i8_sc3_8x32_u0_i8_sc3_32x8_u1_i32_sc3_8x8_u2(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 32, 0), target("spirv.CooperativeMatrixKHR", i8, 3, 32, 8, 1), target("spirv.CooperativeMatrixKHR", i32, 3, 8, 8, 2), i32 noundef)
declare spir_func void @__spirv_CooperativeMatrixStoreKHR_global_i32_sc3_8x8_u2(ptr addrspace(1) noundef, target("spirv.CooperativeMatrixKHR", i32, 3, 8, 8, 2), i32 noundef, i64 noundef)
