// Work-item functions in a 3-D NDRange, with partial sub-groups when the work-group
// size is not a multiple of the sub-group size.
__kernel void ids(__global int *out) {
  size_t g = get_global_linear_id();
  __global int *o = out + 12 * g;
  o[0] = get_global_id(0);
  o[1] = get_global_id(1);
  o[2] = get_global_id(2);
  o[3] = get_local_id(0) + 10 * get_local_id(1) + 100 * get_local_id(2);
  o[4] = get_group_id(0) + 10 * get_group_id(1) + 100 * get_group_id(2);
  o[5] = get_num_groups(0) + 10 * get_num_groups(1) + 100 * get_num_groups(2);
  o[6] = get_work_dim();
  o[7] = get_local_linear_id();
  o[8] = get_sub_group_id();
  o[9] = get_sub_group_local_id();
  o[10] = get_sub_group_size();
  o[11] = get_num_sub_groups() + 100 * get_local_size(0) * get_local_size(1) * get_local_size(2);
}
