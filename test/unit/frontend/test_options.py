"""One options parser for `clcoop` and Program.build(options) (clcoop.options), and the build
log: an option means the same in both; each default is the documented one."""
import warnings

import pytest

import clcoop
from clcoop.cli import compile_main
from clcoop.errors import ArgumentError
from clcoop.options import parse_options
from spies import record_calls


@pytest.mark.parametrize("flag, level", [("-O", 1), ("-O0", 0), ("-O1", 1), ("-O3", 3), ("-Os", 2),
                                         ("-Oz", 2), ("-Ofast", 3), ("-cl-opt-disable", 0)])
def test_optimization_flags_mean_the_same_in_cli_and_build(flag, level):
    assert parse_options([flag, "k.cl"]).opt_level == level
    assert parse_options([flag], for_build=True).opt_level == level


def test_defaults_are_clang_for_cli_and_clbuildprogram_for_build():
    assert parse_options(["k.cl"]).opt_level == 0
    assert parse_options([], for_build=True).opt_level == 2


def test_build_applies_the_level(monkeypatch):
    from clcoop.frontend import driver
    seen = record_calls(monkeypatch, driver, "compile_source", lambda source, options: options.opt_level)
    for options in (["-O"], ["-Os"], [], "-O0"):
        clcoop.Program("kernel void k(global int *o) { o[0] = 1; }").build(options)
    assert seen == [1, 2, 2, 0]


@pytest.mark.parametrize("bad", ["-O7", "-Ox", "-Wno-such-group", "-cl-no-such-option", "--bogus"])
def test_both_reject_the_same_bad_options(bad, capsys):
    with pytest.raises(ArgumentError):
        clcoop.Program("kernel void k() {}").build([bad])
    assert compile_main.run([bad, "k.cl"]) == 1
    assert bad in capsys.readouterr().err


def test_command_line_only_options_are_refused_by_build():
    with pytest.raises(ArgumentError, match="command-line option"):
        clcoop.Program("kernel void k() {}").build(["-o", "x.ll"])


def test_help_states_both_defaults(capsys):
    assert compile_main.run(["--help"]) == 0
    out = capsys.readouterr().out
    assert "Default -O0, as clang" in out and "-O2, as clBuildProgram" in out
    assert "-Wcoop-portability" in out or "coop-portability" in out


UNINIT = "kernel void k(global int *o) { int x; o[0] = x; }"


def test_build_log_and_compiler_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prog = clcoop.Program(UNINIT).build(filename="k.cl")
    assert "k.cl:1:46: warning: variable 'x' is uninitialized when used here [-Wuninitialized]" in prog.build_log
    assert prog.build_log.endswith("1 warning generated.")
    compiler = [w for w in caught if issubclass(w.category, clcoop.CompilerWarning)]
    assert len(compiler) == 1
    assert "variable 'x' is uninitialized" in str(compiler[0].message)
    assert compiler[0].message.diagnostic.flag == "uninitialized"
    assert compiler[0].filename == __file__       # points at the caller of build()


def test_clean_build_has_empty_log_and_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prog = clcoop.Program("kernel void k(global int *o) { o[0] = 1; }").build()
    assert prog.build_log == ""


def test_warning_options_in_build():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert clcoop.Program(UNINIT).build(["-w"]).build_log == ""
        assert clcoop.Program(UNINIT).build(["-Wno-uninitialized"]).build_log == ""
    for options in (["-Werror"], ["-Werror=uninitialized"]):
        prog = clcoop.Program(UNINIT)
        with pytest.raises(clcoop.CompileError, match=r"\[-Werror,-Wuninitialized\]"):
            prog.build(options)
        assert "error: variable 'x' is uninitialized" in prog.build_log
