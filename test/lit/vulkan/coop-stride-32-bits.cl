// The stride of a cooperative-matrix load or store reaches the Vulkan module as a 32-bit integer,
// whatever the width the source gives it (size_t here). SPV_KHR_cooperative_matrix allows any
// integer width, but NVIDIA's driver (580.159 on an H200) fails to compile a pipeline whose load
// or store has a 64-bit stride ("NVVM compilation failed", VK_ERROR_UNKNOWN) and runs the same
// module with a 32-bit one (docs/gpu.md, measured 2026-11-28).
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv --target-env vulkan1.3 -o %t.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_A)));

// CHECK: [[UINT:%[a-z0-9_]+]] = OpTypeInt 32 0
// CHECK: [[STRIDE:%[0-9]+]] = OpUConvert [[UINT]] {{%[0-9a-z_]+}}
// CHECK-NEXT: OpCooperativeMatrixLoadKHR {{%[a-zA-Z0-9_]+}} {{%[0-9]+}} %uint_0 [[STRIDE]] Aligned|NonPrivatePointer 16
// CHECK: [[STRIDE2:%[0-9]+]] = OpUConvert [[UINT]] {{%[0-9a-z_]+}}
// CHECK-NEXT: OpCooperativeMatrixStoreKHR {{%[0-9]+}} {{%[0-9]+}} %uint_0 [[STRIDE2]] Aligned|NonPrivatePointer 16
__kernel void copy_tile(__global const half *src, __global half *dst, ulong stride)
{
    mat_a a = coop_mat_load(src, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)stride);
    coop_mat_store(dst, a, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)stride);
}
