// Integer built-ins the Vulkan target spells out (OpenCL C 6.15.3), on every width the fuzzer uses.
#define CASES(T, UT, o, a, b, c) \
    o[0] = (T)popcount(a); o[1] = (T)clz(a); o[2] = (T)ctz(a); o[3] = rotate(a, b); \
    o[4] = hadd(a, b); o[5] = rhadd(a, b); o[6] = (T)abs_diff(a, b); o[7] = add_sat(a, b); \
    o[8] = sub_sat(a, b); o[9] = mul_hi(a, b); o[10] = mad_hi(a, b, c); o[11] = mad_sat(a, b, c);
__kernel void int_builtins(__global const int *i, __global const uint *u, __global const long *l,
                           __global const ulong *ul, __global int *oi, __global uint *ou,
                           __global long *ol, __global ulong *oul)
{
    size_t g = get_global_id(0);
    size_t n = get_global_size(0);
    __global int *pi = oi + 12 * g; __global uint *pu = ou + 12 * g;
    __global long *pl = ol + 12 * g; __global ulong *pul = oul + 12 * g;
    CASES(int, uint, pi, i[g], i[(g + 1) % n], i[(g + 2) % n])
    CASES(uint, uint, pu, u[g], u[(g + 1) % n], u[(g + 2) % n])
    CASES(long, ulong, pl, l[g], l[(g + 1) % n], l[(g + 2) % n])
    CASES(ulong, ulong, pul, ul[g], ul[(g + 1) % n], ul[(g + 2) % n])
}
