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
