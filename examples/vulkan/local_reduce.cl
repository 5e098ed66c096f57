// Work-group sum in a __local array declared in the kernel (reqd_work_group_size fixes its
// length), a loop with barriers, and a sub-group reduction for the last 32 values.
// partial[g] = sum of in[g * 256 .. g * 256 + 255]. Local size 256; subgroup size 32 (required:
// the last step reduces one subgroup of 32).
#define WG 256
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) __attribute__((intel_reqd_sub_group_size(32)))
void local_reduce(__global const float *in, __global float *partial)
{
    __local float scratch[WG];
    const uint lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint half_size = WG / 2; half_size >= 32; half_size /= 2) {
        if (lid < half_size)
            scratch[lid] += scratch[lid + half_size];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid < 32) {
        float total = sub_group_reduce_add(scratch[lid]);
        if (lid == 0)
            partial[get_group_id(0)] = total;
    }
}
