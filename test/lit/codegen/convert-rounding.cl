// convert_<type>_<rounding> with a non-default rounding mode is a call to the OpenCL built-in, named
// as clang-22 names it; rtz float->int (the instruction's own rounding) stays an fptosi.
// RUN: %clcoop %s -o - | FileCheck %s

// CHECK: %call = call spir_func i32 @_Z15convert_int_rtef(float %{{[0-9]+}})
// CHECK: call spir_func i32 @_Z19convert_int_sat_rtnf(float
// CHECK: %conv = fptosi float %{{[0-9]+}} to i32
// CHECK: call spir_func float @_Z17convert_float_rtpi(i32
// CHECK: call spir_func <4 x i32> @_Z16convert_int4_rtpDv4_f(<4 x float>
// CHECK-DAG: declare spir_func i32 @_Z15convert_int_rtef(float)
// CHECK-DAG: declare spir_func <4 x i32> @_Z16convert_int4_rtpDv4_f(<4 x float>)
kernel void k(global float *f, global int *i, global int4 *v) {
  i[0] = convert_int_rte(f[0]);
  i[1] = convert_int_sat_rtn(f[1]);
  i[2] = convert_int_rtz(f[2]);
  f[3] = convert_float_rtp(i[3]);
  v[0] = convert_int4_rtp(vload4(1, f));
}
