"""scripts/bench.py's native rows: the table gives the native engine against the interpreter
with the engine's compile time, and says when the rows come from a separate --native-only run."""
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


def results_with_native(date):
    results = json.loads((ROOT / "docs" / "performance.json").read_text())
    results = copy.deepcopy(results)
    timing = {"median": 0.004, "min": 0.003, "max": 0.005, "runs": 5}
    slow = {"median": 0.2, "min": 0.19, "max": 0.21, "runs": 5}
    results["native"] = {"threads": 2, "date": date, "load_average_at_start": [1.0, 2.0, 3.0],
                         "runs": [{"kernel": "vector add", "n": 1024, "native": timing,
                                   "interpreter": slow, "speedup": 50.0, "compile_seconds": 0.09,
                                   "codegen_seconds": 0.004, "bit_identical": True}]}
    return results


def test_native_row_gives_times_ratio_and_compile_time():
    bench = load_bench()
    results = results_with_native(None)
    results["native"]["date"] = results["date"]
    table = bench.markdown_table(results)
    row = next(line for line in table.splitlines() if "native engine vs interpreter, vector add" in line)
    assert "| 1024 work-items | 4.0 (3.0-5.0) ms (2 cores) | interpreter 200.0 (190.0-210.0) ms |" in row
    assert "50.0x (interpreter / native)" in row and "engine compile 90 ms (+ codegen 4 ms)" in row
    assert "separate run" not in table


def test_native_rows_of_a_separate_run_say_so():
    bench = load_bench()
    table = bench.markdown_table(results_with_native("2099-01-01 00:00 UTC"))
    assert "native-engine rows are from a separate run (2099-01-01 00:00 UTC, load average 1.0, 2.0, 3.0" in table

