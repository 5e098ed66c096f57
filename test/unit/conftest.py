"""Where the environment variable CI is set (.ci/run sets it), a test that skips because an
external tool is missing (clang-22, llc-22, SPIRV-Tools) fails instead: CI installs them
(scripts/setup.sh), so a missing tool there means the oracle tests silently did not run.

Tests marked `slow` (the marker is registered in pyproject.toml: fuzzing, differential and
corpus runs, long native runs) are deselected unless `--run-slow` is given (`scripts/test.sh
--all`) or CI is set, or `-m` selects by markers. A test file or test named on the command
line runs whole, and a selection of slow tests only runs them: the marker never makes a
selection empty (pytest's exit status 5)."""
import os
import re
import sys
from pathlib import Path

import pytest

# The tests mirror the package (frontend/, ir/, interp/, native/, spirv/, vulkan/, cli/,
# package/, examples/); the helpers they share live in support/. Every folder is on the
# path, so a test module that reuses another's kernels (the native tests take the
# interpreter tests' kernels) imports it by name, whichever folder pytest collects first.
for _folder in sorted(p for p in Path(__file__).resolve().parent.iterdir()
                      if p.is_dir() and p.name not in ("data", "kernels", "__pycache__")):
    sys.path.insert(0, str(_folder))

MISSING_TOOL_RE = re.compile(r"clang|llc|spirv|SPIR-V|not installed|not found", re.IGNORECASE)


def in_ci():
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not (report.skipped and in_ci()):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if MISSING_TOOL_RE.search(reason):
        report.outcome = "failed"
        report.longrepr = f"CI is set, but a tool the test needs is missing: {reason}"


def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true",
                     help="also run the tests marked slow (scripts/test.sh --all; CI always does)")


def _named_files(config):
    """The test files named on the command line (as files or node ids), resolved."""
    if config.args_source != config.ArgsSource.ARGS:
        return set()
    named = set()
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::")[0]).resolve()
        if path.is_file():
            named.add(path)
    return named


@pytest.hookimpl(trylast=True)      # after -k and -m have chosen: see what they left
def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-slow") or in_ci() or config.option.markexpr:
        return      # -m selects by the marker itself (`-m slow`, `-m "not slow"`)
    named = _named_files(config)
    slow = [item for item in items
            if item.get_closest_marker("slow") and Path(item.path).resolve() not in named]
    if not slow or len(slow) == len(items):     # a selection of slow tests only: run them
        return
    chosen = set(map(id, slow))
    config.hook.pytest_deselected(items=slow)
    items[:] = [item for item in items if id(item) not in chosen]
    config._clcoop_slow_deselected = len(slow)


def pytest_terminal_summary(terminalreporter, config):
    count = getattr(config, "_clcoop_slow_deselected", 0)
    if count:
        terminalreporter.write_line(f"{count} slow tests deselected (scripts/test.sh --all or "
                                    f"--run-slow runs them; CI always does)")


@pytest.fixture(scope="session")
def shared_builds():
    """Programs built once per session (support/shared_builds.py): tests that launch the
    same kernel share its native build. (Imported here: clcoop is loaded by the first test
    that asks, not by every pytest run.)"""
    from shared_builds import SharedBuilds
    return SharedBuilds()
