"""The native engine's subgroup-wide fast path (clcoop/native/subgroup.py): which kernels
take it, results against NumPy and against the per-work-item path, and faults, which the
fast path hands back to the per-work-item path so they are reported exactly as before."""
import re

import numpy as np
import pytest

import clcoop

from test_native_coop import BRANCHES, COPY, HEADER

EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[3] / "examples"


def native(source):
    prog = clcoop.Program(source).build(engine="native")
    return prog, prog._native


def per_work_item(source):
    """The same program with the fast path removed: the reference for faults."""
    prog, nat = native(source)
    nat.subgroup_drivers.clear()
    return prog


def gemm_inputs(name, n, rng):
    if name == "gemm_f32":
        return [rng.standard_normal((n, n)).astype(np.float32) for _ in range(2)]
    if name == "gemm_f16_f32":
        return [rng.standard_normal((n, n)).astype(np.float16) for _ in range(2)]
    return [rng.integers(-128, 128, (n, n)).astype(np.int8) for _ in range(2)]


@pytest.mark.slow          # every GEMM example at two sub-group sizes on both engines
@pytest.mark.parametrize("name", ["gemm_f32", "gemm_f16_f32", "gemm_i8_i32"])
@pytest.mark.parametrize("S", [8, 16])
def test_gemm_examples_take_the_fast_path(name, S):
    source = (EXAMPLES / f"{name}.cl").read_text()
    prog, nat = native(source)
    n = 64
    a, b = gemm_inputs(name, n, np.random.default_rng(S))
    c = np.zeros((n, n), np.int32 if "i8" in name else np.float32)
    extra = (0,) if name == "gemm_f32" else ()
    # The f16 example reads B column-major (B^T row-major): pass B transposed.
    b_arg = np.ascontiguousarray(b.T) if name == "gemm_f16_f32" else b
    getattr(prog, name)(((n // 16) * S, n // 8), (2 * S, 1), a, b_arg, c, n, n, n, *extra, subgroup_size=S)
    assert nat.execution_mode(name, S) == "subgroup"
    other = nat if S == nat.subgroup_size else nat._other_sizes[S]
    assert other.fast_launches.get(name) == 1 and not other.fast_reruns
    if "i8" in name:
        np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))
    else:
        np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4, atol=1e-3)
    # Bit for bit as the per-work-item path (itself bit-identical to the interpreter).
    slow = per_work_item(source)
    if S != 16:
        slow._native._for_subgroup_size(S, slow._native.module.kernels[name]).subgroup_drivers.clear()
    c2 = np.zeros_like(c)
    getattr(slow, name)(((n // 16) * S, n // 8), (2 * S, 1), a, b_arg, c2, n, n, n, *extra, subgroup_size=S)
    assert c.tobytes() == c2.tobytes()


COLUMNS = HEADER + """
__kernel void transpose(__global const float *a, __global float *b) {
    mat_c m = coop_mat_load(a, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
    mat_c one = coop_mat_init(1.0f);
    m = m * 2.0f + one;
    coop_mat_store(b, m, CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR, (size_t)10);
}
"""


def test_column_major_store_and_element_wise_operations():
    prog, nat = native(COLUMNS)
    a = np.arange(128, dtype=np.float32)
    b = np.full(160, -7.0, np.float32)
    prog.transpose((16,), (16,), a, b, subgroup_size=16)
    assert nat.fast_launches.get("transpose") == 1
    expect = np.full(160, -7.0, np.float32)
    # Column-major with stride 10: element (r, c) at c * 10 + r.
    view = expect.reshape(16, 10)
    view[:, :8] = (a.reshape(8, 16) * 2 + 1).T
    np.testing.assert_array_equal(b, expect)


def test_divergent_kernels_keep_the_per_work_item_path():
    _, nat = native(BRANCHES)
    assert nat.execution_mode("branches") == "work-item"
    assert "branch that may differ" in nat.native.plans["branches"].subgroup_reason
    store = HEADER + """
    __kernel void k(__global const float *a, __global float *b, __global int *n) {
        mat_c m = coop_mat_load(a, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
        coop_mat_store(b, m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
        atomic_add(n, 1);
    }"""
    _, nat = native(store)
    assert nat.execution_mode("k") == "work-item"
    assert "atomic" in nat.native.plans["k"].subgroup_reason


def copy_fault(prog, *args, local=16, **kw):
    a = np.arange(2 * 128, dtype=np.float32)
    b = np.full(2 * 128, 5.0, np.float32)
    with pytest.raises(clcoop.RuntimeFault) as info:
        prog.copy((32,), (local,), a, b, *args, subgroup_size=16, **kw)
    assert (b == 5.0).all()              # the caller's buffer is untouched
    return str(info.value)


def same_but_addresses(text):
    return re.sub(r"\(e\.g\. \d+ and \d+\)", "(e.g. ? and ?)", text)


def work_item_line(text):
    return [line.strip() for line in text.splitlines() if "work-item global id" in line]


@pytest.mark.slow          # each fault on both engines and both paths
@pytest.mark.parametrize("args", [(16, 3), (-16, -1), (1000, -1), (17, -1)],
                         ids=["non-uniform", "negative-stride", "out-of-bounds", "second-sub-group"])
@pytest.mark.parametrize("local", [16, 32])
def test_faults_on_the_fast_path_are_reported_as_before(args, local):
    """The fast path gives the launch back (after sub-group 0 may have stored into the
    private copy of b); the per-work-item path reports the fault, word for word as without
    the fast path, and the caller's buffer is untouched."""
    prog, nat = native(COPY)
    message = copy_fault(prog, *args, local=local)
    assert nat.fast_reruns.get("copy") == 1 and not nat.fast_launches
    # (a non-uniform pointer's values are addresses: those of each launch's own arrays)
    assert same_but_addresses(message) == same_but_addresses(copy_fault(per_work_item(COPY), *args, local=local))
    if args[0] in (16, -16):
        # The interpreter blames the same work-item.
        interp = clcoop.Program(COPY).build()
        assert work_item_line(copy_fault(interp, *args, local=local)) == work_item_line(message) != []


def test_a_failed_matrix_check_leaves_the_fast_path_at_once():
    """A matrix access whose check fails returns from the subgroup function (no select of
    the scratch area on the tile step's path: matrix_tiles._memory); B short by one K
    block faults in the last step, reported word for word as the interpreter does, C
    untouched; with B whole the result is bit-equal to the interpreter's."""
    source = (EXAMPLES / "gemm_f32.cl").read_text()
    prog, nat = native(source)
    m, n, k = 8, 32, 48
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    interp = clcoop.Program(source).build(engine="interp")
    outs = []
    for p in (prog, interp):
        out = c.copy()
        p.gemm_f32((n // 16 * 16, m // 8), (16, 1), a, b, out, m, n, k, 1, subgroup_size=16)
        outs.append(out)
    assert outs[0].tobytes() == outs[1].tobytes() and nat.fast_launches.get("gemm_f32") == 1
    function = nat.native.text.split("define internal void @gemm_f32.sg(")[1].split("\n}")[0]
    # C's load and store, A's and B's loads.
    assert len(re.findall(r"br i1 %__m\d+\.bad\d+, label %__abort, label %__m\d+\.ok", function)) == 4
    messages = []
    for p in (prog, interp):
        out = c.copy()
        with pytest.raises(clcoop.RuntimeFault) as info:
            p.gemm_f32((n // 16 * 16, m // 8), (16, 1), a, b[:32].copy(), out, m, n, k, 1, subgroup_size=16)
        assert out.tobytes() == c.tobytes()
        messages.append(str(info.value))
    assert nat.fast_reruns.get("gemm_f32") == 1
    assert messages[0] == messages[1]


@pytest.mark.slow          # runs to the instruction limit
def test_instruction_limit_on_the_fast_path():
    source = (EXAMPLES / "gemm_f32.cl").read_text()
    n = 64
    a = np.ones((n, n), np.float32)
    messages = []
    for prog in (native(source)[0], per_work_item(source)):
        c = np.full((n, n), 2.0, np.float32)
        with pytest.raises(clcoop.RuntimeFault) as info:
            prog.gemm_f32((64, 8), (32, 1), a, a, c, n, n, n, 0, instruction_limit=40)
        assert (c == 2.0).all()
        messages.append(str(info.value))
    assert "instruction limit" in messages[0] and messages[0] == messages[1]


def test_subgroups_across_rows_run_per_work_item():
    """Local size 8 x 2 with S = 16: a subgroup spans two rows of dimension 0, outside the
    fast path's launch condition; the per-work-item path runs it, as the interpreter."""
    prog, nat = native(COPY)
    a = np.arange(2 * 128, dtype=np.float32)
    b = np.zeros(2 * 128, np.float32)
    prog.copy((8, 4), (8, 2), a, b, 16, -1, subgroup_size=16)
    assert not nat.fast_launches and not nat.fast_reruns
    np.testing.assert_array_equal(b[:128], a[:128])
    prog.copy((32,), (32,), a, b, 16, -1, subgroup_size=16)
    assert nat.fast_launches == {"copy": 1}


VADD = """
__kernel void vadd(__global const float *a, __global const float *b, __global float *c, int shift) {
    size_t i = get_global_id(0);
    c[i + shift] = a[i] + b[i];
}
"""


def test_plain_kernel_takes_the_fast_path_with_vector_accesses():
    prog, nat = native(VADD)
    assert nat.execution_mode("vadd") == "subgroup"
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal(1024).astype(np.float32) for _ in range(2))
    c = np.zeros(1024, np.float32)
    prog.vadd((1024,), (64,), a, b, c, 0)
    assert nat.fast_launches == {"vadd": 1}
    np.testing.assert_array_equal(c, a + b)
    # Nothing observes the subgroup: 64 work-items in lockstep; their consecutive
    # elements are one vector access, checked once.
    assert nat.native.plans["vadd"].subgroup_lanes == 64
    assert "load <64 x float>" in nat.native.text and "store <64 x float>" in nat.native.text
    c[:] = 0
    prog.vadd((1024,), (32,), a, b, c, 0)          # local size not a multiple of 64
    # ... runs on a build of 32 lanes (runtime.NativeProgram._narrower)
    assert nat.fast_launches == {"vadd": 2}
    assert nat._narrower_builds[32].native.plans["vadd"].subgroup_lanes == 32
    np.testing.assert_array_equal(c, a + b)
    c[:] = 0
    prog.vadd((1023,), (3,), a, b, c, 0)           # no lane count fits: per work-item
    assert nat.fast_launches == {"vadd": 2}
    np.testing.assert_array_equal(c[:1023], a[:1023] + b[:1023])


SCALE_2D = """
__kernel void scale(__global const float *a, __global float *c, int n, int shift) {
    int i = get_global_id(1), j = get_global_id(0);
    c[i * n + j + shift] = 2.0f * a[i * n + j];
}
"""


def test_two_dimensional_groups_narrower_than_the_lanes_take_a_narrower_build():
    """A 16 x 16 work-group of a kernel compiled for 64 lanes: rows of 16 work-items run
    on a 16-lane build; its faults are reported as before, the output untouched."""
    prog, nat = native(SCALE_2D)
    assert nat.native.plans["scale"].subgroup_lanes == 64
    a = np.arange(64 * 64, dtype=np.float32)
    c = np.zeros_like(a)
    prog.scale((64, 64), (16, 16), a, c, 64, 0)
    np.testing.assert_array_equal(c, 2 * a)
    assert nat.fast_launches == {"scale": 1}
    assert set(nat._narrower_builds) == {16}
    c[:] = 7
    with pytest.raises(clcoop.RuntimeFault, match="out-of-bounds write"):
        prog.scale((64, 64), (16, 16), a, c, 64, 1)
    assert (c == 7).all()


@pytest.mark.slow          # each fault on both engines and both paths
@pytest.mark.parametrize("shift", [3, -1])
def test_plain_fault_on_the_fast_path_is_reported_as_before(shift):
    messages = []
    for prog in (native(VADD)[0], per_work_item(VADD), clcoop.Program(VADD).build()):
        a = np.ones(256, np.float32)
        c = np.full(256, 9.0, np.float32)
        with pytest.raises(clcoop.RuntimeFault) as info:
            prog.vadd((256,), (64,), a, a, c, shift)
        assert (c == 9.0).all()
        messages.append(work_item_line(str(info.value)))
    assert messages[0] == messages[1] == messages[2] != []


@pytest.mark.slow          # a long launch
def test_lanes_storing_to_one_address_leave_the_last_lane():
    source = """
    __kernel void k(__global int *out) {
        int i = get_global_id(0);
        out[i / 4] = i;
        out[64 + i % 3] = i;
    }"""
    prog, nat = native(source)
    out = np.zeros(80, np.int32)
    prog.k((64,), (64,), out)
    assert nat.fast_launches == {"k": 1}
    expect = np.zeros(80, np.int32)
    for i in range(64):      # work-items in order: the last writer of each element wins
        expect[i // 4] = i
        expect[64 + i % 3] = i
    np.testing.assert_array_equal(out, expect)


def test_a_fast_path_llvm_rejects_costs_only_the_fast_path(monkeypatch):
    """An engine bug in a generated fast path (invalid IR) must not send the kernel to the
    interpreter: the module is built again without fast paths."""
    from clcoop.native import subgroup
    real = subgroup.generate

    def broken(mg, plan):
        function, driver = real(mg, plan)
        return function.replace("ret void", "ret i32 0", 1), driver
    monkeypatch.setattr(subgroup, "generate", broken)
    prog, nat = native(VADD)
    assert prog.vadd.engine == "native" and nat.execution_mode("vadd") == "work-item"
    assert nat.native.plans["vadd"].subgroup_reason.startswith("internal: the generated module did not compile")
    a = np.ones(128, np.float32)
    c = np.zeros(128, np.float32)
    prog.vadd((128,), (64,), a, a, c, 0)
    np.testing.assert_array_equal(c, 2.0)


def test_long_kernels_fall_back_to_subgroup_lanes_then_to_work_items(monkeypatch):
    """Varying instructions are copied per lane: past subgroup.MAX_LINES the fast path uses
    the subgroup's lanes instead of 64, then is not taken (compile time)."""
    from clcoop.native import subgroup
    sizes = {}
    for limit in (10 ** 6, 400, 40):
        monkeypatch.setattr(subgroup, "MAX_LINES", limit)
        _, nat = native(VADD)
        plan = nat.native.plans["vadd"]
        sizes[limit] = (plan.subgroup_lanes, nat.execution_mode("vadd"))
    assert sizes[10 ** 6] == (64, "subgroup") and sizes[400] == (16, "subgroup")
    assert sizes[40][1] == "work-item"
    assert "too many per-lane instructions" in plan.subgroup_reason


def test_long_kernels_with_lane_varying_ifs_use_the_subgroups_lanes(monkeypatch):
    """Past subgroup.MAX_WIDE_MASKED_LINES, a kernel with lane-varying ifs is built with the
    subgroup's lanes instead of 64 (compile time of the masked copies); same results."""
    from clcoop.native import subgroup
    n = 1024
    rng = np.random.default_rng(5)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    outs = {}
    for limit in (10 ** 6, 100):
        monkeypatch.setattr(subgroup, "MAX_WIDE_MASKED_LINES", limit)
        prog, nat = native(STENCIL)
        outs[nat.native.plans["k"].subgroup_lanes] = c = np.zeros(n, np.float32)
        prog.k((n,), (128,), a, b, c)
        assert nat.fast_launches == {"k": 1} and not nat.fast_reruns
    assert set(outs) == {64, 16}
    assert outs[64].tobytes() == outs[16].tobytes()


COLUMN_GEMM = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef T mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_A)));
typedef T mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 16, 16, CLK_COOPERATIVE_MATRIX_B)));
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
// A (M x K) column-major (element (m, k) at A[k * M + m]), B (K x N) column-major; C row-major.
// steps: mul-adds of the last A and B tiles loaded (loaded in one block, used in a later one).
__kernel void gemm(__global const T *A, __global const T *B, __global float *C, int M, int N, int K, int steps) {
    const size_t col = get_global_id(0) / get_sub_group_size();
    const size_t row = get_global_id(1);
    mat_c acc = coop_mat_init(0.0f);
    mat_a a;
    mat_b b;
    for (int k = 0; k < K; k += 16) {
        a = coop_mat_load(A + k * M + row * 8, CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR, (size_t)M);
        b = coop_mat_load(B + col * 16 * K + k, CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR, (size_t)K);
        acc = coop_matmul_add(a, b, acc, CLK_COOPERATIVE_MATRIX_OPERAND_NONE);
    }
    for (int s = 0; s < steps; s++)
        acc = coop_matmul_add(a, b, acc, CLK_COOPERATIVE_MATRIX_OPERAND_NONE);
    coop_mat_store(C + row * 8 * N + col * 16, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)N);
}
"""


@pytest.mark.parametrize("elem", ["float", "half"])
def test_column_major_operands_are_read_by_columns(elem):
    """A and B loaded column-major go to the mul-add by columns, where the load found them
    (same block) or in the load's tile (a later block): not transposed first. Against NumPy,
    the interpreter and the per-work-item path, bit for bit."""
    source = COLUMN_GEMM.replace("typedef T", f"typedef {elem}").replace("const T", f"const {elem}")
    dtype = np.float16 if elem == "half" else np.float32
    m, n, k, steps = 32, 64, 64, 2
    rng = np.random.default_rng(3)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    args = (np.ascontiguousarray(a.T), np.ascontiguousarray(b.T))

    def run(prog):
        c = np.zeros((m, n), np.float32)
        prog.gemm(((n // 16) * 16, m // 8), (32, 1), *args, c, m, n, k, steps, subgroup_size=16)
        return c
    prog, nat = native(source)
    c = run(prog)
    assert nat.execution_mode("gemm") == "subgroup" and nat.fast_launches.get("gemm") == 1
    assert not nat.fast_reruns
    # The routine reads B by columns (squares are transposed inside it, coop_ir).
    assert "%bt = alloca" in nat.native.text
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    want = a32 @ b32 + steps * (a32[:, k - 16:] @ b32[k - 16:, :])
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-3)
    assert c.tobytes() == run(clcoop.Program(source).build()).tobytes()
    assert c.tobytes() == run(per_work_item(source)).tobytes()


def test_column_major_operand_fault_is_reported_as_before():
    source = COLUMN_GEMM.replace("typedef T", "typedef half").replace("const T", "const half")
    m, n, k = 16, 16, 32
    a = np.zeros((k, m), np.float16)
    b = np.zeros((n, k - 1), np.float16)          # B's last column is one element short

    def fault(prog):
        c = np.full((m, n), 3.0, np.float32)
        with pytest.raises(clcoop.RuntimeFault) as info:
            prog.gemm((16, m // 8), (16, 1), a, b, c, m, n, k, 0, subgroup_size=16)
        assert (c == 3.0).all()
        return str(info.value)
    prog, nat = native(source)
    message = fault(prog)
    assert nat.fast_reruns.get("gemm") == 1 and not nat.fast_launches
    assert message == fault(per_work_item(source))
    assert work_item_line(message) == work_item_line(fault(clcoop.Program(source).build())) != []


STENCIL = """
__kernel void k(__global const float *a, __global const float *b, __global float *c) {
    int i = get_global_id(0), n = get_global_size(0);
    float s = a[i] * 0.5f;
    if (i >= 2 && i < n - 2)
        s += 0.25f * (a[i - 1] + a[i + 1]) - 0.125f * (a[i - 2] + a[i + 2]) + b[i];
    c[i] = s;
}
"""


def test_lane_varying_if_takes_the_fast_path_with_masks():
    """The stencil's boundary test differs between the lanes of the first and the last
    subgroups: masked there (lanes 0 and 1 would read a[-2], a[-1] out of bounds: masked
    off, no fault, no re-run), unmasked elsewhere. Against NumPy and the interpreter."""
    prog, nat = native(STENCIL)
    assert nat.execution_mode("k") == "subgroup" and nat.native.plans["k"].subgroup_reason is None
    # 64 lanes: the masked copy is short enough (subgroup.MAX_WIDE_MASKED_LINES).
    assert nat.native.plans["k"].subgroup_lanes == 64
    n = 1024
    rng = np.random.default_rng(4)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = np.zeros(n, np.float32)
    prog.k((n,), (128,), a, b, c)
    assert nat.fast_launches.get("k") == 1 and not nat.fast_reruns
    want = a * np.float32(0.5)
    inner = slice(2, n - 2)
    mid = np.float32(0.25) * (a[1:n - 3] + a[3:n - 1]) - np.float32(0.125) * (a[0:n - 4] + a[4:n]) + b[inner]
    want[inner] += mid
    np.testing.assert_allclose(c, want, rtol=1e-6, atol=1e-6)
    c2 = np.zeros(n, np.float32)
    clcoop.Program(STENCIL).build().k((n,), (128,), a, b, c2)
    assert c.tobytes() == c2.tobytes()


IF_ELSE = """
__kernel void k(__global const float *a, __global float *b, __global float *c, int n, int limit) {
    int i = get_global_id(0);
    float v;
    if (a[i] > 0.0f) {
        v = 1.5f;
        b[i] = a[i] * 2.0f;
    } else {
        v = -2.0f;
        c[i + limit - n] = a[i];          // limit > n: out of bounds for the lanes that come here
    }
    b[i + n] = v;
}
"""


def test_lane_varying_if_else_masks_stores_and_selects_the_joined_values():
    prog, nat = native(IF_ELSE)
    assert nat.execution_mode("k") == "subgroup"
    n = 256
    a = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    a[:64] = np.abs(a[:64]) + 1          # subgroups where every lane goes one way, too
    a[64:128] = -np.abs(a[64:128]) - 1

    def run(p):
        b = np.full(2 * n, 7.0, np.float32)
        c = np.full(n, 9.0, np.float32)
        p.k((n,), (64,), a, b, c, n, n)
        return b, c
    b, c = run(prog)
    assert nat.fast_launches.get("k") == 1 and not nat.fast_reruns
    pos = a > 0
    want_b = np.full(2 * n, 7.0, np.float32)
    want_b[:n][pos] = a[pos] * 2
    want_b[n:] = np.where(pos, np.float32(1.5), np.float32(-2.0))
    want_c = np.where(pos, np.float32(9.0), a)
    assert b.tobytes() == want_b.tobytes() and c.tobytes() == want_c.tobytes()
    b2, c2 = run(clcoop.Program(IF_ELSE).build())
    assert b.tobytes() == b2.tobytes() and c.tobytes() == c2.tobytes()


def test_fault_of_a_lane_that_took_a_masked_side_is_reported_as_before():
    n = 128
    a = np.random.default_rng(6).standard_normal(n).astype(np.float32)

    def fault(p):
        b = np.full(2 * n, 7.0, np.float32)
        c = np.full(n, 9.0, np.float32)
        with pytest.raises(clcoop.RuntimeFault) as info:
            p.k((n,), (64,), a, b, c, n, n + 5)
        assert (b == 7.0).all() and (c == 9.0).all()
        return str(info.value)
    prog, nat = native(IF_ELSE)
    message = fault(prog)
    assert nat.fast_reruns.get("k") == 1 and not nat.fast_launches
    assert message == fault(per_work_item(IF_ELSE))
    assert work_item_line(message) == work_item_line(fault(clcoop.Program(IF_ELSE).build())) != []


def test_a_lane_varying_switch_keeps_the_per_work_item_path():
    """Lane-varying ifs and loops are masked (test_native_varying_loops.py); a `switch`
    whose value differs between lanes is not."""
    source = """
    __kernel void k(__global const int *a, __global int *b) {
        int i = get_global_id(0), s = a[i];
        switch (s & 3) {
        case 0: s += 3; break;
        case 1: s *= 5; break;
        case 2: s -= i; break;
        default: s ^= 9;
        }
        b[i] = s;
    }"""
    _, nat = native(source)
    assert nat.execution_mode("k") == "work-item"
    assert "switch" in nat.native.plans["k"].subgroup_reason


def _fast_function(nat, kernel):
    text = nat.native.text
    # (The definition's name quoted or not: the driver calls it as @"k.sg" either way.)
    heads = [h for h in (f'define internal void @"{kernel}.sg"', f"define internal void @{kernel}.sg(") if h in text]
    start = text.index(heads[0])
    return text[start:text.index("\n}", start)]


def test_stencil_neighbours_are_vector_loads():
    """clang -O2 indexes a[i - 1] as `and i64 gid, 2147483647` plus a byte offset: lane j's
    index is lane 0's plus j (the low bits of the mask are all ones), so a[i-2] .. a[i+2]
    and b[i] are each one vector load, not S scalar loads."""
    _, nat = native(STENCIL)
    S = nat.native.plans["k"].subgroup_lanes
    body = _fast_function(nat, "k")
    assert body.count(f"load <{S} x float>") >= 6


@pytest.mark.parametrize("mask", [0x7FFFFFFF, 0x7FFFFFF7, 0x7FFFFFF0, 0x3F])
def test_masked_indices_read_the_lanes_own_elements(mask):
    """Only a mask with the low log2(S) bits set keeps lane j at lane 0 + j; the others
    (low bits cleared) read per lane. Against NumPy."""
    source = f"""
    __kernel void k(__global const float *a, __global float *c) {{
        size_t i = get_global_id(0);
        c[i] = a[i & {mask}UL];
    }}"""
    prog, nat = native(source)
    assert nat.execution_mode("k") == "subgroup"
    n = 512
    a = np.random.default_rng(8).standard_normal(n).astype(np.float32)
    c = np.zeros(n, np.float32)
    prog.k((n,), (64,), a, c)
    assert nat.fast_launches.get("k") == 1
    assert c.tobytes() == a[np.arange(n) & mask].tobytes()


WINDOW = """
__kernel void k(__global const float *a, __global float *c, __global float *d, int lo, int hi) {
    int i = get_global_id(0);
    float v = -1.0f;
    if (i >= lo && i < hi) {
        c[i - lo] = a[i];          // out of bounds of c for every lane outside [lo, hi)
        v = a[i - lo];
    }
    d[i] = v;
}
"""


@pytest.mark.parametrize("lo,hi", [(5, 11), (0, 1), (15, 16), (3, 19), (31, 47)])
def test_masked_consecutive_accesses_check_only_the_lanes_that_take_the_side(lo, hi):
    """A masked side's consecutive load and store are one masked vector access, checked
    from the first to the last lane that took the side: the lanes outside the window
    would be out of bounds of c, and nothing faults or runs again. Against NumPy."""
    prog, nat = native(WINDOW)
    assert nat.execution_mode("k") == "subgroup"
    text = _fast_function(nat, "k")
    assert "@llvm.masked.store." in text and "@llvm.masked.load." in text
    n = 64
    a = np.arange(n, dtype=np.float32) + 0.5
    c = np.full(hi - lo, 9.0, np.float32)
    d = np.zeros(n, np.float32)
    prog.k((n,), (32,), a, c, d, np.int32(lo), np.int32(hi))
    assert nat.fast_launches.get("k") == 1 and not nat.fast_reruns
    assert c.tobytes() == a[lo:hi].tobytes()
    want = np.full(n, -1.0, np.float32)
    want[lo:hi] = a[0:hi - lo]
    assert d.tobytes() == want.tobytes()


def test_a_masked_vector_access_out_of_bounds_for_a_lane_that_takes_the_side_faults_as_before():
    messages = []
    for prog in (native(WINDOW)[0], clcoop.Program(WINDOW).build()):
        c = np.full(4, 9.0, np.float32)       # the window is 6 wide: its last two lanes overrun c
        with pytest.raises(clcoop.RuntimeFault) as info:
            prog.k((64,), (32,), np.ones(64, np.float32), c, np.zeros(64, np.float32), np.int32(5), np.int32(11))
        assert (c == 9.0).all()
        messages.append(work_item_line(str(info.value)))
    assert messages[0] == messages[1] != []


# ---------------------------------------------------------------- work-item ids per driver

IDS = """
__kernel void ids(__global int *grp, __global int *lid, __global int *gid, int d0, int d1, int d2) {
    size_t i = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0);
    grp[i] = get_group_id(0) + 100 * get_group_id(1) + 10000 * get_group_id(2);
    lid[i] = get_local_id(0) + 1000 * get_local_id(1) + 100000 * get_local_id(2);
    gid[i] = get_global_id(0) + 1000 * get_global_id(1) + 1000000 * get_global_id(2);
}
"""
# The dimensions as arguments: each lane reads its own ids from its own context.
IDS_PER_LANE = IDS.replace("(0)", "(d0)").replace("(1)", "(d1)").replace("(2)", "(d2)")
# A barrier first: the coroutine drivers.
IDS_BARRIER = IDS.replace("size_t i =", "barrier(CLK_LOCAL_MEM_FENCE);\n    size_t i =")


def ids_oracle(global_size, local_size):
    """The three outputs of IDS in NumPy, indexed as the kernel stores them."""
    size = tuple(global_size) + (1,) * (3 - len(global_size))
    local = tuple(local_size) + (1,) * (3 - len(local_size))
    z, y, x = np.meshgrid(*(np.arange(n) for n in size[::-1]), indexing="ij")
    g = [v.ravel() for v in (x, y, z)]
    grp = g[0] // local[0] + 100 * (g[1] // local[1]) + 10000 * (g[2] // local[2])
    lid = g[0] % local[0] + 1000 * (g[1] % local[1]) + 100000 * (g[2] % local[2])
    gid = g[0] + 1000 * g[1] + 1000000 * g[2]
    return [v.astype(np.int32) for v in (grp, lid, gid)]


# 1-D launches (no division for the group ids), 2-D and 3-D ones with one group in
# dimension 1 or 2 only, a number of groups along dimension 0 no multiple of the band (subgroup.BAND, 4).
ID_LAUNCHES = [((4096,), (64,)), ((4096,), (256,)), ((2048,), (1024,)), ((4096,), (32,)),
               ((128, 8), (64, 2)), ((192, 4), (64, 1)), ((640, 3), (64, 3)), ((64, 4, 3), (32, 2, 1)),
               ((128, 2, 4), (64, 2, 1)), ((128, 4, 1), (64, 1, 1)), ((48, 2, 2), (16, 1, 2))]


@pytest.mark.slow          # every driver on both paths; test_ids_match_the_interpreter stays quick
@pytest.mark.parametrize("source", [IDS, IDS_PER_LANE, IDS_BARRIER], ids=["uniform", "per-lane", "barrier"])
@pytest.mark.parametrize("fast", [True, False])
def test_ids_of_every_driver_match_numpy(source, fast):
    """Group, local and global ids in 1-D, 2-D and 3-D launches, on the fast path (64 lanes
    and the narrower builds) and on the per-work-item path, against NumPy."""
    prog, nat = native(source)
    assert nat.execution_mode("ids") == "subgroup", nat.native.plans["ids"].subgroup_reason
    if not fast:
        nat.subgroup_drivers.clear()
    for global_size, local_size in ID_LAUNCHES:
        outs = [np.full(int(np.prod(global_size)), -1, np.int32) for _ in range(3)]
        prog.ids(global_size, local_size, *outs, np.int32(0), np.int32(1), np.int32(2))
        for got, want in zip(outs, ids_oracle(global_size, local_size)):
            np.testing.assert_array_equal(got, want, err_msg=f"{global_size} {local_size}")
    # (The narrower builds count their launches in the same dictionary.)
    assert nat.fast_launches.get("ids", 0) == (len(ID_LAUNCHES) if fast else 0) and not nat.fast_reruns
    if fast:
        assert nat.native.plans["ids"].subgroup_lanes == 64 and 16 in nat._narrower_builds


def test_ids_match_the_interpreter():
    """A 2-D and a 3-D launch bit for bit as the interpreter (the reference)."""
    interp = clcoop.Program(IDS_PER_LANE).build()
    prog, _ = native(IDS_PER_LANE)
    for global_size, local_size in (((128, 4), (64, 2)), ((64, 2, 3), (32, 1, 3))):
        results = []
        for p in (prog, interp):
            outs = [np.zeros(int(np.prod(global_size)), np.int32) for _ in range(3)]
            p.ids(global_size, local_size, *outs, np.int32(0), np.int32(1), np.int32(2))
            results.append(b"".join(o.tobytes() for o in outs))
        assert results[0] == results[1]
