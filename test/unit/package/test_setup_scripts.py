"""scripts/setup.sh, scripts/env.sh, scripts/test.sh and the `slow` marker (issues 26 and 27):
the README's two commands on a fresh machine, in a venv or not (Debian's system Python is
externally managed, PEP 668), and a default test run that leaves the slow tests out."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from script_modules import load_script

ROOT = Path(__file__).resolve().parents[3]
pytest_plugins = ["pytester"]


def _python_env():
    return load_script("python_env.py")


@pytest.mark.parametrize("prefix, marker, dotvenv, expected", [
    ("/home/u/venv", False, False, "venv"),      # an active venv wins, even a .venv elsewhere
    ("/home/u/venv", True, True, "venv"),
    ("/usr", True, False, "dotvenv"),            # Debian's /usr/bin/python3: make .venv
    ("/usr", False, True, "dotvenv"),            # .venv made by an earlier run: use it again
    ("/usr", False, False, "plain"),             # pyenv, conda, python.org: install into it
])
def test_install_target(tmp_path, prefix, marker, dotvenv, expected):
    if marker:
        (tmp_path / "EXTERNALLY-MANAGED").write_text("[externally-managed]\n")
    base = "/usr"
    assert _python_env().install_target(prefix, base, str(tmp_path), dotvenv) == expected


def _fake_tools(directory, installed):
    """dpkg-query that knows only `installed`, and an apt-get that must not run (dry run)."""
    directory.mkdir()
    (directory / "dpkg-query").write_text(
        "#!/bin/bash\ncase \" " + " ".join(installed) + " \" in *\" ${@: -1} \"*) "
        "printf 'install ok installed';; *) exit 1;; esac\n")
    (directory / "apt-get").write_text("#!/bin/bash\necho apt-get ran >&2; exit 9\n")
    for tool in ("dpkg-query", "apt-get"):
        (directory / tool).chmod(0o755)


def _dry_run(tmp_path, python_dir, installed=()):
    tools = tmp_path / "tools"
    _fake_tools(tools, installed)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = f"{python_dir}{os.pathsep}{tools}{os.pathsep}{env['PATH']}"
    return subprocess.run(["bash", str(ROOT / "scripts" / "setup.sh"), "--dry-run"], env=env,
                          capture_output=True, text=True, timeout=120)


def test_setup_installs_into_an_active_venv_and_apt_installs_vulkan(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    proc = _dry_run(tmp_path, venv / "bin")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    [apt] = [line for line in lines if "apt-get install" in line]
    assert apt.split()[-4:] == ["llvm-22", "clang-22", "libvulkan1", "mesa-vulkan-drivers"]
    assert f"into the active virtual environment ({venv})" in proc.stdout
    assert lines[-1] == "+ python3 -m pip install -q -e .[test]"


def test_setup_installs_nothing_with_apt_when_all_is_there(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    proc = _dry_run(tmp_path, venv / "bin", ["llvm-22", "clang-22", "libvulkan1", "mesa-vulkan-drivers"])
    assert proc.returncode == 0 and "apt-get" not in proc.stdout, proc.stdout + proc.stderr


def test_env_sh_activates_dotvenv_only_outside_a_venv(tmp_path):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "env.sh").write_text((ROOT / "scripts" / "env.sh").read_text())
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "activate").write_text('VIRTUAL_ENV="$PWD/.venv"\n')
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    show = ["bash", "-c", ". scripts/env.sh; echo \"[${VIRTUAL_ENV:-}]\""]
    out = subprocess.run(show, cwd=tmp_path, env=env, capture_output=True, text=True).stdout
    assert out.strip() == f"[{tmp_path}/.venv]"
    out = subprocess.run(show, cwd=tmp_path, env={**env, "VIRTUAL_ENV": "/mine"},
                         capture_output=True, text=True).stdout
    assert out.strip() == "[/mine]"


@pytest.mark.parametrize("xdist", [True, False], ids=["with-xdist", "without-xdist"])
def test_test_sh_passes_all_as_run_slow(tmp_path, xdist):
    """--all reaches pytest as --run-slow; other arguments as they are; pytest runs on every
    CPU (-n auto) where pytest-xdist is installed, else in one process."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "lit").write_text("#!/bin/bash\nexit 0\n")
    # The fake python3 answers test.sh's `python3 -c "import xdist"` as told, echoes the rest.
    (fake / "python3").write_text("#!/bin/bash\nif [ \"$1\" = -c ]; then exit %d; fi\necho \"$@\"\n" % (0 if xdist else 1))
    for tool in ("lit", "python3"):
        (fake / tool).chmod(0o755)
    # VIRTUAL_ENV set: env.sh activates no .venv of the checkout over the fake python3
    env = {**os.environ, "VIRTUAL_ENV": str(tmp_path), "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    run = lambda *args: subprocess.run(["bash", str(ROOT / "scripts" / "test.sh"), *args], env=env,
                                       capture_output=True, text=True).stdout.strip()
    parallel = " -n auto" if xdist else ""
    assert run() == "-m pytest -q -p no:cacheprovider" + parallel
    assert run("--all", "-k", "x y") == "-m pytest -q -p no:cacheprovider" + parallel + " --run-slow -k x y"


# ---------------------------------------------------------------- the slow marker
SAMPLE = """
import pytest

@pytest.mark.slow
def test_slow():
    pass

def test_quick():
    pass
"""


@pytest.fixture
def suite(pytester, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    # The sample suite needs no installed plugin: without their autoload (hypothesis,
    # pytest-benchmark) an in-process run takes 0.03 s of CPU instead of 1.1 s.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makeconftest((ROOT / "test" / "unit" / "conftest.py").read_text())
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow tests\n")
    pytester.makepyfile(test_sample=SAMPLE)
    pytester.makepyfile(test_only_slow="import pytest\n\n@pytest.mark.slow\ndef test_a():\n    pass\n")
    (pytester.path / "sub").mkdir()
    (pytester.path / "sub" / "test_sub_slow.py").write_text(
        "import pytest\n\n@pytest.mark.slow\ndef test_b():\n    pass\n")
    return pytester


def test_slow_tests_are_deselected_by_default(suite):
    result = suite.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, deselected=3)
    result.stdout.fnmatch_lines(["3 slow tests deselected*"])


def test_run_slow_and_ci_run_everything(suite, monkeypatch):
    suite.runpytest("-p", "no:cacheprovider", "--run-slow").assert_outcomes(passed=4)
    monkeypatch.setenv("CI", "true")
    suite.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=4)


def test_a_named_file_or_a_slow_only_selection_runs_whole(suite):
    suite.runpytest("-p", "no:cacheprovider", "test_sample.py").assert_outcomes(passed=2)
    result = suite.runpytest("-p", "no:cacheprovider", "sub")       # never exit 5
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    suite.runpytest("-p", "no:cacheprovider", "test_sample.py::test_slow").assert_outcomes(passed=1)


def test_a_keyword_selecting_slow_tests_only_runs_them(suite):
    result = suite.runpytest("-p", "no:cacheprovider", "-k", "test_a or test_b")    # never exit 5
    result.assert_outcomes(passed=2, deselected=2)


def test_dash_m_selects_by_the_marker_itself(suite):
    suite.runpytest("-p", "no:cacheprovider", "-m", "slow").assert_outcomes(passed=3, deselected=1)
    suite.runpytest("-p", "no:cacheprovider", "-m", "not slow").assert_outcomes(passed=1, deselected=3)


def test_the_marker_is_registered():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'markers = ["slow:' in text
