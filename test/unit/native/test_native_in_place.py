"""In-place native launches (docs/native.md, "In-place launches"): a launch proven before it
starts not to fault (clcoop/native/ranges.py) runs on the caller's arrays, without private
copies; any launch not proven keeps the copies, so a fault leaves the caller's arrays
untouched. Results are checked against NumPy and the interpreter."""
import numpy as np
import pytest

import clcoop
from clcoop.native import ranges
from script_modules import load_script


def _bench():
    return load_script("bench.py")


BENCH_SOURCES = _bench().NATIVE_SOURCES
VECTOR_ADD = BENCH_SOURCES["vector add"]
STENCIL = BENCH_SOURCES["stencil (5-point 1D)"]
SHIFTED = """
__kernel void k(__global const float *a, __global float *c, int off) {
    int i = get_global_id(0);
    c[i] = a[i + off];
}"""
GUARDED_2D = """
__kernel void k(__global const float *A, __global const float *B, __global float *C, int N, int M,
                float alpha) {
    int j = get_global_id(0), i = get_global_id(1);
    if (i < N && j < M)
        C[i * M + j] = alpha * A[i * M + j] + B[j * N + i];
}"""


def build(source):
    return clcoop.Program(source).build(engine="native")


def in_place(prog):
    return prog._native.in_place_launches.get("k", 0)


def floats(n, seed=0):
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


def faults_untouched(prog, out, *launch, match="out-of-bounds read", **options):
    """The launch faults, not in place, with `out` (one of its arrays) untouched."""
    before, count = out.copy(), in_place(prog)
    with pytest.raises(clcoop.RuntimeFault, match=match):
        prog.k(*launch, **options)
    assert in_place(prog) == count
    assert same_bits(out, before)


def same_bits(x, y):
    return x.shape == y.shape and np.array_equal(x.view(np.uint32), y.view(np.uint32))


def test_vector_add_runs_in_place_and_agrees_with_numpy_and_the_interpreter():
    n = 1 << 14
    a, b = floats(n, 1), floats(n, 2)
    c, ref = np.zeros(n, np.float32), np.zeros(n, np.float32)
    prog = build(VECTOR_ADD)
    prog.k(n, 256, a, b, c)
    assert in_place(prog) == 1
    clcoop.Program(VECTOR_ADD).build().k(n, 256, a, b, ref)
    assert same_bits(c, a + b)
    assert same_bits(c, ref)
    prog.k(n, 256, b, a, c)              # the decision is cached per launch shape
    assert in_place(prog) == 2
    assert len(prog._native._ranges.kernel("k").decisions) == 1


def test_stencil_runs_in_place_and_agrees_with_numpy_and_the_interpreter():
    n = 1 << 14
    a, b = floats(n, 3), floats(n, 4)
    c, ref = np.zeros(n, np.float32), np.zeros(n, np.float32)
    prog = build(STENCIL)
    prog.k(n, 128, a, b, c, global_offset=None)
    assert in_place(prog) == 1
    clcoop.Program(STENCIL).build().k(n, 128, a, b, ref)
    expect = a * np.float32(0.5)
    inner = slice(2, n - 2)
    mixed = (np.float32(0.25) * (a[1:n - 3] + a[3:n - 1]) - np.float32(0.125) * (a[0:n - 4] + a[4:n])) + b[inner]
    expect[inner] = expect[inner] + mixed
    assert same_bits(c, expect)
    assert same_bits(c, ref)


def test_an_out_of_bounds_launch_is_not_in_place_and_leaves_the_output_untouched():
    n = 1000
    prog = build(SHIFTED)
    c = floats(n, 5)
    faults_untouched(prog, c, n, 100, floats(n), c, 1)   # a[i + 1] with a of n elements: a[n]
    assert in_place(prog) == 0


def test_a_scalar_offset_is_proven_when_safe_and_refused_when_not():
    n = 1000
    prog = build(SHIFTED)
    a = floats(n + 3)
    c = np.zeros(n, np.float32)
    prog.k(n, 100, a, c, 3)
    assert in_place(prog) == 1 and same_bits(c, a[3:])
    for off in (4, -1):
        c = floats(n, 6)
        faults_untouched(prog, c, n, 100, a, c, off)
    assert in_place(prog) == 1


def test_a_guard_protects_only_in_its_direction():
    n = 512
    a = floats(n)
    good = build("""__kernel void k(__global const float *a, __global float *c) {
        int i = get_global_id(0);
        if (i > 0) c[i] = a[i - 1]; }""")
    c = np.full(n, 7, np.float32)
    good.k(n, 64, a, c)
    assert in_place(good) == 1
    assert c[0] == 7 and same_bits(c[1:], a[:-1])
    # i < n - 1 does not keep i - 1 from being -1.
    bad = build("""__kernel void k(__global const float *a, __global float *c) {
        int i = get_global_id(0);
        if (i < (int)get_global_size(0) - 1) c[i] = a[i - 1]; }""")
    c = floats(n, 7)
    faults_untouched(bad, c, n, 64, a, c)


def test_a_two_dimensional_guard_narrows_both_ids():
    N, M = 30, 60
    A, B = floats(N * M, 8), floats(M * N, 9)
    C = np.zeros(N * M, np.float32)
    prog = build(GUARDED_2D)
    prog.k((64, 32), (16, 16), A, B, C, N, M, 1.5)      # 64 x 32 work-items over 60 x 30
    assert in_place(prog) == 1
    expect = np.float32(1.5) * A.reshape(N, M) + B.reshape(M, N).T
    assert same_bits(C, expect.reshape(-1))
    # One row too many for C: not proven; faults with C untouched.
    C2 = floats(N * M, 10)
    faults_untouched(prog, C2, (64, 32), (16, 16), A, np.zeros((M + 1) * (N + 1), np.float32), C2, N + 1,
                     M, 1.5, match="out-of-bounds")


def test_a_wrapping_index_is_not_proven():
    # i wraps modulo 2^32 from work-item 1074 on; i / 4000000 stays in bounds, but the
    # proof does not follow a wrapped value: the launch keeps its copies and succeeds.
    n = 2048
    prog = build("""__kernel void k(__global const float *a, __global float *c) {
        uint i = get_global_id(0) * 4000000u;
        c[get_global_id(0)] = a[i / 4000000u]; }""")
    a, c = floats(n), np.zeros(n, np.float32)
    prog.k(n, 64, a, c)
    assert in_place(prog) == 0
    idx = (np.arange(n, dtype=np.uint64) * 4000000 % (1 << 32)) // 4000000
    assert same_bits(c, a[idx])
    small = np.zeros(1000, np.float32)
    prog.k(1000, 100, a[:1000], small)       # no wrap below 1074: proven
    assert in_place(prog) == 1 and same_bits(small, a[:1000])


def test_the_same_array_passed_twice_runs_in_place_as_with_copies():
    prog = build("""__kernel void k(__global const float *a, __global float *c) {
        size_t i = get_global_id(0);
        c[i] = a[i] * 2.0f; }""")
    x = floats(256)
    expect = x * np.float32(2)
    prog.k(256, 64, x, x)
    assert in_place(prog) == 1 and same_bits(x, expect)


def test_a_read_only_array_the_kernel_may_write_is_refused_before_the_launch():
    prog = build(VECTOR_ADD)
    a = floats(64)
    c = np.zeros(64, np.float32)
    c.flags.writeable = False
    count = in_place(prog)
    with pytest.raises(clcoop.ArgumentError, match="read-only"):
        prog.k(64, 16, a, a, c)
    assert in_place(prog) == count and not c.any()


@pytest.mark.parametrize("source, reason", [
    ("""__kernel void k(__global const float *a, __global float *c, int n) {
        size_t i = get_global_id(0); float x = a[i];
        for (int t = 0; t < n; t++) x = x * 0.5f + 1.0f;
        c[i] = x; }""", "a loop"),
    ("""__kernel void k(__global const float *a, __global float *c) {
        size_t i = get_global_id(0); c[i] = a[i];
        barrier(CLK_GLOBAL_MEM_FENCE); }""", "a call of 'barrier'"),
    ("""__kernel void k(__global const int *idx, __global const float *a, __global float *c) {
        size_t i = get_global_id(0); c[i] = a[idx[i]]; }""", "an address the proof does not model"),
    ("""__kernel void k(__global const int *a, __global int *c, int n) {
        size_t i = get_global_id(0); c[i] = a[i] / n; }""", "a division that may fault"),
    ("""__kernel void k(__global int *c) {
        atomic_inc(c); }""", "pointer argument"),
    ("""__kernel void k(__global const float *a, __global float *c, int n) {
        float t[64]; size_t i = get_global_id(0);
        for (int j = 0; j < 64; j++) t[j] = a[i] * j;
        c[i] = t[n]; }""", "a loop|alloca"),
    ("""__kernel void k(__global const float *a, __global float *c, int n) {
        __local float t[64]; size_t i = get_global_id(0);
        t[i % 64] = a[i]; c[i] = t[n]; }""", "__local memory (@k.t)"),
])
def test_kernels_the_proof_does_not_take_are_refused_with_a_reason(source, reason):
    prog = build(source)
    why = prog._native.in_place_reason("k")
    assert why is not None
    assert any(r in why for r in reason.split("|")), why


def test_the_bench_kernels_with_loops_and_barriers_are_refused():
    proven = {name: build(src)._native.in_place_reason("k") is None for name, src in BENCH_SOURCES.items()}
    # The loop-free ones are proven; every other (loops, barriers) is refused.
    assert proven == {name: name in ("vector add", "stencil (5-point 1D)") for name in BENCH_SOURCES}
    assert sum(proven.values()) == 2 and len(proven) >= 4


def test_a_proven_launch_that_faults_is_an_internal_error(monkeypatch):
    # The proof is forced to say yes for a launch that reads out of bounds: the runtime
    # must not report it as the kernel's fault (the caller's arrays were written).
    monkeypatch.setattr(ranges.KernelRanges, "proves", lambda self, *args: True)
    prog = build(SHIFTED)
    a, c = floats(100), np.zeros(100, np.float32)
    with pytest.raises(RuntimeError, match="internal: .*proven fault-free"):
        prog.k(100, 10, a, c, 1)


def test_the_instruction_limit_is_part_of_the_proof():
    prog = build(VECTOR_ADD)
    a, c = floats(64), np.zeros(64, np.float32)
    prog.k(64, 16, a, a, c, instruction_limit=3)
    assert in_place(prog) == 0      # the kernel has more than 3 instructions
    assert same_bits(c, a + a)
    prog.k(64, 16, a, a, c)
    assert in_place(prog) == 1


def test_an_equality_guard_narrows_at_an_end_of_the_range_only():
    n = 256
    a = floats(n)
    # The else branch of i == 0 reads a[i - 1] only for i >= 1 (PolyBench fdtd-2d's shape).
    edge = build("""__kernel void k(__global const float *a, __global float *c) {
        int i = get_global_id(0);
        if (i == 0) c[i] = 0.0f; else c[i] = a[i - 1]; }""")
    c = floats(n, 11)
    edge.k(n, 64, a, c)
    assert in_place(edge) == 1
    assert c[0] == 0 and same_bits(c[1:], a[:-1])
    # i != 5 still lets i = 0 read a[-1].
    inner = build("""__kernel void k(__global const float *a, __global float *c) {
        int i = get_global_id(0);
        if (i != 5) c[i] = a[i - 1]; }""")
    c = floats(n, 12)
    faults_untouched(inner, c, n, 64, a, c)


def test_the_global_offset_is_part_of_the_id_range():
    prog = build(VECTOR_ADD)
    n = 256
    a = floats(n + 64)
    c = np.zeros(n + 64, np.float32)
    prog.k(n, 64, a, a, c, global_offset=(64,))
    assert in_place(prog) == 1
    assert same_bits(c[64:], a[64:] + a[64:]) and not c[:64].any()
    short = floats(n, 13)
    faults_untouched(prog, short, n, 64, a[:n], a[:n], short, global_offset=(64,))
    kernel = prog._native._ranges.kernel("k")
    assert any("[256, 1276] of a buffer of 1024" in str(d) for d in kernel.decisions.values())


# ---------------------------------------------------------------- random kernels
def random_index(rng, depth=0):
    """An int index expression of the ids, the scalar arguments and constants."""
    terms = [f"{int(rng.choice([-1, 1, 1, 2]))} * {rng.choice(['i', 'l', 'g', 's0', 's1'])}"
             for _ in range(int(rng.integers(1, 3)))]
    expr = " + ".join(terms) + f" + {int(rng.integers(-2, 9))}"
    shape = int(rng.integers(0, 7))
    if shape == 1:
        expr = f"({expr}) / 2"
    elif shape == 2:
        expr = f"({expr}) % 5"
    elif shape == 3:
        expr = f"min({expr}, s1)"
    elif shape == 4:
        expr = f"max({expr}, 0)"
    elif shape == 5 and depth == 0:
        expr = f"(({expr}) > s0 ? {random_index(rng, 1)} : i)"
    return expr


def random_guard(rng):
    cmp = " ".join([random_index(rng, 1), str(rng.choice(["<", "<=", ">", ">=", "==", "!="])),
                    str(rng.choice(["s0", "s1", "n", "n - 3", "2"]))])
    if rng.random() < 0.3:
        cmp = f"{cmp} {rng.choice(['&&', '||'])} i {rng.choice(['<', '>='])} {rng.choice(['s0', 'n - 2', '1'])}"
    return cmp


def random_kernel(rng):
    lines = ["__kernel void k(__global const int *a, __global int *c, int s0, int s1) {",
             "    int i = get_global_id(0), l = get_local_id(0), g = get_group_id(0);",
             "    int n = get_global_size(0);",
             f"    int v = a[{random_index(rng)}];"]
    if rng.random() < 0.8:
        lines.append(f"    if ({random_guard(rng)}) v += a[{random_index(rng)}];")
        if rng.random() < 0.5:
            lines.append(f"    else v -= a[{random_index(rng)}] * 3;")
    shift = int(rng.choice([0, 0, 0, 1, -1]))
    lines += [f"    c[i + {shift}] = v;", "}"]
    return "\n".join(lines)


RANDOM_SEEDS = range(60)


@pytest.mark.slow          # random kernels on both engines (fuzz)
@pytest.mark.parametrize("seed", RANDOM_SEEDS)
def test_random_loop_free_kernels_agree_with_the_interpreter(seed):
    # A launch proven wrongly would fault in place: an internal RuntimeError, not a fault.
    rng = np.random.default_rng(seed)
    source = random_kernel(rng)
    n, local = int(rng.choice([64, 128, 192])), int(rng.choice([16, 32, 64]))
    size = 3 * n + 24 if rng.random() < 0.6 else n + int(rng.integers(-6, 7))
    a = rng.integers(-1000, 1000, size).astype(np.int32)
    scalars = [int(rng.integers(-2, n + 4)) for _ in range(2)]
    native, interp = build(source), clcoop.Program(source).build()
    outcomes = []
    for prog in (interp, native):
        c = np.arange(n, dtype=np.int32)
        try:
            prog.k(n, local, a, c, *scalars)
            outcomes.append(("ok", c))
        except clcoop.RuntimeFault as fault:
            outcomes.append((str(fault).splitlines()[0], c))
    (what_i, c_i), (what_n, c_n) = outcomes
    # Which of several faults is reported may differ (work-item order); that one is, not.
    assert (what_n == "ok") == (what_i == "ok"), (source, what_i, what_n)
    assert np.array_equal(c_n, c_i), source
    RANDOM_IN_PLACE[seed] = in_place(native)


RANDOM_IN_PLACE = {}


@pytest.mark.slow          # runs the random kernels above
def test_enough_random_kernels_ran_in_place():
    for seed in RANDOM_SEEDS:
        if seed not in RANDOM_IN_PLACE:
            test_random_loop_free_kernels_agree_with_the_interpreter(seed)
    assert sum(RANDOM_IN_PLACE.values()) >= len(RANDOM_SEEDS) // 5, RANDOM_IN_PLACE


@pytest.mark.slow          # a long launch
def test_a_switch_keeps_the_box_of_its_block():
    prog = build("""__kernel void k(__global const float *a, __global float *c, int m) {
        int i = get_global_id(0);
        float v;
        switch (m) { case 0: v = a[i]; break; case 1: v = a[i] * 2; break; case 7: v = 3; break;
                     default: v = -a[i]; }
        c[i] = v; }""")
    a = floats(64)
    for m, expect in ((0, a), (1, a * np.float32(2)), (7, np.full(64, 3, np.float32)), (9, -a)):
        c = np.zeros(64, np.float32)
        prog.k(64, 16, a, c, m)
        assert same_bits(c, expect)
    assert in_place(prog) == 4


def test_icmp_samesign_is_proven_only_for_operands_of_one_sign():
    source = """__kernel void k(__global const float *a, __global float *c, int n) {
        int i = get_global_id(0);
        if (i >= 0 && i < n) c[i] = a[i] * 2.0f; }"""
    ir = clcoop.Program(source).build().ir
    assert "icmp sgt i32 %n, %conv" in ir
    prog = clcoop.Program.from_ir(ir.replace("icmp sgt i32 %n, %conv", "icmp samesign ugt i32 %n, %conv"),
                                  engine="native")
    a, c = floats(60), np.zeros(60, np.float32)
    prog.k(64, 16, a, c, 60)
    assert in_place(prog) == 1 and same_bits(c, a * np.float32(2))
    from clcoop.prepare import NDRange
    why = prog._native._ranges.kernel("k").proves(NDRange((64,), (16,)), {2: -1},
                                                  {0: (240, False), 1: (240, True)}, 10 ** 6)
    assert "does not fit i32 as unsigned" in why


# An optnone kernel (clang -O0's attribute) with unnamed values and blocks, loop-free and
# guarded: the proof must read it as codegen compiled it (named_ir.py drops optnone, so
# LLVM's namer names it); a parse of its own left it unnamed, every block '' (one block,
# no access), and proved launches that read out of bounds.
OPTNONE_IR = """
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

declare spir_func i64 @_Z13get_global_idj(i32)

define spir_kernel void @k(ptr addrspace(1) %0, ptr addrspace(1) %1, i32 %2) #0 {
  %4 = call spir_func i64 @_Z13get_global_idj(i32 0)
  %5 = trunc i64 %4 to i32
  %6 = icmp slt i32 %5, %2
  br i1 %6, label %7, label %11
7:
  %8 = getelementptr inbounds float, ptr addrspace(1) %0, i64 %4
  %9 = load float, ptr addrspace(1) %8, align 4
  %10 = getelementptr inbounds float, ptr addrspace(1) %1, i64 %4
  store float %9, ptr addrspace(1) %10, align 4
  br label %11
11:
  ret void
}
attributes #0 = { noinline nounwind optnone }
"""


def test_an_optnone_kernel_is_proven_on_the_blocks_codegen_compiled():
    prog = clcoop.Program.from_ir(OPTNONE_IR, engine="native")
    kernel = prog._native._ranges.kernel("k")
    compiled = prog._native.native.named.mod.get_function("k")
    assert sorted(b.name for b in kernel.blocks) == sorted(b.name for b in compiled.blocks)
    assert all(kernel.blocks) and len(kernel.blocks) == 3
    assert sum(len(b.accesses) for b in kernel.blocks) == 2
    a = floats(64)
    c = np.zeros(64, np.float32)
    prog.k(64, 16, a, c, 40)              # the guard keeps every access in bounds
    assert in_place(prog) == 1
    assert same_bits(c[:40], a[:40]) and not c[40:].any()
    # 100 work-items and a guard of 100 read past 64 elements: not proven, a fault (not an
    # internal error of a launch proven wrongly), the output untouched.
    c = floats(64, 14)
    faults_untouched(prog, c, 100, 10, a, c, 100)
