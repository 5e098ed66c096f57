"""The built-in definitions codegen.py asks builtin_ir for, built with irbuild (docs/native.md,
"How generated code is built"): the exact math built-ins (support.EXACT_MATH: one LLVM
intrinsic each) bit for bit as NumPy's ufuncs, run alone (generated_functions.py) and in a
kernel against the interpreter; the fences (support.NO_OP_FUNCTIONS) a definition that
only returns."""
import re

import llvmlite.binding as llvm
import numpy as np
import pytest

import clcoop
from clcoop.frontend.driver import compile_source
from clcoop.ir.loader import load_module
from clcoop.native import builtin_ir, codegen, irbuild, jit, support
from clcoop.options import parse_options
from generated_functions import compile_definition

_NUMPY = {"fabs": np.fabs, "sqrt": np.sqrt, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint}


def _edge_values(dtype):
    """Signed zeros, infinities, NaN, halves (rint's ties to even), the extremes, subnormals
    and random bit patterns of dtype."""
    info = np.finfo(dtype)
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1.0, -1.0, 3.7, -3.7,
              float(info.max), -float(info.max), float(info.tiny), float(info.smallest_subnormal),
              -float(info.smallest_subnormal), 2.0 ** 52 + 0.5 if dtype == np.float64 else 2.0 ** 23 - 0.5]
    bits = np.random.default_rng(3).integers(0, 1 << 63, 64, dtype=np.uint64)
    random = bits.view(np.float64) if dtype == np.float64 else bits.astype(np.uint32).view(np.float32)
    return np.concatenate([np.array(values, dtype), random.astype(dtype)])


def _same_bits(got, want):
    """Equal bit for bit, any NaN matching any NaN (the interpreter's NaNs are NumPy's)."""
    nan = np.isnan(want)
    return np.array_equal(np.isnan(got), nan) and np.array_equal(got[~nan].view(f"u{got.itemsize}"),
                                                                  want[~nan].view(f"u{want.itemsize}"))


def test_exact_math_table_is_numpy_s():
    """Every EXACT_MATH built-in has its NumPy ufunc here (a new one gets a test)."""
    assert set(support.EXACT_MATH) == set(_NUMPY)


@pytest.mark.parametrize("ret, dtype, lanes", [("float", np.float32, 1), ("double", np.float64, 1),
                                               ("<4 x float>", np.float32, 4)])
@pytest.mark.parametrize("base", sorted(support.EXACT_MATH))
def test_exact_math_definition_is_numpy(base, ret, dtype, lanes):
    f = compile_definition(builtin_ir.exact_math_definition("m", base, ret), "m", ret, [ret])
    x = _edge_values(dtype)
    x = np.concatenate([x, np.zeros(-len(x) % lanes, dtype)])
    got = f(x.reshape(-1, lanes) if lanes > 1 else x, out_dtype=dtype, out_count=lanes).reshape(-1)
    with np.errstate(invalid="ignore"):
        want = _NUMPY[base](x)
    assert _same_bits(got, want)


def test_no_op_definition_only_returns():
    """A fence's definition: the context and the call's parameters, inlined, one `ret void`."""
    jit.ensure_llvm()
    text = builtin_ir.no_op_definition("_Z9mem_fencej", ["i32"])
    module = llvm.parse_assembly(text)
    module.verify()
    fn = module.get_function("_Z9mem_fencej")
    assert [str(a.type) for a in fn.arguments] == ["ptr", "i32"]
    assert "alwaysinline" in str(fn).splitlines()[0]
    assert [ins.opcode for b in fn.blocks for ins in b.instructions] == ["ret"]


KERNEL = """
__kernel void k(__global const float *x, __global float *y) {
    size_t i = get_global_id(0);
    float v = x[i];
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    y[6 * i] = sqrt(v); y[6 * i + 1] = floor(v); y[6 * i + 2] = ceil(v);
    y[6 * i + 3] = trunc(v); y[6 * i + 4] = rint(v); y[6 * i + 5] = fabs(v);
}
"""


def test_exact_math_and_fence_in_a_kernel_as_the_interpreter():
    """The built definitions inside a compiled kernel (the module holds them, printed by
    llvmlite): native results bit for bit the interpreter's (the oracle), the kernel run by
    the native engine."""
    ir = compile_source(KERNEL, parse_options([], for_build=True).compile_options("k.cl")).ir
    text = codegen.generate(load_module(ir), ["k"]).text
    for base in ("mem_fence", *support.EXACT_MATH):
        assert re.search(rf'^define internal \w+ @"_Z\d+{base}[jf]"\(ptr %"c", \w+ %"a0"\) alwaysinline$', text,
                         re.M), base
    x = _edge_values(np.float32)
    x = np.concatenate([x, np.zeros(-len(x) % 16, np.float32)])
    results = []
    for engine in ("interp", "native"):
        program = clcoop.Program(KERNEL).build(engine=engine)
        if engine == "native":
            assert program.kernel("k").engine == "native"
        y = np.zeros(6 * len(x), np.float32)
        program.k((len(x),), (16,), x, y)
        results.append(y)
    assert _same_bits(results[1], results[0])


PREFETCH = """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void k(__global const float *x, __global const double4 *d, __global const uchar3 *u,
                __global float *y, ulong n) {
    size_t i = get_global_id(0);
    prefetch(x + i, 1);                  // one lane's element
    prefetch(x, 64);                     // every lane the same lines
    prefetch(d, 3);                      // 3 double4: 96 bytes, two lines
    prefetch(u + i, 5);                  // uchar3 counts as 4 bytes (OpenCL C 6.3.5)
    prefetch(x + 1000000 * i, n);        // far outside the buffer, and n up to 2^64 - 1
    y[i] = 2.0f * x[i];
}
"""


def test_prefetch_definition_hints_the_lines_it_names_and_no_more():
    """prefetch(p, n) (OpenCL C 3.0 6.15.13, a hint): llvm.prefetch of each 64-byte line of
    its n gentypes, PREFETCH_MAX_LINES at most, so a huge n from the caller (or from
    untrusted IR) is a bounded loop; a declaration whose parameters are not (gentype
    pointer, size_t) gets no definition (the call is refused as an unknown built-in)."""
    jit.ensure_llvm()
    name = "_Z8prefetchPU3AS1KDv4_dm"
    text = builtin_ir.prefetch_definition(name, builtin_ir.params_of(name), ["ptr addrspace(1)", "i64"])
    module = llvm.parse_assembly(irbuild.loop_metadata(text))
    module.verify()
    assert "llvm.prefetch.p0" in text
    # The loop's trip count: umin(lines, PREFETCH_MAX_LINES), the count umin'd first.
    assert re.search(r'@"?llvm.umin.i64"?\(i64 %"?l"?, i64 64\)', text), text
    assert re.search(r'@"?llvm.umin.i64"?\(i64 %"?a1"?, i64 1048576\)', text), text
    assert builtin_ir.prefetch_definition(name, builtin_ir.params_of(name), ["i32"]) is None
    assert builtin_ir.prefetch_definition(name, builtin_ir.params_of(name), ["ptr addrspace(1)", "i32"]) is None
    assert builtin_ir._gentype_bytes(("vec", 3, ("int", 8, False))) == 4
    assert builtin_ir._gentype_bytes(("vec", 16, ("float", 64))) == 128


def test_prefetch_runs_natively_as_the_interpreter():
    """A kernel that prefetches (scalar and vector gentypes, lane-varying and uniform
    pointers, addresses outside every buffer, a count of 2^64 - 1) runs on the native
    engine, not the interpreter (prefetch had been refused natively), with the
    interpreter's results; the native module prefetches."""
    x = np.arange(64, dtype=np.float32)
    d = np.zeros((8, 4), np.float64)
    u = np.zeros((64, 4), np.uint8)
    results = []
    for engine in ("interp", "native"):
        program = clcoop.Program(PREFETCH).build(engine=engine)
        assert program.kernel("k").engine == engine
        y = np.zeros(64, np.float32)
        program.k((64,), (16,), x, d, u, y, np.uint64(2 ** 64 - 1))
        results.append(y)
        if engine == "native":
            assert "llvm.prefetch" in program.k.program._native.engine.optimized_ir
    np.testing.assert_array_equal(results[1], results[0])
    np.testing.assert_array_equal(results[0], 2 * x)
