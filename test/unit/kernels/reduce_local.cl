// Per-work-group sum with a tree reduction in __local memory (barriers in a loop).
__kernel void reduce_local(__global const float *in, __global float *partial,
                           __local float *scratch) {
  size_t lid = get_local_id(0);
  size_t n = get_local_size(0);
  scratch[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = n / 2; s > 0; s >>= 1) {
    if (lid < s)
      scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    partial[get_group_id(0)] = scratch[0];
}

// Same with a kernel-scope __local array and a work_group_barrier.
__kernel void reduce_static(__global const int *in, __global int *partial) {
  __local int tmp[64];
  int lid = get_local_id(0);
  tmp[lid] = in[get_global_id(0)];
  work_group_barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = get_local_size(0) / 2; s > 0; s /= 2) {
    if (lid < s)
      tmp[lid] += tmp[lid + s];
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    partial[get_group_id(0)] = tmp[0];
}
