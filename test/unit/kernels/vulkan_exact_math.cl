// The math built-ins the Vulkan target writes as exact sequences (clcoop/spirv/vulkan_math.py):
// exp, exp2, log, log2, log10, sin, cos on float, float4 and half, division, fmod.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void exact_math(__global const float *x, __global const float *y, __global float *out,
                         __global half *hout)
{
    size_t i = get_global_id(0), n = get_global_size(0);
    float v = x[i];
    out[0 * n + i] = exp(v);
    out[1 * n + i] = exp2(v);
    out[2 * n + i] = log(v);
    out[3 * n + i] = log2(v);
    out[4 * n + i] = log10(v);
    out[5 * n + i] = sin(v);
    out[6 * n + i] = cos(v);
    out[7 * n + i] = v / y[i];
    out[8 * n + i] = fmod(v, y[i]);
    float4 w = (float4)(v, -v, y[i], 0.5f * v);
    float4 s = sin(w) + cos(w);
    out[9 * n + i] = s.x + s.y + s.z + s.w;
    hout[i] = exp((half)y[i]);
    hout[n + i] = fmod((half)v, (half)y[i]);
}

// exp10, tan, sinh, cosh, tanh, pow, powr (x > 0 for powr; pow with negative x and integer y),
// atan, asin, acos, atan2, asinh, acosh, atanh, log1p, expm1, cbrt, hypot, erf, erfc
__kernel void more_math(__global const float *x, __global const float *y, __global float *out)
{
    size_t i = get_global_id(0), n = get_global_size(0);
    float v = x[i], w = y[i];
    out[0 * n + i] = exp10(v);
    out[1 * n + i] = tan(v);
    out[2 * n + i] = sinh(v);
    out[3 * n + i] = cosh(v);
    out[4 * n + i] = tanh(v);
    out[5 * n + i] = pow(v, w);
    out[6 * n + i] = powr(fabs(v), w);
    out[7 * n + i] = pow(-fabs(v), trunc(w));
    out[8 * n + i] = atan(v);
    out[9 * n + i] = asin(v * 0.03125f);
    out[10 * n + i] = acos(v * 0.03125f);
    out[11 * n + i] = atan2(v, w);
    out[12 * n + i] = asinh(v);
    out[13 * n + i] = acosh(fabs(v));
    out[14 * n + i] = atanh(v * 0.03125f);
    out[15 * n + i] = log1p(v);
    out[16 * n + i] = expm1(v);
    out[17 * n + i] = cbrt(v);
    out[18 * n + i] = hypot(v, w);
    out[19 * n + i] = erf(v);
    out[20 * n + i] = erfc(v);
}

// half_* take the sequences (OpenCL C's 8192 ulp, which GLSL's bounds do not meet for
// half_sin outside [-pi, pi] or half_log near 1); native_divide/native_recip are OpFDiv.
__kernel void half_and_native(__global const float *x, __global const float *y, __global float *out)
{
    size_t i = get_global_id(0), n = get_global_size(0);
    float v = x[i], w = y[i];
    out[0 * n + i] = half_sin(v);
    out[1 * n + i] = half_log(fabs(v));
    out[2 * n + i] = half_divide(v, w);
    out[3 * n + i] = half_recip(w);
    out[4 * n + i] = native_divide(v, w);
    out[5 * n + i] = native_recip(w);
}

// ldexp, pown, rootn (an int operand; scalar and vector, a scalar int for a vector), sincos
__kernel void int_operand_math(__global const float *x, __global const int *k, __global float *out,
                               __global float4 *vout)
{
    size_t i = get_global_id(0), n = get_global_size(0);
    float v = x[i], c;
    out[0 * n + i] = ldexp(v, k[i]);
    out[1 * n + i] = pown(v, k[i] % 40);
    out[2 * n + i] = rootn(v, k[i] % 9);
    out[3 * n + i] = sincos(v, &c);
    out[4 * n + i] = c;
    float4 w = (float4)(v, -v, 0.5f * v, 2.0f), c4;
    vout[i] = ldexp(w, (int4)(k[i], -k[i], 3, k[i] % 7)) + ldexp(w, 2);
    vout[n + i] = sincos(w, &c4) + c4;
}
