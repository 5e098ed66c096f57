"""OpenCL C that real kernels from elsewhere use (issue 15): each test runs clcoop's build
against NumPy and, where clang-22 is installed, clang-22's IR run in the same interpreter."""
import numpy as np
import pytest

import clcoop
from interp_helpers import clang_ir_text, CLANG


def run_both(source, kernel, global_size, *buffers, local_size=None):
    """Run `kernel` built by clcoop (and by clang-22 when present) on copies of the buffers."""
    builds = [clcoop.Program(source).build()]
    if CLANG is not None:
        builds.append(clcoop.Program.from_ir(clang_ir_text(source)))
    results = []
    for prog in builds:
        copies = [b.copy() for b in buffers]
        getattr(prog, kernel)((global_size,), local_size and (local_size,), *copies)
        results.append(copies)
    return results


@pytest.mark.parametrize("elem, dtype", [("float", np.float32), ("half", np.float16)])
def test_ext_vector_type_typedef_is_a_vector(elem, dtype):
    source = (("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" if elem == "half" else "")
              + f"typedef {elem} v4 __attribute__((ext_vector_type(4)));\n"
              "kernel void scale(global v4 *o, global const v4 *i) {\n"
              "  size_t g = get_global_id(0); o[g] = i[g] * (v4)(2, 3, 4, 5); }\n")
    src = np.arange(16, dtype=dtype)
    expected = src * np.tile(np.array([2, 3, 4, 5], dtype=dtype), 4)
    for out, _ in run_both(source, "scale", 4, np.zeros(16, dtype), src):
        np.testing.assert_array_equal(out, expected)


# ------------------------------------------------------------------ FP contraction
CONTRACT_SOURCE = """
kernel void k(global float *o, global const float *a, global const float *b, global const float *c) {
  size_t i = get_global_id(0);
  o[i] = a[i] * b[i] + c[i];
  o[i + 4] = c[i] - a[i] * b[i];
}
"""


def test_default_build_contracts_and_ffp_contract_off_does_not():
    assert "@llvm.fmuladd.f32" in clcoop.Program(CONTRACT_SOURCE).build(options=["-O0"]).ir
    off = clcoop.Program(CONTRACT_SOURCE).build(options=["-O0", "-ffp-contract=off"]).ir
    assert "fmuladd" not in off and "fmul float" in off
    fast = clcoop.Program(CONTRACT_SOURCE).build(options="-O0 -ffp-contract=fast").ir
    assert "fmul contract float" in fast and "fadd contract float" in fast


def test_bad_ffp_contract_value_is_an_argument_error():
    with pytest.raises(clcoop.ArgumentError, match="invalid value 'maybe' in '-ffp-contract=maybe'"):
        clcoop.Program(CONTRACT_SOURCE).build(options=["-ffp-contract=maybe"])


def test_interpreter_evaluates_fmuladd_unfused():
    """docs/ir-conventions.md: the product is rounded, then the sum. (1+2^-12)^2 - (1+2^-11)
    is 2^-24 fused and 0 unfused in float."""
    x = np.float32(1 + 2.0 ** -12)
    a, b = np.full(4, x, np.float32), np.full(4, x, np.float32)
    c = np.full(4, -(1 + 2.0 ** -11), np.float32)
    prog = clcoop.Program(CONTRACT_SOURCE).build(options=["-O0"])
    assert "@llvm.fmuladd.f32" in prog.ir
    out = np.zeros(8, np.float32)
    prog.k((4,), None, out, a, b, c)
    unfused = np.float32(a * b) + c
    assert unfused[0] == 0
    np.testing.assert_array_equal(out[:4], unfused)
    np.testing.assert_array_equal(out[4:], c - np.float32(a * b))


def test_contracted_build_matches_clang_ffp_contract_off_bit_for_bit():
    """clang-22's IR with -ffp-contract=off is the differential baseline (issue 15)."""
    if CLANG is None:
        pytest.skip("clang-22 is not installed")
    import subprocess
    from interp_helpers import _clang_cmd
    clang = subprocess.run(_clang_cmd(0, "spir64-unknown-unknown") + ["-ffp-contract=off", "-", "-o", "-"],
                           input=CONTRACT_SOURCE, check=True, capture_output=True, text=True).stdout
    rng = np.random.default_rng(15)
    a, b, c = (rng.standard_normal(4).astype(np.float32) for _ in range(3))
    outs = []
    for prog in (clcoop.Program(CONTRACT_SOURCE).build(options=["-O0"]), clcoop.Program.from_ir(clang)):
        out = np.zeros(8, np.float32)
        prog.k((4,), None, out, a, b, c)
        outs.append(out)
    np.testing.assert_array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32))


def test_event_t_with_async_copies_and_wait_group_events():
    source = """
kernel void k(global float *o, global const float *in) {
  local float l[8];
  event_t evs[2];
  evs[0] = async_work_group_copy(l, in + get_group_id(0) * 8, 4, 0);
  evs[1] = async_work_group_strided_copy(l + 4, in + get_group_id(0) * 8 + 4, 4, 1, evs[0]);
  wait_group_events(2, evs);
  l[get_local_id(0)] *= 2;
  barrier(CLK_LOCAL_MEM_FENCE);
  event_t e = async_work_group_copy(o + get_group_id(0) * 8, (const local float *)l, 8, 0);
  wait_group_events(1, &e);
}
"""
    src = np.arange(16, dtype=np.float32)
    for (out, _) in run_both(source, "k", 16, np.zeros(16, np.float32), src, local_size=8):
        np.testing.assert_array_equal(out, src * 2)


def test_clang_builtins_agree_with_clang_and_numpy():
    source = """
kernel void k(global int *o, global float *f, global const int *xs, global const float *ys) {
  size_t g = get_global_id(0);
  int x = xs[g]; float y = ys[g];
  int a[4]; int b[4] = {1, 2, 3, 4};
  __builtin_memcpy(a, b, sizeof(a));
  if (__builtin_expect(x > 3, 0)) a[0] = 10;
  o[g * 4 + 0] = a[0] + a[2];
  o[g * 4 + 1] = __builtin_clz(x) * 1000 + __builtin_ctz(x) * 10 + __builtin_popcount(x);
  o[g * 4 + 2] = __builtin_isnan(y) + 2 * __builtin_isinf(y) + 4 * __builtin_isfinite(y);
  __builtin_memset(a, 0, sizeof(a));
  o[g * 4 + 3] = a[1] + __builtin_clzl((long)x);
  f[g] = __builtin_astype(x, float) + __builtin_fabsf(y) * 0.0f;
  __builtin_assume(x != 0);
  if (x == 0) __builtin_unreachable();
}
"""
    xs = np.array([1, 6, 0x40000, -1], np.int32)
    ys = np.array([1.5, np.nan, -np.inf, -0.0], np.float32)
    u = xs.view(np.uint32).astype(np.uint64)
    clz = np.array([32 - int(v).bit_length() for v in u])
    ctz = np.array([(int(v) & -int(v)).bit_length() - 1 for v in u])
    pop = np.array([bin(int(v)).count("1") for v in u])
    clzl = np.array([64 - int(np.int64(v).astype(np.uint64)).bit_length() for v in xs])
    expected = np.stack([np.where(xs > 3, 13, 4), clz * 1000 + ctz * 10 + pop,
                         np.isnan(ys) + 2 * np.isinf(ys) + 4 * np.isfinite(ys),
                         clzl], axis=1).ravel().astype(np.int32)
    for out, f, _, _ in run_both(source, "k", 4, np.zeros(16, np.int32), np.zeros(4, np.float32), xs, ys):
        np.testing.assert_array_equal(out, expected)
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(np.isnan(f), np.isnan(xs.view(np.float32) + np.abs(ys) * 0))


def test_vector_subscript_with_a_variable_index():
    """Each work-item rewrites its own vectors (a store writes the whole vector)."""
    source = """
kernel void k(global short *o, global short16 *v, global short16 *w) {
  int i = get_global_id(0);
  short16 x = v[i];
  o[i] = x[i] + x[15 - i];
  x[i] = -x[i];
  w[i][i] += 100;
  v[i] = x;
}
"""
    src = np.arange(256, dtype=np.int16).reshape(16, 16)
    lanes = np.arange(16)
    for out, v, w in run_both(source, "k", 16, np.zeros(16, np.int16), src.ravel(), src.ravel()):
        np.testing.assert_array_equal(out, src[lanes, lanes] + src[lanes, 15 - lanes])
        want_v, want_w = src.copy(), src.copy()
        want_v[lanes, lanes] *= -1
        want_w[lanes, lanes] += 100
        np.testing.assert_array_equal(v.reshape(16, 16), want_v)
        np.testing.assert_array_equal(w.reshape(16, 16), want_w)


@pytest.mark.parametrize("triple", ["spir64-unknown-unknown", "spir-unknown-unknown"])
def test_data_model_macros_are_clangs(triple):
    """__SIZE_TYPE__ & co. (clang_predefines.txt) are what clang-22 predefines for the target."""
    from clcoop.frontend.driver import clang_data_model_macros
    table = clang_data_model_macros(triple)
    assert {"__SIZE_TYPE__", "__INTPTR_TYPE__", "__UINTPTR_TYPE__", "__PTRDIFF_TYPE__",
            "__SIZEOF_POINTER__", "__INT_MAX__", "__CHAR_BIT__"} <= set(table)
    source = "".join(f"typedef {table[n]} t{i};\n" for i, n in enumerate(
        ("__SIZE_TYPE__", "__INTPTR_TYPE__", "__UINTPTR_TYPE__", "__PTRDIFF_TYPE__")))
    source += ("kernel void k(global ulong *o) { o[0] = sizeof(__SIZE_TYPE__); o[1] = __SIZEOF_POINTER__;"
               " o[2] = (__UINTPTR_TYPE__)-1 == __UINTPTR_MAX__; o[3] = __INTPTR_MAX__; }\n")
    from clcoop.frontend.driver import CompileOptions, compile_source
    ir = compile_source(source, CompileOptions(triple=triple)).ir
    out = np.zeros(4, np.uint64)
    clcoop.Program.from_ir(ir).k((1,), None, out)
    bits = 64 if triple.startswith("spir64") else 32
    np.testing.assert_array_equal(out, [bits // 8, bits // 8, 1, 2 ** (bits - 1) - 1])
    if CLANG is None:
        pytest.skip("clang-22 is not installed: the table was checked where it was generated")
    import subprocess
    text = subprocess.run([CLANG, "-cc1", "-triple", triple, "-cl-std=CL3.0", "-dM", "-E", "-x", "cl",
                           "/dev/null"], capture_output=True, text=True, check=True).stdout
    clang = {}
    for line in text.splitlines():
        _, name, value = (line.split(" ", 2) + [""])[:3]
        clang[name] = value
    assert {name: clang.get(name) for name in table} == table


def test_builtins_hidden_at_older_versions_are_clangs():
    """builtins_by_version.txt is what scripts/gen_version_builtins.py derives from clang-22."""
    from clcoop.frontend import builtins
    assert {"get_enqueued_local_size", "sub_group_ballot", "work_group_barrier"} <= builtins.hidden_at("CL1.2")
    assert "get_sub_group_size" not in builtins.hidden_at("CL1.2")
    assert not builtins.hidden_at("CL3.0")
    if CLANG is None:
        pytest.skip("clang-22 is not installed: the table was checked where it was generated")
    import importlib.util
    from pathlib import Path
    script = Path(__file__).resolve().parents[3] / "scripts" / "gen_version_builtins.py"
    spec = importlib.util.spec_from_file_location("gen_version_builtins", script)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for std, names in gen.hidden_names(CLANG).items():
        assert builtins.hidden_at(std) == frozenset(names), std


def test_func_names_the_enclosing_function(capfd):
    source = """
void helper(global char *o) { o[0] = __func__[0]; o[1] = *(__func__ + 5); printf("%s\\n", __func__); }
kernel void k(global char *o) { o[2] = __func__[0]; o[3] = __func__[1]; helper(o); }
"""
    for (out,) in run_both(source, "k", 1, np.zeros(4, np.int8)):
        assert bytes(out.view(np.uint8)) == b"hrk\0"
    assert capfd.readouterr().out.count("helper\n") == (2 if CLANG else 1)


def test_anonymous_struct_and_union_members():
    source = """
typedef struct { union { float f; uint u; }; int tag; struct { short a, b; }; } S;
kernel void k(global uint *o) {
  S s; s.f = 1.0f; s.tag = 2; s.a = -1; s.b = 3;
  S *p = &s;
  o[0] = s.u; o[1] = p->tag + p->b; o[2] = sizeof(S); o[3] = (uint)p->a;
}
"""
    for (out,) in run_both(source, "k", 1, np.zeros(4, np.uint32)):
        np.testing.assert_array_equal(out, [np.float32(1).view(np.uint32), 5, 12, 2 ** 32 - 1])


def test_to_global_to_local_to_private():
    """The interpreter knows which address space a generic pointer points into."""
    source = """
int classify(generic int *p) {
  return (to_global(p) != 0) + 2 * (to_local(p) != 0) + 4 * (to_private(p) != 0);
}
kernel void k(global int *o) {
  local int l[2];
  int x = 0;
  size_t g = get_global_id(0);
  o[g * 3 + 0] = classify(o);
  o[g * 3 + 1] = classify(l);
  o[g * 3 + 2] = classify(&x);
  global int *back = to_global((generic int *)(o + g * 3));
  back[0] += 10;
}
"""
    for (out,) in run_both(source, "k", 2, np.zeros(6, np.int32), local_size=2):
        np.testing.assert_array_equal(out, [11, 2, 4, 11, 2, 4])
