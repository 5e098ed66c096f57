"""scripts/bench.py --compile-throughput: a --source directory stands for the *.cl files under
it (a corpus such as pocl's tests/kernel), a corpus's .options file gives a file's build options,
and each timed file is judged against issue 26's target
(CPU time within 3x of clang-22's, peak memory under 300 MB)."""
from pathlib import Path
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[3]


def load_bench():
    return load_script("bench.py")


def test_a_directory_source_is_the_cl_files_under_it_sorted(tmp_path):
    bench = load_bench()
    corpus = tmp_path / "kernel"
    (corpus / "sub").mkdir(parents=True)
    for name in ("b.cl", "a.cl", "notes.txt", "c.h", "sub/a.cl"):
        (corpus / name).write_text("")
    single = tmp_path / "one.cl"
    single.write_text("")
    assert bench.throughput_sources([str(single), str(corpus)]) == {
        "one.cl": single, "a.cl": corpus / "a.cl", "b.cl": corpus / "b.cl",
        "sub/a.cl": corpus / "sub" / "a.cl"}


def test_a_corpus_options_file_gives_the_build_options(tmp_path):
    """The CTS dumps keep the options each kernel was built with beside it, with no newline."""
    bench = load_bench()
    kernel = tmp_path / "enqueue.86bd2d53.b467a359.cl"
    kernel.write_text("")
    assert bench.build_options_of(kernel) == []
    (tmp_path / "enqueue.86bd2d53.b467a359.options").write_text("-cl-std=CL2.0 -cl-kernel-arg-info")
    assert bench.build_options_of(kernel) == ["-cl-std=CL2.0", "-cl-kernel-arg-info"]


def test_stages_are_taken_for_the_files_that_miss():
    bench = load_bench()
    assert not bench.stages_wanted(_timings(0.29, 0.1, 120.0), all_stages=False)
    assert bench.stages_wanted(_timings(0.29, 0.1, 120.0), all_stages=True)
    assert bench.stages_wanted(_timings(0.31, 0.1, 120.0), all_stages=False)


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
