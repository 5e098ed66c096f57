// Sub-group built-ins: ids, reductions, scans and broadcasts.
__kernel void subgroups(__global const int *in, __global int *out) {
  size_t i = get_global_id(0);
  int x = in[i];
  int sum = sub_group_reduce_add(x);
  int scan = sub_group_scan_inclusive_add(x);
  int first = sub_group_broadcast(x, 0);
  out[4 * i + 0] = sum;
  out[4 * i + 1] = scan;
  out[4 * i + 2] = first;
  out[4 * i + 3] = (int)(get_sub_group_id() * 1000 + get_sub_group_local_id());
}
