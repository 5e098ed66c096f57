"""Every kernel of the interpreter's kernel and fault tests and of examples/ also runs
natively, bit-identical (native_diff.py); kernels the native engine does not take must say
why."""
import pytest

import native_diff
import test_examples
import test_interp_faults
import test_interp_kernels

# Differential and fuzz runs: left out of the default test run (docs/testing.md).
pytestmark = pytest.mark.slow

# Results that depend on the order of atomics between work-groups: checked by the test's
# own oracle on the native results instead of bit for bit.
ORDER_DEPENDENT = {"test_cmpxchg_gives_distinct_tickets"}
CASES = native_diff.cases(test_interp_kernels) + native_diff.cases(test_interp_faults) + \
    native_diff.cases(test_examples)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_differential(case, monkeypatch):
    name, fn, kwargs = case
    record = native_diff.run_case(fn, kwargs, monkeypatch, name.split("[")[0] in ORDER_DEPENDENT)
    for kernel, reason in record.fallback.items():
        assert reason, f"kernel {kernel} fell back without a reason"


# Tests whose kernels the native engine takes today (their launches must not fall back):
# a fallback here is a regression of the engine, not a pass.
NATIVE_TESTS = {
    "test_vector_add", "test_gemm_naive_2d", "test_int_control_flow",
    "test_batches_split_the_ndrange_without_changing_results",
    "test_three_dimensional_ndrange_and_partial_subgroups",
    "test_out_of_bounds_names_buffer_and_work_item", "test_integer_division_by_zero",
    "test_runaway_loop_hits_instruction_limit", "test_null_and_dangling_pointers_are_invalid",
    "test_misaligned_access_faults", "test_unreachable_faults",
    "test_dangling_pointer_to_a_returned_functions_private_memory",
    "test_write_to_constant_buffer_faults", "test_reduce_local_memory_argument",
    "test_reduce_kernel_scope_local_array", "test_divergent_barrier", "test_atomics_contended",
    "test_cmpxchg_gives_distinct_tickets", "test_reduction_local",
    # Cooperative matrices (load, store, mul-add, init) at sub-group sizes 8, 16 and 32.
    "test_gemm_f32[8-[]]", "test_gemm_f32[16-[]]", "test_gemm_f32[32-[]]",
    "test_gemm_f32_accumulates_into_c", "test_gemm_f16_f32_reads_b_column_major",
    "test_gemm_i8_i32_is_exact_and_signed", "test_gemm_i8_saturates_each_accumulation",
    # Sub-group reduce, scan and broadcast (collectives.py) at the build's sub-group size.
    "test_subgroup_builtins[16-clang-O2]", "test_subgroup_builtins[16-clcoop]",
    "test_subgroup_builtins[16-clcoop-O2]",
    # Second generation (issue 29): use conversions, per-element functions, get_coord,
    # -O0 IR (matrices in private memory), bf16, workgroup scope (gemm_wg.cl).
    "test_mlp2_exact_on_integers", "test_mlp2_random_with_a_wider_hidden_layer", "test_mask_causal",
    "test_bf16_gemm", "test_gemm_wg_edges_read_zeros", "test_gemm_wg_other_tiles_and_batching",
    # clang's IR of this kernel calls convert_float, not compiled natively yet.
    "test_private_arrays_structs_generic_pointers_and_types[clcoop]",
    "test_private_arrays_structs_generic_pointers_and_types[clcoop-O2]",
}
NATIVE_CASES = [c for c in CASES if c[0] in NATIVE_TESTS or c[0].split("[")[0] in NATIVE_TESTS]


@pytest.mark.parametrize("case", NATIVE_CASES, ids=[c[0] for c in NATIVE_CASES])
def test_runs_natively(case, monkeypatch):
    name, fn, kwargs = case
    try:
        record = native_diff.run_case(fn, kwargs, monkeypatch, name.split("[")[0] in ORDER_DEPENDENT)
    except Exception:
        pytest.fail(f"{name} failed on the differential run")
    assert record.native and not record.fallback, record.fallback
