"""OpenCL C 2.0 atomics compiled by clcoop and run by the interpreter (the mangling is
checked against clang-22 in test_builtins.py, the interpreter on clang's IR in
test_interp_atomics_c11.py): results must be those of some serial order of the work-items."""
import numpy as np
import pytest

import clcoop

KERNEL = r"""
kernel void count(global atomic_int *counter, global atomic_uint *hi, global int *old,
                  local atomic_int *l, global atomic_float *f) {
  if (get_local_id(0) == 0) atomic_init(l, 0);
  barrier(CLK_LOCAL_MEM_FENCE);
  old[get_global_id(0)] = atomic_fetch_add(counter, 1);
  atomic_fetch_max_explicit(hi, (uint)get_global_id(0), memory_order_relaxed, memory_scope_device);
  atomic_fetch_add(l, 1);
  barrier(CLK_LOCAL_MEM_FENCE);
  int expected = 5;                        /* fails: the counter is past 5 by now */
  atomic_compare_exchange_strong(counter, &expected, expected);
  if (get_local_id(0) == 0) {
    atomic_fetch_add(counter, 1000 * atomic_load(l));
    atomic_store(f, 2.5f);
  }
}
"""


@pytest.mark.parametrize("options", [[], ["-O0"]])
def test_counter_max_local_and_float_atomics(options):
    counter, hi = np.zeros(1, np.int32), np.zeros(1, np.uint32)
    old, f = np.full(64, -1, np.int32), np.zeros(1, np.float32)
    clcoop.Program(KERNEL).build(options).count((64,), (16,), counter, hi, old,
                                                clcoop.LocalMemory(4), f)
    assert sorted(old.tolist()) == list(range(64))           # 64 distinct old values
    assert counter[0] == 64 + 4 * 16 * 1000 and hi[0] == 63 and f[0] == 2.5
