"""scripts/sema_coverage.py and scripts/corpus_check.py (issue 15 measurements) on small
inputs written here: how they read RUN lines, -verify directives and kernel strings."""
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
import corpus_check  # noqa: E402
import sema_coverage  # noqa: E402

CLANG = shutil.which("clang-22")

SEMA_TEST = """\
// RUN: %clang_cc1 %s -verify -pedantic -fsyntax-only -cl-std=CL2.0
// RUN: %clang_cc1 %s -verify=expected,cl12 -fsyntax-only -cl-std=CL1.2 -DOLD
// RUN: %clang_cc1 %s -verify -fsyntax-only -cl-std=clc++
// RUN: %clang_cc1 %s -emit-llvm -o - | FileCheck %s
kernel void k(global int *p) {
  p[0] = undeclared_a; // expected-error {{use of undeclared identifier}}
  // expected-error@+1 {{use of undeclared identifier}}
  p[1] = undeclared_b;
  int fine = 1;
  // expected-error@-1 {{an error clcoop does not report}}
#ifdef OLD
  p[2] = undeclared_c; // cl12-error {{use of undeclared identifier}}
#else
  p[3] = 0; // expected-error 0+ {{optional}}
#endif
}
"""


def write_sema_test(tmp_path):
    path = tmp_path / "sample.cl"
    path.write_text(SEMA_TEST)
    return path


def test_verify_runs_and_options():
    runs = sema_coverage.verify_runs(SEMA_TEST)
    assert [prefixes for _, prefixes in runs] == [["expected"], ["expected", "cl12"], ["expected"]]
    assert sema_coverage.clcoop_options(runs[0][0]) == ["-cl-std=CL2.0"]
    assert sema_coverage.clcoop_options(runs[1][0]) == ["-cl-std=CL1.2", "-DOLD"]
    assert sema_coverage.clcoop_options(runs[2][0]) is None            # C++ for OpenCL
    assert sema_coverage.clcoop_options(["-triple", "amdgcn--", "-cl-std=CL1.1"]) == ["-cl-std=CL1.2"]
    assert sema_coverage.clcoop_options(["-triple=spir64"]) == ["-triple", "spir64-unknown-unknown"]


def test_directive_locations_without_preprocessing(tmp_path):
    path = write_sema_test(tmp_path)
    # @+1 and @-1 point at lines 8 and 9; the 0+ directive is optional.
    assert sema_coverage.expected_lines(path, [], ["expected"], None) == {6, 8, 9}
    assert sema_coverage.expected_lines(path, [], ["expected", "cl12"], None) == {6, 8, 9, 12}


@pytest.mark.skipif(CLANG is None, reason="clang-22 preprocesses the tests")
def test_directives_in_skipped_blocks_do_not_count(tmp_path):
    path = write_sema_test(tmp_path)
    assert sema_coverage.expected_lines(path, ["-cl-std=CL2.0"], ["expected", "cl12"], CLANG) == {6, 8, 9}
    assert sema_coverage.expected_lines(path, ["-DOLD"], ["expected", "cl12"], CLANG) == {6, 8, 9, 12}


def test_measure_counts_lines_clcoop_reports_errors_on(tmp_path):
    write_sema_test(tmp_path)
    results = sema_coverage.measure(tmp_path, clang=None)
    runs = results["sample.cl"]
    assert len(runs) == 2                                   # the C++ run is left out
    assert [(r["expected"], r["hit"], r["missed"]) for r in runs] == [(3, 2, [9]), (4, 3, [9])]
    assert sema_coverage.totals(results) == (7, 5)


CPP_SOURCE = r'''
// "not a kernel"
static const char *adjacent = "__kernel void a(global int *p)\n"
                              "{ p[0] = 1; }\n";
static const char *raw = R"(kernel void b(global int *p) { p[0] = 2; })";
const char *lines[] = { "__kernel void c(global int *p)\n", "{\n", "  p[0] = 3;\n", "}\n" };
const char *templ = "__kernel void d(global %s *p) { p[0] = 4; }";
const char *broken = "__kernel void e(global int *p) { p[0] = ; }";
'''


def test_kernel_strings_of_a_cpp_file(tmp_path):
    path = tmp_path / "host.cpp"
    path.write_text(CPP_SOURCE)
    found = corpus_check.kernel_strings(path)
    texts = [text for _, text, _ in found]
    assert texts[0] == "__kernel void a(global int *p)\n{ p[0] = 1; }\n"
    assert texts[1] == "kernel void b(global int *p) { p[0] = 2; }"
    assert texts[2] == "__kernel void c(global int *p)\n{\n  p[0] = 3;\n}\n"
    assert [skip for _, _, skip in found][3].startswith("template")
    assert len(found) == 5 and found[0][0] == f"{path}:3"


@pytest.mark.skipif(CLANG is None, reason="clang-22 is the reference")
def test_check_classifies_sources(tmp_path):
    path = tmp_path / "host.cpp"
    path.write_text(CPP_SOURCE)
    units = corpus_check.units([str(path)], with_strings=False)
    statuses = [corpus_check.check(units[k], CLANG, "CL3.0")["status"] for k in (2, 3, 4)]
    assert statuses == ["both accept", "skipped", "clang rejects"]
    image = ("kernel void i(read_only image2d_t im, sampler_t s, global float4 *o)"
             "{ o[0] = read_imagef(im, s, (int2)(0, 0)); }")
    assert corpus_check.check(("img", image, tmp_path, None), CLANG, "CL3.0")["status"].startswith("images")


# ---------------------------------------------------------------- scripts/corpus_run.py
import corpus_run  # noqa: E402

RUN_SOURCE = """\
typedef float4 real4;
typedef struct { int a; } S;
kernel void saxpy(global float *o, global const float *a, constant float *b, float s, int n) {
  int i = get_global_id(0); if (i < n) o[i] = s * a[i] + b[i];
}
kernel void grid(global real4 *o, global const int4 *x, int n) {
  size_t i = get_global_id(0) + n * get_global_id(1); o[i] = convert_float4(x[i]) * 0.5f;
}
kernel void reverse(global int *o, local int *tmp) {
  tmp[get_local_id(0)] = get_global_id(0); barrier(CLK_LOCAL_MEM_FENCE);
  o[get_global_id(0)] = tmp[get_local_size(0) - 1 - get_local_id(0)];
}
kernel void by_struct(global S *s) { s->a = 1; }
kernel void far(global int *o) { o[get_global_id(0) * 100000] = 1; }
kernel void says(void) { if (get_global_id(0) == 3) printf("id %d\\n", (int)get_global_id(0)); }
kernel void silent(void) { }
"""


def test_param_kinds():
    assert corpus_run.param_kind("float*", 1) == ("buffer", "float32", 1)
    assert corpus_run.param_kind("uint4*", 2) == ("buffer", "uint32", 4)
    assert corpus_run.param_kind("float __attribute__((ext_vector_type(4)))*", 1) == ("buffer", "float32", 4)
    assert corpus_run.param_kind("short*", 3) == ("local", "int16", 1)
    assert corpus_run.param_kind("unsigned int", 0) == ("scalar", "uint32", 1)
    assert corpus_run.param_kind("S*", 1)[0] is None
    assert corpus_run.param_kind("float4", 0)[0] is None          # vector by value
    assert corpus_run.param_kind("image2d_t", 1)[0] is None


def test_launch_shape_follows_the_dimensions_used():
    assert corpus_run.launch_shape("get_global_id(0)", None, 16) == ((16,), (8,))
    assert corpus_run.launch_shape("get_group_id(1) get_local_id (0)", None, 16) == ((16, 16), (8, 2))
    assert corpus_run.launch_shape("get_global_id(0)", (32, 1, 1), 16) == ((32, 1, 1), (32, 1, 1))
    assert corpus_run.launch_shape("get_global_id(0)", (3, 3, 3), 16) == ((15, 3, 3), (3, 3, 3))


def test_compare_runs_is_bitwise():
    import numpy as np
    zero, minus_zero = np.zeros(2, np.float32), np.array([0.0, -0.0], np.float32)
    assert corpus_run.compare_runs((None, [zero]), (None, [zero.copy()])) == {"outcome": "agree"}
    assert corpus_run.compare_runs((None, [zero]), (None, [minus_zero]))["outcome"] == "differ"
    assert corpus_run.compare_runs(("RuntimeFault: x", []), (None, [zero]))["outcome"] == "differ"
    assert corpus_run.compare_runs(("RuntimeFault: x", []), ("RuntimeFault: y", []))["outcome"] == "both fault"
    undefined = "IRError: call to the undefined function 'helper'"
    assert corpus_run.compare_runs((None, [zero]), (undefined, []))["outcome"] == "skipped"
    assert corpus_run.compare_runs((undefined, []), (None, [zero]))["outcome"] == "differ"


def test_run_kernel_returns_the_printf_output_last():
    import clcoop.api as api
    program = api.Program('kernel void k(void) { printf("%d;", (int)get_global_id(0)); }').build()
    fault, outputs = corpus_run.run_kernel(program, "k", [], (2,), (2,))
    assert fault is None and outputs[-1].tobytes() == b"0;1;"


@pytest.mark.skipif(CLANG is None, reason="the reference IR is clang-22's")
def test_run_source_runs_both_irs_and_skips_what_has_no_host_independent_launch(tmp_path):
    results = {r["kernel"]: r for r in corpus_run.run_source(RUN_SOURCE, tmp_path, CLANG, 4096, 16)}
    assert {k: r["outcome"] for k, r in results.items()} == {
        "saxpy": "agree", "grid": "agree", "reverse": "agree", "by_struct": "skipped", "far": "both fault",
        "says": "agree", "silent": "skipped"}
    assert results["silent"]["reason"].startswith("no outputs")
    assert results["by_struct"]["reason"] == "parameter type 'S*'"
    assert "out-of-bounds" in results["far"]["reason"]
    assert corpus_run.summarize([("a.cl", list(results.values()))]) == {
        "agree": 4, "skipped": 3, "ran": 4}
    # A source clang rejects is skipped as a whole.
    assert corpus_run.run_source("kernel void k() { undeclared; }", tmp_path, CLANG, 64, 4) == [
        {"kernel": None, "outcome": "skipped", "reason": "clang-22 rejects the source"}]


@pytest.mark.slow          # a corpus run on both engines
@pytest.mark.skipif(CLANG is None, reason="clang-22 is the reference")
def test_corpus_native_compares_the_engines(tmp_path, capsys):
    """scripts/corpus_native.py: a kernel the engine takes runs on both engines and agrees;
    a kernel with printf falls back to the interpreter; a race between work-items of the
    2-D launch that only index by dimension 0 shows as a difference."""
    import corpus_native
    source = tmp_path / "k.cl"
    source.write_text("""
__kernel void scale(__global float *a, int n) {
    int i = get_global_id(0) + get_global_id(1) * 16;
    a[i] = a[i] * 2.0f + (float)n;
}
__kernel void talk(__global int *a) { if (get_global_id(0) == 0) printf("%d\\n", a[0]); }
__kernel void race(__global float *w) { w[get_global_id(0)] += 1.0f; }
""")
    results = corpus_native.one(str(source))
    by_kernel = {r["kernel"]: r for r in results}
    assert by_kernel["scale"]["engine"] == "native" and by_kernel["scale"]["outcome"] == "agree"
    assert by_kernel["talk"]["engine"] == "interp" and by_kernel["talk"]["outcome"] == "agree"
    assert by_kernel["race"]["outcome"] == "differ"
    assert corpus_native.main([str(source)]) == 0
    assert "'differ'" in capsys.readouterr().out
