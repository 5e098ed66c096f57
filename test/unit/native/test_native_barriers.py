"""Barriers and __local memory on the native engine: barrier kernels on the subgroup-wide
fast path (subgroup.py with drivers.coroutine_driver), divergent barriers handed back to
the per-work-item path, and __local memory of one work-group per thread
(clcoop/native/local_memory.py, runtime.py), against NumPy and the interpreter."""
import numpy as np
import pytest

import clcoop
from clcoop.native import local_memory, runtime

REDUCTION = """
__kernel void k(__global const float *a, __global const float *b, __global float *c) {
    __local float tmp[256];
    int l = get_local_id(0), n = get_local_size(0);
    tmp[l] = a[get_global_id(0)] * b[get_global_id(0)];
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = n / 2; s > 0; s >>= 1) {      // the trip count is the launch's: a real loop
        if (l < s) tmp[l] += tmp[l + s];
        work_group_barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) c[get_group_id(0)] = tmp[0];
}"""


def tree_sums(a, b, group):
    """The kernel's pairwise tree, in NumPy: the same float additions in the same order."""
    tmp = (a * b).reshape(-1, group).copy()
    s = group // 2
    while s:
        tmp[:, :s] += tmp[:, s:2 * s]
        s //= 2
    return tmp[:, 0]


def native(source):
    prog = clcoop.Program(source).build(engine="native")
    return prog, prog._native


class Recorder:
    """Wraps runtime._run_driver: the thread states of every launch (two threads, whatever
    the machine has)."""

    def __init__(self, monkeypatch):
        monkeypatch.setattr(runtime, "default_threads", lambda: 2)
        self.launches = []
        real = runtime._run_driver

        def spy(driver, lp, nthreads):
            self.launches.append(runtime.thread_states(lp, nthreads))
            return real(driver, lp, nthreads)
        monkeypatch.setattr(runtime, "_run_driver", spy)


def shared_reduction(builds):
    """REDUCTION's native build, once per session."""
    prog = builds.build(REDUCTION)
    return prog, prog._native


@pytest.mark.parametrize("group", [256, 128, 64])
def test_barrier_kernel_takes_the_fast_path(group, monkeypatch):
    # A build of its own: the thread count a launch asks for adapts to the kernel's earlier
    # launches (runtime._threads_for), and this test needs both threads.
    prog, nat = native(REDUCTION)
    assert nat.execution_mode("k") == "subgroup", nat.native.plans["k"].subgroup_reason
    rng = np.random.default_rng(1)
    n = group * 64
    a, b = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    c = np.zeros(n // group, np.float32)
    seen = Recorder(monkeypatch)
    prog.k((n,), (group,), a, b, c)
    assert nat.fast_launches == {"k": 1} and not nat.fast_reruns
    assert c.tobytes() == tree_sums(a, b, group).tobytes()
    # Both threads ran, each with its own copy of tmp.
    states = seen.launches[0]
    assert len(states) == 2
    tables = [s.table for s in states]
    assert tables[0] is not tables[1]
    bufs = [s.local_globals["k.tmp"].ctypes.data for s in states]
    assert bufs[0] != bufs[1]
    row = nat.native.globals.index("k.tmp")
    assert [int(t[row, 0]) for t in tables] == bufs


@pytest.mark.parametrize("group", [32, 16])
def test_barrier_kernel_with_lane_varying_ifs_runs_wide_and_narrows_for_small_groups(group, shared_builds):
    """The reduction's `if (l < s)` under barriers: 64 lanes in lockstep (a coroutine
    switch per subgroup and barrier costs more than masking), and work-groups narrower
    than that on a build with as many lanes as they hold."""
    prog, nat = shared_reduction(shared_builds)
    assert nat.native.plans["k"].subgroup_lanes == 64
    rng = np.random.default_rng(2)
    n = group * 32
    a, b = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    c = np.zeros(n // group, np.float32)
    before = nat.fast_launches.get("k", 0)
    prog.k((n,), (group,), a, b, c)
    assert c.tobytes() == tree_sums(a, b, group).tobytes()
    assert nat.fast_launches == {"k": before + 1} and not nat.fast_reruns
    assert nat._narrower_builds[group].native.plans["k"].subgroup_lanes == group


DIVERGENT = """
__kernel void k(__global int *out) {
    if (get_sub_group_id() == 1 && get_group_id(0) == 2)
        barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = 1;
}"""


def test_barrier_reached_by_one_subgroup_only_is_reported_as_before():
    """Uniform within each subgroup, divergent between them: the fast path's driver sees
    one subgroup suspended while the others finished, and hands the launch back; the
    per-work-item path reports it as the interpreter does, the buffer untouched."""
    prog, nat = native(DIVERGENT)
    assert nat.execution_mode("k") == "subgroup"
    messages = []
    for p in (prog, clcoop.Program(DIVERGENT).build()):
        out = np.full(256, 7, np.int32)
        with pytest.raises(clcoop.RuntimeFault) as info:
            p.k((256,), (64,), out)
        assert (out == 7).all()
        messages.append(str(info.value))
    assert nat.fast_reruns == {"k": 1}
    assert "barrier" in messages[0] and "group (2)" in messages[0]
    # The same text, source line included (the site's !dbg, runtime.NativeProgram._fault).
    assert messages[0] == messages[1]
    assert messages[0].startswith("<source>:4:9: error: kernel 'k': barrier:")


SHARED_SLOT = """
__kernel void k(__global int *out, int rounds) {
    __local int slot[64];
    int l = get_local_id(0), g = get_group_id(0);
    int acc = 0;
    for (int r = 0; r < rounds; r++) {
        slot[l] = g * 1000 + r;
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += slot[63 - l] - g * 1000;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = acc;
}"""


@pytest.mark.slow          # several seconds: many threads and work-groups
@pytest.mark.parametrize("fast", [True, False])
def test_each_thread_has_its_own_local_variables(fast, monkeypatch):
    """Work-groups running at once on two threads write their group id into __local and
    read it back after a barrier: a shared copy would mix groups."""
    prog, nat = native(SHARED_SLOT)
    if not fast:
        nat.subgroup_drivers.clear()
    groups, rounds = 400, 50
    out = np.zeros(64 * groups, np.int32)
    seen = Recorder(monkeypatch)
    prog.k((64 * groups,), (64,), out, np.int32(rounds))
    assert (out == sum(range(rounds))).all()
    assert len(seen.launches[-1]) == 2
    assert nat.native.plans["k"].single_thread is False


LOCAL_ARGUMENT = """
__kernel void k(__global const int *in, __global int *out, __local int *scratch) {
    int l = get_local_id(0);
    scratch[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = scratch[get_local_size(0) - 1 - l];
}"""


def test_local_arguments_are_per_thread(monkeypatch):
    prog, nat = native(LOCAL_ARGUMENT)
    n, local = 64 * 300, 64
    data = np.arange(n, dtype=np.int32)
    out = np.zeros(n, np.int32)
    seen = Recorder(monkeypatch)
    prog.k((n,), (local,), data, out, clcoop.LocalMemory(local * 4))
    assert out.tobytes() == data.reshape(-1, local)[:, ::-1].tobytes()
    states = seen.launches[-1]
    assert len(states) == 2 and states[0].locals[2].ctypes.data != states[1].locals[2].ctypes.data


FRESH_LOCAL = """
__kernel void fresh(__global int *out, __local int *arg) {
    __local int var[64];
    int l = get_local_id(0);
    out[get_global_id(0)] = var[l] + arg[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    var[l] = get_global_id(0) + 1;
    arg[l] = 7;
}
__kernel void plain(__global int *out) {
    __local int var[64];
    int l = get_local_id(0);
    out[get_global_id(0)] = var[l];
    var[l] = get_global_id(0) + 1;
}
__kernel void none(__global int *out) {
    out[get_global_id(0)] = get_group_id(0) + 1;
}"""


@pytest.mark.slow          # several seconds: many work-groups on every thread
@pytest.mark.parametrize("fast", [True, False])
def test_local_memory_is_zero_at_the_start_of_every_work_group(fast):
    """Each work-group reads its __local variable and argument before writing them: zeros,
    as in the interpreter, though the previous work-group of the thread left values there
    (drivers.zero_locals zeroes exactly the kernel's own __local rows); a kernel of
    the same program without __local memory has none to zero."""
    prog, nat = native(FRESH_LOCAL)
    plans = nat.native.plans
    assert [nat.native.globals[r] for r in plans["fresh"].local_rows[:1]] == ["fresh.var"]
    assert plans["fresh"].local_rows[1:] == [len(nat.native.globals) + 1]
    assert [nat.native.globals[r] for r in plans["plain"].local_rows] == ["plain.var"]
    assert plans["none"].local_rows == []
    if not fast:
        nat.subgroup_drivers.clear()
    interp = clcoop.Program(FRESH_LOCAL).build()
    for p in (prog, interp):
        out = np.full(1024, 5, np.int32)
        p.fresh((1024,), (64,), out, clcoop.LocalMemory(256))
        assert (out == 0).all()
        out[:] = 5
        p.plain((1024,), (64,), out)
        assert (out == 0).all()
        p.none((1024,), (64,), out)
        assert (out == np.arange(1024) // 64 + 1).all()
    assert nat.fast_launches == ({"fresh": 1, "plain": 1, "none": 1} if fast else {})


# ---------------------------------------------------------------- the rewrite itself

FOLDED = """
@k.tmp = internal addrspace(3) global [4 x i32] undef, align 4

define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  store i32 5, ptr addrspace(3) getelementptr inbounds nuw (i8, ptr addrspace(3) @k.tmp, i64 8), align 4
  %v = load i32, ptr addrspace(3) getelementptr inbounds nuw (i8, ptr addrspace(3) @k.tmp, i64 8), align 4
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}
"""


def test_constant_expressions_on_a_local_variable_become_instructions():
    text = local_memory.per_thread(FOLDED)
    body = text[text.index("define"):]
    assert "@k.tmp" not in body.split("declare")[0]
    assert '%__lg.0 = call ptr addrspace(3) @"__clcoop_local.k.tmp"()' in body
    assert "%__lce.1 = getelementptr inbounds nuw i8, ptr addrspace(3) %__lg.0, i64 8" in body
    import llvmlite.binding as llvm
    llvm.parse_assembly(text).verify()


PHI_OF_CONSTANT = """
@k.tmp = internal addrspace(3) global [4 x i32] undef, align 4

declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z13get_global_idj(i32)
declare void @_Z7barrierj(i32)

define spir_kernel void @k(ptr addrspace(1) %out, i32 %c) {
entry:
  %l = call i64 @_Z12get_local_idj(i32 0)
  %p0 = getelementptr inbounds i32, ptr addrspace(3) @k.tmp, i64 %l
  %lv = trunc i64 %l to i32
  store i32 %lv, ptr addrspace(3) %p0, align 4
  call void @_Z7barrierj(i32 1)
  %z = icmp eq i32 %c, 0
  br i1 %z, label %a, label %b
a:
  br label %j
b:
  br label %j
j:
  %p = phi ptr addrspace(3) [ getelementptr inbounds nuw (i8, ptr addrspace(3) @k.tmp, i64 8), %a ], [ @k.tmp, %b ]
  %x = load i32, ptr addrspace(3) %p, align 4
  %g = call i64 @_Z13get_global_idj(i32 0)
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %g
  store i32 %x, ptr addrspace(1) %o, align 4
  ret void
}
"""


def test_a_shape_the_rewrite_does_not_take_keeps_one_thread(monkeypatch):
    assert local_memory.per_thread(PHI_OF_CONSTANT) is None
    layout = 'target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"\ntarget triple = "spir64-unknown-unknown"\n'
    prog = clcoop.Program.from_ir(layout + PHI_OF_CONSTANT, engine="native")
    nat = prog._native
    assert nat.native.local_per_thread is False and nat.native.plans["k"].single_thread is True
    seen = Recorder(monkeypatch)
    for c, want in ((0, 2), (1, 0)):
        out = np.full(4 * 8, -1, np.int32)
        prog.k((4 * 8,), (4,), out, np.int32(c))
        assert (out == want).all()
    assert [len(states) for states in seen.launches] == [1, 1]


STAGED_GEMM = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef float mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef float mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));

// A work-group of two subgroups (32 work-items) per band of 8 rows of C: the band's 8 x 16
// block of A is staged in __local memory by all 32 work-items, then each subgroup
// multiplies it into its own 16 columns of C.
__kernel void k(__global const float *A, __global const float *B, __global float *C, int K, int N) {
    __local float tile[8 * 16];
    const int l = get_local_id(0);
    const size_t band = get_group_id(0), col = get_sub_group_id() * 16;
    mat_c acc = coop_mat_init(0.0f);
    for (int k = 0; k < K; k += 16) {
        for (int q = 0; q < 4; q++) {
            int e = q * 32 + l;
            tile[e] = A[(band * 8 + e / 16) * K + k + e % 16];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        mat_a a = coop_mat_load(tile, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
        mat_b b = coop_mat_load(B + (size_t)k * N + col, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
        acc = coop_mat_mulAdd(a, b, acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    coop_mat_store(C + band * 8 * N + col, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
}"""


def test_matrices_from_local_memory_between_barriers_on_the_fast_path(monkeypatch):
    prog, nat = native(STAGED_GEMM)
    assert nat.execution_mode("k") == "subgroup", nat.native.plans["k"].subgroup_reason
    rng = np.random.default_rng(5)
    M, N, K = 8 * 24, 32, 64
    A = rng.integers(-8, 8, (M, K)).astype(np.float32)      # exact sums in float32
    B = rng.integers(-8, 8, (K, N)).astype(np.float32)
    C = np.zeros((M, N), np.float32)
    seen = Recorder(monkeypatch)
    prog.k((32 * (M // 8),), (32,), A, B, C, np.int32(K), np.int32(N), subgroup_size=16)
    assert nat.fast_launches == {"k": 1} and not nat.fast_reruns
    assert len(seen.launches[-1]) == 2
    np.testing.assert_array_equal(C, A @ B)


LOCAL_2D = """
kernel void k(global float *o) {
  local float t[4][5];
  t[get_local_id(0)][1] = (float)get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  o[get_global_id(0)] = t[1][1];
}"""


def test_nested_constant_expressions_on_a_local_array_become_instructions(monkeypatch):
    """clang-22 -O0 reads t[1][1] of a 2-D __local array through a GEP constant nested in
    another (issue 26): the outer one, on the hoisted inner one, is hoisted too (it raised
    LLVM's "invalid use of function-local name (%__lce.1)")."""
    from interp_helpers import clang_ir_text
    ir = clang_ir_text(LOCAL_2D, opt=0)
    assert "getelementptr inbounds ([5 x float], ptr addrspace(3) getelementptr" in ir
    text = local_memory.per_thread(ir)
    assert text is not None
    import llvmlite.binding as llvm
    llvm.parse_assembly(text).verify()
    prog = clcoop.Program.from_ir(ir, engine="native")
    assert prog.k.fallback_reason is None
    assert prog._native.native.plans["k"].single_thread is False
    seen = Recorder(monkeypatch)
    out = np.zeros(64, np.float32)
    prog.k((64,), (4,), out)
    assert (out == 1.0).all()           # every group's work-item 1 stored 1.0 in t[1][1]
    assert len(seen.launches[0]) == 2   # on two threads, each with its own t
    ref = np.zeros(64, np.float32)
    clcoop.Program.from_ir(ir).k((64,), (4,), ref)
    assert np.array_equal(out, ref)
