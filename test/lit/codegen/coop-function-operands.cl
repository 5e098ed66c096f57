// Reductions, per-element functions and coordinates: one callee per signature named as
// docs/ir-conventions.md says; a function operand is `ptr @f`, mangled as a pointer to its
// function type (PF<ret><params>E); a static function used only as an operand is kept at -O2.
// RUN: %clcoop %s -O0 -o - | FileCheck %s
// RUN: %clcoop %s -O2 -o - | FileCheck %s --check-prefix=OPT

typedef float acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float col __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 1, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float half_acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 4, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef uchar bytes __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

static float add(float a, float b) { return a + b; }
static uchar umax(uchar a, uchar b) { return a > b ? a : b; }
static float mask(uint r, uint c, float x, float fill, global float *out, float other) {
  out[r * 16 + c] = other;
  return c > r ? fill : x;
}

kernel void k(global float *p, global uchar *q, global uint *coords) {
  acc m = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  col rows = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, add);
  acc all = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW | CLK_COOPERATIVE_MATRIX_REDUCE_COLUMN, add);
  half_acc quads = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_2X2, add);
  bytes b = coop_mat_load(q, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  bytes bmax = coop_mat_reduce(b, CLK_COOPERATIVE_MATRIX_REDUCE_COLUMN, umax);
  acc masked = coop_mat_per_element(m, mask, -1.0f, p, all);
  uint2 rc = coop_mat_get_coord(m, 1);
  coords[0] = rc.x;
  coop_mat_store(p, masked, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(p, rows, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)1);
  coop_mat_store(p, quads, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)8);
  coop_mat_store(q, bmax, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}

// CHECK: define internal spir_func float @add(float %a, float %b)
// CHECK: define internal spir_func i8 @umax(i8 %a, i8 %b)
// CHECK: define internal spir_func float @mask(i32 %r, i32 %c, float %x, float %fill, ptr addrspace(1) %out, float %other)
// CHECK: call spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 1, 2) @_Z33__spirv_CooperativeMatrixReduceNVIfLi3ELi8ELi1ELi2EfLi3ELi8ELi16ELi2EEviPFfffE(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %{{.*}}, i32 1, ptr @add)
// CHECK: @_Z33__spirv_CooperativeMatrixReduceNVIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEviPFfffE(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %{{.*}}, i32 3, ptr @add)
// CHECK: @_Z33__spirv_CooperativeMatrixReduceNVIfLi3ELi4ELi8ELi2EfLi3ELi8ELi16ELi2EEviPFfffE(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %{{.*}}, i32 4, ptr @add)
// CHECK: @_Z33__spirv_CooperativeMatrixReduceNVIhLi3ELi8ELi16ELi2EhLi3ELi8ELi16ELi2EEviPFhhhE(target("spirv.CooperativeMatrixKHR", i8, 3, 8, 16, 2) %{{.*}}, i32 2, ptr @umax)
// CHECK: @_Z39__spirv_CooperativeMatrixPerElementOpNVIfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EfLi3ELi8ELi16ELi2EEvPFfjjffPU3AS1ffEfPU3AS1f(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %{{.*}}, ptr @mask, float %{{.*}}, ptr addrspace(1) %{{.*}}, target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %{{.*}})
// CHECK: call spir_func <2 x i32> @_Z41__spirv_CooperativeMatrixGetCoordinateEXTIfLi3ELi8ELi16ELi2EEvj(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %{{.*}}, i32 1)
// CHECK: declare spir_func target("spirv.CooperativeMatrixKHR", float, 3, 8, 1, 2) @_Z33__spirv_CooperativeMatrixReduceNVIfLi3ELi8ELi1ELi2EfLi3ELi8ELi16ELi2EEviPFfffE(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2), i32, ptr)

// OPT: define internal spir_func float @add(
// OPT: define internal spir_func {{.*}}i8 @umax(
// OPT: define internal spir_func {{.*}}float @mask(
// OPT: i32 1, ptr nonnull @add)
// OPT: i32 2, ptr nonnull @umax)
// OPT: @_Z39__spirv_CooperativeMatrixPerElementOpNV{{.*}}(target("spirv.CooperativeMatrixKHR", float, 3, 8, 16, 2) %{{.*}}, ptr nonnull @mask,
