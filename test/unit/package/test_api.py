"""The pyopencl-style Python API (issue 3 item 1): usage and clear errors."""
import numpy as np
import pytest

import clcoop
from clcoop.errors import ArgumentError, CompileError
from interp_helpers import KERNELS, program

VADD = (KERNELS / "vector_add.cl").read_text()


def test_build_and_run_by_attribute_and_by_name():
    prog = clcoop.Program(VADD).build()
    assert "spir_kernel" in prog.ir
    a = np.arange(32, dtype=np.float32)
    b = np.ones(32, np.float32)
    c = np.zeros(32, np.float32)
    prog.vector_add(32, 8, a, b, c, 32)
    np.testing.assert_array_equal(c, a + 1)
    c2 = np.zeros(32, np.float32)
    prog.run("vector_add", (32,), (8,), a, b, c2, np.int32(20))
    np.testing.assert_array_equal(c2[:20], a[:20] + 1)
    assert (c2[20:] == 0).all()


def test_build_options_define_macros():
    src = "__kernel void k(__global int *o) { o[get_global_id(0)] = VALUE * 2; }"
    out = np.zeros(4, np.int32)
    clcoop.Program(src).build(options=["-DVALUE=21"]).k(4, None, out)
    assert (out == 42).all()


def test_compile_error_propagates():
    with pytest.raises(CompileError):
        clcoop.Program("__kernel void k( { }").build()


def test_from_ir_runs_clang_stub_kernels():
    prog = program("vector_add", "clang-O0")
    assert "__clang_ocl_kern_imp_vector_add" in prog.ir
    a = np.ones(16, np.float32)
    c = np.zeros(16, np.float32)
    prog.vector_add(16, 16, a, a, c, 16)
    assert (c == 2).all()


@pytest.fixture
def prog():
    return clcoop.Program(VADD).build()


def arrays(n=16):
    return np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(n, np.float32)


def test_wrong_argument_count(prog):
    with pytest.raises(ArgumentError, match=r"takes 4 arguments \(a, b, c, n\), got 3"):
        prog.vector_add(16, 16, *arrays())


def test_wrong_array_dtype(prog):
    a, b, c = arrays()
    with pytest.raises(ArgumentError, match="'b'.*needs a float32 array, got float64"):
        prog.vector_add(16, 16, a, b.astype(np.float64), c, 16)


def test_non_contiguous_array(prog):
    a, b, c = arrays(32)
    with pytest.raises(ArgumentError, match="not C-contiguous"):
        prog.vector_add(16, 16, a[::2], b[:16], c[:16], 16)


def test_scalar_where_buffer_expected_and_vice_versa(prog):
    a, b, c = arrays()
    with pytest.raises(ArgumentError, match="pass a NumPy array"):
        prog.vector_add(16, 16, a, 3, c, 16)
    with pytest.raises(ArgumentError, match="'n'.*scalar"):
        prog.vector_add(16, 16, a, b, c, c)


def test_scalar_out_of_range_and_non_integer(prog):
    a, b, c = arrays()
    with pytest.raises(ArgumentError, match="does not fit"):
        prog.vector_add(16, 16, a, b, c, 2**40)
    with pytest.raises(ArgumentError, match="is an integer"):
        prog.vector_add(16, 16, a, b, c, 2.5)


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan"), np.float32("inf"),
                                   np.array(float("nan")), np.array(2.5)])
def test_scalar_non_integral_float_for_integer(prog, value):
    # Infinity and NaN had been Python's OverflowError / ValueError; a 0-d float array was
    # truncated (found by hand: clcoop-run --arg n=1e999).
    with pytest.raises(ArgumentError, match="is an integer, got"):
        prog.vector_add(16, 16, *arrays(), value)


def test_global_size_not_multiple_of_local_size(prog):
    with pytest.raises(ArgumentError, match="global size 20 is not a multiple of the local size 8"):
        prog.vector_add(20, 8, *arrays(), 16)


def test_unknown_kernel_lists_available(prog):
    with pytest.raises(ArgumentError, match=r"no kernel named 'vadd'.*available: vector_add"):
        prog.vadd(16, 16)


def test_local_memory_required_for_local_pointer():
    prog = program("reduce_local", "clcoop")
    data = np.zeros(64, np.float32)
    with pytest.raises(ArgumentError, match="__local pointer: pass clcoop.LocalMemory"):
        prog.reduce_local(64, 64, data, np.zeros(1, np.float32), data)


def test_reqd_work_group_size_and_subgroup_size():
    src = ("__attribute__((reqd_work_group_size(8, 1, 1))) __attribute__((intel_reqd_sub_group_size(8)))\n"
           "__kernel void k(__global int *o) { o[get_global_id(0)] = get_sub_group_size(); }")
    prog = clcoop.Program(src).build()
    out = np.zeros(16, np.int32)
    with pytest.raises(ArgumentError, match="requires the work-group size"):
        prog.k(16, 16, out)
    with pytest.raises(ArgumentError, match="requires sub-group size 8"):
        prog.k(16, 8, out, subgroup_size=16)
    prog.k(16, None, out)
    assert (out == 8).all()


def test_unsupported_subgroup_size(prog):
    with pytest.raises(ArgumentError, match="unsupported sub-group size 12"):
        prog.vector_add(16, 16, *arrays(), 16, subgroup_size=12)


def test_local_size_none_picks_a_divisor(prog):
    a = np.arange(96, dtype=np.float32)
    c = np.zeros(96, np.float32)
    prog.vector_add(96, None, a, a, c, 96)
    np.testing.assert_array_equal(c, 2 * a)


def test_unsigned_scalar_and_aliasing_buffers():
    src = "__kernel void k(__global uint *o, __global uint *same, uint v) { size_t i = get_global_id(0); o[i] = v; same[i] += 1u; }"
    o = np.zeros(8, np.uint32)
    clcoop.Program(src).build().k(8, 8, o, o, 4000000000)
    assert (o == 4000000001).all()


def test_all_kernels_and_unbuilt_program():
    prog = program("reduce_local", "clcoop")
    assert [k.name for k in prog.all_kernels()] == ["reduce_local", "reduce_static"]
    assert "reduce_local(float*" in repr(prog.reduce_local)
    with pytest.raises(ArgumentError, match="not built"):
        clcoop.Program(VADD).vector_add
    with pytest.raises(ArgumentError, match="needs the OpenCL C source text"):
        clcoop.Program(None).build()


def test_struct_and_vector_arguments_by_value():
    from interp_helpers import CLANG
    import subprocess
    if CLANG is None:
        pytest.skip("clang-22 is not installed")
    src = ("typedef struct { int a; float b; } P;\n"
           "__kernel void k(P p, __global float *o, float4 v) { o[get_global_id(0)] = p.a * p.b + v.y; }\n")
    p_t = np.dtype([("a", np.int32), ("b", np.float32)])
    for opt in (0, 2):
        ir = subprocess.run([CLANG, "-cc1", "-triple", "spir64-unknown-unknown", "-cl-std=CL3.0",
                             "-finclude-default-header", "-emit-llvm", f"-O{opt}", "-", "-o", "-"],
                            input=src, capture_output=True, text=True, check=True).stdout
        prog = clcoop.Program.from_ir(ir)
        out = np.zeros(4, np.float32)
        prog.k(4, 4, np.array((3, 1.5), p_t)[()], out, (0.0, 0.25, 0.0, 0.0))
        assert (out == 4.75).all()
        with pytest.raises(ArgumentError, match="struct has 8 bytes"):
            prog.k(4, 4, b"1234", out, (0.0, 0.25, 0.0, 0.0))


def test_global_offset():
    src = "__kernel void k(__global int *o) { o[get_global_id(0) - get_global_offset(0)] = get_global_id(0); }"
    out = np.zeros(8, np.int32)
    clcoop.Program(src).build().k(8, 4, out, global_offset=100)
    np.testing.assert_array_equal(out, np.arange(100, 108))


def test_same_array_as_const_input_and_output():
    src = "__kernel void k(__global const int *in, __global int *out) { size_t i = get_global_id(0); out[i] = in[i] * 2; }"
    prog = clcoop.Program(src).build()
    a = np.arange(8, dtype=np.int32)
    prog.k(8, 8, a, a)
    np.testing.assert_array_equal(a, 2 * np.arange(8))
    with pytest.raises(ArgumentError, match="overlapping but different views"):
        prog.k(4, 4, a[:4], a[2:6])


def test_global_offset_zero_components_are_valid():
    # Issue 10: (0, 0, 1) was refused as "not positive"; pyopencl accepts zero offsets.
    src = ("__kernel void k(__global int *o) { size_t i = get_global_id(0) - get_global_offset(0);"
           " o[i] = get_global_id(0) * 100 + get_global_id(2); }")
    out = np.zeros(8, np.int32)
    clcoop.Program(src).build().k((8, 1, 1), (4, 1, 1), out, global_offset=(0, 0, 1))
    np.testing.assert_array_equal(out, np.arange(8) * 100 + 1)


@pytest.mark.parametrize("offset, message", [
    ((0, -1, 0), "non-negative"), ((0, 0), "3 non-negative offset"), ("x", "int or a tuple")])
def test_global_offset_errors(offset, message):
    src = "__kernel void k(__global int *o) { o[0] = 1; }"
    with pytest.raises(ArgumentError, match=message):
        clcoop.Program(src).build().k((8, 1, 1), (4, 1, 1), np.zeros(1, np.int32), global_offset=offset)
