"""cl_khr_integer_dot_product: every dot / dot_acc_sat overload of char4 and uchar4 and
every packed form, against NumPy (exact products in int64, saturation by clipping), in both
engines (the native engine compiles them: no fallback), and clang-22's IR in the
interpreter against clcoop's."""
import numpy as np
import pytest

import clcoop
from interp_helpers import clang_ir_text

RNG = np.random.default_rng(17263)
N = 256
INT_MIN, INT_MAX, UINT_MAX = -2 ** 31, 2 ** 31 - 1, 2 ** 32 - 1

SOURCE = """
kernel void vec(global const char4 *a, global const char4 *b, global const int *acc, global const uint *uacc,
                global int *o, global uint *u) {
  size_t i = get_global_id(0);
  char4 x = a[i], y = b[i];
  uchar4 ux = as_uchar4(x), uy = as_uchar4(y);
  o[8 * i + 0] = dot(x, y);
  u[4 * i + 0] = dot(ux, uy);
  o[8 * i + 1] = dot(x, uy);
  o[8 * i + 2] = dot(ux, y);
  o[8 * i + 3] = dot_acc_sat(x, y, acc[i]);
  u[4 * i + 1] = dot_acc_sat(ux, uy, uacc[i]);
  o[8 * i + 4] = dot_acc_sat(x, uy, acc[i]);
  o[8 * i + 5] = dot_acc_sat(ux, y, acc[i]);
}
kernel void packed(global const uint *a, global const uint *b, global const int *acc, global const uint *uacc,
                   global int *o, global uint *u) {
  size_t i = get_global_id(0);
  uint x = a[i], y = b[i];
  u[4 * i + 0] = dot_4x8packed_uu_uint(x, y);
  o[8 * i + 0] = dot_4x8packed_ss_int(x, y);
  o[8 * i + 1] = dot_4x8packed_su_int(x, y);
  o[8 * i + 2] = dot_4x8packed_us_int(x, y);
  u[4 * i + 1] = dot_acc_sat_4x8packed_uu_uint(x, y, uacc[i]);
  o[8 * i + 3] = dot_acc_sat_4x8packed_ss_int(x, y, acc[i]);
  o[8 * i + 4] = dot_acc_sat_4x8packed_su_int(x, y, acc[i]);
  o[8 * i + 5] = dot_acc_sat_4x8packed_us_int(x, y, acc[i]);
}
"""


@pytest.fixture(scope="module")
def data():
    a = RNG.integers(-128, 128, (N, 4)).astype(np.int8)
    b = RNG.integers(-128, 128, (N, 4)).astype(np.int8)
    a[0], b[0] = -128, -128                  # the largest products
    acc = RNG.integers(INT_MIN, INT_MAX, N, endpoint=True).astype(np.int32)
    acc[:4] = [INT_MAX, INT_MIN, INT_MAX - 10, INT_MIN + 10]    # saturating both ways
    uacc = RNG.integers(0, UINT_MAX, N, endpoint=True).astype(np.uint32)
    uacc[:2] = [UINT_MAX, UINT_MAX - 5]
    return a, b, acc, uacc


def oracle(a, b, acc, uacc):
    s, u = a.astype(np.int64), a.view(np.uint8).astype(np.int64)
    t, v = b.astype(np.int64), b.view(np.uint8).astype(np.int64)
    dot = lambda x, y: (x * y).sum(axis=1)                              # noqa: E731
    acc64, uacc64 = acc.astype(np.int64), uacc.astype(np.int64)
    o = np.zeros((N, 8), np.int64)
    w = np.zeros((N, 4), np.int64)
    o[:, 0], w[:, 0], o[:, 1], o[:, 2] = dot(s, t), dot(u, v), dot(s, v), dot(u, t)
    o[:, 3] = np.clip(dot(s, t) + acc64, INT_MIN, INT_MAX)
    w[:, 1] = np.clip(dot(u, v) + uacc64, 0, UINT_MAX)
    o[:, 4] = np.clip(dot(s, v) + acc64, INT_MIN, INT_MAX)
    o[:, 5] = np.clip(dot(u, t) + acc64, INT_MIN, INT_MAX)
    return o.astype(np.int32), w.astype(np.uint32)


def run(program, kernel, a, b, acc, uacc):
    o = np.zeros((N, 8), np.int32)
    u = np.zeros((N, 4), np.uint32)
    if kernel == "vec":
        args = (a, b)
    else:        # byte k of the uint is component k
        args = (a.view(np.uint32).reshape(N), b.view(np.uint32).reshape(N))
    getattr(program, kernel)((N,), (16,), *args, acc, uacc, o, u)
    return o, u


ENGINES = ["interp", pytest.param("native", marks=pytest.mark.slow)]    # native build: ~40 s


@pytest.fixture(scope="module")
def programs():
    return {}


def built(programs, engine):
    if engine not in programs:
        programs[engine] = clcoop.Program(SOURCE).build(engine=engine)
    return programs[engine]


@pytest.mark.parametrize("engine", ENGINES)
def test_vector_forms_match_numpy(data, programs, engine):
    o, u = run(built(programs, engine), "vec", *data)
    eo, eu = oracle(*data)
    np.testing.assert_array_equal(o[:, :6], eo[:, :6])
    np.testing.assert_array_equal(u[:, :2], eu[:, :2])


@pytest.mark.parametrize("engine", ENGINES)
def test_packed_forms_match_numpy(data, programs, engine):
    o, u = run(built(programs, engine), "packed", *data)
    eo, eu = oracle(*data)
    # packed slots: ss -> o0, su -> o1, us -> o2, acc ss/su/us -> o3/o4/o5
    np.testing.assert_array_equal(o[:, :6], eo[:, :6])
    np.testing.assert_array_equal(u[:, :2], eu[:, :2])


def test_native_engine_compiles_them():
    """No fallback; one saturating form checked quickly (the full set: the slow tests)."""
    source = "kernel void k(global char4 *a, global int *o) { o[0] = dot_acc_sat(a[0], a[1], o[1]); }"
    program = clcoop.Program(source).build(engine="native")
    assert program.k.engine == "native"
    o = np.array([0, INT_MAX - 3], np.int32)
    program.k((1,), (1,), np.array([[-128, 127, 1, 2], [-128, 1, 1, 1]], np.int8), o)
    assert o[0] == INT_MAX                     # 16384 + 127 + 1 + 2 added to INT_MAX - 3


@pytest.mark.parametrize("kernel", ["vec", "packed"])
def test_clang_ir_gives_the_same_results(data, kernel):
    clang = run(clcoop.Program.from_ir(clang_ir_text(SOURCE)), kernel, *data)
    ours = run(clcoop.Program(SOURCE).build(engine="interp"), kernel, *data)
    for g, e in zip(clang, ours):
        np.testing.assert_array_equal(g, e)
