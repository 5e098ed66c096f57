"""Cooperative matrices on the native engine: results against NumPy and the interpreter,
sub-groups taking different paths, and the interpreter's faults (non-uniform operands, a
partial sub-group, strides, out of bounds) with the caller's buffers untouched."""
import numpy as np
import pytest

import clcoop

HEADER = """
#pragma OPENCL EXTENSION cl_khr_cooperative_matrix : enable
typedef float mat_c __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_ACCUMULATOR)));
typedef float mat_a __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 8, CLK_COOPERATIVE_MATRIX_A)));
typedef float mat_b __attribute__((coop_mat(CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP, 8, 16, CLK_COOPERATIVE_MATRIX_B)));
"""

COPY = HEADER + """
__kernel void copy(__global const float *a, __global float *b, long stride, int shift_lane) {
    size_t sg = get_global_id(0) / get_sub_group_size();
    long extra = (shift_lane >= 0 && get_sub_group_local_id() == shift_lane) ? 1 : 0;
    mat_c m = coop_mat_load(a + sg * 8 * 16 + extra, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)stride);
    coop_mat_store(b + sg * 8 * 16, m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""

# Sub-group 0 multiplies, the others copy C: different paths per sub-group (allowed:
# SPV_KHR_cooperative_matrix only needs each sub-group uniform).
BRANCHES = HEADER + """
__kernel void branches(__global const float *a, __global const float *b, __global float *c) {
    size_t sg = get_global_id(0) / get_sub_group_size();
    mat_c acc = coop_mat_load(c + sg * 128, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
    if (sg == 0) {
        mat_a x = coop_mat_load(a, CLK_COOPERATIVE_MATRIX_LAYOUT_COLUMN_MAJOR, (size_t)8);
        mat_b y = coop_mat_load(b, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
        acc = coop_mat_mulAdd(x, y, acc);
    } else {
        acc = coop_mat_init(3.0f);
    }
    coop_mat_store(c + sg * 128, acc, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)16);
}
"""


def both(source, kernel, *launch_args, arrays, **kw):
    """Runs the kernel on both engines on copies of `arrays` (positions in launch_args
    given as None); returns the native copies, the interpreter's copies and the kernel."""
    results = []
    for engine in ("native", "interp"):
        prog = clcoop.Program(source).build(engine=engine)
        copies = [a.copy() for a in arrays]
        it = iter(copies)
        args = [next(it) if a is None else a for a in launch_args]
        getattr(prog, kernel)(*args, **kw)
        results.append(copies)
        if engine == "native":
            assert getattr(prog, kernel).engine == "native"
    return results


@pytest.mark.parametrize("S", [8, 16, 32])
def test_copy_through_a_matrix_matches_numpy(S):
    a = np.random.default_rng(S).standard_normal(4 * 128).astype(np.float32)
    b = np.zeros(4 * 128, np.float32)
    native, interp = both(COPY, "copy", (4 * S,), (2 * S,), None, None, 16, -1, arrays=[a, b], subgroup_size=S)
    np.testing.assert_array_equal(native[1], a)
    np.testing.assert_array_equal(native[1], interp[1])


def test_sub_groups_on_different_paths():
    rng = np.random.default_rng(7)
    a = rng.standard_normal(64).astype(np.float32)        # 8 x 8, column-major
    b = rng.standard_normal(128).astype(np.float32)       # 8 x 16
    c = rng.standard_normal(3 * 128).astype(np.float32)
    native, interp = both(BRANCHES, "branches", (48,), (48,), None, None, None, arrays=[a, b, c],
                          subgroup_size=16)
    expect = c.copy()
    expect[:128] = (a.reshape(8, 8).T @ b.reshape(8, 16) + c[:128].reshape(8, 16)).reshape(-1)
    expect[128:] = 3.0
    np.testing.assert_allclose(native[2], expect, rtol=1e-5, atol=1e-5)
    assert np.array_equal(native[2].view(np.uint32), interp[2].view(np.uint32))


def fault_of(engine, *args, local=16):
    prog = clcoop.Program(COPY).build(engine=engine)
    a = np.arange(2 * 128, dtype=np.float32)
    b = np.zeros(2 * 128, np.float32)
    with pytest.raises(clcoop.RuntimeFault) as info:
        prog.copy((32,), (local,), a, b, *args, subgroup_size=16)
    assert (b == 0).all()          # the caller's buffer is untouched
    return str(info.value)


@pytest.mark.parametrize("engine", ["native", "interp"])
def test_non_uniform_pointer_faults(engine):
    assert "uniform across the sub-group" in fault_of(engine, 16, 3)


@pytest.mark.parametrize("engine", ["native", "interp"])
def test_negative_load_stride_faults(engine):
    assert "negative stride" in fault_of(engine, -16, -1)


@pytest.mark.parametrize("engine", ["native", "interp"])
def test_out_of_bounds_load_faults(engine):
    text = fault_of(engine, 1000, -1)
    assert "out-of-bounds" in text and "'a'" in text


def test_partial_sub_group_faults_on_both_engines():
    for engine in ("native", "interp"):
        prog = clcoop.Program(COPY).build(engine=engine)
        a = np.arange(2 * 128, dtype=np.float32)
        b = np.zeros(2 * 128, np.float32)
        with pytest.raises(clcoop.RuntimeFault, match="sub-group"):
            prog.copy((24,), (24,), a, b, 16, -1, subgroup_size=16)
        assert (b == 0).all()
