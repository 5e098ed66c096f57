// 1-D three-point stencil through a __local tile with a halo: out[i] = w0*in[i-1] + w1*in[i] + w2*in[i+1]
// (zero outside [0, n)). Each work-group stages get_local_size(0) + 2 values in `tile` (a __local
// argument: LocalMemory((local + 2) * 4)), waits at a barrier, then reads its neighbours from it.
__kernel void stencil(__global const float *in, __global float *out, __local float *tile,
                      float w0, float w1, float w2, int n)
{
    const int gid = (int)get_global_id(0);
    const int lid = (int)get_local_id(0);
    const int width = (int)get_local_size(0);
    tile[lid + 1] = gid < n ? in[gid] : 0.0f;
    if (lid == 0)
        tile[0] = gid > 0 && gid - 1 < n ? in[gid - 1] : 0.0f;
    if (lid == width - 1)
        tile[width + 1] = gid + 1 < n ? in[gid + 1] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid < n)
        out[gid] = w0 * tile[lid] + w1 * tile[lid + 1] + w2 * tile[lid + 2];
}
