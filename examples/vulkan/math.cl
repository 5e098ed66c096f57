// Math built-ins on the Vulkan target (GLSL.std.450; docs/vulkan.md lists their precision).
// out[8 * i + j] = the j-th function of x[i] (x > 0).
__kernel void math(__global const float *x, __global float *out, int n)
{
    const int i = (int)get_global_id(0);
    if (i >= n)
        return;
    const float v = x[i];
    __global float *o = out + 8 * i;
    o[0] = sqrt(v);
    o[1] = exp(v);
    o[2] = log(v);
    o[3] = sin(v);
    o[4] = fmin(v, 1.5f);
    o[5] = floor(v);
    o[6] = pow(v, 1.5f);
    o[7] = fabs(-v) + rsqrt(v);
}
