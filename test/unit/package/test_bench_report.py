"""scripts/bench.py's report: the markdown table from a run's JSON (docs/performance.json,
which the last bench run wrote), so a change to the JSON or the table cannot rot unseen."""
import copy
import json
from pathlib import Path
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[3]


def load_bench():
    return load_script("bench.py")


def test_table_has_a_row_per_gemm_and_the_compile_and_memory_rows():
    bench = load_bench()
    results = json.loads((ROOT / "docs" / "performance.json").read_text())
    table = bench.markdown_table(results)
    for run in results["gemm"]:
        assert f"| GEMM {run['kind']} interpreter vs NumPy | {run['n']}^3 |" in table
    assert "| compile latency, plain kernel (wall, subprocess) |" in table
    assert "| interpreter peak memory, f32 GEMM |" in table


def test_pocl_rows_give_the_interpreter_against_the_tiled_kernel():
    bench = load_bench()
    results = json.loads((ROOT / "docs" / "performance.json").read_text())
    f32 = next(run for run in results["gemm"] if run["kind"] == "f32")
    timing = {"median": 0.5, "min": 0.4, "max": 0.6, "runs": 5}
    results = copy.deepcopy(results)
    results["pocl"] = {"device": "test", "runs": [{"n": f32["n"], "tiled": timing, "naive": timing,
                                                    "matches_numpy": True}]}
    table = bench.markdown_table(results)
    ratio = f32["interpreter"]["median"] / 0.5
    assert f"| GEMM f32 interpreter vs PoCL tiled / naive | {f32['n']}^3 |" in table
    assert f"{ratio:.2f}x of tiled" in table
    results["pocl"] = None
    assert "| PoCL tiled / naive | - | - | not installed |" in bench.markdown_table(results)


def _timing(low, high):
    return {"median": (low + high) / 2, "min": low, "max": high, "runs": 3}


def test_a_noisy_run_is_warned_about():
    """issue 26: `bench.py --quick` on a busy machine printed ratios like 0.0x without a word."""
    bench = load_bench()
    quiet = {"gemm": [{"interpreter": _timing(1.0, 1.1), "numpy": _timing(0.01, 0.012)}],
             "compile_latency": {"plain_kernel": {"clcoop": _timing(0.15, 0.16)}}}
    assert bench.noise_warning(quiet, load_average=0.2, cores=2) is None
    noisy = copy.deepcopy(quiet)
    noisy["gemm"][0]["numpy"] = _timing(0.01, 0.08)
    warning = bench.noise_warning(noisy, load_average=0.2, cores=2)
    assert warning.startswith("warning: the machine was too busy")
    assert "1 of 3 timings varied more than 2x" in warning and "gemm[0].numpy 10-80 ms" in warning
    busy = bench.noise_warning(quiet, load_average=5.0, cores=2)
    assert "load average 5.0 on 2 cores" in busy


def test_small_ratios_keep_their_digits():
    bench = load_bench()
    assert bench.times(0.042) == "0.042x" and bench.times(12.34) == "12.3x" and bench.times(1.0) == "1.0x"
