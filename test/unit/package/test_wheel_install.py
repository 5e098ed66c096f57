"""A normal (non-editable) install works: build the wheel, install it into a fresh venv and
run the README's worked example, command by command, from a directory outside the checkout.

The commands are read from the README itself (the section "A worked example"): indented
lines are shell commands, ```python blocks are run with the venv's Python. A command followed
by a ```text block is documented with its output (a fault report): it must print exactly that
and exit 1 (issue 26: the README showed a line number and source text the code no longer
gave). The test fails if the header is not package data (issue: `internal compiler error:
FileNotFoundError: .../site-packages/include/clcoop/opencl-c-coop.h`), if the native engine's
.ll files are not (clcoop/native/ll/), or if the README's example breaks.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def worked_example_steps(readme_text):
    """[(kind, text)] of the README's worked example: kind 'sh' or 'python'."""
    return [(kind, text) for kind, text, _output in documented_steps(readme_text)]


def documented_steps(readme_text):
    """[(kind, text, output)] of the README's worked example: `output` is the ```text block
    that follows a shell command with nothing but blank lines between, else None."""
    section = readme_text.split("\n## A worked example", 1)[1].split("\n## ", 1)[0]
    steps, lines, i = [], section.splitlines(), 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```python"):
            end = lines.index("```", i + 1)
            steps.append(["python", "\n".join(lines[i + 1:end]), None])
            i = end + 1
            continue
        if line.startswith("```text"):
            end = lines.index("```", i + 1)
            before = [l for l in lines[:i] if l.strip()]
            if steps and steps[-1][0] == "sh" and before and before[-1].startswith("    "):
                steps[-1][2] = "\n".join(lines[i + 1:end]) + "\n"
            i = end + 1
            continue
        if line.startswith("```"):
            i = lines.index("```", i + 1) + 1
            continue
        if line.startswith("    ") and line.strip():
            command = line.strip()
            while command.endswith("\\"):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            steps.append(["sh", command, None])
        i += 1
    return [tuple(step) for step in steps]


def test_readme_worked_example_is_extracted():
    steps = worked_example_steps((ROOT / "README.md").read_text())
    kinds = [k for k, _ in steps]
    assert kinds.count("python") >= 1 and kinds.count("sh") >= 3
    assert any(text.startswith("clcoop-run ") for k, text in steps if k == "sh")
    outputs = [(text, output) for kind, text, output in documented_steps((ROOT / "README.md").read_text())
               if output]
    assert [text.split()[0] for text, _ in outputs] == ["clcoop-run"]     # the fault report
    assert outputs[0][1].startswith("examples/gemm_f32.cl:")


def _run(cmd, cwd, env, what):
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{what} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc


def dependency_directories():
    """The site-packages directories the running Python imports clcoop's dependencies from:
    the running environment's own, whether it is a venv, the system Python or a venv with
    --system-site-packages (a venv's "system" site-packages is its base interpreter's, which
    may lack them: issue 26)."""
    return [p for p in sys.path
            if Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()
            and Path(p).resolve() != ROOT]


def share_dependencies(python, env):
    """Lets the venv of `python` import the running environment's packages, after its own (a
    .pth of plain directories: their own .pth files, the checkout's editable install among
    them, are not run)."""
    where = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                 None, env, "venv site-packages").stdout.strip()
    Path(where, "_running_environment.pth").write_text("\n".join(dependency_directories()) + "\n")


def test_dependency_directories_hold_the_dependencies():
    import importlib.util
    directories = [Path(d).resolve() for d in dependency_directories()]
    for module in ("numpy", "llvmlite", "pycparserext", "pcpp", "ml_dtypes"):
        origin = Path(importlib.util.find_spec(module).origin).resolve()
        assert any(d in origin.parents for d in directories), (module, origin, directories)


@pytest.mark.slow          # builds a wheel and a venv (~15 s)
def test_wheel_in_fresh_venv_runs_readme_example(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["CLCOOP_CACHE_DIR"] = str(tmp_path / "cache")
    # Build from a copy: an in-tree build would leave build/ and *.egg-info behind.
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", "__pycache__", "Output", "build", "*.egg-info",
                                                  ".cache*", "out"))
    wheels = tmp_path / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(source)],
         tmp_path, env, "pip wheel")
    wheel = next(wheels.glob("clcoop-*.whl"))
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env, "venv")
    python = venv / "bin" / "python"
    share_dependencies(python, env)
    # As a user installs it: pip checks the wheel's dependencies (found installed, so nothing
    # is downloaded) and puts clcoop itself into the venv.
    _run([str(python), "-m", "pip", "install", "-q", "--no-index", str(wheel)],
         tmp_path, env, "pip install")
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"

    work = tmp_path / "work"        # outside the checkout: only the example sources are copied
    shutil.copytree(ROOT / "examples", work / "examples")
    where = _run([str(python), "-c", "import clcoop; print(clcoop.__file__)"], work, env, "import")
    assert str(venv) in where.stdout, where.stdout
    # The native engine's fixed IR is package data: the worker pool's module loads from the wheel.
    _run([str(python), "-c", "from clcoop.native import coop_routines, interrupt, pool, runtime_ir; "
                             "assert 'clcoop_launch' in pool.pool_ir('x86_64')"],
         work, env, "the native engine's .ll files")

    for kind, text, output in documented_steps((ROOT / "README.md").read_text()):
        if output is not None:          # a documented fault: exactly the README's text
            proc = subprocess.run(["bash", "-c", text], cwd=work, env=env, capture_output=True,
                                  text=True, timeout=600)
            assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", output), text
            continue
        if kind == "python":
            proc = _run([str(python), "-c", text], work, env, f"README Python block:\n{text}")
        else:
            proc = _run(["bash", "-c", text], work, env, f"README command: {text}")
        assert "warning" not in proc.stderr, f"{text}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr
    assert (work / "out" / "C.npy").exists()
    if any(text.startswith("clcoop ") for kind, text in worked_example_steps((ROOT / "README.md").read_text())
           if kind == "sh"):
        assert any((work / "out").glob("*.ll"))
    assert not re.search(r"\S", "".join(p.name + "\n" for p in work.iterdir() if p.name not in ("examples", "out")))
