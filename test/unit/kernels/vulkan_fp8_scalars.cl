// Scalar fp8 conversions on the Vulkan target (integer code; no float8 support needed on the
// device): every pattern decoded to float, half, double and int; floats, doubles and ints
// encoded to both formats, with and without saturation; E4M3 -> E5M2.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void fp8_scalars(__global const uchar *bits, __global const float *x, __global const int *k,
                          __global float *decoded, __global int *as_int, __global uchar *encoded)
{
    size_t i = get_global_id(0), n = get_global_size(0);
    __fp8_e4m3 a = ((__global const __fp8_e4m3 *)bits)[i];
    __fp8_e5m2 b = ((__global const __fp8_e5m2 *)bits)[i];
    decoded[i] = (float)a;
    decoded[n + i] = (float)b;
    decoded[2 * n + i] = (float)(half)a + (float)(double)b;
    as_int[i] = (int)a;
    as_int[n + i] = (int)(uchar)b;
    __global __fp8_e4m3 *e4 = (__global __fp8_e4m3 *)encoded;
    __global __fp8_e5m2 *e5 = (__global __fp8_e5m2 *)encoded;
    e4[i] = (__fp8_e4m3)x[i];
    e4[n + i] = convert___fp8_e4m3_sat(x[i]);
    e5[2 * n + i] = (__fp8_e5m2)x[i];
    e5[3 * n + i] = convert___fp8_e5m2_sat((double)x[i] * 3.0);
    e4[4 * n + i] = (__fp8_e4m3)k[i];
    e5[5 * n + i] = (__fp8_e5m2)a;
    e4[6 * n + i] = (__fp8_e4m3)(half)x[i];
}
