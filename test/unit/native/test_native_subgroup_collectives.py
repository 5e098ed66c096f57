"""Sub-group collectives on the native engine (clcoop/native/collectives.py, on the
subgroup-wide fast path of subgroup.py): every collective of cl_khr_subgroups,
cl_khr_subgroup_non_uniform_arithmetic and cl_khr_subgroup_shuffle(_relative) at sub-group
sizes 8 to 128 on int, uint, long, ulong, float and double, bit-identical to the interpreter
and equal to a NumPy oracle computed sub-group by sub-group. The oracle of a float sum is
np.sum over the sub-group's row (NumPy's pairwise order, the interpreter's definition), of
min/max np.min/np.max (NaN wins; of -0.0 and +0.0 the later lane), of scans
ufunc.accumulate."""
import numpy as np
import pytest

import clcoop
from clcoop.native.runtime import NativeProgram
from clcoop.native.support import NativeFallbackWarning

from interp_helpers import clang_ir_text

TYPES = {"char": np.int8, "ushort": np.uint16, "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
         "float": np.float32, "double": np.float64}
INT_OPS = ("add", "min", "max", "mul", "and", "or", "xor")
FLOAT_OPS = ("add", "min", "max", "mul")
KINDS = ("reduce", "scan_inclusive", "scan_exclusive")
# (built-in, how lane j's source lane follows from j and the index argument d).
SHUFFLES = (("sub_group_shuffle", lambda j, d: d), ("sub_group_shuffle_xor", lambda j, d: j ^ d),
            ("sub_group_shuffle_up", lambda j, d: j - d), ("sub_group_shuffle_down", lambda j, d: j + d),
            ("intel_sub_group_shuffle", lambda j, d: d), ("intel_sub_group_shuffle_xor", lambda j, d: j ^ d))


def ops_of(T):
    return FLOAT_OPS if T in ("float", "double") else INT_OPS


def collective_list(T, kinds=KINDS, ops=None, shuffles=SHUFFLES):
    """[(OpenCL C expression of v and d, oracle(rows, d_rows) -> rows)]."""
    out = []
    for kind in kinds:
        for op in ops or ops_of(T):
            # (mul, and, or, xor: cl_khr_subgroup_non_uniform_arithmetic's names only.)
            prefix = "sub_group_" if op in ("add", "min", "max") else "sub_group_non_uniform_"
            out.append((f"{prefix}{kind}_{op}(v)", lambda r, d, kind=kind, op=op: arithmetic(kind, op, r)))
    out.append(("sub_group_non_uniform_reduce_add(v)", lambda r, d: arithmetic("reduce", "add", r)))
    out.append(("sub_group_broadcast(v, 3u)", lambda r, d: np.repeat(r[:, 3:4], r.shape[1], axis=1)))
    out.append(("sub_group_broadcast(v, (uint)d)", lambda r, d: np.take_along_axis(r, d % r.shape[1], axis=1)))
    for name, lane in shuffles:
        out.append((f"{name}(v, (uint)d)", lambda r, d, lane=lane: shuffle(r, d, lane)))
    return out


def arithmetic(kind, op, rows):
    dt = rows.dtype
    ufunc = {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum,
             "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    S = rows.shape[1]
    if kind == "reduce":
        if op == "add":
            r = np.sum(rows, axis=1, dtype=dt)
        elif op in ("min", "max"):
            r = (np.min if op == "min" else np.max)(rows, axis=1)
        elif op == "mul":
            r = np.prod(rows, axis=1, dtype=dt)
        else:
            r = ufunc.reduce(rows, axis=1, dtype=dt)
        return np.repeat(r[:, None], S, axis=1)
    scan = ufunc.accumulate(rows, axis=1, dtype=dt)
    if kind == "scan_inclusive":
        return scan
    ident = {"add": 0, "mul": 1, "or": 0, "xor": 0, "and": -1 if dt.kind == "i" else np.iinfo(dt).max if dt.kind == "u" else 0,
             "min": np.inf if dt.kind == "f" else np.iinfo(dt).max,
             "max": -np.inf if dt.kind == "f" else np.iinfo(dt).min}[op]
    return np.concatenate([np.full((rows.shape[0], 1), ident, dt), scan[:, :-1]], axis=1)


def shuffle(rows, d, lane):
    S = rows.shape[1]
    j = np.arange(S, dtype=np.int64)[None, :]
    src = np.clip(lane(j, d.astype(np.int64)), 0, S - 1)
    return np.take_along_axis(rows, src, axis=1)


def source(T, exprs):
    body = "\n".join(f"    out[{k} * n + i] = {e};" for k, e in enumerate(exprs))
    return f"""
__kernel void coll(__global const {T} *x, __global const int *dd, __global {T} *out, __global int *truth) {{
    size_t i = get_global_id(0);
    size_t n = get_global_size(0);
    {T} v = x[i];
    int d = dd[i];
{body}
    truth[i] = sub_group_all(d > 0);
    truth[n + i] = sub_group_any(d > 0);
}}
"""


def build_native(src, S):
    """The program on the native engine, its build for sub-group size S (as the runtime
    makes one per size for kernels whose code depends on it)."""
    prog = clcoop.Program(src).build(engine="native")
    if S != prog._native.subgroup_size:
        prog._native.close()
        prog._native = NativeProgram(prog._module, S)
    return prog


def values(T, n, S, rng):
    """Per sub-group: a kind of data (wide random values; +0.0 and -0.0 mixed in; infinities;
    NaNs; one value in every lane). Infinities and NaNs are in different sub-groups: two
    different NaNs (NumPy's and the x86 default NaN of inf - inf) never meet, where which one
    survives would depend on the operand order of a commutative add."""
    dt = np.dtype(TYPES[T])
    rows = n // S
    if dt.kind in "iu":
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, (rows, S), dtype=dt, endpoint=True)
        x[1::4] = rng.integers(-3 if dt.kind == "i" else 0, 4, (len(x[1::4]), S)).astype(dt)
        x[3::4] = x[3::4, :1]
        return x.reshape(-1)
    x = (rng.standard_normal((rows, S)) * 10.0 ** rng.integers(-4, 6, (rows, S))).astype(dt)
    for r in range(rows):
        kind = r % 5
        mask = rng.random(S) < 0.4
        if kind == 1:
            x[r, mask] = rng.choice(np.array([0.0, -0.0], dt), int(mask.sum()))
        elif kind == 2:
            x[r, mask] = rng.choice(np.array([np.inf, -np.inf, 0.0], dt), int(mask.sum()))
        elif kind == 3:
            x[r, mask] = np.nan
        elif kind == 4:
            x[r] = x[r, 0]
    x[1 * 5 + 1 if rows > 6 else 1] = -0.0      # a row of -0.0 only
    return x.reshape(-1)


def indices(n, S, rng):
    """Per sub-group: lane-varying indices in and out of [0, S) (negative, INT_MIN/MAX), or
    one index for every lane; and signs for sub_group_all/any (all > 0, none, mixed)."""
    rows = n // S
    d = rng.integers(-2 * S, 3 * S, (rows, S)).astype(np.int32)
    d[2::3] = d[2::3, :1]
    d[0, :2] = [np.iinfo(np.int32).min, np.iinfo(np.int32).max]
    d[1] = np.abs(d[1]) + 1
    d[rows - 1] = -np.abs(d[rows - 1])
    return d.reshape(-1)


def run(prog, T, exprs, x, d, S, local):
    n = x.size
    out = np.zeros(len(exprs) * n, TYPES[T])
    truth = np.zeros(2 * n, np.int32)
    prog.coll((n,), (local,), x, d, out, truth, subgroup_size=S)
    return out.reshape(len(exprs), n), truth.reshape(2, n)


def check(T, S, exprs_oracles, local_factor=2, groups=3):
    exprs = [e for e, _ in exprs_oracles]
    src = source(T, exprs)
    rng = np.random.default_rng(S * 7 + len(T))
    n = S * local_factor * groups
    x, d = values(T, n, S, rng), indices(n, S, rng)
    prog = build_native(src, S)
    assert prog.coll.engine == "native" and prog.coll.fallback_reason is None
    assert prog._native.execution_mode("coll", S) == "subgroup"
    with np.errstate(all="ignore"):
        got, truth = run(prog, T, exprs, x, d, S, S * local_factor)
    assert prog._native.fast_launches.get("coll") == 1 and not prog._native.fast_reruns
    ref = clcoop.Program(src).build(engine="interp")
    with np.errstate(all="ignore"):
        want, want_truth = run(ref, T, exprs, x, d, S, S * local_factor)
    rows, d_rows = x.reshape(-1, S), d.reshape(-1, S)
    with np.errstate(all="ignore"):
        for k, (expr, oracle) in enumerate(exprs_oracles):
            assert got[k].tobytes() == want[k].tobytes(), f"{expr}: native differs from the interpreter"
            expect = oracle(rows, d_rows).reshape(-1).astype(TYPES[T])
            assert got[k].tobytes() == expect.tobytes(), f"{expr}: native differs from NumPy"
    pos = d_rows > 0
    np.testing.assert_array_equal(truth[0], np.repeat(pos.all(axis=1), S).astype(np.int32))
    np.testing.assert_array_equal(truth[1], np.repeat(pos.any(axis=1), S).astype(np.int32))
    assert truth.tobytes() == want_truth.tobytes()


# 1-3 s each: sub-group size 16 stays in the default run, 8 and 32 are slow (docs/testing.md).
@pytest.mark.parametrize("S", [pytest.param(8, marks=pytest.mark.slow), 16, pytest.param(32, marks=pytest.mark.slow)])
# The default run: a signed 32-bit, an unsigned 64-bit and both float types (uint and long
# are slow, with the other sub-group sizes; --all and CI run every one).
@pytest.mark.parametrize("T", [t if t in ("int", "ulong", "float", "double") else
                               pytest.param(t, marks=pytest.mark.slow) for t in TYPES if t not in ("char", "ushort")])
def test_every_collective_bit_identical(T, S):
    check(T, S, collective_list(T))


@pytest.mark.parametrize("T", ["char", "ushort"])
def test_extended_types(T):
    # cl_khr_subgroup_extended_types: 8- and 16-bit integers, signed and unsigned.
    check(T, 16, collective_list(T))


@pytest.mark.slow          # every collective at sub-group sizes 64 and 128 on both engines
@pytest.mark.parametrize("S", [64, 128])
@pytest.mark.parametrize("T", ["int", "uint", "float", "double"])
def test_wide_subgroups(T, S):
    # (Fewer collectives per kernel: each is S lanes of IR.)
    check(T, S, collective_list(T, ops=("add", "max"), shuffles=SHUFFLES[2:4]), local_factor=1, groups=2)


def test_two_dimensional_work_groups():
    """Two-dimensional work-groups: sub-groups are rows of dimension 0 (local size 16 x 2)."""
    src = """
__kernel void k(__global const float *x, __global float *out, __global int *ids) {
    size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
    out[i] = sub_group_reduce_add(x[i]) + sub_group_scan_exclusive_add(x[i]);
    ids[i] = get_sub_group_id() * 1000 + sub_group_broadcast((int)get_sub_group_local_id(), 5u);
}
"""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(32 * 4).astype(np.float32)
    results = []
    for engine in ("native", "interp"):
        prog = clcoop.Program(src).build(engine=engine)
        out, ids = np.zeros_like(x), np.zeros(x.size, np.int32)
        prog.k((32, 4), (16, 2), x, out, ids, subgroup_size=16)
        results.append((out, ids))
        if engine == "native":
            assert prog._native.fast_launches.get("k") == 1
    assert results[0][0].tobytes() == results[1][0].tobytes()
    rows = x.reshape(-1, 16)
    expect = np.repeat(np.sum(rows, axis=1), 16).reshape(rows.shape) + \
        np.concatenate([np.zeros((rows.shape[0], 1), np.float32), np.add.accumulate(rows, axis=1)[:, :-1]], axis=1)
    assert results[0][0].tobytes() == expect.astype(np.float32).reshape(-1).tobytes()
    # Work-group (x, y) of 16 x 2: sub-group id = local y; lane 5 of each reads 5.
    np.testing.assert_array_equal(results[0][1], (np.arange(4)[:, None] % 2 * 1000 + 5 + 0 * np.arange(32)).reshape(-1))


COPIES = """#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void k(__global const float4 *x, __global const int *d, __global float4 *o, __global int2 *p,
                __global half *h) {
    size_t i = get_global_id(0);
    o[i] = sub_group_broadcast(x[i], (uint)d[i]) + intel_sub_group_shuffle_xor(x[i], (uint)d[i]) * 2.0f;
    p[i] = sub_group_broadcast((int2)(d[i], (int)i), 3u);
    h[i] = sub_group_shuffle_down(h[i], (uint)d[i]);
}
"""


def test_broadcast_and_shuffles_of_vectors_and_half():
    """Broadcasts and shuffles copy a lane's value: vectors (cl_khr_subgroup_extended_types,
    cl_intel_subgroups) and half run natively too."""
    S, n = 16, 64
    rng = np.random.default_rng(11)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    d = rng.integers(-20, 40, n).astype(np.int32)
    h0 = rng.standard_normal(n).astype(np.float16)
    results = []
    for engine in ("native", "interp"):
        prog = clcoop.Program(COPIES).build(engine=engine)
        o, p, h = np.zeros((n, 4), np.float32), np.zeros((n, 2), np.int32), h0.copy()
        prog.k((n,), (32,), x, d, o, p, h, subgroup_size=S)
        if engine == "native":
            assert prog.k.fallback_reason is None and prog._native.fast_launches.get("k") == 1
        results.append((o, p, h))
    for a, b in zip(*results):
        assert a.tobytes() == b.tobytes()
    xr, dr, hr = x.reshape(-1, S, 4), d.reshape(-1, S).astype(np.int64), h0.reshape(-1, S)
    j = np.arange(S)[None, :]
    expect_o = np.take_along_axis(xr, (dr % S)[:, :, None], axis=1) + \
        np.take_along_axis(xr, np.clip(j ^ dr, 0, S - 1)[:, :, None], axis=1) * np.float32(2)
    np.testing.assert_array_equal(results[0][0], expect_o.reshape(n, 4))
    lanes = np.arange(n).reshape(-1, S)
    np.testing.assert_array_equal(results[0][1][:, 0], np.repeat(d.reshape(-1, S)[:, 3], S))
    np.testing.assert_array_equal(results[0][1][:, 1], np.repeat(lanes[:, 3], S))
    np.testing.assert_array_equal(results[0][2], np.take_along_axis(hr, np.clip(j + dr, 0, S - 1), axis=1).reshape(-1))


MIXED = """
__kernel void mixed(__global const uint *x, __global uint *out, int rounds) {
    size_t i = get_global_id(0);
    uint acc = x[i];
    for (int r = 0; r < rounds; ++r) {
        uint total = sub_group_reduce_add(acc);
        uint before = sub_group_scan_exclusive_add(acc);
        uint next = sub_group_shuffle_down(acc, 1u);
        acc = (acc * 3 + total - before) ^ next;
        if (r % 2 == 0)
            acc += sub_group_broadcast(acc, (uint)r);
    }
    out[i] = acc;
}
"""


def mixed_oracle(x, rounds, S):
    rows = x.reshape(-1, S).astype(np.uint32)
    acc = rows.copy()
    with np.errstate(all="ignore"):
        for r in range(rounds):
            total = np.sum(acc, axis=1, dtype=np.uint32)[:, None]
            before = np.concatenate([np.zeros((acc.shape[0], 1), np.uint32), np.cumsum(acc, axis=1, dtype=np.uint32)[:, :-1]], axis=1)
            nxt = acc[:, np.minimum(np.arange(S) + 1, S - 1)]
            acc = (acc * np.uint32(3) + total - before) ^ nxt
            if r % 2 == 0:
                acc = acc + acc[:, r % S][:, None]
    return acc.reshape(-1)


@pytest.mark.parametrize("S", [8, 16])
def test_collectives_in_a_loop_with_ordinary_code(S):
    rng = np.random.default_rng(S)
    x = rng.integers(0, 1 << 32, 8 * S).astype(np.uint32)
    prog = build_native(MIXED, S)
    assert prog.mixed.engine == "native" and prog.mixed.fallback_reason is None
    out = np.zeros_like(x)
    prog.mixed((x.size,), (2 * S,), x, out, 7, subgroup_size=S)
    assert prog._native.fast_launches.get("mixed") == 1
    np.testing.assert_array_equal(out, mixed_oracle(x, 7, S))
    ref = clcoop.Program(MIXED).build(engine="interp")
    out2 = np.zeros_like(x)
    ref.mixed((x.size,), (2 * S,), x, out2, 7, subgroup_size=S)
    np.testing.assert_array_equal(out, out2)


def test_clang_O2_ir_with_collectives():
    src = """
__kernel void k(__global const float *x, __global float *out, __global uint *idx) {
    size_t i = get_global_id(0);
    float v = x[i];
    out[i] = sub_group_reduce_max(v) - sub_group_scan_inclusive_add(v)
             + sub_group_shuffle(v, idx[i]) + (float)sub_group_any(v > 1.0f);
}
"""
    ir = clang_ir_text(src, opt=2)
    assert "sub_group_reduce_max" in ir
    rng = np.random.default_rng(5)
    x = rng.standard_normal(64).astype(np.float32)
    idx = rng.integers(0, 40, 64).astype(np.uint32)
    prog = clcoop.Program.from_ir(ir, engine="native")
    assert prog.k.engine == "native" and prog.k.fallback_reason is None
    out = np.zeros_like(x)
    prog.k((64,), (32,), x, out, idx, subgroup_size=16)
    assert prog._native.fast_launches.get("k") == 1
    rows, irows = x.reshape(-1, 16), idx.reshape(-1, 16).astype(np.int64)
    expect = (np.max(rows, axis=1)[:, None] - np.add.accumulate(rows, axis=1) +
              np.take_along_axis(rows, np.clip(irows, 0, 15), axis=1) +
              np.any(rows > 1.0, axis=1)[:, None].astype(np.float32))
    assert out.tobytes() == expect.astype(np.float32).reshape(-1).tobytes()
    ref = clcoop.Program.from_ir(ir, engine="interp")
    out2 = np.zeros_like(x)
    ref.k((64,), (32,), x, out2, idx, subgroup_size=16)
    assert out.tobytes() == out2.tobytes()


def test_work_item_reason_names_the_collective():
    prog = clcoop.Program("__kernel void k(__global int *o) { o[get_global_id(0)] = sub_group_reduce_min(o[get_global_id(0)]); }"
                          ).build(engine="native")
    plan = prog._native.native.plans["k"]
    assert plan.subgroup_reason is None
    assert "'sub_group_reduce_min' runs natively only on the subgroup-wide path" in plan.work_item_reason
    plain = clcoop.Program("__kernel void k(__global int *o) { o[get_global_id(0)] += get_sub_group_local_id(); }"
                           ).build(engine="native")
    assert plain._native.native.plans["k"].work_item_reason is None


@pytest.mark.parametrize("body, reason", [
    # A private array: the fast path takes no private variables.
    ("int a[4]; for (int k = 0; k < 4; ++k) a[k] = o[k]; o[i] = sub_group_reduce_add(a[i % 4]);",
     "runs natively only on the subgroup-wide path, which this kernel does not take: private variables"),
    # A loop whose trip count differs between lanes.
    ("for (int k = 0; k < (int)i; ++k) o[i] += sub_group_reduce_add(k);",
     "which this kernel does not take: a call (sub_group_reduce_add) under a branch that may differ "
     "between the lanes"),
    ("half h = (half)o[i]; o[i] = (int)sub_group_reduce_add(h);",
     "'sub_group_reduce_add' on half values"),
])
def test_unsupported_kernels_fall_back_with_the_reason(body, reason):
    src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n__kernel void k(__global int *o) { size_t i = get_global_id(0); " + body + " }"
    with pytest.warns(NativeFallbackWarning, match="runs in the interpreter"):
        prog = clcoop.Program(src).build(engine="auto")
    assert prog.k.engine == "interp"
    assert reason in prog.k.fallback_reason, prog.k.fallback_reason


DIVERGENT = """
__kernel void k(__global const int *x, __global int *out) {
    size_t i = get_global_id(0);
    int v = x[i];
    if (v > 0)
        v = sub_group_reduce_add(v);
    out[i] = v;
}
"""


def test_collective_under_a_lane_varying_if():
    """Where every lane takes the branch, the collective runs natively; where the lanes
    differ, the interpreter faults (not all work-items of the sub-group reach it): the fast
    path faults too, and the launch is handed back."""
    prog = clcoop.Program(DIVERGENT).build(engine="native")
    assert prog.k.fallback_reason is None
    x = np.arange(1, 33, dtype=np.int32)
    x[16:] = -x[16:]          # second sub-group: no lane takes the branch
    out = np.zeros_like(x)
    prog.k((32,), (32,), x, out, subgroup_size=16)
    assert prog._native.fast_launches.get("k") == 1
    np.testing.assert_array_equal(out, np.concatenate([np.full(16, x[:16].sum()), x[16:]]))
    x[3] = -3                 # first sub-group diverges
    ref = clcoop.Program(DIVERGENT).build(engine="interp")
    with pytest.raises(clcoop.errors.RuntimeFault, match="divergent control flow"):
        ref.k((32,), (32,), x, np.zeros_like(x), subgroup_size=16)
    with pytest.raises(clcoop.errors.RuntimeFault):
        prog.k((32,), (32,), x, np.zeros_like(x), subgroup_size=16)
    assert prog._native.fast_reruns.get("k") == 1


def test_launches_off_the_fast_path_run_in_the_interpreter():
    """KernelPlan.work_item_reason: a launch that does not take the fast path (a work-group
    whose size is no multiple of S) or whose fast path faults runs in the interpreter, with
    one warning; a launch at another sub-group size runs natively on that size's build."""
    src = "__kernel void k(__global int *o) { size_t i = get_global_id(0); o[i] = sub_group_reduce_add(o[i]); }"
    prog = clcoop.Program(src).build(engine="native")
    o = np.arange(48, dtype=np.int32)
    with pytest.warns(NativeFallbackWarning, match="runs in the interpreter"):
        prog.k((48,), (24,), o, subgroup_size=16)      # sub-groups of 16 and 8 per work-group
    rows = np.arange(48).reshape(2, 24)
    expect = np.concatenate([np.concatenate([np.full(16, r[:16].sum()), np.full(8, r[16:].sum())]) for r in rows])
    np.testing.assert_array_equal(o, expect)
    assert not prog._native.fast_launches and not prog._native.fast_reruns
    o = np.arange(32, dtype=np.int32)
    prog.k((32,), (32,), o, subgroup_size=8)
    np.testing.assert_array_equal(o, np.repeat(np.arange(32).reshape(4, 8).sum(1), 8))
    assert prog._native._other_sizes[8].fast_launches.get("k") == 1
    prog = clcoop.Program(DIVERGENT).build(engine="native")
    x = np.arange(1, 33, dtype=np.int32)
    x[3] = -3
    before = x.copy()
    with pytest.warns(NativeFallbackWarning, match="failed a check"):
        with pytest.raises(clcoop.errors.RuntimeFault, match="sub-group operation reached under divergent control flow"):
            prog.k((32,), (32,), x, np.zeros_like(x), subgroup_size=16)
    np.testing.assert_array_equal(x, before)
