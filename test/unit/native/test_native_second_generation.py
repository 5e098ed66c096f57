"""Issue 29's acceptance: every second-generation test kernel (reductions, per-element
functions, get_coord, use conversions, signedness, bf16, fp8, tensor layouts and
addressing, workgroup scope, the llama.cpp ports) runs natively: each launch of the
interpreter tests below is doubled by native_diff.run_case, and engine="auto" must take the
kernel (no fallback reason) and give every array bit for bit as the interpreter's, faults
included. Kernels the interpreter refuses too (IR no engine runs) must fall back with a
reason."""
import pytest

import native_diff
import test_bf16
import test_coop_context_type
import test_coop_convert_use
import test_coop_function_ops
import test_coop_signedness
import test_coopmat2
import test_fp8
import test_llama_ports
import test_tensor
import test_tensor_kernels
import test_workgroup_scope

# Differential runs of whole test modules: minutes on two cores (docs/testing.md).
pytestmark = pytest.mark.slow

MODULES = [test_coop_function_ops, test_coop_convert_use, test_coop_signedness, test_coop_context_type,
           test_coopmat2, test_bf16, test_fp8, test_tensor, test_tensor_kernels, test_workgroup_scope,
           test_llama_ports]

# IR the interpreter refuses as well: the native engine must name a reason.
REFUSED_BY_BOTH = {"test_fp8.test_a_conversion_call_on_a_matrix_is_refused"}

# The interpreter's float mul-add is NumPy's matmul, so its rounding order is OpenBLAS's
# kernel for the shape: on this machine's AVX-512 kernels a tile with N <= 8 columns and
# K >= 32 sums each element as 16 interleaved FMA chains added pairwise, not the one FMA
# chain over k the native routine computes (coop_ir.py; measured for N 2/4/8, K 32-256).
# A difference of the reference's definition, reported to the lead; strict, so that a fix
# shows.
BLAS_ORDER = pytest.mark.xfail(strict=True, reason="the interpreter's mul-add order is OpenBLAS's, "
                                                    "which differs from one FMA chain for 16 x 8 x 32")
KNOWN_DIFFERENT = {f"test_bf16.test_bf16_mul_add_into_float[16-8-32-{S}]": BLAS_ORDER for S in (8, 16, 32)}


def _params():
    out = []
    for module in MODULES:
        for name, fn, kwargs in native_diff.cases(module):
            case_id = f"{module.__name__}.{name}"
            marks = [KNOWN_DIFFERENT[case_id]] if case_id in KNOWN_DIFFERENT else []
            out.append(pytest.param(case_id, fn, kwargs, id=case_id, marks=marks))
    return out


@pytest.mark.parametrize("case_id, fn, kwargs", _params())
def test_second_generation_kernel_runs_natively_and_bit_equal(case_id, fn, kwargs, monkeypatch):
    record = native_diff.run_case(fn, kwargs, monkeypatch)
    if case_id in REFUSED_BY_BOTH:
        assert record.fallback and all(record.fallback.values()), record.fallback
        return
    assert not record.fallback, f"engine='auto' fell back: {record.fallback}"


def test_the_refused_and_known_cases_exist():
    """The lists above name cases that exist (a renamed test must not leave them stale)."""
    ids = {p.id for p in _params()}
    assert REFUSED_BY_BOTH <= ids and set(KNOWN_DIFFERENT) <= ids
