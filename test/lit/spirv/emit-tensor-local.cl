// `clcoop --emit-spirv` of tensor layouts, views and tensor loads/stores through __local
// memory: llc-22 emits OpTypeTensorLayoutNV / OpTypeTensorViewNV from the spirv.Type
// encoding; the calls become the SPV_NV_cooperative_matrix2 / SPV_NV_tensor_addressing
// instructions (memory operand and tensor addressing operands as literals, the view id
// after them) with their extensions and capabilities, no import is left, and the module
// validates completely (Workgroup pointers are what spirv-val 2025.5 accepts).
// REQUIRES: llc, spirv-tools
// RUN: %clcoop -Wno-coop-portability %s --emit-spirv -o %t.spv
// RUN: %spirv-val %t.spv
// RUN: %spirv-link %t.spv -o %t.linked.spv
// RUN: %spirv-dis %t.spv | FileCheck %s

typedef float acc_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t L2 __attribute__((coop_tensor_layout(2, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_CLAMP_TO_EDGE)));
typedef coop_tensor_view_t V2 __attribute__((coop_tensor_view(2, false, 1, 0)));

__attribute__((reqd_work_group_size(16, 1, 1)))
kernel void k(local float *tile, uint n) {
  L2 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), n, 16);
  t = coop_tensor_layout_set_stride(t, 16, 1);
  t = coop_tensor_layout_set_block_size(t, 1, 1);
  t = coop_tensor_layout_slice(t, 0, 8, 0, 16);
  t = coop_tensor_layout_set_clamp_value(t, 0u);
  V2 v = coop_tensor_view_set_dimension(coop_tensor_view_create(), 16, 8);
  v = coop_tensor_view_set_stride(v, 1, 16);
  v = coop_tensor_view_set_clip(v, 0, 8, 0, 16);
  acc_t a = coop_mat_load_tensor(tile, t);
  acc_t b = coop_mat_load_tensor(a, tile, t, v);
  coop_mat_store_tensor(tile, b, t);
  coop_mat_store_tensor(tile, a, t, v);
}

// CHECK-DAG: OpCapability CooperativeMatrixTensorAddressingNV
// CHECK-DAG: OpCapability TensorAddressingNV
// CHECK-DAG: OpExtension "SPV_NV_cooperative_matrix2"
// CHECK-DAG: OpExtension "SPV_NV_tensor_addressing"
// CHECK-DAG: %[[L:[a-zA-Z_0-9]+]] = OpTypeTensorLayoutNV %uint_2 %uint_2
// CHECK-DAG: %[[V:[a-zA-Z_0-9]+]] = OpTypeTensorViewNV %uint_2 %false %uint_1 %{{[0-9]+}}
// CHECK: OpCreateTensorLayoutNV %[[L]]
// CHECK: OpTensorLayoutSetDimensionNV %[[L]]
// CHECK: OpTensorLayoutSetStrideNV %[[L]] {{.*}} %uint_16 %uint_1
// CHECK: OpTensorLayoutSetBlockSizeNV %[[L]]
// CHECK: OpTensorLayoutSliceNV %[[L]]
// CHECK: OpTensorLayoutSetClampValueNV %[[L]]
// CHECK: OpCreateTensorViewNV %[[V]]
// CHECK: OpTensorViewSetDimensionNV %[[V]]
// CHECK: OpTensorViewSetStrideNV %[[V]]
// CHECK: OpTensorViewSetClipNV %[[V]]
// CHECK: OpCooperativeMatrixLoadTensorNV %{{[a-zA-Z_0-9]+}} %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} None None
// CHECK: OpCooperativeMatrixLoadTensorNV %{{[a-zA-Z_0-9]+}} %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} None TensorView %{{[0-9]+}}
// CHECK: OpCooperativeMatrixStoreTensorNV %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} None None
// CHECK: OpCooperativeMatrixStoreTensorNV %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} None TensorView %{{[0-9]+}}
// CHECK-NOT: OpFunctionCall
// CHECK-NOT: LinkageAttributes
