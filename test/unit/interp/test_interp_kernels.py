"""Plain OpenCL C kernels compiled by clang-22 (-O0 and -O2), run in the interpreter,
checked against NumPy (issue 3 item 9)."""
import numpy as np
import pytest

from interp_helpers import clang_ir, needs_clang, program

PRODUCERS = ["clang-O0", "clang-O2", "clcoop", "clcoop-O2"]
RNG = np.random.default_rng(7)


@pytest.mark.parametrize("producer", PRODUCERS)
def test_vector_add(producer):
    n = 1000
    a = RNG.standard_normal(n).astype(np.float32)
    b = RNG.standard_normal(n).astype(np.float32)
    c = np.full(1024, -1.0, np.float32)
    program("vector_add", producer).vector_add(1024, 64, a, b, c, n)
    np.testing.assert_array_equal(c[:n], a + b)
    assert (c[n:] == -1.0).all()


@pytest.mark.parametrize("producer", PRODUCERS)
def test_gemm_naive_2d(producer):
    M, N, K = 24, 40, 33
    A = RNG.standard_normal((M, K)).astype(np.float32)
    B = RNG.standard_normal((K, N)).astype(np.float32)
    C = np.zeros((M, N), np.float32)
    # 48 x 24 work-items cover 40 x 24 with a guard in the kernel.
    program("gemm_naive", producer).gemm_naive((48, 24), (16, 4), A, B, C, M, N, K)
    np.testing.assert_allclose(C, A @ B, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("producer", PRODUCERS)
def test_reduce_local_memory_argument(producer):
    import clcoop
    data = RNG.standard_normal(512).astype(np.float32)
    partial = np.zeros(8, np.float32)
    program("reduce_local", producer).reduce_local(512, 64, data, partial,
                                                   clcoop.LocalMemory(64 * 4))
    np.testing.assert_allclose(partial, data.reshape(8, 64).sum(axis=1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("producer", PRODUCERS)
def test_reduce_kernel_scope_local_array(producer):
    data = RNG.integers(-1000, 1000, 256).astype(np.int32)
    partial = np.zeros(4, np.int32)
    program("reduce_local", producer).reduce_static(256, 64, data, partial)
    np.testing.assert_array_equal(partial, data.reshape(4, 64).sum(axis=1))


def int_control_reference(x):
    weights = [3, -1, 4, -1, 5, -9, 2, 6]
    out, hashes = [], []

    def wrap32(v):
        return (v + 2**31) % 2**32 - 2**31

    def collatz(v):
        steps = 0
        while v != 1:
            if steps > 200:
                break
            v = 3 * v + 1 if v & 1 else int(v / 2)
            v = wrap32(v)
            steps += 1
        return steps

    def mix(v):
        v &= 0xFFFFFFFF
        v ^= v >> 7
        v = (v * 0x9E3779B1) & 0xFFFFFFFF
        v ^= (v << 3) & 0xFFFFFFFF
        return v

    for i, xi in enumerate(int(v) for v in x):
        acc = 0
        for k in range(8):
            if k == 5:
                continue
            if acc > 1000:
                break
            acc += weights[(k + i) & 7] * xi
        r = i % 4
        if r == 0:
            acc += 100
        elif r in (1, 2):
            if r == 1:
                acc -= 7
            acc *= 2
        else:
            acc = -acc
        if xi > 0:
            acc += collatz(xi)
        else:
            q = int(xi / 3)             # C truncating division
            m = xi - int(xi / 5) * 5    # C remainder
            acc -= q + m
        out.append(wrap32(acc))
        hashes.append(mix(xi) // 7 + mix(i) % 13)
    return np.array(out, np.int32), np.array(hashes, np.uint64).astype(np.uint32)


@pytest.mark.parametrize("producer", PRODUCERS)
def test_int_control_flow(producer):
    x = RNG.integers(-50, 60, 128).astype(np.int32)
    out = np.zeros(128, np.int32)
    hashes = np.zeros(128, np.uint32)
    program("int_control", producer).int_control(128, 32, x, out, hashes)
    want_out, want_hash = int_control_reference(x)
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_array_equal(hashes, want_hash)


@pytest.mark.parametrize("producer", PRODUCERS)
def test_float4_math(producer):
    n = 64
    a = RNG.standard_normal(4 * n).astype(np.float32)
    b = RNG.standard_normal(4 * n).astype(np.float32)
    out4 = np.zeros(4 * n, np.float32)
    out1 = np.zeros(n, np.float32)
    program("float4_math", producer).float4_math(n, 16, a, b, out4, out1)
    x, y = a.reshape(n, 4), b.reshape(n, 4)
    r = x * y + np.array([1, 2, 3, 4], np.float32)
    r = r[:, ::-1] - np.sqrt(np.abs(y))
    r = np.clip(np.maximum(r, -2), -5, 5)
    np.testing.assert_allclose(out4.reshape(n, 4), r, rtol=1e-5, atol=1e-6)
    want1 = (x * y).sum(1) + np.hypot(x[:, 0], x[:, 1]) + np.floor(x[:, 2]) + np.exp(y[:, 3] * 0.1)
    np.testing.assert_allclose(out1, want1, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("producer", PRODUCERS)
def test_atomics_contended(producer):
    values = RNG.integers(0, 1000, 300).astype(np.int32)
    bins = np.zeros(16, np.int32)
    maximum = np.zeros(1, np.int32)
    total = np.zeros(1, np.int32)
    program("atomics", producer).histogram(300, 100, values, bins, maximum, total)
    np.testing.assert_array_equal(bins, np.bincount(values & 15, minlength=16))
    assert maximum[0] == values.max()
    assert total[0] == values.sum()


@pytest.mark.parametrize("producer", PRODUCERS)
def test_cmpxchg_gives_distinct_tickets(producer):
    counter = np.zeros(1, np.int32)
    tickets = np.full(64, -1, np.int32)
    program("atomics", producer).cmpxchg_count(64, 16, counter, tickets)
    assert counter[0] == 64
    np.testing.assert_array_equal(np.sort(tickets), np.arange(64))


@pytest.mark.parametrize("producer", PRODUCERS)
@pytest.mark.parametrize("S", [8, 16, 32, 64])
def test_subgroup_builtins(producer, S):
    n = 128
    x = RNG.integers(-100, 100, n).astype(np.int32)
    out = np.zeros(4 * n, np.int32)
    program("subgroups", producer).subgroups(n, 64, x, out, subgroup_size=S)
    got = out.reshape(n, 4)
    groups = x.reshape(-1, S)
    np.testing.assert_array_equal(got[:, 0], np.repeat(groups.sum(1), S))
    np.testing.assert_array_equal(got[:, 1], np.cumsum(groups, axis=1).reshape(-1))
    np.testing.assert_array_equal(got[:, 2], np.repeat(groups[:, 0], S))
    local = np.arange(n) % 64
    np.testing.assert_array_equal(got[:, 3], (local // S) * 1000 + local % S)


def test_batches_split_the_ndrange_without_changing_results():
    a = RNG.standard_normal(4096).astype(np.float32)
    b = RNG.standard_normal(4096).astype(np.float32)
    c1 = np.zeros(4096, np.float32)
    c2 = np.zeros(4096, np.float32)
    prog = program("vector_add", "clang-O2")
    prog.vector_add(4096, 64, a, b, c1, 4096)
    prog.vector_add(4096, 64, a, b, c2, 4096, max_lanes=128)   # 32 batches of 2 groups
    np.testing.assert_array_equal(c1, a + b)
    np.testing.assert_array_equal(c2, a + b)


def _c_rem(a, b):
    return a - b * int(a / b)


def private_generic_reference(xs, local_size):
    f32 = np.float32
    out_f, out_l, out_i = [], [], []
    for gid, x in enumerate(int(v) for v in xs):
        hist = [0] * 5
        for k in range(9):
            hist[_c_rem(_c_rem(x + k * k, 5) + 5, 5)] += k
        tag = (x * 1000 + 2**15) % 2**16 - 2**15
        items = [(hist[k] - x, f32(0.5) * f32(k + 1), tag) for k in range(3)]
        key, _, ctag = items[gid % 3]
        group = gid // local_size
        shared = [int(xs[group * local_size + j]) for j in range(4)]
        hist[1] += key
        big = x * 3000000000 + (x & 0xFFFFFFFF)
        c = (x * 7) & 0xFF
        s = ctag >> 3
        h = np.float16(x) * np.float16(0.5)
        v = [x, hist[1], hist[2], c]
        w = [a * m + (-1 if vi > 3 else 0) for a, m, vi in zip([hist[2], c, x, hist[1]], [2, -3, 5, -7], v)]
        total = f32(0)
        for k_, wt, _ in items:
            total = f32(total + f32(wt * f32(k_)))
        out_f.append(f32(total + f32(h)) + f32(ctag))
        quotient = abs(big) // 7 * (1 if big >= 0 else -1)     # C division truncates
        out_l.append(quotient + c + s)
        sat = 2147483647 if x & 1 else -2147483648
        out_i += [w[0], w[1], w[2] + int(sat / 1000), w[3] + shared[(gid + 1) % 4] + hist[1]]
    return (np.array(out_f, np.float32), np.array(out_l, np.int64), np.array(out_i, np.int32))


@pytest.mark.parametrize("producer", PRODUCERS)
def test_private_arrays_structs_generic_pointers_and_types(producer):
    x = np.arange(-20, 44, dtype=np.int32)
    f = np.zeros(64, np.float32)
    lg = np.zeros(64, np.int64)
    i = np.zeros(256, np.int32)
    program("private_generic", producer).private_generic(64, 16, x, f, lg, i)
    want_f, want_l, want_i = private_generic_reference(x, 16)
    np.testing.assert_array_equal(i, want_i)
    np.testing.assert_array_equal(lg, want_l)
    np.testing.assert_allclose(f, want_f, rtol=1e-6)


@pytest.mark.parametrize("producer", PRODUCERS)
def test_three_dimensional_ndrange_and_partial_subgroups(producer):
    gsize, lsize, S = (6, 4, 2), (3, 4, 2), 16      # 24 work-items per group: sub-groups 16 + 8
    out = np.zeros(12 * 48, np.int32)
    program("ndrange", producer).ids(gsize, lsize, out, subgroup_size=S)
    got = out.reshape(48, 12)
    gz, gy, gx = np.meshgrid(range(2), range(4), range(6), indexing="ij")
    gx, gy, gz = gx.ravel(), gy.ravel(), gz.ravel()          # linear id order: x fastest
    lx, ly, lz = gx % 3, gy % 4, gz % 2
    llid = lx + 3 * ly + 12 * lz
    np.testing.assert_array_equal(got[:, 0], gx)
    np.testing.assert_array_equal(got[:, 1], gy)
    np.testing.assert_array_equal(got[:, 2], gz)
    np.testing.assert_array_equal(got[:, 3], lx + 10 * ly + 100 * lz)
    np.testing.assert_array_equal(got[:, 4], gx // 3 + 10 * (gy // 4) + 100 * (gz // 2))
    assert (got[:, 5] == 2 + 10 * 1 + 100 * 1).all()
    assert (got[:, 6] == 3).all()
    np.testing.assert_array_equal(got[:, 7], llid)
    np.testing.assert_array_equal(got[:, 8], llid // S)
    np.testing.assert_array_equal(got[:, 9], llid % S)
    np.testing.assert_array_equal(got[:, 10], np.where(llid < 16, 16, 8))
    assert (got[:, 11] == 2 + 100 * 24).all()


@needs_clang
@pytest.mark.parametrize("opt", [0, 2])
def test_spir32_pointers_are_four_bytes(opt):
    import clcoop
    x = np.arange(-20, 44, dtype=np.int32)
    f = np.zeros(64, np.float32)
    lg = np.zeros(64, np.int64)
    i = np.zeros(256, np.int32)
    ir = clang_ir("private_generic", opt, triple="spir-unknown-unknown")
    clcoop.Program.from_ir(ir).private_generic(64, 16, x, f, lg, i)
    want_f, want_l, want_i = private_generic_reference(x, 16)
    np.testing.assert_array_equal(i, want_i)
    np.testing.assert_array_equal(lg, want_l)
    np.testing.assert_allclose(f, want_f, rtol=1e-6)


@needs_clang
def test_program_scope_global_persists_between_launches_and_constant_tables():
    import clcoop
    import subprocess
    from interp_helpers import CLANG
    src = """
__constant float table[4] = {0.5f, 1.5f, 2.5f, 3.5f};
__global int launches = 10;
__kernel void k(__global float *out) {
  size_t i = get_global_id(0);
  out[i] = table[i % 4] + launches;
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (i == 0) launches += 1;
}
"""
    ir = subprocess.run([CLANG, "-cc1", "-triple", "spir64-unknown-unknown", "-cl-std=CL3.0",
                         "-finclude-default-header", "-emit-llvm", "-O2", "-", "-o", "-"],
                        input=src, capture_output=True, text=True, check=True).stdout
    prog = clcoop.Program.from_ir(ir)
    out = np.zeros(8, np.float32)
    prog.k(8, 8, out)
    np.testing.assert_array_equal(out, np.tile([10.5, 11.5, 12.5, 13.5], 2))
    prog.k(8, 8, out)
    np.testing.assert_array_equal(out, np.tile([11.5, 12.5, 13.5, 14.5], 2))
