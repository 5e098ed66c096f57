// select and bitselect (OpenCL C 6.15.6) on the Vulkan target: scalar and vector, int, uint and
// float, a vector's selection by the most significant bit of each component.
__kernel void selects(__global const float4 *x, __global const int4 *m, __global const float *s,
                      __global const int *k, __global const uint2 *u, __global float4 *fout,
                      __global float *sout, __global int *kout, __global uint2 *uout)
{
    size_t i = get_global_id(0);
    fout[2 * i] = select(x[i], x[i + 1], m[i]);
    fout[2 * i + 1] = bitselect(x[i], x[i + 1], as_float4(m[i]));
    sout[i] = select(s[i], s[i + 1], k[i]);
    kout[i] = bitselect(k[i], k[i + 1], k[i + 2]);
    uout[i] = select(u[i], u[i + 1], (uint2)(k[i], k[i + 1]));
}
