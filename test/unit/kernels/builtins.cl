// A sample of OpenCL C built-in functions (math, integer, relational, conversions,
// vload_half/vstore_half, shuffles of sub-groups are in subgroups.cl).
__kernel void float_builtins(__global const float *x, __global const float *y,
                             __global float *out) {
  size_t i = get_global_id(0);
  float a = x[i], b = y[i];
  __global float *o = out + 12 * i;
  o[0] = fmin(a, b) + fmax(a, b);
  o[1] = mad(a, b, 1.0f) - fma(a, b, 1.0f);
  o[2] = pow(fabs(a), 1.5f);
  o[3] = atan2(a, b);
  o[4] = mix(a, b, 0.25f);
  o[5] = step(0.0f, a) + sign(b);
  o[6] = copysign(2.0f, b) * round(a * 3.0f);
  o[7] = native_exp(a * 0.5f) + half_sqrt(fabs(b));
  o[8] = fmod(a * 10.0f, 3.0f);
  o[9] = hypot(a, b);
  o[10] = (float)isless(a, b) + 2.0f * (float)isnan(a / 0.0f * 0.0f);
  o[11] = degrees(a) + trunc(b * 7.5f) + ceil(a) + rint(b * 2.5f);
}

__kernel void int_builtins(__global const int *x, __global const uint *u,
                           __global int *out) {
  size_t i = get_global_id(0);
  int a = x[i];
  uint b = u[i];
  __global int *o = out + 12 * i;
  o[0] = abs(a) + abs_diff(a, 7);
  o[1] = min(a, 5) + max(a, -5) + clamp(a, -3, 3);
  o[2] = (int)min(b, 5u) + (int)(max(b, 100u) >> 28);
  o[3] = popcount(a) + 100 * clz(b);
  o[4] = add_sat(a, 2147483000) + (int)sub_sat(b, 4000000000u);
  o[5] = mul_hi(a, 123456789) + (int)mul_hi(b, 3000000000u);
  o[6] = hadd(a, 1000) + rhadd(a, 999);
  o[7] = rotate(a, 5) ^ (int)rotate(b, 31u);
  o[8] = convert_int_sat(a * 1e6f) / 1000 + convert_uchar_sat(a) + convert_char_sat(a);
  o[9] = convert_int(convert_ushort_sat(b)) - convert_short_sat(a * 1000);
  o[10] = select(a, -a, a < 0) + (int)any((int2)(a, 0) < 0) * 10 + all((int2)(a, 1) > 0) * 100;
  o[11] = mad24(a, 3, 4) + upsample((short)1, (ushort)2);
}

__kernel void half_io(__global const half *h, __global float *f, __global half *back) {
  size_t i = get_global_id(0);
  float4 v = vload_half4(i, h);
  vstore4(v * 2.0f, i, f);
  vstore_half4(v + 1.0f, i, back);
}

__kernel void more_math(__global float *o) {
  float x = get_global_id(0) * 0.25f + 0.1f;
  o[get_global_id(0)] = ldexp(x, 3) + sinpi(x) + erf(x) + tgamma(x + 1.0f) +
                        atan2pi(x, 1.0f) + ilogb(x * 8.0f);
}

__kernel void out_pointers(__global const float *x, __global float *o, __global int *e) {
  size_t i = get_global_id(0);
  float whole, c;
  int ex;
  o[5 * i + 0] = fract(x[i], &whole);
  o[5 * i + 1] = whole;
  o[5 * i + 2] = sincos(x[i], &c);
  o[5 * i + 3] = c;
  o[5 * i + 4] = frexp(x[i], &ex);
  e[i] = ex;
  float4 v = (float4)(x[i], 1.0f, 2.0f, 3.0f);
  float4 w = shuffle2(v, v * 10.0f, (uint4)(7, 0, 5, 2));
  e[i + get_global_size(0)] = (int)(w.x + w.y + w.z + w.w);
}
