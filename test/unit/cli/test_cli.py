"""The clcoop command: exit codes, atomic output, internal-error reporting."""
import os
import stat
import subprocess
import sys

import pytest

from clcoop.cli import compile_main
from clcoop.frontend import driver

BAD_SOURCE = "kernel void k(global int *p) {\n  p[0] = ;\n}\n"
GOOD_SOURCE = "kernel void k(global int *p) { p[0] = 1; }\n"
FAKE_IR = "; fake module\n"


@pytest.fixture
def fake_backend(monkeypatch):
    """Replace check+lower with a stand-in so these tests exercise only the command line."""
    def compile_source(source, options):
        driver.front_end(source, options, driver.DiagnosticEngine())
        return driver.CompileResult(ir=FAKE_IR, diagnostics=[], rendered="")
    monkeypatch.setattr(driver, "compile_source", compile_source)


def write(path, text):
    path.write_text(text)
    return str(path)


def test_success_writes_output_and_leaves_no_temporary(tmp_path, fake_backend):
    src = write(tmp_path / "k.cl", GOOD_SOURCE)
    out = tmp_path / "k.ll"
    assert compile_main.run([src, "-o", str(out)]) == 0
    assert out.read_text() == FAKE_IR
    assert sorted(os.listdir(tmp_path)) == ["k.cl", "k.ll"]


def test_default_output_name_is_stem_ll(tmp_path, fake_backend, monkeypatch):
    src = write(tmp_path / "kernel.file.cl", GOOD_SOURCE)
    monkeypatch.chdir(tmp_path)
    assert compile_main.run([src]) == 0
    assert (tmp_path / "kernel.file.ll").read_text() == FAKE_IR


def test_output_to_stdout(tmp_path, fake_backend, capsysbinary):
    src = write(tmp_path / "k.cl", GOOD_SOURCE)
    assert compile_main.run([src, "-o", "-"]) == 0
    assert capsysbinary.readouterr().out == FAKE_IR.encode()


def test_syntax_error_leaves_existing_output_byte_identical(tmp_path, capsys):
    src = write(tmp_path / "bad.cl", BAD_SOURCE)
    out = tmp_path / "out.ll"
    old = b"previous \x00 bytes\n" * 100
    out.write_bytes(old)
    before = os.stat(out)
    assert compile_main.run([src, "-o", str(out)]) == 1
    assert out.read_bytes() == old
    assert os.stat(out).st_mtime_ns == before.st_mtime_ns
    assert sorted(os.listdir(tmp_path)) == ["bad.cl", "out.ll"]
    err = capsys.readouterr().err
    assert "bad.cl:2:10: error: expected expression" in err
    assert "Traceback" not in err


def test_failed_compile_creates_no_output(tmp_path, capsys):
    src = write(tmp_path / "bad.cl", BAD_SOURCE)
    assert compile_main.run([src, "-o", str(tmp_path / "new.ll")]) == 1
    assert not (tmp_path / "new.ll").exists()


def test_existing_permissions_are_kept(tmp_path, fake_backend):
    src = write(tmp_path / "k.cl", GOOD_SOURCE)
    out = tmp_path / "k.ll"
    out.write_text("old")
    os.chmod(out, 0o640)
    assert compile_main.run([src, "-o", str(out)]) == 0
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640


def test_dev_null_is_written_not_replaced(tmp_path, fake_backend):
    src = write(tmp_path / "k.cl", GOOD_SOURCE)
    assert compile_main.run([src, "-o", os.devnull]) == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_unwritable_output_directory_is_an_error(tmp_path, fake_backend, capsys):
    src = write(tmp_path / "k.cl", GOOD_SOURCE)
    assert compile_main.run([src, "-o", str(tmp_path / "no" / "such" / "dir.ll")]) == 1
    assert "clcoop: error: unable to write output file" in capsys.readouterr().err


def _boom(*args, **kwargs):
    raise KeyError("unexpected internal state")


def test_internal_error_is_short_exit_70_and_keeps_output(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(driver, "compile_source", _boom)
    src = write(tmp_path / "k.cl", GOOD_SOURCE)
    out = tmp_path / "k.ll"
    out.write_text("old output")
    assert compile_main.run([src, "-o", str(out)]) == 70
    err = capsys.readouterr().err
    assert err.startswith("clcoop: internal compiler error: KeyError: 'unexpected internal state'")
    assert f"while compiling {src}" in err
    assert compile_main.ISSUE_TRACKER in err
    assert "Traceback" not in err
    assert out.read_text() == "old output"


def test_internal_error_traceback_only_with_verbose(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(driver, "compile_source", _boom)
    src = write(tmp_path / "k.cl", GOOD_SOURCE)
    assert compile_main.run(["--verbose", src, "-o", str(tmp_path / "k.ll")]) == 70
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "_boom" in err


def test_internal_error_names_the_source_location_being_compiled(tmp_path, monkeypatch, capsys):
    from clcoop.diagnostics import SourceLocation

    def failing_stage(source, options):
        loc = SourceLocation(options.filename, 7, 3)  # noqa: F841  what a stage would hold
        raise AssertionError("lowering invariant")
    monkeypatch.setattr(driver, "compile_source", failing_stage)
    src = write(tmp_path / "k.cl", GOOD_SOURCE)
    assert compile_main.run([src, "-o", str(tmp_path / "k.ll")]) == 70
    assert f"while compiling {src}:7:3" in capsys.readouterr().err


def test_missing_tool_for_spirv_is_a_clear_error(tmp_path, fake_backend, monkeypatch, capsys):
    import clcoop.spirv
    from clcoop.errors import ToolMissing

    def no_llc(ir, triple):
        raise ToolMissing("llc-22 not found: install LLVM 22")
    monkeypatch.setattr(clcoop.spirv, "ir_to_spirv", no_llc, raising=False)
    src = write(tmp_path / "k.cl", GOOD_SOURCE)
    assert compile_main.run([src, "--emit-spirv", "-o", str(tmp_path / "k.spv")]) == 1
    assert "clcoop: error: llc-22 not found" in capsys.readouterr().err
    assert not (tmp_path / "k.spv").exists()


def test_options_reach_the_driver(tmp_path, monkeypatch):
    seen = {}

    def record(source, options):
        seen["options"] = options
        return driver.CompileResult(ir="", diagnostics=[])
    monkeypatch.setattr(driver, "compile_source", record)
    src = write(tmp_path / "k.cl", GOOD_SOURCE)
    argv = [src, "-o", str(tmp_path / "k.ll"), "-I", "a", "-Ib", "-D", "X=2", "-DY", "-UZ",
            "-cl-std=CL2.0", "-triple", "spir-unknown-unknown", "-O2"]
    assert compile_main.run(argv) == 0
    options = seen["options"]
    assert options.include_dirs == ["a", "b"]
    assert options.defines == {"X": "2", "Y": None} and options.undefines == ["Z"]
    assert (options.cl_std, options.triple, options.opt_level) == ("CL2.0", "spir-unknown-unknown", 2)
    assert options.filename == src


@pytest.mark.parametrize("argv, message", [
    (["--nope", "k.cl"], "unknown argument: '--nope'"),
    ([], "no input files"),
    (["k.cl", "-o"], "argument to '-o' is missing"),
    (["-O9", "k.cl"], "invalid optimization level"),
    (["a.cl", "b.cl"], "only one input file"),
])
def test_usage_errors_exit_1(argv, message, capsys):
    assert compile_main.run(argv) == 1
    assert message in capsys.readouterr().err


def test_real_process_exit_codes(tmp_path):
    """The installed entry point, as a user runs it: exit 1 and a clang-style message."""
    src = write(tmp_path / "bad.cl", BAD_SOURCE)
    done = subprocess.run([sys.executable, "-m", "clcoop.cli.compile_main", src, "-o",
                           str(tmp_path / "o.ll")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "bad.cl:2:10: error: expected expression" in done.stderr
    assert "Traceback" not in done.stderr
    assert "1 error generated." in done.stderr


def test_deep_nesting_compiles_or_is_located():
    """Long expressions compile; absurd nesting is a located error, never a traceback."""
    from clcoop.errors import CompileError

    chain = "kernel void k(global int *p) { p[0] = " + "+".join(["1"] * 3000) + "; }\n"
    assert "define spir_kernel" in driver.compile_source(chain, driver.CompileOptions(filename="c.cl")).ir
    parens = "kernel void k(global int *p) { p[0] = " + "(" * 200 + "1" + ")" * 200 + "; }\n"
    driver.compile_source(parens, driver.CompileOptions(filename="p.cl"))
    absurd = "kernel void k(global int *p) { p[0] = " + "(" * 5000 + "1" + ")" * 5000 + "; }\n"
    with pytest.raises(CompileError) as info:
        driver.compile_source(absurd, driver.CompileOptions(filename="a.cl"))
    [diagnostic] = info.value.diagnostics
    assert diagnostic.message == "expression or statement nested too deeply"
    assert diagnostic.location.file == "a.cl" and diagnostic.location.line == 1
    assert sys.getrecursionlimit() < driver.RECURSION_LIMIT   # restored afterwards


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_layout_into_a_closed_pipe_prints_no_traceback(extra):
    """`clcoop-layout ... | head -1`: the reader stops early (the 600 KB table is more than a
    pipe holds, so the write breaks); that is not an error and prints no BrokenPipeError."""
    import shlex
    command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "clcoop.cli.layout_main", "--rows",
                                                 "256", "--cols", "256", "--subgroup-size", "16"] + extra)
    proc = subprocess.run(["bash", "-c", f"set -o pipefail; {command} | head -c 10 >/dev/null"],
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))})
    assert proc.stderr == ""
    assert proc.returncode == 0
