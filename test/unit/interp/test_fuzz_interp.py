"""Fuzzing the interpreter with random valid kernels whose results are known (issue 5
item 3, "the interpreter too"). Generators and references: test/unit/support/kernel_gen.py.
Longer runs: scripts/fuzz_interp.py --count N --seed S.

- random scalar-expression kernels (all C conversion/wrapping rules, shifts, built-ins,
  divergent if/else, loops, switch, private arrays, a helper, 4-vectors) on random 1-3D
  NDRanges and subgroup sizes, run through clcoop -O0 (every third seed -O2), checked
  against a Python reference (lanes with C undefined behaviour are not compared; their
  own results feed the checks below), plus the work-item/subgroup ids and
  sub-group/work-group collectives, a __local exchange across a barrier and global
  atomics of each lane's result;
- a cross-check subset: the same source through clcoop -O0/-O2 and clang-22 -O0/-O2
  (Program.from_ir), UB-free data, all bit-identical to each other and to the reference;
- random cooperative-matrix kernels (shapes, component types, layouts, strides,
  operators, mul-add with sign flags) against NumPy, and with a partial subgroup: a
  RuntimeFault that leaves the buffers untouched;
- the differential test (issue 15): random plain kernels over vectors of every width
  (2, 3, 4, 8, 16) and element type, some spelled as user ext_vector_type typedefs,
  through clcoop and clang-22 (-ffp-contract=off), both run in the interpreter and
  compared bit for bit (VECTOR_DIFF_SEEDS sources of VECTOR_DIFF_KERNELS kernels each).
"""
import shutil

import numpy as np
import pytest

import kernel_gen as kg

CLANG = shutil.which("clang-22")
needs_clang = pytest.mark.skipif(CLANG is None, reason="clang-22 is not installed")

SCALAR_SEEDS = range(1000, 1040)
VECTOR_DIFF_SEEDS = range(4000, 4044)
VECTOR_DIFF_KERNELS = 7
CROSS_SEEDS = range(2000, 2008)
COOP_SEEDS = range(3000, 3040)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SCALAR_SEEDS)
def test_random_scalar_kernel(seed):
    case = kg.scalar_case(np.random.default_rng(seed))
    expected, defined = kg.scalar_expectation(case)
    producer = "clcoop-O2" if seed % 3 == 0 else "clcoop"   # -O2 = Program.build's default
    problem = kg.scalar_problem(case, kg.run_scalar(case, producer), expected, defined)
    assert problem is None, problem


@needs_clang
@pytest.mark.slow
@pytest.mark.parametrize("seed", CROSS_SEEDS)
def test_clang_and_clcoop_agree(seed):
    case, expected = kg.ub_free_scalar_case(np.random.default_rng(seed))
    problems = []
    for producer in kg.CROSS_PRODUCERS:
        problem = kg.scalar_problem(case, kg.run_scalar(case, producer, CLANG), expected)
        if problem:
            problems.append(f"{producer}: {problem}")
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("seed", COOP_SEEDS)
def test_random_coop_kernel(seed):
    case = kg.coop_case(np.random.default_rng(seed))
    # Every third seed through clcoop -O2: the LLVM pipeline must keep the matrix calls.
    got = kg.run_coop(case, "clcoop-O2" if seed % 3 == 0 else "clcoop")
    problem = kg.coop_mismatch(case, got, kg.coop_expected(case))
    assert problem is None, problem


def _vector_diff_params():
    """Seeds of the differential test, named '-typedef' where the kernels spell their
    vector types as user ext_vector_type typedefs (once compiled as scalars)."""
    params = []
    for seed in VECTOR_DIFF_SEEDS:
        case = kg.vector_diff_case(np.random.default_rng(seed), kernels=VECTOR_DIFF_KERNELS)
        params.append(pytest.param(seed, id=f"{seed}{'-typedef' if case.typedefs else ''}"))
    return params


@needs_clang
@pytest.mark.slow
@pytest.mark.parametrize("seed", _vector_diff_params())
def test_vector_kernels_agree_with_clang(seed):
    case = kg.vector_diff_case(np.random.default_rng(seed), kernels=VECTOR_DIFF_KERNELS)
    problem = kg.vector_diff_problem(case, CLANG)
    assert problem is None, problem


def test_vector_diff_generator_covers_the_features():
    """The seeds reach every width and element type, typedef'd and built-in vector types,
    swizzles, conversions, reinterpretations, built-ins and the vector ternary."""
    cases = [kg.vector_diff_case(np.random.default_rng(seed), kernels=VECTOR_DIFF_KERNELS)
             for seed in VECTOR_DIFF_SEEDS]
    text = "\n".join(c.source for c in cases)
    for elem in kg.VEC_ELEMS:
        for width in kg.VEC_WIDTHS:
            assert f"{elem}{width} x" in text, f"no {elem}{width} variable"
    assert {c.typedefs for c in cases} == {True, False}
    for feature in ("ext_vector_type(3)", "ext_vector_type(16)", ".lo", ".hi", ".even",
                    ".odd", ".s", "_sat", "_rtz", "as_", "select(", "rotate(", "popcount(",
                    "fmin(", " ? ", "<<", "%", "vload3(", "vstore16("):
        assert feature in text, feature
    assert len(cases) * VECTOR_DIFF_KERNELS >= 200


def _nodes(node):
    yield node
    for attr in ("left", "right", "operand", "cond", "then", "other"):
        if hasattr(node, attr):
            yield from _nodes(getattr(node, attr))
    for arg in getattr(node, "args", []):
        yield from _nodes(arg)


def test_scalar_generator_covers_the_features():
    """The CI seeds reach every operator, built-in, result type and dimensionality."""
    ops, calls, dims, types = set(), set(), set(), set()
    for seed in SCALAR_SEEDS:
        case = kg.scalar_case(np.random.default_rng(seed))
        dims.add(len(case.global_size))
        types.add(case.result_type)
        for node in (n for tree in case.body.values() for n in _nodes(tree)):
            if isinstance(node, (kg.Bin, kg.Unary)):
                ops.add(node.op)
            elif isinstance(node, kg.Call):
                calls.add(node.name)
    expected_ops = set(kg.ARITH_OPS + kg.INT_ONLY_OPS + kg.COMPARE_OPS + kg.LOGIC_OPS) | {"~", "!"}
    assert expected_ops <= ops
    assert set(kg.INT_BUILTINS) | {"fmin", "fmax"} <= calls
    assert dims == {1, 2, 3} and types == set(kg.DTYPES)


def test_coop_generator_covers_the_features():
    """The seeds above exercise both case kinds, every layout and several types."""
    cases = [kg.coop_case(np.random.default_rng(seed)) for seed in COOP_SEEDS]
    assert {c.kind for c in cases} == {"mul_add", "elementwise"}
    assert {op.layout for c in cases for op in c.operands} == {"row", "col"}
    assert len({op.type for c in cases for op in c.operands}) >= 6
    assert {c.subgroup_size for c in cases} == {8, 16, 32}


def test_reference_follows_c_rules():
    """The reference itself: usual arithmetic conversions, masks, abs, wrapping."""
    x0, x1 = kg.Var("x0", "int"), kg.Var("x1", "uint")
    env = {"x0": -1, "x1": 1}
    assert kg.Bin("<", x0, x1).eval(env, False) == 0          # -1 converts to UINT_MAX
    assert kg.Bin("<<", kg.Const(1, "int"), kg.Const(33, "int")).eval(env, False) == 2
    assert kg.Call("abs", [kg.Const(-2**31 + 1, "int")], "int").type == "uint"
    assert kg.Bin("*", kg.Const(2**31 - 1, "int"), kg.Const(2, "int")).eval(env, False) == -2
    with pytest.raises(kg.UndefinedBehavior):
        kg.Bin("*", kg.Const(2**31 - 1, "int"), kg.Const(2, "int")).eval(env, True)
    assert kg.Bin("%", kg.Const(-7, "int"), kg.Const(3, "int")).eval(env, False) == -1
    assert kg.Bin("/", kg.Const(-7, "long"), kg.Const(2, "uint")).eval(env, False) == -3


# ------------------------------------------------------------------ fuzzer findings
# Minimal reproducers of interpreter bugs the fuzzer found (fixed in ddad301 and
# ecb3d8c), kept as regression tests.

def _expr_case(expr, result_type, inputs):
    body = {"e0": expr, "c1": kg.Const(1, "int"), "e1": kg.Var("acc", result_type),
            "e2": kg.Var("acc", result_type), "trip": kg.Const(0, "int"),
            "c2": kg.Const(0, "int"), "e3": kg.Var("acc", result_type)}
    n = len(inputs["ia"])
    return kg.ScalarCase(kg.scalar_source(result_type, body, 1, n), result_type, body,
                         inputs, (n,), (n,), 8)


def _inputs(**overrides):
    data = kg.random_inputs(np.random.default_rng(0), 4, extremes=False)
    for name, value in overrides.items():
        data[name][:] = value
    return data


def test_finding_mul_hi_64_uniform_first_argument():
    """Raised ValueError (broadcast of a varying argument onto a uniform one's shape)."""
    expr = kg.Call("mul_hi", [kg.Const(5, "ulong"), kg.Var("x3", "ulong")], "ulong")
    case = _expr_case(expr, "ulong", _inputs(ula=[2**63, 2**64 - 1, 7, 2**40]))
    out = kg.run_scalar(case, "clcoop")[0]
    np.testing.assert_array_equal(out, kg.scalar_reference(case))


def test_finding_add_sat_64_saturates():
    """Wrapped instead of saturating (OpenCL C 6.15.3)."""
    expr = kg.Call("add_sat", [kg.Var("x3", "ulong"), kg.Const(3, "ulong")], "ulong")
    case = _expr_case(expr, "ulong", _inputs(ula=2**64 - 2))
    out = kg.run_scalar(case, "clcoop")[0]
    np.testing.assert_array_equal(out, np.full(4, 2**64 - 1, np.uint64))


@pytest.mark.parametrize("t", ["int", "long"])
def test_finding_mad_sat_saturates_the_exact_sum(t):
    """Saturated a * b before adding c (OpenCL C 6.15.3 saturates the exact sum)."""
    low = -(2**31 - 1) if t == "int" else -(2**63 - 1)
    var, buf = (kg.Var("x0", "int"), "ia") if t == "int" else (kg.Var("x2", "long"), "la")
    expr = kg.Call("mad_sat", [var, kg.Const(3, t), kg.Const(5, t)], t)
    case = _expr_case(expr, t, _inputs(**{buf: low}))
    out = kg.run_scalar(case, "clcoop")[0]
    np.testing.assert_array_equal(out, np.full(4, low - 1, kg.DTYPES[t]))


def test_finding_mad_sat_uint_large_product():
    """A product above 2^63 overflowed the 64-bit intermediate and gave 0."""
    expr = kg.Call("mad_sat", [kg.Var("x1", "uint"), kg.Const(2**32 - 1, "uint"),
                               kg.Const(0, "uint")], "uint")
    case = _expr_case(expr, "uint", _inputs(ua=2**32 - 1))
    out = kg.run_scalar(case, "clcoop")[0]
    np.testing.assert_array_equal(out, np.full(4, 2**32 - 1, np.uint32))


SITOFP_I1_SOURCE = """
__kernel void k(__global const int *x, __global float *out)
{
    int g = (int)get_global_id(0);
    out[g] = (float)((x[g] > g) - 1);   /* -O2 folds this into sitofp i1 */
}
"""


def test_finding_sitofp_i1_false_is_positive_zero():
    """sitofp i1 false gave -0.0 (negating a float 0); i1 true is -1 -> -1.0."""
    x = np.array([5, -3, 100, -7], np.int32)
    out = np.full(4, 7, np.float32)
    kg.build_program(SITOFP_I1_SOURCE, "clcoop-O2").run("k", 4, 4, x, out)
    np.testing.assert_array_equal(out, [0.0, -1.0, 0.0, -1.0])
    assert not np.signbit(out[[0, 2]]).any(), f"got {out!r}"


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3100, 3104))
def test_random_coop_kernel_with_a_partial_subgroup_faults(seed):
    """A work-group that ends in a partial subgroup: its matrix operations have inactive
    invocations (SPV_KHR_cooperative_matrix requires all of the scope), so the launch is a
    RuntimeFault and the caller's buffers stay untouched (docs/design.md, api.py)."""
    import clcoop
    rng = np.random.default_rng(seed)
    case = kg.coop_case(rng)
    extra = int(rng.integers(1, case.subgroup_size))
    local = (case.local_size[0] + extra, 1)
    case.local_size, case.global_size = local, (local[0], case.global_size[1])
    outputs = {}
    with pytest.raises(clcoop.RuntimeFault) as fault:
        kg.run_coop(case, outputs=outputs)
    assert "fuzz" in str(fault.value)
    for name, buf in outputs.items():
        assert (buf == kg.SENTINEL).all(), f"{name} was written by a faulting launch"


def test_fuzz_script_does_not_print_the_kernels_portability_warnings():
    """issue 26: scripts/fuzz_interp.py printed each generated kernel's -Wcoop-portability
    warnings (no pragma, int strides): pages of text that are not findings."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[3]
    proc = subprocess.run([sys.executable, str(root / "scripts" / "fuzz_interp.py"), "--count", "2",
                           "--seed", "1", "--kinds", "coop"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "coop: 2 cases done" in proc.stdout
    assert "warning" not in proc.stdout + proc.stderr
