"""scripts/bench.py's native rows: the table gives the native engine against the interpreter
with the engine's compile time and against PoCL (or says PoCL is not installed), and says when
the rows come from a separate --native-only run. None of this needs pyopencl."""
import copy
import json
import sys
from pathlib import Path

import numpy as np
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[3]


def load_bench():
    return load_script("bench.py")


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



def pocl_figures(native_ms, round_trip_ms, device_ms):
    def timing(median_ms):
        return {"median": median_ms / 1e3, "min": median_ms / 1e3 * 0.9,
                "max": median_ms / 1e3 * 1.1, "runs": 5}
    return {"round_trip": timing(round_trip_ms), "device": timing(device_ms),
            "ratio_round_trip": native_ms / round_trip_ms, "ratio_device": native_ms / device_ms,
            "match": True}


def pocl_row(table, kernel="vector add"):
    return next(line for line in table.splitlines() if f"native engine vs PoCL, {kernel}" in line)


def test_native_row_against_pocl_gives_round_trip_device_only_and_ratios():
    bench = load_bench()
    results = results_with_native(None)
    results["native"]["pocl"] = {"device": "Portable Computing Language / pthread-cpu"}
    results["native"]["runs"][0]["pocl"] = pocl_figures(4.0, 2.0, 0.5)
    row = pocl_row(bench.markdown_table(results))
    assert "| 1024 work-items | 4.0 (3.0-5.0) ms (2 cores) |" in row
    assert "PoCL round trip 2.0 (1.8-2.2) ms, device-only 0.5 (0.5-0.6) ms" in row
    assert "2.00x of the round trip, 8.00x of device-only (native / PoCL)" in row
    assert "Portable Computing Language / pthread-cpu, match=True" in row


def test_native_row_without_pyopencl_says_pocl_not_installed():
    bench = load_bench()
    results = results_with_native(None)
    results["native"]["pocl"] = None     # what bench_native records without pyopencl
    assert "| PoCL not installed | - | pyopencl not importable |" in pocl_row(bench.markdown_table(results))
    del results["native"]["pocl"]        # a run from before PoCL was measured
    assert "PoCL not installed" in pocl_row(bench.markdown_table(results))


def test_native_row_with_pyopencl_but_no_device_gives_the_reason():
    bench = load_bench()
    results = results_with_native(None)
    results["native"]["pocl"] = {"error": "no OpenCL CPU device"}
    assert "| PoCL unavailable | - | no OpenCL CPU device |" in pocl_row(bench.markdown_table(results))


def test_native_row_of_a_kernel_pocl_failed_to_build_gives_the_error():
    bench = load_bench()
    results = results_with_native(None)
    results["native"]["pocl"] = {"device": "Portable Computing Language / pthread-cpu"}
    results["native"]["runs"][0]["pocl"] = {"error": "clBuildProgram failed: BUILD_PROGRAM_FAILURE"}
    row = pocl_row(bench.markdown_table(results))
    assert "| PoCL failed | - | clBuildProgram failed: BUILD_PROGRAM_FAILURE |" in row


def test_plain_pocl_is_none_when_pyopencl_is_not_importable(monkeypatch):
    bench = load_bench()
    monkeypatch.setitem(sys.modules, "pyopencl", None)    # makes `import pyopencl` fail
    assert bench.plain_pocl() is None
    assert bench.pocl_queue() is None


def test_pocl_figures_match_within_a_tolerance_and_not_beyond():
    bench = load_bench()
    timing = {"median": 0.002, "min": 0.001, "max": 0.003, "runs": 3}
    timings = {"native": dict(timing, median=0.004), "pocl_round_trip": timing,
               "pocl_device": dict(timing, median=0.001)}
    native = np.array([1.0, -2.0, 1e-7, 0.0], np.float32)
    figures = bench.pocl_plain_figures(timings, native * np.float32(1 + 1e-6), native)
    assert figures["match"] and figures["ratio_round_trip"] == 2.0 and figures["ratio_device"] == 4.0
    assert not bench.pocl_plain_figures(timings, native + np.float32(0.01), native)["match"]


class RecordingAxes:
    """Stands in for matplotlib's Axes (not a test dependency): records the bars drawn."""

    def __init__(self):
        self.bars = []

    def bar(self, positions, heights, width, label):
        self.bars.append((label, list(heights)))

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def test_native_plot_adds_pocl_bars_only_when_every_kernel_has_them():
    bench = load_bench()
    native = results_with_native(None)["native"]
    axes = RecordingAxes()
    bench.plot_native(axes, native)
    assert [label for label, _ in axes.bars] == ["interpreter", "native engine (2 cores)"]
    native["runs"][0]["pocl"] = pocl_figures(4.0, 2.0, 0.5)
    axes = RecordingAxes()
    bench.plot_native(axes, native)
    assert axes.bars[-1] == ("PoCL (round trip)", [2.0])
    native["runs"][0]["pocl"] = {"error": "clBuildProgram failed"}
    axes = RecordingAxes()
    bench.plot_native(axes, native)
    assert len(axes.bars) == 2
