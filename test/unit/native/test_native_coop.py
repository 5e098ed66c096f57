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


def both(builds, source, kernel, *launch_args, arrays, **kw):
    """Runs the kernel on both engines (programs of the session's `builds`) on copies of
    `arrays` (positions in launch_args given as None); returns the native copies, the
    interpreter's copies and the kernel."""
    results = []
    for engine in ("native", "interp"):
        prog = builds.build(source, engine)
        copies = [a.copy() for a in arrays]
        it = iter(copies)
        args = [next(it) if a is None else a for a in launch_args]
        getattr(prog, kernel)(*args, **kw)
        results.append(copies)
        if engine == "native":
            assert getattr(prog, kernel).engine == "native"
    return results


@pytest.mark.parametrize("S", [8, 16, 32])
def test_copy_through_a_matrix_matches_numpy(S, shared_builds):
    a = np.random.default_rng(S).standard_normal(4 * 128).astype(np.float32)
    b = np.zeros(4 * 128, np.float32)
    native, interp = both(shared_builds, COPY, "copy", (4 * S,), (2 * S,), None, None, 16, -1, arrays=[a, b],
                          subgroup_size=S)
    np.testing.assert_array_equal(native[1], a)
    np.testing.assert_array_equal(native[1], interp[1])


def test_sub_groups_on_different_paths(shared_builds):
    rng = np.random.default_rng(7)
    a = rng.standard_normal(64).astype(np.float32)        # 8 x 8, column-major
    b = rng.standard_normal(128).astype(np.float32)       # 8 x 16
    c = rng.standard_normal(3 * 128).astype(np.float32)
    native, interp = both(shared_builds, BRANCHES, "branches", (48,), (48,), None, None, None, arrays=[a, b, c],
                          subgroup_size=16)
    expect = c.copy()
    expect[:128] = (a.reshape(8, 8).T @ b.reshape(8, 16) + c[:128].reshape(8, 16)).reshape(-1)
    expect[128:] = 3.0
    np.testing.assert_allclose(native[2], expect, rtol=1e-5, atol=1e-5)
    assert np.array_equal(native[2].view(np.uint32), interp[2].view(np.uint32))


def fault_of(builds, engine, *args, local=16):
    prog = builds.build(COPY, engine)
    a = np.arange(2 * 128, dtype=np.float32)
    b = np.zeros(2 * 128, np.float32)
    with pytest.raises(clcoop.RuntimeFault) as info:
        prog.copy((32,), (local,), a, b, *args, subgroup_size=16)
    assert (b == 0).all()          # the caller's buffer is untouched
    return str(info.value)


@pytest.mark.parametrize("engine", ["native", "interp"])
def test_non_uniform_pointer_faults(engine, shared_builds):
    assert "uniform across the sub-group" in fault_of(shared_builds, engine, 16, 3)


@pytest.mark.parametrize("engine", ["native", "interp"])
def test_negative_load_stride_faults(engine, shared_builds):
    assert "negative stride" in fault_of(shared_builds, engine, -16, -1)


@pytest.mark.parametrize("engine", ["native", "interp"])
def test_out_of_bounds_load_faults(engine, shared_builds):
    text = fault_of(shared_builds, engine, 1000, -1)
    assert "out-of-bounds" in text and "'a'" in text


def test_partial_sub_group_faults_on_both_engines(shared_builds):
    """In the interpreter's words on both (coop_calls.Subgroups: the sub-group and its count;
    the native words were "a sub-group with fewer work-items than the sub-group size")."""
    messages = []
    for engine in ("native", "interp"):
        prog = shared_builds.build(COPY, engine)
        a = np.arange(2 * 128, dtype=np.float32)
        b = np.zeros(2 * 128, np.float32)
        with pytest.raises(clcoop.RuntimeFault, match="sub-group") as fault:
            prog.copy((24,), (24,), a, b, 16, -1, subgroup_size=16)
        assert (b == 0).all()
        messages.append(str(fault.value).splitlines()[:2])
    assert messages[0] == messages[1]
    assert "in sub-group 1, which has only 8 of 16 work-items (the work-group size is not a multiple of the " \
           "sub-group size 16)" in messages[0][0]


def fault_lines(text):
    """The lines of a fault that must not depend on the engine: the work-item and the buffer."""
    return [line.strip() for line in text.splitlines()
            if "work-item global id" in line or line.strip().startswith("buffer:")]


def fault_text(prog, kernel, *args, **kw):
    with pytest.raises(clcoop.RuntimeFault) as info:
        getattr(prog, kernel)(*args, **kw)
    return str(info.value)


@pytest.mark.parametrize("stride", [1000, 17])
@pytest.mark.parametrize("local", [16, 32])
def test_out_of_bounds_matrix_load_names_the_interpreters_work_item(stride, local, shared_builds):
    """The interpreter names a subgroup whose matrix load faults by its first work-item
    (clcoop/interp/coop_calls.py, _per_memory_layout), not by the work-item holding the
    faulting element: stride 17 faults in sub-group 1 (work-item 16), stride 1000 in
    sub-group 0 (work-item 0), whichever lane's component is out of bounds."""
    texts = []
    for engine in ("native", "interp"):
        prog = shared_builds.build(COPY, engine)
        texts.append(fault_text(prog, "copy", (32,), (local,), np.arange(256, dtype=np.float32),
                                np.zeros(256, np.float32), stride, -1, subgroup_size=16))
    first = 16 if stride == 17 else 0
    assert f"global id ({first})" in texts[1]
    assert fault_lines(texts[0]) == fault_lines(texts[1]) != []


# `a` and `next` are adjacent slices of one array: an overrun of `a` lands inside `next`
# in host memory, which a fault must not name.
ADJACENT = HEADER + """
__kernel void adjacent(__global const float *a, __global const float *next, __global float *b,
                       long stride, int pick) {
    size_t sg = get_global_id(0) / get_sub_group_size();
    __global const float *src = pick ? a : next;   // provenance known at run time only
    mat_c m = coop_mat_load(src + sg * 8 * 16, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)stride);
    coop_mat_store(b + sg * 8 * 16, m, CLK_COOPERATIVE_MATRIX_LAYOUT_ROW_MAJOR, (size_t)stride);
}
"""


@pytest.mark.parametrize("where", ["adjacent", "nearer-the-other"])
@pytest.mark.parametrize("pick", [1, 0], ids=["pointer-of-a-select", "kernel-argument"])
def test_out_of_bounds_matrix_load_names_its_buffer_not_the_nearest(where, pick, shared_builds):
    """Sub-group 1 loads past the end of `a` (stride 17 reaches element 262 of 256); in host
    memory that element is inside `next` (adjacent slices) or nearer to it than to `a`. The
    fault names `a`, the buffer the pointer came from, as the interpreter does."""
    if pick == 0:   # the kernel argument itself: a's slice is passed as `next`
        source = ADJACENT.replace("pick ? a : next", "next")
    else:
        source = ADJACENT
    texts = []
    for engine in ("native", "interp"):
        prog = shared_builds.build(source, engine)
        whole = np.arange(1024, dtype=np.float32)
        first, other = whole[:256], (whole[256:512] if where == "adjacent" else whole[300:556])
        args = (first, other) if pick else (other, first)
        b = np.zeros(256, np.float32)
        texts.append(fault_text(prog, "adjacent", (32,), (16,), *args, b, 17, pick, subgroup_size=16))
        assert (b == 0).all()
    name = "a" if pick else "next"
    assert f"buffer: {name}" in fault_lines(texts[1])
    assert fault_lines(texts[0]) == fault_lines(texts[1])


def test_out_of_bounds_matrix_store_names_the_interpreters_work_item_and_buffer(shared_builds):
    texts = []
    for engine in ("native", "interp"):
        prog = shared_builds.build(ADJACENT, engine)
        whole = np.arange(1024, dtype=np.float32)
        b = np.zeros(256, np.float32)       # sub-group 1 stores elements 128..262: past the end
        texts.append(fault_text(prog, "adjacent", (32,), (16,), whole[:512], whole[512:], b, 17, 1,
                                subgroup_size=16))
        assert (b == 0).all()
    assert "out-of-bounds write" in texts[0] and "buffer: b" in texts[1]
    assert fault_lines(texts[0]) == fault_lines(texts[1]) != []
