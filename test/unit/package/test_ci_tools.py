"""Under CI, a missing external tool fails the run instead of skipping the oracle tests
(test/unit/conftest.py for pytest, test/lit/lit.cfg.py for lit)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SKIPPING_TEST = """
import pytest
def test_needs_clang():
    pytest.skip("clang-22 is not installed")
def test_other_skip():
    pytest.skip("nothing to do with tools")
"""


def run_pytest(tmp_path, ci):
    shutil.copy(ROOT / "test" / "unit" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_skipping.py").write_text(SKIPPING_TEST)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"     # (no installed plugin needed: 1 s less)
    if ci:
        env["CI"] = "true"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA",
                           str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True)


def test_pytest_skip_for_a_missing_tool_fails_under_ci(tmp_path):
    proc = run_pytest(tmp_path, ci=True)
    assert proc.returncode == 1
    assert "1 failed, 1 skipped" in proc.stdout
    assert "CI is set, but a tool the test needs is missing" in proc.stdout


def test_pytest_skip_outside_ci_stays_a_skip(tmp_path):
    proc = run_pytest(tmp_path, ci=False)
    assert proc.returncode == 0 and "2 skipped" in proc.stdout


def test_lit_refuses_to_run_without_the_tools_under_ci(tmp_path):
    lit = shutil.which("lit")
    assert lit is not None
    bin_dir = tmp_path / "bin"        # a PATH with Python only: no clang-22
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    env = {**os.environ, "CI": "true", "PATH": str(bin_dir)}
    proc = subprocess.run([sys.executable, lit, "-q", str(ROOT / "test" / "lit" / "cli" / "version-help.test")],
                          env=env, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "CI is set but" in proc.stderr and "clang-22" in proc.stderr
