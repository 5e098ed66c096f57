// Work-group and sub-group collectives and C11-style atomics.
__kernel void collectives(__global atomic_int *cnt, __global int *out, __global float *fo) {
  size_t i = get_global_id(0);
  int old = atomic_fetch_add_explicit(cnt, 2, memory_order_relaxed, memory_scope_device);
  int x = (int)i;
  out[5*i+0] = work_group_reduce_add(x);
  out[5*i+1] = work_group_scan_exclusive_max(x);
  out[5*i+2] = sub_group_shuffle_xor(x, 1);
  out[5*i+3] = work_group_broadcast(x, 3);
  out[5*i+4] = sub_group_any(x == 5) + 2*sub_group_all(x >= 0) + atomic_load(cnt) * 0;
  fo[i] = sub_group_reduce_max((float)i * 0.5f) + work_group_reduce_min((float)i);
}
