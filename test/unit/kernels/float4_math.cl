// float4 vector math: vload4/vstore4, swizzles, dot, length, built-in math.
__kernel void float4_math(__global const float *a, __global const float *b,
                          __global float *out4, __global float *out1) {
  size_t i = get_global_id(0);
  float4 x = vload4(i, a);
  float4 y = vload4(i, b);
  float4 r = x * y + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
  r = r.wzyx - sqrt(fabs(y));
  r = fmax(r, (float4)(-2.0f));
  r = clamp(r, -5.0f, 5.0f);
  vstore4(r, i, out4);
  out1[i] = dot(x, y) + length(x.xy) + floor(x.z) + exp(y.w * 0.1f);
}
