// vload/vstore, copysign, round, fma and sqrt: the Vulkan target writes these itself.
__kernel void helpers(__global const float *x, __global const float *y, __global float *out,
                      __local float *staged)
{
    size_t i = get_global_id(0), l = get_local_id(0);
    float4 v = vload4(i, x);
    staged[l] = y[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    float2 w = vload2(l / 2, staged);
    vstore4(v * 2.0f + (float4)(w.x, w.y, w.x, w.y), i, out);
    out[4 * get_global_size(0) + i] = copysign(x[i], y[i]) + round(y[i] * 4.0f);
    out[5 * get_global_size(0) + i] = fma(x[i], y[i], x[i + 1]);
    out[6 * get_global_size(0) + i] = sqrt(fabs(y[i]));
}
