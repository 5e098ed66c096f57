"""cl_khr_subgroup_ballot and cl_khr_subgroup_non_uniform_vote on the native engine
(clcoop/native/ballot_ir.py): the interpreter test's kernel (test_subgroup_ballot.py) and
kernels with ballots and votes under lane-varying ifs and loops, natively without fallback
on the subgroup-wide path at several sub-group sizes, bit-identical to the interpreter and
equal to the NumPy oracle that walks each sub-group. The bit queries and masks, which need
no other lane, also run on the per-work-item path (sub-groups cut short by the work-group
size included); their per-work-item definitions (ballot_ir.lane_definition, built with
irbuild) also run alone on contexts, against Python's integers."""
import ctypes
import operator
import warnings

import llvmlite.binding as llvm
import numpy as np
import pytest

import clcoop
import test_subgroup_ballot as interp_test
from clcoop.native import ballot_ir, jit
from clcoop.native.builtin_ir import intrinsics_in
from clcoop.native.context import CTX, CTX_SLOTS
from clcoop.native.runtime import NativeProgram
from clcoop.native.support import NativeFallbackWarning
from interp_helpers import clang_ir_text
from quick_cases import quick_or_slow


def build(source, S, producer="clcoop"):
    """(native program built for sub-group size S, interpreter program); no fallback."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeFallbackWarning)
        if producer == "clcoop":
            native = clcoop.Program(source).build(engine="native")
            interp = clcoop.Program(source).build(engine="interp")
        else:
            ir = clang_ir_text(source, opt=2)
            native, interp = clcoop.Program.from_ir(ir, engine="native"), clcoop.Program.from_ir(ir, engine="interp")
    if S != native._native.subgroup_size:
        native._native.close()
        native._native = NativeProgram(native._module, S)
    return native, interp


def assert_native(program, kernel, S, path="subgroup"):
    k = getattr(program, kernel)
    assert k.engine == "native" and k.fallback_reason is None
    assert program._native.execution_mode(kernel, S) == path


def run_interp_kernel(program, pred, S, WG):
    n = len(pred)
    b = np.zeros((2 * n, 4), np.uint32)
    q = np.zeros((n, 8), np.uint32)
    r = np.full((n, 8), -7, np.int32)
    program.ballot((n,), (WG,), pred, b, q, r, subgroup_size=S)
    return b, q, r


def predicates(S, WG, groups=3, seed=0):
    pred = np.random.default_rng(seed + S).integers(0, 4, groups * WG).astype(np.int32)
    pred[:S] = 0                 # no bit set: find_lsb/msb give ~0
    pred[S:2 * S] = 2            # every active work-item agrees
    return pred


# The default run: clang's IR at 16 (clcoop's IR runs the same ballots and votes by default in
# test_bit_queries_and_masks_on_both_paths and test_ballots_and_votes_under_lane_varying_ifs_and_loops);
# --all runs 4..32 with both.
@pytest.mark.parametrize("S, producer", quick_or_slow(
    [(S, producer) for producer in ("clcoop", "clang-O2") for S in (4, 8, 16, 32)], {(16, "clang-O2")}))
def test_interpreter_kernel_bit_identical(S, producer, monkeypatch):
    WG = 2 * S if S >= 8 else 4 * S
    native, interp = build(interp_test.SOURCE, S, producer)
    assert_native(native, "ballot", S)
    pred = predicates(S, WG)
    got = run_interp_kernel(native, pred, S, WG)
    assert native._native.fast_launches.get("ballot") == 1 and not native._native.fast_reruns
    want = run_interp_kernel(interp, pred, S, WG)
    monkeypatch.setattr(interp_test, "S", S)
    monkeypatch.setattr(interp_test, "WG", WG)
    oracle = interp_test.oracle(pred)
    for name, g, w, o in zip("bqr", got, want, oracle):
        assert g.tobytes() == w.tobytes(), f"{name}: native differs from the interpreter"
        np.testing.assert_array_equal(g, o, err_msg=name)


@pytest.mark.slow
def test_interpreter_kernel_64_lanes(monkeypatch):
    # Ballots of 64 bits: the second word of the uint4.
    S = 64
    native, interp = build(interp_test.SOURCE, S)
    pred = predicates(S, S, groups=2)
    got = run_interp_kernel(native, pred, S, S)
    assert native._native.fast_launches.get("ballot") == 1 and not native._native.fast_reruns
    want = run_interp_kernel(interp, pred, S, S)
    monkeypatch.setattr(interp_test, "S", S)
    monkeypatch.setattr(interp_test, "WG", S)
    for g, w, o in zip(got, want, interp_test.oracle(pred)):
        assert g.tobytes() == w.tobytes()
        np.testing.assert_array_equal(g, o)


WIDE = """
kernel void wide(global const int *pred, global uint4 *b, global uint *q) {
  size_t i = get_global_id(0);
  uint4 all = sub_group_ballot(pred[i]);
  b[i] = all;
  q[4 * i] = sub_group_ballot_bit_count(all) + (sub_group_ballot_find_msb(all) << 8)
             + (sub_group_ballot_find_lsb(all) << 16);
  q[4 * i + 1] = sub_group_ballot_inclusive_scan(all);
  q[4 * i + 2] = get_sub_group_gt_mask().w;
  if (pred[i] > 1)
    q[4 * i + 3] = sub_group_elect() + 2 * sub_group_non_uniform_any(pred[i] > 2);
}
"""


@pytest.mark.slow
def test_128_lanes():
    # All four words of the uint4 (a shorter kernel: 128 lanes of the interpreter test's
    # exceed the fast path's size limit, subgroup.MAX_LINES).
    S = 128
    native, interp = build(WIDE, S)
    assert_native(native, "wide", S)
    pred = predicates(S, S, groups=2)
    outs = []
    for program in (native, interp):
        b, q = np.zeros((pred.size, 4), np.uint32), np.zeros(4 * pred.size, np.uint32)
        program.wide((pred.size,), (S,), pred, b, q, subgroup_size=S)
        outs.append((b, q))
    assert native._native.fast_launches.get("wide") == 1 and not native._native.fast_reruns
    for g, w in zip(*outs):
        assert g.tobytes() == w.tobytes()
    b = outs[0][0]
    np.testing.assert_array_equal(b[S:], np.tile(interp_test.words(pred[S:] != 0), (S, 1)))


def test_partial_subgroups_run_in_the_interpreter_with_the_same_results():
    """Work-groups of 20 in sub-groups of 8 (the interpreter test's launch): the fast path
    needs full sub-groups, and the votes cannot run per work-item, so this launch runs in
    the interpreter; the kernel stays native."""
    native, interp = build(interp_test.SOURCE, 8)
    pred = predicates(8, 20, groups=2)
    with pytest.warns(NativeFallbackWarning, match="this launch runs in the interpreter"):
        got = run_interp_kernel(native, pred, 8, 20)
    assert native.ballot.engine == "native" and not native._native.fast_launches.get("ballot")
    for g, w in zip(got, run_interp_kernel(interp, pred, 8, 20)):
        assert g.tobytes() == w.tobytes()


BITS = """
kernel void bits(global const uint4 *b, global const uint *at, global uint *q) {
  size_t i = get_global_id(0);
  uint4 v = b[i];
  q[10 * i + 0] = sub_group_ballot_bit_count(v);
  q[10 * i + 1] = sub_group_ballot_inclusive_scan(v);
  q[10 * i + 2] = sub_group_ballot_exclusive_scan(v);
  q[10 * i + 3] = sub_group_ballot_find_lsb(v);
  q[10 * i + 4] = sub_group_ballot_find_msb(v);
  q[10 * i + 5] = sub_group_inverse_ballot(v);
  q[10 * i + 6] = sub_group_ballot_bit_extract(v, at[i]);
  uint4 m = get_sub_group_eq_mask() ^ (get_sub_group_ge_mask() << 1) ^ (get_sub_group_gt_mask() << 2)
            ^ (get_sub_group_le_mask() << 3) ^ (get_sub_group_lt_mask() << 4);
  q[10 * i + 7] = m.x ^ m.y;
  q[10 * i + 8] = m.z;
  q[10 * i + 9] = m.w + get_sub_group_lt_mask().w;
}
"""


# (32 lanes cut short at 72: slow, a second case of the 8-lane one's path; --all runs it.)
@pytest.mark.parametrize("S, WG, path", [(8, 20, "work-item"),
                                         pytest.param(32, 72, "work-item", marks=pytest.mark.slow), (16, 32, "subgroup"),
                                         (128, 200, "work-item")])
def test_bit_queries_and_masks_on_both_paths(S, WG, path):
    """Arbitrary ballots (bits past the sub-group's size set, which the queries ignore),
    indices in and past the 128 bits; sub-groups cut short by the work-group size run on the
    per-work-item path natively."""
    native, interp = build(BITS, S)
    assert native.bits.engine == "native" and native.bits.fallback_reason is None
    rng = np.random.default_rng(S + WG)
    n = 2 * WG
    b = rng.integers(0, 1 << 32, (n, 4), dtype=np.uint64).astype(np.uint32)
    b[::7] = 0
    at = rng.integers(0, 140, n).astype(np.uint32)
    at[::5] = 0xFFFFFFFF
    outs = []
    for program in (native, interp):
        q = np.zeros(10 * n, np.uint32)
        program.bits((n,), (WG,), b, at, q, subgroup_size=S)
        outs.append(q)
    assert bool(native._native.fast_launches.get("bits")) == (path == "subgroup")
    assert outs[0].tobytes() == outs[1].tobytes()
    # bit_extract against Python integers: the bit if below the sub-group's size, else 0
    # (0xFFFFFFFF included: the interpreter read it as bit -1, i.e. 127, at 128 lanes).
    lid = np.arange(n) % WG % S
    size = np.minimum(S, WG - (np.arange(n) % WG - lid))
    ballots = [sum(int(w) << (32 * k) for k, w in enumerate(row)) for row in b]
    expect = [(x >> int(a)) & 1 if a < s else 0 for x, a, s in zip(ballots, at, size)]
    np.testing.assert_array_equal(outs[0].reshape(n, 10)[:, 6], expect)


DIVERGENT = """
kernel void k(global const int *x, global uint4 *b, global int *r) {
  size_t i = get_global_id(0);
  int v = x[i];
  uint4 acc = (uint4)(0);
  int e = -1, a = -1;
  if (v & 1) {                       /* a lane-varying if: only these lanes take part */
    acc = sub_group_ballot(v > 1);
    e = sub_group_elect() + 2 * sub_group_non_uniform_all(v > 2) + 4 * sub_group_non_uniform_any(v > 4)
        + 8 * sub_group_non_uniform_all_equal(v & 2) + 16 * sub_group_ballot_bit_count(acc);
    a = sub_group_broadcast_first((int)i) * 1000 + sub_group_ballot_inclusive_scan(acc);
  } else {
    acc = sub_group_ballot(v > 2) | get_sub_group_lt_mask();
    e = sub_group_elect();
  }
  int loops = 0;
  for (int k = 0; k < (v & 7); k++) {  /* a lane-varying loop: the lanes still in it */
    uint4 here = sub_group_ballot(1);
    loops += sub_group_ballot_bit_count(here) * (k + 1) + sub_group_elect()
             + 100 * sub_group_non_uniform_broadcast(k, sub_group_ballot_find_msb(here));
  }
  b[i] = acc;
  r[3 * i] = e;
  r[3 * i + 1] = a;
  r[3 * i + 2] = loops;
}
"""


def divergent_oracle(x, S):
    """Sub-group by sub-group: the if's two sides and each iteration of the loop see the
    lanes that run them."""
    n = len(x)
    b = np.zeros((n, 4), np.uint32)
    r = np.zeros(3 * n, np.int32)
    words = interp_test.words
    for first in range(0, n, S):
        ids = np.arange(first, first + S)
        v = x[ids]
        odd = (v & 1) != 0
        for side in (True, False):
            lanes = np.flatnonzero(odd == side)
            for j in lanes:
                i = ids[j]
                if side:
                    ballot = words(odd & (v > 1))
                    b[i] = ballot
                    e = (j == lanes[0]) + 2 * bool(np.all(v[lanes] > 2)) + 4 * bool(np.any(v[lanes] > 4)) \
                        + 8 * (len(set(v[lanes] & 2)) == 1) + 16 * int(np.sum(odd & (v > 1)))
                    r[3 * i] = e
                    r[3 * i + 1] = ids[lanes[0]] * 1000 + int(np.sum((odd & (v > 1))[:j + 1]))
                else:
                    b[i] = words(~odd & (v > 2)) | words(np.arange(S) < j)
                    r[3 * i] = j == lanes[0]
                    r[3 * i + 1] = -1
        loops = np.zeros(S, np.int64)
        for k in range(8):
            inside = np.flatnonzero((v & 7) > k)
            for j in inside:
                loops[j] += len(inside) * (k + 1) + (j == inside[0]) + 100 * k
        r[3 * ids + 2] = loops
    return b, r


# (At 32 lanes this kernel's masked code exceeds regions.MAX_MASKED_LINES: the interpreter.)
# The default run: each sub-group size once, the producers alternating; --all runs both at each.
@pytest.mark.parametrize("S, producer", quick_or_slow(
    [(S, producer) for producer in ("clcoop", "clang-O2") for S in (4, 8, 16)],
    {(4, "clcoop"), (8, "clang-O2"), (16, "clcoop")}))
def test_ballots_and_votes_under_lane_varying_ifs_and_loops(S, producer):
    native, interp = build(DIVERGENT, S, producer)
    assert_native(native, "k", S)
    x = np.random.default_rng(S).integers(0, 16, 4 * S).astype(np.int32)
    x[:S] = 7                       # a sub-group whose lanes all take the same side
    outs = []
    for program in (native, interp):
        b, r = np.zeros((x.size, 4), np.uint32), np.zeros(3 * x.size, np.int32)
        program.k((x.size,), (2 * S,), x, b, r, subgroup_size=S)
        outs.append((b, r))
    assert native._native.fast_launches.get("k") == 1 and not native._native.fast_reruns
    for g, w, o in zip(outs[0], outs[1], divergent_oracle(x, S)):
        assert g.tobytes() == w.tobytes()
        np.testing.assert_array_equal(g, o)


TYPES = """#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void k(global const float *f, global const double *d, global const half *h, global const long *l,
              global const float4 *v, global int *r, global float4 *o, global half *oh) {
  size_t i = get_global_id(0);
  r[4 * i] = sub_group_non_uniform_all_equal(f[i]);
  r[4 * i + 1] = sub_group_non_uniform_all_equal(d[i]) + 2 * sub_group_non_uniform_all_equal(h[i]);
  r[4 * i + 2] = sub_group_non_uniform_all_equal(l[i]) + 2 * sub_group_non_uniform_all((int)l[i])
                 + 4 * sub_group_non_uniform_any((uchar)l[i]);
  o[i] = sub_group_non_uniform_broadcast(v[i], 5u) + sub_group_broadcast_first(f[i]);
  oh[i] = sub_group_broadcast_first(h[i]) + sub_group_non_uniform_broadcast(h[i], 15u);
  if (l[i] & 1)
    r[4 * i + 3] = sub_group_non_uniform_all_equal(f[i]) + 2 * (int)sub_group_broadcast_first(d[i]);
}
"""


def test_value_types_nan_and_signed_zero():
    """all_equal on float, double, half and long (NaN differs from itself, -0.0 equals
    +0.0), all/any on narrow integers, broadcasts of float, float4 and half."""
    S = 16
    rng = np.random.default_rng(5)
    n = 6 * S
    f = np.repeat(rng.standard_normal(n // S).astype(np.float32), S)
    f[S:2 * S] = np.where(np.arange(S) % 2, 0.0, -0.0)            # equal
    f[2 * S:3 * S] = np.nan                                        # never equal
    f[3 * S + 5] = 1.0                                             # one differs
    d, h = f.astype(np.float64), f.astype(np.float16)
    d[4 * S + 3] = np.nextafter(d[4 * S + 3], 1.0)
    h[5 * S] = np.float16(np.inf)
    l = np.repeat(rng.integers(-3, 3, n // S), S).astype(np.int64)
    l[4 * S + 2] = 1 << 40
    v = rng.standard_normal((n, 4)).astype(np.float32)
    native, interp = build(TYPES, S)
    assert_native(native, "k", S)
    outs = []
    for program in (native, interp):
        r, o, oh = np.full(4 * n, -1, np.int32), np.zeros((n, 4), np.float32), np.zeros(n, np.float16)
        program.k((n,), (2 * S,), f, d, h, l, v, r, o, oh, subgroup_size=S)
        outs.append((r, o, oh))
    assert native._native.fast_launches.get("k") == 1 and not native._native.fast_reruns
    for g, w in zip(*outs):
        assert g.tobytes() == w.tobytes()
    r = outs[0][0].reshape(-1, 4)
    np.testing.assert_array_equal(r[:, 0].reshape(-1, S)[:, 0], [1, 1, 0, 0, 1, 1])


def test_non_uniform_broadcast_fault_is_the_interpreters():
    """An index naming an inactive work-item: the fast path records it, and the launch runs
    where it is reported (the interpreter), with the interpreter's words."""
    source = """kernel void k(global int *o) {
      int i = get_global_id(0);
      if (i % 2) o[i] = sub_group_non_uniform_broadcast(i, 0u);   /* work-item 0 is inactive */
    }"""
    native, interp = build(source, 8)
    assert_native(native, "k", 8)
    messages = []
    for program in (native, interp):
        with pytest.raises(clcoop.RuntimeFault, match="sub_group_non_uniform_broadcast: the index 0") as info:
            program.k((16,), (16,), np.zeros(16, np.int32), subgroup_size=8)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_votes_need_the_subgroup_path():
    """The per-work-item path cannot see the other lanes: a kernel with a vote whose
    subgroup-wide path is not taken still falls back, with the reason."""
    source = """kernel void k(global uint4 *o, global int *t) {
      size_t i = get_global_id(0);
      o[i] = sub_group_ballot(i % 2);
      atomic_add(t, 1);                       /* an atomic: no subgroup-wide path */
    }"""
    with pytest.warns(NativeFallbackWarning, match="sub_group_ballot"):
        program = clcoop.Program(source).build(engine="auto")
    assert program.k.engine == "interp"


# ------------------------------------------------------------------ the per-work-item definition alone

def _lane_function(base, op_kind):
    """ballot_ir.lane_definition of `base` (built with irbuild), compiled alone behind an
    external wrapper: f(context, words) -> int for a bit query (words: the ballot, and for
    bit_extract the index after it), f(context, out) writing the mask's 4 words to out."""
    extract = base == "sub_group_ballot_bit_extract"
    ret, params = ("<4 x i32>", []) if op_kind == "mask" else \
        ("i32", ["<4 x i32>", "i32"] if extract else ["<4 x i32>"])
    text = ballot_ir.lane_definition("lane", base, ret, params)
    decls = "\n".join(sorted({d for _, d in intrinsics_in(text)}))
    if op_kind == "mask":
        wrapper = ('define void @run(ptr %c, ptr %w) {\n  %r = call <4 x i32> @"lane"(ptr %c)\n'
                   '  store <4 x i32> %r, ptr %w\n  ret void\n}\n')
    else:
        index = ", i32 %i" if extract else ""
        wrapper = ('define i32 @run(ptr %c, ptr %w) {\n  %v = load <4 x i32>, ptr %w\n'
                   '  %ip = getelementptr i32, ptr %w, i64 4\n  %i = load i32, ptr %ip\n'
                   f'  %r = call i32 @"lane"(ptr %c, <4 x i32> %v{index})\n  ret i32 %r\n}}\n')
    module = decls + "\n" + text + "\n" + wrapper
    jit.ensure_llvm()
    llvm.parse_assembly(module).verify()
    engine = jit.Engine(module)
    restype = None if op_kind == "mask" else ctypes.c_uint32
    f = ctypes.CFUNCTYPE(restype, ctypes.c_void_p, ctypes.c_void_p)(engine.address("run"))
    f.engine = engine
    return f


def _query_oracle(op, bits, index, j, size):
    """The extension's bit queries on the ballot's bits below the sub-group's size (the
    interpreter's choices where it leaves the result undefined: find of no bit 0xFFFFFFFF,
    an index of 128 or more 0)."""
    m = bits & ((1 << size) - 1)
    if op == "inverse":
        return (m >> j) & 1
    if op == "extract":
        return (m >> index) & 1 if index < 128 else 0
    if op == "count":
        return bin(m).count("1")
    if op == "inclusive_scan":
        return bin(m & ((1 << (j + 1)) - 1)).count("1")
    if op == "exclusive_scan":
        return bin(m & ((1 << j) - 1)).count("1")
    if m == 0:
        return 0xFFFFFFFF
    return (m & -m).bit_length() - 1 if op == "find_lsb" else m.bit_length() - 1


# (sub-group size, work-group size): full sub-groups, a last one cut short, 128 lanes.
_SHAPES = [(8, 16), (8, 13), (32, 70), (128, 128), (128, 200)]


@pytest.mark.parametrize("base", sorted(ballot_ir.BIT_QUERIES))
def test_lane_definition_of_a_bit_query_alone_as_the_extension(base):
    """The per-work-item bit query built with irbuild (ballot_ir.lane_definition), run
    alone on contexts of every work-item of a work-group, against Python's integers."""
    op = ballot_ir.BIT_QUERIES[base]
    f = _lane_function(base, "bits")
    rng = np.random.default_rng(5)
    for S, wg in _SHAPES:
        for llid in range(wg):
            ctx = np.zeros(CTX_SLOTS, np.int64)
            ctx[CTX["sg_size"]], ctx[CTX["wg_size"]], ctx[CTX["llid"]] = S, wg, llid
            j, size = llid % S, min(S, wg - llid // S * S)
            words = rng.integers(0, 2 ** 32, 5, dtype=np.uint64).astype(np.uint32)
            if llid % 7 == 0:
                words[:4] = 0
            words[4] = rng.integers(0, 140) if llid % 3 else j
            bits = sum(int(w) << (32 * k) for k, w in enumerate(words[:4]))
            got = f(ctx.ctypes.data, words.ctypes.data)
            assert got == _query_oracle(op, bits, int(words[4]), j, size), (S, wg, llid, words)


@pytest.mark.parametrize("base", sorted(ballot_ir.MASKS))
def test_lane_definition_of_a_mask_alone_as_the_extension(base):
    """get_sub_group_<op>_mask built with irbuild, run alone: bit i (i below the
    sub-group's size) set where i <op> the work-item's sub-group local id."""
    compare = getattr(operator, ballot_ir.MASKS[base])
    f = _lane_function(base, "mask")
    for S, wg in _SHAPES:
        for llid in range(wg):
            ctx = np.zeros(CTX_SLOTS, np.int64)
            ctx[CTX["sg_size"]], ctx[CTX["wg_size"]], ctx[CTX["llid"]] = S, wg, llid
            j, size = llid % S, min(S, wg - llid // S * S)
            out = np.full(4, 0xDEADBEEF, np.uint32)
            f(ctx.ctypes.data, out.ctypes.data)
            want = sum(1 << i for i in range(size) if compare(i, j))
            assert [int(w) for w in out] == [(want >> (32 * k)) & 0xFFFFFFFF for k in range(4)], (S, wg, llid)
