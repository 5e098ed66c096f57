// C11 compare-exchange (strong, weak, _explicit; __global and __local; int and ulong) and the
// async copies (plain and strided, both directions) with wait_group_events: the Vulkan target
// writes these itself. Every result is independent of the order the work-items run in.
__kernel void compare_exchange(__global int *own, __global int *found, __global int *total,
                               __global ulong *wide, __global const int *x, __local int *slots)
{
    size_t i = get_global_id(0), l = get_local_id(0);
    // own slot: the expected value is right for odd i, one off for even i
    int e = (i % 2) ? own[i] : own[i] + 1;
    bool ok = atomic_compare_exchange_strong((volatile __global atomic_int *)&own[i], &e, 1000 + (int)i);
    found[3 * i] = ok;
    found[3 * i + 1] = e;
    // a sum through a compare-exchange loop (weak may fail spuriously: it retries)
    int old = atomic_load((volatile __global atomic_int *)total);
    while (!atomic_compare_exchange_weak_explicit((volatile __global atomic_int *)total, &old, old + x[i],
                                                  memory_order_relaxed, memory_order_relaxed,
                                                  memory_scope_device))
        ;
    // 64-bit, on its own slot
    ulong w = wide[i] ^ (i & 1);
    atomic_compare_exchange_strong((volatile __global atomic_ulong *)&wide[i], &w, w + 0x100000000UL);
    // __local: every work-item of the group tries to claim its neighbour's slot first
    slots[l] = -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    int expect = -1;
    bool mine = atomic_compare_exchange_strong_explicit((volatile __local atomic_int *)&slots[l], &expect,
                                                        (int)l, memory_order_acq_rel, memory_order_acquire,
                                                        memory_scope_work_group);
    barrier(CLK_LOCAL_MEM_FENCE);
    found[3 * i + 2] = mine * 100 + slots[l ^ 1];
}

__kernel void async_copies(__global const float *x, __global float *out, __global float *spread,
                           __local float *tile, __local float *gathered)
{
    size_t l = get_local_id(0), g = get_group_id(0), n = get_local_size(0);
    // 2n elements into __local, more than one per work-item
    event_t in = async_work_group_copy(tile, x + g * 2 * n, 2 * n, 0);
    // every other element of the next block, into a second __local array
    event_t strided_in = async_work_group_strided_copy(gathered, x + g * 2 * n + 1, n, 2, 0);
    wait_group_events(1, &in);
    wait_group_events(1, &strided_in);
    tile[l] = tile[l] * 2.0f + tile[2 * n - 1 - l] + gathered[n - 1 - l];
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t back = async_work_group_copy(out + g * 2 * n, tile, 2 * n, 0);
    event_t strided_out = async_work_group_strided_copy(spread + g * 3 * n, gathered, n, 3, 0);
    wait_group_events(1, &back);
    wait_group_events(1, &strided_out);
}

// float4 and uchar elements, a strided copy chained on an event, prefetch (a hint)
__kernel void async_vectors(__global const float4 *x, __global float4 *y, __global const uchar *c,
                            __global uchar *d, __local float4 *tile, __local uchar *bytes)
{
    size_t g = get_group_id(0), l = get_local_id(0);
    prefetch(x + g * 16, 16);
    event_t e = async_work_group_copy(tile, x + g * 16, 16, 0);
    e = async_work_group_strided_copy(bytes, c + g * 24, 8, 3, e);
    wait_group_events(1, &e);
    y[get_global_id(0)] = tile[15 - l % 16] + (float4)bytes[l % 8];
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t f = async_work_group_copy(d + g * 8, bytes, 8, 0);
    wait_group_events(1, &f);
}

// atomic_flag: test-and-set on each work-item's own flag (the host's pattern decides), clear
// on the odd ones; on one shared flag exactly one work-item finds it clear
__kernel void flags(__global int *own, __global int *shared_flag, __global int *winners, __global int *was)
{
    size_t i = get_global_id(0);
    was[i] = atomic_flag_test_and_set((volatile __global atomic_flag *)&own[i]);
    if (i % 2)
        atomic_flag_clear_explicit((volatile __global atomic_flag *)&own[i], memory_order_release,
                                   memory_scope_device);
    if (!atomic_flag_test_and_set_explicit((volatile __global atomic_flag *)shared_flag, memory_order_acq_rel,
                                           memory_scope_device))
        atomic_inc(winners);
}
