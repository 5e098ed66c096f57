// Sum reduction in local memory with work-group barriers (no cooperative matrices):
// each work-group adds up get_local_size(0) elements of `in` and writes one partial sum.
// The local size must be a power of two.
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
__kernel void reduce_sum(__global const float *in, __global float *partial, __local float *scratch, int n)
{
    const size_t lid = get_local_id(0);
    const size_t gid = get_global_id(0);
    scratch[lid] = gid < (size_t)n ? in[gid] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (size_t offset = get_local_size(0) / 2; offset > 0; offset /= 2) {
        if (lid < offset)
            scratch[lid] += scratch[lid + offset];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
