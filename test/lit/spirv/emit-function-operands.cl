// `clcoop --emit-spirv` of reductions and per-element functions: OpCooperativeMatrixReduceNV and
// OpCooperativeMatrixPerElementOpNV name the OpFunction the source names, also for functions of
// the same type (llc-22 alone would pass one OpConstantNull for all of them), with the NV2
// capabilities and extension, and no trace of SPV_INTEL_function_pointers; spirv-val accepts it.
// REQUIRES: llc, spirv-tools
// RUN: %clcoop %s --emit-spirv -o %t.spv
// RUN: %spirv-val %t.spv
// RUN: %spirv-dis %t.spv | FileCheck %s
// RUN: %clcoop %s -O2 --emit-spirv -o %t2.spv
// RUN: %spirv-val %t2.spv
// RUN: %spirv-dis %t2.spv | FileCheck %s
// RUN: %clcoop %examples/softmax_rows.cl --emit-spirv -o %t.softmax.spv
// RUN: %spirv-val %t.softmax.spv
// RUN: %clcoop %examples/mask_causal.cl -O0 --emit-spirv -o %t.mask.spv
// RUN: %spirv-val %t.mask.spv

typedef float acc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float rowv __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 1, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float quad __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 4, 8, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef int iacc __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

static float sum(float a, float b) { return a + b; }
static float maximum(float a, float b) { return fmax(a, b); }
static int imin(int a, int b) { return min(a, b); }
static float bias(uint r, uint c, float x, float b, float y) { return x + b * y + (float)(r + c); }

kernel void k(global float *p, global int *q, float b) {
  acc m = coop_mat_load(p, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  rowv s = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, sum);
  acc mx = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_COLUMN, maximum);
  acc all = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_ROW | CLK_COOPERATIVE_MATRIX_REDUCE_COLUMN, sum);
  quad qd = coop_mat_reduce(m, CLK_COOPERATIVE_MATRIX_REDUCE_2X2, maximum);
  iacc im = coop_mat_load(q, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  iacc imn = coop_mat_reduce(im, CLK_COOPERATIVE_MATRIX_REDUCE_ROW, imin);
  acc e = coop_mat_per_element(mx, bias, b, all);
  coop_mat_store(p, e, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
  coop_mat_store(p, s, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)1);
  coop_mat_store(p, qd, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)8);
  coop_mat_store(q, imn, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}

// CHECK-NOT: FunctionPointersINTEL
// CHECK-DAG: OpCapability CooperativeMatrixReductionsNV
// CHECK-DAG: OpCapability CooperativeMatrixPerElementOperationsNV
// CHECK-DAG: OpExtension "SPV_NV_cooperative_matrix2"
// CHECK-NOT: SPV_INTEL_function_pointers
// CHECK-NOT: OpConstantFunctionPointerINTEL
// CHECK: %sum = OpFunction %float
// CHECK: %maximum = OpFunction %float
// CHECK: %imin = OpFunction %uint
// CHECK: %bias = OpFunction %float
// CHECK: OpCooperativeMatrixReduceNV %{{[A-Za-z_0-9]+}} %{{[0-9]+}} Row %sum
// CHECK: OpCooperativeMatrixReduceNV %{{[A-Za-z_0-9]+}} %{{[0-9]+}} Column %maximum
// CHECK: OpCooperativeMatrixReduceNV %{{[A-Za-z_0-9]+}} %{{[0-9]+}} Row|Column %sum
// CHECK: OpCooperativeMatrixReduceNV %{{[A-Za-z_0-9]+}} %{{[0-9]+}} 2x2 %maximum
// CHECK: OpCooperativeMatrixReduceNV %{{[A-Za-z_0-9]+}} %{{[0-9]+}} Row %imin
// CHECK: OpCooperativeMatrixPerElementOpNV %{{[A-Za-z_0-9]+}} %{{[0-9]+}} %bias %{{[A-Za-z_0-9]+}} %{{[0-9]+}}
// CHECK-NOT: OpFunctionCall
