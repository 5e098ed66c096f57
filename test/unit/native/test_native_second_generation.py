"""Issue 29's acceptance: every second-generation test kernel (reductions, per-element
functions, get_coord, use conversions, signedness, bf16, fp8, tensor layouts and
addressing, workgroup scope, the llama.cpp ports, and every example of examples/, the
second-generation ones among them: softmax_rows, mask_causal, mlp2, bf16_gemm, gemm_wg)
runs natively: each launch of the interpreter tests below is doubled by
native_diff.run_case, and engine="auto" must take the kernel (no fallback reason) and give
every array bit for bit as the interpreter's, faults included. Kernels the interpreter
refuses too (IR no engine runs) must fall back with a reason."""
import pytest

import native_diff
import test_bf16
import test_coop_context_type
import test_coop_convert_use
import test_coop_function_ops
import test_coop_signedness
import test_coopmat2
import test_examples
import test_fp8
import test_llama_ports
import test_tensor
import test_tensor_kernels
import test_workgroup_scope

# Differential runs of whole test modules: minutes on two cores (docs/testing.md).
pytestmark = pytest.mark.slow

MODULES = [test_coop_function_ops, test_coop_convert_use, test_coop_signedness, test_coop_context_type,
           test_coopmat2, test_bf16, test_fp8, test_tensor, test_tensor_kernels, test_workgroup_scope,
           test_llama_ports, test_examples]

# IR the interpreter refuses as well: the native engine must name a reason.
REFUSED_BY_BOTH = {"test_fp8.test_a_conversion_call_on_a_matrix_is_refused"}
# Matrices wider per work-item than the native engine compiles (coop_routines.MAX_COMPONENTS:
# LLVM aborted the process on a 65,536-element vector): the interpreter runs them, and the
# reason must say so.
TOO_LARGE = {"test_workgroup_scope.test_sizes_up_to_the_maximum[4096-4096-CLK_COOPERATIVE_MATRIX_SCOPE_WORKGROUP-256]"}


def _params():
    out = []
    for module in MODULES:
        for name, fn, kwargs in native_diff.cases(module):
            case_id = f"{module.__name__}.{name}"
            out.append(pytest.param(case_id, fn, kwargs, id=case_id))
    return out


@pytest.mark.parametrize("case_id, fn, kwargs", _params())
def test_second_generation_kernel_runs_natively_and_bit_equal(case_id, fn, kwargs, monkeypatch):
    record = native_diff.run_case(fn, kwargs, monkeypatch)
    if case_id in REFUSED_BY_BOTH:
        assert record.fallback and all(record.fallback.values()), record.fallback
        return
    if case_id in TOO_LARGE:
        assert record.fallback and all("the native engine compiles" in why for why in record.fallback.values())
        return
    assert not record.fallback, f"engine='auto' fell back: {record.fallback}"


def test_the_refused_cases_exist():
    """REFUSED_BY_BOTH names cases that exist (a renamed test must not leave it stale)."""
    assert REFUSED_BY_BOTH | TOO_LARGE <= {p.id for p in _params()}
