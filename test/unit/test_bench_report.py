"""scripts/bench.py's report: the markdown table from a run's JSON (docs/performance.json,
which the last bench run wrote), so a change to the JSON or the table cannot rot unseen."""
import copy
import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_bench():
    spec = importlib.util.spec_from_file_location("bench", ROOT / "scripts" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
