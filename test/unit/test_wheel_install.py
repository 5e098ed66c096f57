"""A normal (non-editable) install works: build the wheel, install it into a fresh venv and
run the README's worked example, command by command, from a directory outside the checkout.

The commands are read from the README itself (the section "A worked example"): indented
lines are shell commands, ```python blocks are run with the venv's Python. The test fails
if the header is not package data (issue: `internal compiler error: FileNotFoundError:
.../site-packages/include/clcoop/opencl-c-coop.h`), or if the README's example breaks.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def worked_example_steps(readme_text):
    """[(kind, text)] of the README's worked example: kind 'sh' or 'python'."""
    section = readme_text.split("\n## A worked example", 1)[1].split("\n## ", 1)[0]
    steps, lines, i = [], section.splitlines(), 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```python"):
            end = lines.index("```", i + 1)
            steps.append(("python", "\n".join(lines[i + 1:end])))
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
            steps.append(("sh", command))
        i += 1
    return steps


def test_readme_worked_example_is_extracted():
    steps = worked_example_steps((ROOT / "README.md").read_text())
    kinds = [k for k, _ in steps]
    assert kinds.count("python") >= 1 and kinds.count("sh") >= 3
    assert any(text.startswith("clcoop-run ") for k, text in steps if k == "sh")


def _run(cmd, cwd, env, what):
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{what} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc


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
    # The dependencies (llvmlite, NumPy, ...) come from the system site-packages; clcoop
    # itself only from the wheel (the venv's site-packages is searched first).
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], tmp_path, env, "venv")
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
         tmp_path, env, "pip install")
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"

    work = tmp_path / "work"        # outside the checkout: only the example sources are copied
    shutil.copytree(ROOT / "examples", work / "examples")
    where = _run([str(python), "-c", "import clcoop; print(clcoop.__file__)"], work, env, "import")
    assert str(venv) in where.stdout, where.stdout

    for kind, text in worked_example_steps((ROOT / "README.md").read_text()):
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
