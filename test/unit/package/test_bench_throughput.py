"""scripts/bench.py --compile-throughput: a --source directory stands for its *.cl files (a
corpus such as pocl's tests/kernel), and each timed file is judged against issue 26's target
(CPU time within 3x of clang-22's, peak memory under 300 MB)."""
from pathlib import Path
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[3]


def load_bench():
    return load_script("bench.py")


def test_a_directory_source_is_its_cl_files_sorted(tmp_path):
    bench = load_bench()
    corpus = tmp_path / "kernel"
    corpus.mkdir()
    for name in ("b.cl", "a.cl", "notes.txt", "c.h"):
        (corpus / name).write_text("")
    single = tmp_path / "one.cl"
    single.write_text("")
    assert bench.throughput_sources([str(single), str(corpus)]) == [single, corpus / "a.cl", corpus / "b.cl"]


def _timings(clcoop_cpu, clang_cpu, peak):
    return {"clcoop": {"cpu": {"median": clcoop_cpu}, "rss_mb": peak},
            "clang": {"cpu": {"median": clang_cpu}, "rss_mb": 100.0}}


def test_each_file_meets_or_misses_the_target():
    bench = load_bench()
    lines = bench.throughput_verdicts({
        "fast.cl": {"timings": _timings(0.29, 0.1, 120.0)},
        "slow.cl": {"timings": _timings(0.31, 0.1, 120.0)},
        "big.cl": {"timings": _timings(0.2, 0.1, 300.0)},
        "bad.cl": {"error": "bad.cl:1:20: error: expected ')'"},
    })
    assert lines == [
        "    fast.cl: meets the target (2.90x clang-22's CPU time, peak 120 MB)",
        "    slow.cl: misses the target (3.10x clang-22's CPU time, peak 120 MB)",
        "    big.cl: misses the target (2.00x clang-22's CPU time, peak 300 MB)",
        "    bad.cl: not timed (bad.cl:1:20: error: expected ')')",
    ]
