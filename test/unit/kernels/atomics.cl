// Histogram and global max with atomics: many work-items hit the same address.
__kernel void histogram(__global const int *values, __global int *bins,
                        __global int *maximum, __global int *old_sum) {
  int i = get_global_id(0);
  int v = values[i];
  atomic_inc(&bins[v & 15]);
  atomic_max(maximum, v);
  int old = atomic_add(old_sum, v);
  (void)old;
}

__kernel void cmpxchg_count(__global int *counter, __global int *tickets) {
  int i = get_global_id(0);
  int seen, next;
  do {
    seen = *counter;
    next = seen + 1;
  } while (atomic_cmpxchg(counter, seen, next) != seen);
  tickets[i] = seen;
}
