// async_work_group_copy into __local memory, a strided copy back, wait_group_events.
__kernel void async_copy(__global const float4 *in, __global float *out) {
  __local float4 tile[16];
  event_t e = async_work_group_copy(tile, in + get_group_id(0) * 16, 16, 0);
  wait_group_events(1, &e);
  size_t l = get_local_id(0);
  tile[l] *= 2.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  // Scatter the first 32 floats of the tile with a stride of 4 floats:
  // out[64 g + 4 k] = flat[k], out[64 g + 1 + 4 k] = flat[16 + k], k < 16.
  __local float *flat = (__local float *)tile;
  event_t f = async_work_group_strided_copy(out + get_group_id(0) * 64, flat, 16, 4, 0);
  event_t g = async_work_group_strided_copy(out + get_group_id(0) * 64 + 1, flat + 16, 16, 4, 0);
  wait_group_events(1, &f);
  wait_group_events(1, &g);
}
