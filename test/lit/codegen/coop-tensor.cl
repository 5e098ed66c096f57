// Tensor layouts and views (issue 14): the types are target("spirv.Type", ...) with the
// integral constants of OpTypeTensorLayoutNV (5370: dimensions, clamp mode) and
// OpTypeTensorViewNV (5371: dimensions, has-dimensions, permutation); every operation is a
// call with the SPIR-V instruction's operands in order (layout/view first, then exactly D
// values, slice offsets signed); loads pass the keep matrix (zeroinitializer without one),
// the memory operand 0 and the tensor addressing mask (1 = a view follows). Without a keep
// matrix the Object operand is a splat of 0 (llc-22 -O2 miswrites a zeroinitializer matrix).
// RUN: %clcoop -Wno-coop-portability %s -o - | FileCheck %s

typedef float acc_t __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef coop_tensor_layout_t L3 __attribute__((coop_tensor_layout(3, CLK_COOPERATIVE_MATRIX_CLAMP_MODE_REPEAT_MIRRORED)));
typedef coop_tensor_view_t V3 __attribute__((coop_tensor_view(3, true, 2, 0, 1)));

kernel void k(global float *src, global float *dst, uint n) {
  L3 t = coop_tensor_layout_set_dimension(coop_tensor_layout_create(), 4, n, 16);
  t = coop_tensor_layout_set_stride(t, 64, 16, 1);
  t = coop_tensor_layout_set_block_size(t, 1, 1, 1);
  t = coop_tensor_layout_slice(t, -1, 2, 0, 4, 0, 16);
  t = coop_tensor_layout_set_clamp_value(t, 0x3f800000u);
  V3 v = coop_tensor_view_set_dimension(coop_tensor_view_create(), 16, 2, 4);
  v = coop_tensor_view_set_stride(v, 1, 64, 16);
  v = coop_tensor_view_set_clip(v, 0, 8, 0, 16);
  acc_t a = coop_mat_load_tensor(src, t);
  acc_t b = coop_mat_load_tensor(a, src, t, v);
  coop_mat_store_tensor(dst, b, t, v);
}

// CHECK-DAG: %t = alloca target("spirv.Type", target("spirv.IntegralConstant", i32, 3), target("spirv.IntegralConstant", i32, 4), 5370, 0, 0)
// CHECK-DAG: %v = alloca target("spirv.Type", target("spirv.IntegralConstant", i32, 3), target("spirv.IntegralConstant", i1, 1), target("spirv.IntegralConstant", i32, 2), target("spirv.IntegralConstant", i32, 0), target("spirv.IntegralConstant", i32, 1), 5371, 0, 0)
// CHECK: call spir_func {{.*}} @_Z28__spirv_CreateTensorLayoutNVIEvu18TensorLayoutNV_3_4()
// CHECK: call spir_func {{.*}} @_Z34__spirv_TensorLayoutSetDimensionNVIEvu18TensorLayoutNV_3_4jjj({{.*}} %tensor, i32 4, i32 %{{.*}}, i32 16)
// CHECK: @_Z31__spirv_TensorLayoutSetStrideNVIEvu18TensorLayoutNV_3_4jjj({{.*}}, i32 64, i32 16, i32 1)
// CHECK: @_Z34__spirv_TensorLayoutSetBlockSizeNVIEvu18TensorLayoutNV_3_4jjj({{.*}}, i32 1, i32 1, i32 1)
// CHECK: @_Z27__spirv_TensorLayoutSliceNVIEvu18TensorLayoutNV_3_4ijijij({{.*}}, i32 %sub, i32 2, i32 0, i32 4, i32 0, i32 16)
// CHECK: @_Z35__spirv_TensorLayoutSetClampValueNVIEvu18TensorLayoutNV_3_4j({{.*}}, i32 1065353216)
// CHECK: @_Z26__spirv_CreateTensorViewNVIEvu20TensorViewNV_3_1_201()
// CHECK: @_Z32__spirv_TensorViewSetDimensionNVIEvu20TensorViewNV_3_1_201jjj({{.*}}, i32 16, i32 2, i32 4)
// CHECK: @_Z29__spirv_TensorViewSetStrideNVIEvu20TensorViewNV_3_1_201jjj({{.*}}, i32 1, i32 64, i32 16)
// CHECK: @_Z27__spirv_TensorViewSetClipNVIEvu20TensorViewNV_3_1_201jjjj({{.*}}, i32 0, i32 8, i32 0, i32 16)
// CHECK: %[[ZERO:[a-z0-9]+]] = call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z26__spirv_CompositeConstructIfLi3ELi8ELi16ELi2EEvf(float 0.000000e+00)
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) @_Z37__spirv_CooperativeMatrixLoadTensorNVIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEvPU3AS1fu18TensorLayoutNV_3_4ii(ptr addrspace(1) %{{.*}}, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %[[ZERO]], {{.*}}, i32 0, i32 0)
// CHECK: @_Z37__spirv_CooperativeMatrixLoadTensorNVIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEvPU3AS1fu18TensorLayoutNV_3_4iiu20TensorViewNV_3_1_201(ptr addrspace(1) %{{.*}}, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %{{.*}}, {{.*}}, i32 0, i32 1, {{.*}})
// CHECK: call spir_func void @_Z38__spirv_CooperativeMatrixStoreTensorNVIfLi3ELi8ELi16ELi2EEvPU3AS1fu18TensorLayoutNV_3_4iiu20TensorViewNV_3_1_201(ptr addrspace(1) %{{.*}}, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %{{.*}}, {{.*}}, i32 0, i32 1, {{.*}})
