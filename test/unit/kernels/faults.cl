// Kernels that fault on purpose (tests of the interpreter's error reports).
__kernel void out_of_bounds(__global float *data, int n) {
  int i = get_global_id(0);
  data[i + n] = 1.0f;
}

__kernel void divide(__global int *data, int d) {
  int i = get_global_id(0);
  data[i] = data[i] / (d - i);
}

__kernel void divergent_barrier(__global int *data) {
  int i = get_local_id(0);
  if (i < 3)
    barrier(CLK_GLOBAL_MEM_FENCE);
  data[i] = i;
}

__kernel void runaway(__global int *data) {
  int i = 0;
  while (data[0] == 0)
    i++;
  data[1] = i;
}

__kernel void divergent_sub_group_reduce(__global int *data) {
  int i = get_local_id(0);
  if (i % 16 < 5)
    data[i] = sub_group_reduce_add(i);
}
