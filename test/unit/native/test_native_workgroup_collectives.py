"""Work-group collectives natively (workgroup_collectives.py, issue 29): work_group_reduce /
scan_inclusive / scan_exclusive of add, min and max and work_group_broadcast (1 to 3 ids)
on int, uint, long, ulong, float and double (broadcast also half), run on the native
engine (engine="auto" takes the kernels) bit for bit as the interpreter, and against NumPy
oracles of OpenCL C 3.0 6.15.13's definitions; partial arrival faults in the interpreter's
words."""
import warnings

import numpy as np
import pytest

import clcoop
from clcoop.errors import RuntimeFault
from clcoop.native.support import NativeFallbackWarning

RNG = np.random.default_rng(613)

KERNEL = """
kernel void k(global const {T} *x, global {T} *out) {{
  size_t i = get_global_linear_id();
  {T} v = x[i];
  out[9 * i + 0] = work_group_reduce_add(v);
  out[9 * i + 1] = work_group_reduce_min(v);
  out[9 * i + 2] = work_group_reduce_max(v);
  out[9 * i + 3] = work_group_scan_inclusive_add(v);
  out[9 * i + 4] = work_group_scan_inclusive_min(v);
  out[9 * i + 5] = work_group_scan_inclusive_max(v);
  out[9 * i + 6] = work_group_scan_exclusive_add(v);
  out[9 * i + 7] = work_group_scan_exclusive_min(v);
  out[9 * i + 8] = work_group_scan_exclusive_max(v);
}}
"""
TYPES = {"int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
         "float": np.float32, "double": np.float64}


def values(dtype, n, special):
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return RNG.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    x = (RNG.standard_normal(n) * 10.0 ** RNG.integers(-3, 4, n)).astype(dtype)
    if special:
        where = RNG.choice(n, size=min(n, 6), replace=False)
        x[where] = np.array([0.0, -0.0, np.inf, -np.inf, -0.0, 0.0], dtype)[:len(where)]
    return x


def run_both(source, global_size, local_size, *args):
    """The kernel k on the interpreter and natively (engine='auto' must not fall back):
    the output arrays of each."""
    results = []
    for engine in ("interp", "auto"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", NativeFallbackWarning)
            program = clcoop.Program(source).build(options=["-w"], engine=engine)
        copies = [np.array(a, copy=True) for a in args]
        program.k(global_size, local_size, *copies)
        if engine == "auto":
            assert program.k.engine == "native"
        results.append(copies[-1])
    return results


def numpy_oracle(x, wg):
    """Each work-item's nine results (OpenCL C 3.0 6.15.13) from NumPy, per work-group."""
    rows = x.reshape(-1, wg)
    out = np.zeros((rows.shape[0], wg, 9), x.dtype)
    lowest = np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).max
    highest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min

    def exclusive(scan, first):
        return np.concatenate([np.full((rows.shape[0], 1), first, x.dtype), scan[:, :-1]], axis=1)
    with np.errstate(all="ignore"):
        sums = np.add.accumulate(rows, axis=1, dtype=x.dtype)
        mins, maxs = np.minimum.accumulate(rows, axis=1), np.maximum.accumulate(rows, axis=1)
        out[:, :, 0] = np.sum(rows, axis=1, dtype=x.dtype)[:, None]
        out[:, :, 1] = rows.min(axis=1)[:, None]
        out[:, :, 2] = rows.max(axis=1)[:, None]
        out[:, :, 3], out[:, :, 4], out[:, :, 5] = sums, mins, maxs
        out[:, :, 6], out[:, :, 7], out[:, :, 8] = exclusive(sums, 0), exclusive(mins, lowest), \
            exclusive(maxs, highest)
    return out.reshape(-1)


SLOW = pytest.mark.slow


@pytest.mark.parametrize("T", ["int", "float", "double", *(pytest.param(t, marks=SLOW) for t in ("uint", "long", "ulong"))])
@pytest.mark.parametrize("local", [(200,), (8, 4), *(pytest.param(s, marks=SLOW) for s in ((1,), (7,), (64,), (300,)))],
                         ids=str)
def test_reductions_and_scans_match_the_interpreter_and_numpy(T, local):
    """Sizes below 8, 8 to 128 and above 128 (NumPy's pairwise sum: in order, eight
    partial sums, two halves), a 2-D work-group; floats with signed zeros and infinities."""
    dtype = TYPES[T]
    wg = int(np.prod(local))
    groups = 3
    # Groups stacked along the last dimension: each one's work-items are consecutive in
    # global linear id, in local linear id order (the oracle's rows).
    global_size = local[:-1] + (local[-1] * groups,)
    x = values(dtype, wg * groups, special=True)
    out = np.zeros(9 * x.size, dtype)
    interp, native = run_both(KERNEL.format(T=T), global_size, local, x, out)
    assert native.tobytes() == interp.tobytes()
    if dtype in (np.float32, np.float64) and local != (1,):
        # (Independent oracle for everything but the float sum, whose rounding order is the
        # interpreter's (NumPy's pairwise sum); checked bit for bit above.)
        expected = numpy_oracle(x, wg).reshape(-1, 9)
        got = native.reshape(-1, 9)
        np.testing.assert_array_equal(got[:, 1:], expected[:, 1:])
        np.testing.assert_allclose(got[:, 0], expected[:, 0], rtol=1e-5 if dtype == np.float32 else 1e-12)
    else:
        np.testing.assert_array_equal(native, numpy_oracle(x, wg))


def test_float_sum_nan_and_order():
    """A NaN anywhere makes the sum NaN; 200 values take NumPy's split into halves."""
    x = values(np.float32, 400, special=False)
    x[17] = np.nan
    out = np.zeros(9 * 400, np.float32)
    interp, native = run_both(KERNEL.format(T="float"), (400,), (200,), x, out)
    assert native.tobytes() == interp.tobytes()
    assert np.isnan(native[0]) and not np.isnan(native[9 * 200])


BROADCAST = """
kernel void k(global const {T} *x, global const long *ids, global {T} *out) {{
  size_t i = get_global_linear_id();
  out[3 * i + 0] = work_group_broadcast(x[i], (size_t)ids[0]);
  out[3 * i + 1] = work_group_broadcast(x[i], (size_t)ids[1], (size_t)ids[2]);
  out[3 * i + 2] = work_group_broadcast(x[i], (size_t)ids[3], (size_t)ids[4], (size_t)ids[5]);
}}
"""


@pytest.mark.parametrize("T, dtype", [("int", np.int32), ("half", np.float16),
                                      *(pytest.param(*p, marks=SLOW) for p in (("ulong", np.uint64), ("float", np.float32),
                                                                               ("double", np.float64)))])
@pytest.mark.parametrize("ids", [(-1, 5, -2, 100, 3, 7), *(pytest.param(i, marks=SLOW) for i in ((3, 1, 2, 0, 1, 1),
                                                                                                   (0, 0, 0, 0, 0, 0)))],
                         ids=str)
def test_broadcast_matches_the_interpreter_and_numpy(T, dtype, ids):
    """Ids out of range wrap as the interpreter's int64 floor modulo (OpenCL leaves them
    undefined)."""
    local = (4, 2, 3)
    groups = 2
    wg = int(np.prod(local))
    x = (np.arange(wg * groups) * 3 + 1).astype(dtype)
    ids_array = np.array(ids, np.int64)
    out = np.zeros(3 * x.size, dtype)
    source = ("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" if T == "half" else "") + BROADCAST.format(T=T)
    interp, native = run_both(source, (local[0] * groups, local[1], local[2]), local, x, ids_array, out)
    assert native.tobytes() == interp.tobytes()
    L0, L1 = local[0], local[1]
    lins = [ids[0] % wg, (ids[1] + ids[2] * L0) % wg, (ids[3] + ids[4] * L0 + ids[5] * L0 * L1) % wg]
    # Work-items in global linear id order: group g holds x[g*wg : (g+1)*wg] by local linear
    # id only when the groups are laid out along dimension 0 in linear id order; compute
    # each work-item's group from its ids instead.
    gx = np.arange(local[0] * groups)
    expected = np.zeros((local[2], local[1], local[0] * groups, 3), dtype)
    for z in range(local[2]):
        for y in range(local[1]):
            for xx in gx:
                g = xx // L0
                members = [((lz * L1 + ly) * (L0 * groups) + g * L0 + lx)
                           for lz in range(local[2]) for ly in range(L1) for lx in range(L0)]
                expected[z, y, xx] = [x[members[lin]] for lin in lins]
    np.testing.assert_array_equal(native.reshape(-1), expected.reshape(-1))


def test_collective_reached_by_part_of_the_work_group_faults_as_the_interpreter():
    source = """
kernel void k(global const int *x, global int *out) {
  size_t i = get_global_id(0);
  if (i != 5)
    out[i] = work_group_reduce_add(x[i]);
}
"""
    messages = []
    for engine in ("interp", "native"):
        program = clcoop.Program(source).build(options=["-w"], engine=engine)
        with pytest.raises(RuntimeFault) as fault:
            program.k((16,), (8,), np.arange(16, dtype=np.int32), np.zeros(16, np.int32))
        messages.append(str(fault.value).splitlines()[0])
    assert messages[0] == messages[1]
    assert "work_group_reduce_add: barrier reached under divergent control flow" in messages[1]


def test_half_arithmetic_falls_back_with_its_reason():
    source = """#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void k(global const half *x, global half *out) {
  size_t i = get_global_id(0);
  out[i] = work_group_reduce_add(x[i]);
}
"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NativeFallbackWarning)
        program = clcoop.Program(source).build(options=["-w"], engine="auto")
    assert program.k.engine == "interp"
    assert "work_group_reduce_add on half values" in program.k.fallback_reason
