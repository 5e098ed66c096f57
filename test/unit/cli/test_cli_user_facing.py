"""What a new user met at the command line (issue 26, "Small things a user noticed" and the
missing dependency): each CLI names a missing Python package and how to install it,
clcoop-layout takes bf16, clcoop-run names its outputs after the files the user gave."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from clcoop.cli import layout_main, run_main

ROOT = Path(__file__).resolve().parents[3]
KERNEL = "kernel void add(global const float *a, global float *c) { c[get_global_id(0)] = a[get_global_id(0)] + 1.0f; }\n"


def _run_without(module, code, cwd):
    """`code` in a fresh interpreter where importing `module` fails as if it were not installed."""
    script = f"import sys\nsys.modules[{module!r}] = None\n{code}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


@pytest.mark.parametrize("module, code, program", [
    ("pycparserext", "from clcoop.cli.compile_main import main; sys.exit(main(['k.cl', '-o', 'k.ll']))",
     "clcoop"),
    ("numpy", "from clcoop.cli.run_main import main; "
              "sys.exit(main(['k.cl', '--global', '4', '--arg', 'a=a.npy', '--arg', 'c=c.npy']))",
     "clcoop-run"),
    ("numpy", "from clcoop.cli.layout_main import main; sys.exit(main(['--rows', '8', '--cols', '8']))",
     "clcoop-layout"),
])
def test_a_missing_dependency_is_named_with_how_to_install_it(tmp_path, module, code, program):
    (tmp_path / "k.cl").write_text(KERNEL)
    proc = _run_without(module, code, tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "internal" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith(f"{program}: error: the Python package '{module}'"), proc.stderr
    assert f"-m pip install '{module}" in proc.stderr       # with the version pyproject asks for
    assert sys.executable in proc.stderr                      # into the environment that ran it
    assert not (tmp_path / "k.ll").exists()


def test_a_missing_clcoop_module_is_still_an_internal_error(tmp_path):
    (tmp_path / "k.cl").write_text(KERNEL)
    proc = _run_without("clcoop.frontend.parse",
                        "from clcoop.cli.compile_main import main; sys.exit(main(['k.cl']))", tmp_path)
    assert proc.returncode == 70 and "internal compiler error" in proc.stderr, proc.stderr


def test_layout_takes_bf16(capsys):
    assert layout_main.main(["--rows", "8", "--cols", "16", "--use", "a", "--type", "bf16", "--json"]) == 0
    bf16 = json.loads(capsys.readouterr().out)
    assert layout_main.main(["--rows", "8", "--cols", "16", "--use", "a", "--type", "__bf16", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == bf16
    assert bf16["type"] == "__bf16"
    assert "bf16" in layout_main._parser().format_help()


def test_run_writes_each_output_under_its_input_files_name(tmp_path, capsys):
    (tmp_path / "k.cl").write_text(KERNEL)
    np.save(tmp_path / "src.npy", np.arange(4, dtype=np.float32))
    np.save(tmp_path / "deq.npy", np.zeros(4, np.float32))
    rc = run_main.main([str(tmp_path / "k.cl"), "--global", "4", "--arg", f"a={tmp_path / 'src.npy'}",
                        "--arg", f"c={tmp_path / 'deq.npy'}", "--out", str(tmp_path / "res")])
    assert rc == 0
    assert sorted(os.listdir(tmp_path / "res")) == ["deq.npy"]      # not res/c.npy; a is const
    np.testing.assert_array_equal(np.load(tmp_path / "res" / "deq.npy"), np.arange(4) + 1)
    assert f"wrote {tmp_path / 'res' / 'deq.npy'}" in capsys.readouterr().out
    assert "input file's name" in run_main._parser().format_help()


def test_run_refuses_two_outputs_of_one_file_name(tmp_path, capsys):
    (tmp_path / "k.cl").write_text("kernel void k(global float *a, global float *b) { a[0] = 1.0f; b[0] = 2.0f; }\n")
    for sub in ("x", "y"):
        (tmp_path / sub).mkdir()
        np.save(tmp_path / sub / "v.npy", np.zeros(1, np.float32))
    rc = run_main.main([str(tmp_path / "k.cl"), "--global", "1", "--arg", f"a={tmp_path / 'x' / 'v.npy'}",
                        "--arg", f"b={tmp_path / 'y' / 'v.npy'}", "--out", str(tmp_path / "res")])
    assert rc == 1
    assert "--arg a and --arg b are both read from a file named 'v.npy'" in capsys.readouterr().err
    assert not (tmp_path / "res").exists()
