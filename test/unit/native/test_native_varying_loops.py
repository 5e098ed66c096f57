"""Loops whose trip count differs between the lanes of a subgroup, on the native engine's
subgroup-wide fast path (clcoop/native/regions.py): they run masked while any lane is in
them. Each kernel takes the fast path (no re-run) and agrees bit for bit with a NumPy
oracle and with the interpreter; faults and the instruction limit are reported as the
interpreter reports them, the caller's arrays untouched."""
import numpy as np
import pytest

import clcoop

from interp_helpers import clang_ir_text

N = 256
LOCAL = 64


def build(source, producer="clcoop", engine="native"):
    if producer == "clang-O2":
        return clcoop.Program.from_ir(clang_ir_text(source, 2), engine=engine)
    return clcoop.Program(source).build(engine=engine)


def run_both(source, args, producer="clcoop", n=N, local=LOCAL):
    """(native arrays, interpreter arrays, native program's NativeProgram): the kernel k on
    copies of args, asserting the fast path ran it without a re-run."""
    prog = build(source, producer)
    nat = prog._native
    assert nat.execution_mode("k") == "subgroup", nat.native.plans["k"].subgroup_reason
    before = nat.fast_launches.get("k", 0)
    native_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    prog.k((n,), (local,), *native_args)
    assert nat.fast_launches.get("k", 0) == before + 1 and not nat.fast_reruns
    interp = build(source, producer, engine="interp")
    interp_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    interp.k((n,), (local,), *interp_args)
    for x, y in zip(native_args, interp_args):
        if isinstance(x, np.ndarray):
            assert x.tobytes() == y.tobytes()
    return native_args, nat


PRODUCERS = ["clcoop", "clang-O2"]


def producers(quick):
    """PRODUCERS as pytest params, all but `quick` marked slow: the default run takes the
    producers in turn from test to test (both IR shapes reach the regions); --all and CI
    run each test with both."""
    return [p if p == quick else pytest.param(p, marks=pytest.mark.slow) for p in PRODUCERS]

TRIP_FROM_ID = """
__kernel void k(__global const int *a, __global int *b) {
    int i = get_global_id(0), s = 0;
    for (int t = 0; t < i % 7 + a[i]; t++)
        s = s * 3 + t;
    b[i] = s;
}"""


@pytest.mark.parametrize("producer", producers("clcoop"))
def test_trip_count_from_the_global_id(producer):
    a = (np.arange(N) % 3).astype(np.int32)
    (_, b), nat = run_both(TRIP_FROM_ID, [a, np.zeros(N, np.int32)], producer)
    want = np.zeros(N, np.int32)
    for i in range(N):
        s = 0
        for t in range(i % 7 + a[i]):
            s = s * 3 + t
        want[i] = s
    assert b.tobytes() == want.tobytes()
    # The subgroup's lanes (masked code is long at 64 lanes).
    assert nat.native.plans["k"].subgroup_lanes == nat.subgroup_size


WHILE = """
__kernel void k(__global const float *x0, __global float *out, __global int *count, float eps) {
    int i = get_global_id(0);
    float x = x0[i];
    int c = 0;
    while (x > eps) {
        x = x * 0.5f;
        c++;
    }
    out[i] = x;
    count[i] = c;
}"""


@pytest.mark.parametrize("producer", producers("clang-O2"))
def test_while_loop_with_a_data_dependent_exit(producer):
    x0 = np.random.default_rng(1).uniform(0, 1000, N).astype(np.float32)
    x0[:16] = 0.0                       # a subgroup where no lane enters the loop
    (_, out, count, _), _ = run_both(WHILE, [x0, np.zeros(N, np.float32), np.zeros(N, np.int32),
                                             np.float32(0.3)], producer)
    want_x, want_c = x0.copy(), np.zeros(N, np.int32)
    for i in range(N):
        while want_x[i] > np.float32(0.3):
            want_x[i] = want_x[i] * np.float32(0.5)
            want_c[i] += 1
    assert out.tobytes() == want_x.tobytes() and count.tobytes() == want_c.tobytes()


TRIANGULAR = """
__kernel void k(__global const float *a, __global float *out, int n) {
    int i = get_global_id(0);
    for (int r = 0; r < 3; r++) {
        float s = 0.0f;
        for (int k = 0; k <= i; k++)
            s += a[r * n + k];
        out[r * n + i] = s;
    }
}"""


@pytest.mark.parametrize("producer", producers("clcoop"))
def test_triangular_loop_nested_in_a_uniform_loop(producer):
    a = np.random.default_rng(2).standard_normal(3 * N).astype(np.float32)
    (_, out, _), _ = run_both(TRIANGULAR, [a, np.zeros(3 * N, np.float32), np.int32(N)], producer)
    want = np.zeros(3 * N, np.float32)
    for r in range(3):
        for i in range(N):
            s = np.float32(0)
            for k in range(i + 1):
                s = np.float32(s + a[r * N + k])
            want[r * N + i] = s
    assert out.tobytes() == want.tobytes()


STORE = """
__kernel void k(__global const int *a, __global int *b, int n) {
    int i = get_global_id(0);
    for (int t = 0; t < i % 7; t++)
        b[t * n + i] = a[i] * 10 + t;
}"""


@pytest.mark.parametrize("producer", producers("clang-O2"))
def test_loop_with_a_store_inside(producer):
    a = np.arange(N, dtype=np.int32)
    (_, b, _), _ = run_both(STORE, [a, np.full(7 * N, -5, np.int32), np.int32(N)], producer)
    want = np.full((7, N), -5, np.int32)
    for i in range(N):
        for t in range(i % 7):
            want[t, i] = a[i] * 10 + t
    assert b.tobytes() == want.tobytes()


BREAK = """
__kernel void k(__global const int *a, __global int *pos, int m) {
    int i = get_global_id(0);
    int p = -1;
    for (int k = 0; k < m; k++) {
        if (a[i * m + k] == i % 5) {
            p = k;
            break;
        }
    }
    pos[i] = p;
}"""


@pytest.mark.parametrize("producer", producers("clcoop"))
def test_loop_with_break(producer):
    m = 10
    a = np.random.default_rng(3).integers(0, 7, N * m).astype(np.int32)
    (_, pos, _), _ = run_both(BREAK, [a, np.zeros(N, np.int32), np.int32(m)], producer)
    want = np.full(N, -1, np.int32)
    for i in range(N):
        hits = np.nonzero(a[i * m:(i + 1) * m] == i % 5)[0]
        if len(hits):
            want[i] = hits[0]
    assert pos.tobytes() == want.tobytes()


IF_IN_LOOP = """
__kernel void k(__global const int *a, __global int *b, __global int *flag) {
    int i = get_global_id(0);
    int s = 0, t = 0;
    for (int k = 0; k < (i & 15); k++) {
        int v = a[(i + k) % 64];
        if (v > k) {
            s += v / (k + 1);
            if (v > 17)
                flag[0] = v;      // a uniform address: only where some lane gets here
        } else {
            t += k;
        }
    }
    b[i] = s * 1000 + t;
}"""


@pytest.mark.parametrize("producer", producers("clang-O2"))
def test_nested_ifs_and_uniform_stores_in_a_loop(producer):
    a = np.random.default_rng(4).integers(-5, 18, 64).astype(np.int32)
    a[a > 17] = 17                   # no lane ever stores the flag
    (_, b, flag), _ = run_both(IF_IN_LOOP, [a, np.zeros(N, np.int32), np.full(1, -9, np.int32)], producer)
    want = np.zeros(N, np.int32)
    for i in range(N):
        s = t = 0
        for k in range(i & 15):
            v = int(a[(i + k) % 64])
            if v > k:
                s += v // (k + 1)
            else:
                t += k
        want[i] = s * 1000 + t
    assert b.tobytes() == want.tobytes() and flag[0] == -9


GUARDED = """
__kernel void k(__global const float *a, __global float *b, int n) {
    int i = get_global_id(0);
    float s = -1.0f;
    if (i % 3 == 0) {
        s = 0.0f;
        for (int k = 0; k < n; k++)
            s += a[k] * (float)k;
    }
    b[i] = s;
}"""


@pytest.mark.parametrize("producer", producers("clcoop"))
def test_uniform_loop_under_a_lane_varying_if(producer):
    a = np.random.default_rng(5).standard_normal(40).astype(np.float32)
    (_, b, _), _ = run_both(GUARDED, [a, np.zeros(N, np.float32), np.int32(40)], producer)
    s = np.float32(0)
    for k in range(40):
        s = np.float32(s + np.float32(a[k] * np.float32(k)))
    want = np.where(np.arange(N) % 3 == 0, s, np.float32(-1)).astype(np.float32)
    assert b.tobytes() == want.tobytes()


MASKED_DIVISION = """
__kernel void k(__global int *b) {
    int i = get_global_id(0);
    int m = i % 7, s = 0;
    for (int t = 0; t < m; t++)
        s += 100 / (m - t);       // zero only after the lane left the loop
    b[i] = s;
}"""


def test_a_lane_that_left_the_loop_does_not_divide_by_zero():
    (b,), _ = run_both(MASKED_DIVISION, [np.zeros(N, np.int32)])
    want = [sum(100 // (i % 7 - t) for t in range(i % 7)) for i in range(N)]
    assert b.tolist() == want


OVERRUN = """
__kernel void k(__global const int *a, __global int *b, int n) {
    int i = get_global_id(0);
    int s = 0;
    for (int t = 0; t <= i % 9; t++) {
        s += a[i + t * 16];
        b[i] = s;
    }
}"""


def per_work_item(source, producer):
    prog = build(source, producer)
    prog._native.subgroup_drivers.clear()
    return prog


def work_item_line(text):
    return [line.strip() for line in text.splitlines() if "work-item global id" in line]


def fault(prog, a, n):
    b = np.full(N, 7, np.int32)
    with pytest.raises(clcoop.RuntimeFault) as info:
        prog.k((N,), (LOCAL,), a, b, np.int32(n))
    assert (b == 7).all()                # the caller's array is untouched
    return str(info.value)


@pytest.mark.parametrize("producer", producers("clang-O2"))
def test_a_lane_out_of_bounds_in_the_loop_faults_as_in_the_interpreter(producer):
    a = np.arange(N + 16 * 7, dtype=np.int32)     # lanes with i % 9 == 8 near the end overrun
    prog = build(OVERRUN, producer)
    nat = prog._native
    message = fault(prog, a, N)
    assert nat.fast_reruns.get("k") == 1 and not nat.fast_launches
    assert message == fault(per_work_item(OVERRUN, producer), a, N)
    interp = fault(build(OVERRUN, producer, engine="interp"), a, N)
    if producer == "clcoop":       # with debug information: the source line, word for word
        assert message == interp
    assert message.splitlines()[0] == interp.splitlines()[0]
    assert work_item_line(message) == work_item_line(interp) != []
    assert "out-of-bounds read" in message
    # In bounds: the same kernel on the fast path, against NumPy.
    big = np.arange(N + 16 * 9, dtype=np.int32)
    b = np.zeros(N, np.int32)
    prog.k((N,), (LOCAL,), big, b, np.int32(N))
    assert nat.fast_launches.get("k") == 1
    want = [sum(int(big[i + t * 16]) for t in range(i % 9 + 1)) for i in range(N)]
    assert b.tolist() == want


ENDLESS = """
__kernel void k(__global const int *a, __global int *b) {
    int i = get_global_id(0);
    int x = a[i], c = 0;
    while (x != 1) {              // a[i] == 0 never gets there
        x = x % 2 ? 3 * x + 1 : x / 2;
        c++;
    }
    b[i] = c;
}"""


def test_an_endless_loop_in_one_lane_hits_the_instruction_limit():
    a = np.arange(1, N + 1, dtype=np.int32)
    a[37] = 0
    messages = []
    for prog in (build(ENDLESS), clcoop.Program(ENDLESS).build()):
        b = np.full(N, 3, np.int32)
        with pytest.raises(clcoop.RuntimeFault) as info:
            prog.k((N,), (LOCAL,), a, b, instruction_limit=20000)
        assert (b == 3).all()
        messages.append(str(info.value))
    assert "instruction limit" in messages[0] and messages[0] == messages[1]
    nat = build(ENDLESS)._native
    assert nat.execution_mode("k") == "subgroup"
    a[37] = 5
    b = np.zeros(N, np.int32)
    prog = clcoop.Program(ENDLESS).build(engine="native")
    prog.k((N,), (LOCAL,), a, b)
    assert prog._native.fast_launches.get("k") == 1

    def steps(x):
        c = 0
        while x != 1:
            x = 3 * x + 1 if x % 2 else x // 2
            c += 1
        return c
    assert b.tolist() == [steps(int(x)) for x in a]


NESTED = """
__kernel void k(__global const int *a, __global int *b, int n) {
    int i = get_global_id(0), s = 0;
    while (s < a[i])                  // lane-varying
        for (int t = 0; t <= s % 5; t++)   // lane-varying, in a lane-varying loop
            s += a[(t + i) % n] + 1;
    b[i] = s;
}"""


@pytest.mark.parametrize("producer", producers("clcoop"))
def test_loop_nested_in_a_lane_varying_loop(producer):
    a = np.random.default_rng(7).integers(0, 40, N).astype(np.int32)
    (_, b, _), _ = run_both(NESTED, [a, np.zeros(N, np.int32), np.int32(N)], producer)
    want = np.zeros(N, np.int32)
    for i in range(N):
        s = 0
        while s < a[i]:
            t = 0
            while t <= s % 5:
                s += int(a[(t + i) % N]) + 1
                t += 1
        want[i] = s
    assert b.tobytes() == want.tobytes()


def test_masked_regions_too_long_to_compile_keep_the_per_work_item_path():
    source = _RandomKernel(np.random.default_rng(0)).source()     # 6 loops, 11 ifs
    nat = build(source)._native
    assert nat.execution_mode("k") == "work-item"
    assert "too many per-lane instructions under lane-varying branches" in nat.native.plans["k"].subgroup_reason


def test_a_lane_varying_switch_keeps_the_per_work_item_path():
    source = """
    __kernel void k(__global const int *a, __global int *b) {
        int i = get_global_id(0), s = 0;
        for (int t = 0; t < a[i]; t++)
            switch ((i + t) & 3) {
            case 0: s += 3; break;
            case 1: s *= 5; break;
            case 2: s -= t; break;
            default: s ^= 9;
            }
        b[i] = s;
    }"""
    nat = build(source)._native
    assert nat.execution_mode("k") == "work-item"
    assert "switch" in nat.native.plans["k"].subgroup_reason


class _RandomKernel:
    """Random integer kernels of nested ifs and loops whose trip counts, `break`s and
    `continue`s depend on the lane's id and data, storing into the lane's own column."""

    def __init__(self, rng):
        self.rng, self.loop_vars, self.loops, self.depth = rng, [], 0, 0

    def expr(self, d=0):
        r = self.rng.random()
        if d > 2 or r < 0.3:
            return str(self.rng.choice(["x0", "x1", "x2", "i", str(self.rng.integers(-5, 9))] + self.loop_vars))
        if r < 0.45:
            return f"a[({self.expr(d + 1)}) & 63]"
        op = str(self.rng.choice(["+", "-", "*", "^", "&", "|", ">>", "/", "%"]))
        if op == ">>":
            return f"({self.expr(d + 1)} >> ({self.expr(d + 1)} & 7))"
        if op in "/%":
            return f"({self.expr(d + 1)} {op} (({self.expr(d + 1)} & 15) | 1))"
        return f"({self.expr(d + 1)} {op} {self.expr(d + 1)})"

    def cond(self):
        k = self.rng.integers(3)
        return [f"{self.expr()} < {self.expr()}", f"({self.expr()} & 3) == 0", f"{self.expr()} != {self.expr()}"][k]

    def statements(self, n):
        return "".join(self.statement() for _ in range(n))

    def statement(self):
        r, pad = self.rng.random(), "    " * (self.depth + 1)
        if self.depth < 3 and r < 0.2:
            self.depth += 1
            then = self.statements(self.rng.integers(1, 4))
            other = self.statements(self.rng.integers(1, 3)) if self.rng.random() < 0.5 else None
            self.depth -= 1
            text = f"{pad}if ({self.cond()}) {{\n{then}{pad}}}"
            return text + (f" else {{\n{other}{pad}}}\n" if other else "\n")
        if self.depth < 3 and r < 0.4:
            t = f"t{self.loops}"
            self.loops += 1
            bound = [f"({self.expr()} & 7)", "n", "(i % 5)", "(x0 & 3) + (i & 3)", "3"][self.rng.integers(5)]
            self.loop_vars.append(t)
            self.depth += 1
            body = self.statements(self.rng.integers(1, 4))
            if self.rng.random() < 0.4:
                body += f"{pad}    if ({self.cond()}) break;\n"
            if self.rng.random() < 0.2:
                body += f"{pad}    if ({self.cond()}) continue;\n"
            body += self.statements(self.rng.integers(0, 3))
            self.depth -= 1
            self.loop_vars.pop()
            return f"{pad}for (int {t} = 0; {t} < {bound}; {t}++) {{\n{body}{pad}}}\n"
        if r < 0.55:
            return f"{pad}aux[(({self.expr()}) & 7) * {N} + i] = {self.expr()};\n"
        return f"{pad}x{self.rng.integers(3)} = {self.expr()};\n"

    def source(self):
        body = self.statements(self.rng.integers(2, 6))
        return f"""__kernel void k(__global const int *a, __global int *out, __global int *aux, int n) {{
    int i = get_global_id(0);
    int x0 = a[i & 63], x1 = i, x2 = n;
{body}    out[i] = x0 ^ (x1 * 3) ^ (x2 * 7);
}}"""


# Seeds whose kernels take the fast path (2, 9, 13, 44: loops in lane-varying loops; others
# are too long for the masked regions' line budget).
FUZZ_SEEDS = [1, 2, 9, 13, 15, 27, 44]


@pytest.mark.slow          # random kernels on three paths (fuzz)
@pytest.mark.parametrize("seed", FUZZ_SEEDS)
def test_random_lane_varying_control_flow_on_three_paths(seed):
    """The fast path, the per-work-item path and the interpreter agree bit for bit."""
    source = _RandomKernel(np.random.default_rng(seed)).source()
    a = np.random.default_rng(seed).integers(-20, 40, 64).astype(np.int32)
    fast = build(source)
    assert fast._native.execution_mode("k") == "subgroup", (fast._native.native.plans["k"].subgroup_reason, source)
    results = []
    for prog in (fast, per_work_item(source, "clcoop"), build(source, engine="interp")):
        out, aux = np.zeros(N, np.int32), np.zeros(8 * N, np.int32)
        prog.k((N,), (LOCAL,), a, out, aux, np.int32(seed % 6))
        results.append(out.tobytes() + aux.tobytes())
    assert fast._native.fast_launches.get("k") == 1 and not fast._native.fast_reruns
    assert results[0] == results[1] == results[2], source
