// The vector forms of the integer built-ins on the Vulkan target (component by component over
// the scalar sequences): int4, uint2, long2, uchar4.
__kernel void int_vectors(__global const int4 *a, __global const uint2 *b, __global const long2 *c,
                          __global const uchar4 *d, __global int4 *ao, __global uint2 *bo,
                          __global long2 *co, __global uchar4 *dout)
{
    size_t i = get_global_id(0), n = get_global_size(0);
    ao[i] = popcount(a[i]);
    ao[n + i] = clz(a[i]);
    ao[2 * n + i] = add_sat(a[i], a[i + 1]);
    ao[3 * n + i] = mad_hi(a[i], a[i + 1], a[i + 2]);
    ao[4 * n + i] = rotate(a[i], a[i + 1]);
    bo[i] = mul_hi(b[i], b[i + 1]);
    bo[n + i] = hadd(b[i], b[i + 1]);
    bo[2 * n + i] = ctz(b[i]);
    co[i] = mad_sat(c[i], c[i + 1], c[i + 2]);
    co[n + i] = as_long2(abs_diff(c[i], c[i + 1]));
    dout[i] = rhadd(d[i], d[i + 1]);
    dout[n + i] = sub_sat(d[i], d[i + 1]);
    dout[2 * n + i] = popcount(d[i]);
}
