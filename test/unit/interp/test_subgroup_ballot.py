"""cl_khr_subgroup_ballot and cl_khr_subgroup_non_uniform_vote in the interpreter, against
a NumPy oracle that walks each sub-group (work-groups of 20 work-items in sub-groups of 8:
the last sub-group has 4), with divergent calls (only the active work-items count), and
clcoop's IR against clang-22's IR run in the same interpreter."""
import numpy as np
import pytest

import clcoop
from interp_helpers import clang_ir_text

RNG = np.random.default_rng(2026)
S, WG, GROUPS = 8, 20, 2

SOURCE = """
kernel void ballot(global const int *pred, global uint4 *b, global uint *q, global int *r) {
  size_t i = get_global_id(0);
  uint4 all = sub_group_ballot(pred[i]);
  b[i] = all;
  q[8 * i + 0] = sub_group_ballot_bit_count(all);
  q[8 * i + 1] = sub_group_ballot_inclusive_scan(all);
  q[8 * i + 2] = sub_group_ballot_exclusive_scan(all);
  q[8 * i + 3] = sub_group_ballot_find_lsb(all);
  q[8 * i + 4] = sub_group_ballot_find_msb(all);
  q[8 * i + 5] = get_sub_group_lt_mask().x;
  q[8 * i + 6] = get_sub_group_ge_mask().x | get_sub_group_eq_mask().y;
  q[8 * i + 7] = get_sub_group_le_mask().x ^ get_sub_group_gt_mask().x;
  r[8 * i + 0] = sub_group_inverse_ballot(all);
  r[8 * i + 1] = sub_group_ballot_bit_extract(all, 3);
  if (pred[i] != 0) {                                   /* only these work-items are active */
    b[get_global_size(0) + i] = sub_group_ballot(pred[i] > 1);
    r[8 * i + 2] = sub_group_elect();
    r[8 * i + 3] = sub_group_non_uniform_all(pred[i] > 1);
    r[8 * i + 4] = sub_group_non_uniform_any(pred[i] > 2);
    r[8 * i + 5] = sub_group_non_uniform_all_equal(pred[i] & 1);
    r[8 * i + 6] = sub_group_broadcast_first((int)i);
    r[8 * i + 7] = sub_group_non_uniform_broadcast((int)i * 3, sub_group_ballot_find_msb(sub_group_ballot(1)));
  }
}
"""


def run(program, pred):
    n = len(pred)
    b = np.zeros((2 * n, 4), np.uint32)
    q = np.zeros((n, 8), np.uint32)
    r = np.full((n, 8), -7, np.int32)
    program.ballot((n,), (WG,), pred, b, q, r, subgroup_size=S)
    return b, q, r


def words(bits):
    out = np.zeros(4, np.uint32)
    for k in np.flatnonzero(bits):
        out[k // 32] |= np.uint32(1) << np.uint32(k % 32)
    return out


def oracle(pred):
    n = len(pred)
    b = np.zeros((2 * n, 4), np.uint32)
    q = np.zeros((n, 8), np.uint32)
    r = np.full((n, 8), -7, np.int32)
    for start in range(0, n, WG):
        for first in range(start, start + WG, S):
            ids = np.arange(first, min(first + S, start + WG))
            size = len(ids)
            p = pred[ids]
            ballot = words(p != 0)
            active = ids[p != 0]
            for lid, i in enumerate(ids):
                b[i] = ballot
                set_bits = np.flatnonzero(p != 0)
                q[i, 0] = len(set_bits)
                q[i, 1] = np.sum(set_bits <= lid)
                q[i, 2] = np.sum(set_bits < lid)
                q[i, 3] = set_bits.min() if len(set_bits) else 0xFFFFFFFF
                q[i, 4] = set_bits.max() if len(set_bits) else 0xFFFFFFFF
                ks = np.arange(size)
                q[i, 5] = words(ks < lid)[0]
                q[i, 6] = words(ks >= lid)[0] | words(ks == lid)[1]
                q[i, 7] = words(ks <= lid)[0] ^ words(ks > lid)[0]
                r[i, 0] = p[lid] != 0
                r[i, 1] = size > 3 and p[3] != 0
                if p[lid] == 0:
                    continue
                b[n + i] = words((p != 0) & (p > 1))
                r[i, 2] = i == active[0]
                r[i, 3] = np.all(pred[active] > 1)
                r[i, 4] = np.any(pred[active] > 2)
                r[i, 5] = len(set(pred[active] & 1)) == 1
                r[i, 6] = active[0]
                r[i, 7] = 3 * active[-1]
    return b, q, r


@pytest.fixture(scope="module")
def predicates():
    pred = RNG.integers(0, 4, GROUPS * WG).astype(np.int32)
    pred[:S] = 0                 # a sub-group with no predicate set: find_lsb/msb give ~0
    pred[S:2 * S] = 2            # one whose active work-items all agree
    return pred


def test_ballot_and_vote_match_numpy(predicates):
    got = run(clcoop.Program(SOURCE).build(), predicates)
    for name, g, e in zip("bqr", got, oracle(predicates)):
        np.testing.assert_array_equal(g, e, err_msg=name)


def test_clang_ir_gives_the_same_results(predicates):
    clang = run(clcoop.Program.from_ir(clang_ir_text(SOURCE)), predicates)
    ours = run(clcoop.Program(SOURCE).build(), predicates)
    for name, g, e in zip("bqr", clang, ours):
        np.testing.assert_array_equal(g, e, err_msg=name)


def test_non_uniform_broadcast_of_an_inactive_work_item_faults():
    source = """kernel void k(global int *o) {
      int i = get_global_id(0);
      if (i % 2) o[i] = sub_group_non_uniform_broadcast(i, 0u);   /* work-item 0 is inactive */
    }"""
    with pytest.raises(clcoop.RuntimeFault, match="sub_group_non_uniform_broadcast: the index 0"):
        clcoop.Program(source).build().k((8,), (8,), np.zeros(8, np.int32), subgroup_size=8)


def test_native_engine_runs_it():
    # (It fell back to the interpreter before native/ballot_ir.py; test_native_subgroup_ballot
    # has the native engine's tests.)
    source = "kernel void k(global uint4 *o) { o[get_global_id(0)] = sub_group_ballot(1); }"
    program = clcoop.Program(source).build(engine="native")
    out = np.zeros((8, 4), np.uint32)
    program.k((8,), (8,), out, subgroup_size=8)
    assert program.k.engine == "native" and (out == [0xFF, 0, 0, 0]).all()
