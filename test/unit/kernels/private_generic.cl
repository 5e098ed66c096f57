#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// Private arrays and structs, pointers through the generic address space, struct copies,
// char/short/long/half arithmetic, conversions and vector swizzles.
typedef struct { int key; float weight; short tag; } item_t;

void bump(int *p, int by) { *p += by; }          // generic pointer parameter (OpenCL 2.0+)

float total(const item_t *items, int n) {
  float s = 0.0f;
  for (int k = 0; k < n; ++k)
    s += items[k].weight * items[k].key;
  return s;
}

__kernel void private_generic(__global const int *in, __global float *out_f,
                              __global long *out_l, __global int *out_i) {
  int gid = get_global_id(0);
  int x = in[gid];
  int hist[5] = {0, 0, 0, 0, 0};
  for (int k = 0; k < 9; ++k)
    hist[((x + k * k) % 5 + 5) % 5] += k;
  item_t items[3];
  for (int k = 0; k < 3; ++k) {
    items[k].key = hist[k] - x;
    items[k].weight = 0.5f * (k + 1);
    items[k].tag = (short)(x * 1000);
  }
  item_t copy = items[gid % 3];               // struct copy (memcpy at -O0)
  __local int shared[4];
  if (get_local_id(0) < 4)
    shared[get_local_id(0)] = x;
  barrier(CLK_LOCAL_MEM_FENCE);
  bump(&hist[1], copy.key);                    // private -> generic
  bump(&shared[gid % 4], 0);                   // local -> generic (read only)
  long big = (long)x * 3000000000L + (ulong)(uint)x;
  uchar c = (uchar)(x * 7);
  short s = (short)(copy.tag >> 3);
  half h = (half)x * (half)0.5f;
  int4 v = (int4)(x, hist[1], hist[2], c);
  int4 w = v.zwxy * (int4)(2, -3, 5, -7) + (v > 3);
  out_f[gid] = total(items, 3) + (float)h + convert_float(copy.tag);
  out_l[gid] = big / 7 + (long)(ulong)c + s;
  out_i[4 * gid + 0] = w.x;
  out_i[4 * gid + 1] = w.y;
  out_i[4 * gid + 2] = w.z + convert_int_sat(1e10f * (x & 1 ? 1.0f : -1.0f)) / 1000;
  out_i[4 * gid + 3] = w.w + shared[(gid + 1) % 4] + hist[1];
}
