"""scripts/gpu_check.py: its bounds, its layout comparison, and a whole prepare + run on the
Vulkan device this machine has (lavapipe in CI: the plain kernels; the matrix kernels need a
GPU with cooperative matrices and run there, docs/gpu.md)."""
import json
from pathlib import Path

import numpy as np
import pytest

from vulkan_modules import device_or_skip
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def gpu_check():
    return load_script("gpu_check.py", register=True)


def test_the_gemm_bound_holds_a_sequential_f32_sum_and_not_a_wrong_one(gpu_check):
    rng = np.random.default_rng(5)
    K = 512
    A = rng.standard_normal((8, K)).astype(np.float16)
    B = rng.standard_normal((K, 8)).astype(np.float16)
    sequential = np.zeros((8, 8), np.float32)
    for k in range(K):      # the interpreter's order: one rounding per addition
        sequential = (sequential + A[:, k:k + 1].astype(np.float32) * B[k:k + 1, :].astype(np.float32)).astype(np.float32)
    entry = {"tolerance": ("gemm", 0, 1, K, 2.0 ** -24, False)}
    allowed = gpu_check.allowed_difference(entry, [A, B], sequential)
    exact = A.astype(np.float64) @ B.astype(np.float64)
    assert (np.abs(sequential - exact) <= allowed).all()
    wrong = sequential.copy()
    wrong[3, 4] += 0.5          # a product dropped or doubled is this far off
    assert not (np.abs(wrong - exact) <= allowed).all()


def test_the_column_bounds_are_per_function(gpu_check):
    entry = {"tolerance": ("columns", (3, 0), (0, 2.0 ** -11))}
    allowed = gpu_check.allowed_difference(entry, None, np.array([1, 1e-6, 1, 1e-6], np.float32))
    assert allowed[0] == 4 * np.spacing(np.float32(1))             # 3 ulp + the interpreter's own
    assert allowed[1] == 2.0 ** -11 and allowed[3] == 2.0 ** -11     # absolute, as GLSL's sin


def test_the_math_case_holds_opencl_bounds(gpu_check):
    """examples/vulkan/math.cl is held to OpenCL C 3.0 7.4's full-profile bounds (the Vulkan
    target's exact sequences, docs/vulkan.md "Math"), not GLSL.std.450's: each column's ulps
    plus the interpreter's own; a log near 0 off by 2^-22 (GLSL: 2^-21 absolute) or a sin off
    by 2^-12 (GLSL: 2^-11) is rejected."""
    case = next(c for c in gpu_check.cases() if c.name == "math")
    one_item = np.array([1.0, 2.0, 1e-3, 0.5, 1.0, 1.0, 3.0, 2.0], np.float32)   # its 8 columns
    allowed = gpu_check.allowed_difference({"tolerance": case.tolerance}, None, one_item)
    ulps = allowed / np.spacing(one_item).astype(np.float64)
    # sqrt 3, exp 3, log 3, sin 4, fmin and floor exact, pow 16, fabs(-v) + rsqrt(v) 3; +1 each
    assert list(ulps) == [4, 4, 4, 5, 1, 1, 17, 4]
    assert allowed[2] < 2.0 ** -22 and allowed[3] < 2.0 ** -12


def test_lane_ids_through_the_interpreters_layout(gpu_check):
    """The interpreter's result of examples/vulkan/lane_ids.cl is its layout, element for element;
    on a GPU the same comparison goes through the probed layout."""
    import clcoop
    out = np.zeros((16, 16), np.float32)
    program = clcoop.Program((ROOT / "examples/vulkan/lane_ids.cl").read_text()).build()
    program.lane_ids((32,), (32,), out, subgroup_size=32)
    expected = gpu_check.lane_ids_through(*gpu_check.tinytc_owners(16, 16, "accumulator", "float", 32))
    assert np.array_equal(out, expected)
    shuffled = gpu_check.lane_ids_through(*gpu_check.tinytc_owners(16, 16, "accumulator", "float", 16))
    assert not np.array_equal(out, shuffled)      # another layout would be told apart


def test_prepare_and_run_on_this_machines_device(gpu_check, tmp_path):
    device_or_skip()
    folder = tmp_path / "gpu"
    only = {"vector_add", "stencil", "math"}
    gpu_check.prepare(folder, only, perf=False)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert {entry["name"] for entry in manifest} == only
    report = tmp_path / "report.json"
    assert gpu_check.run(folder, report, perf=False) == 0
    rows = {row["name"]: row for row in json.loads(report.read_text())["cases"]}
    assert rows["vector_add"]["result"] == "equal"
    assert rows["stencil"]["result"] == "within bound"
    assert rows["math"]["result"] == "within bound" and len(rows["math"]["ulps_by_column"]) == 8
    table = gpu_check.table(report)
    assert "| vector_add | f32 | n=1000 | equal |" in table


def test_launch_overhead_on_this_machines_device(gpu_check, tmp_path, capsys):
    """`gpu_check.py launch DIR`: the vector add compiled when DIR lacks it, each variant's
    median call and its parts, as a report and a table."""
    description = device_or_skip()
    report = tmp_path / "launch.json"
    assert gpu_check.main(["launch", str(tmp_path / "gpu"), "--launches", "25", "--report", str(report)]) == 0
    assert (tmp_path / "gpu" / "vector_add.spv").exists()
    result = json.loads(report.read_text())
    assert result["launches"] == 25 and result["items"] == 1024
    assert list(result["variants"]) == ["default", "blocking wait", "staged", "GPU timestamps"]
    for name, row in result["variants"].items():
        assert set(row) == {"call", "gpu", *gpu_check.LAUNCH_PARTS}
        assert row["call"] > row["wait"] > 0 and row["call"] > row["checks"] > 0, name
        assert row["record"] == 0.0, name          # a repeated launch reuses its recording
    assert result["variants"]["default"]["gpu"] is None                # no timestamps unless asked for
    if description.timestamp_period_ns:
        assert result["variants"]["GPU timestamps"]["gpu"] > 0
    table = capsys.readouterr().out
    assert "| variant | call | checks | upload | record | submit | wait | download | runner other | gpu |" in table
    assert "| default | " in table and "| staged | " in table
    full = tmp_path / "full.json"           # in a whole run's report, `table` shows it too
    full.write_text(json.dumps({"device": "d", "date": "t", "cases": [], "performance": {"launch": result}}))
    assert gpu_check.launch_table(result) in gpu_check.table(full)
