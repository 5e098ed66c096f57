"""The optimizer child process (clcoop/native/jit.py, module docstring) imports the same
clcoop as the process that starts it, however that one found the package, and a child
that cannot start leaves no traceback on the user's terminal."""
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import clcoop

PACKAGE = Path(clcoop.__file__).resolve().parent

PARENT = textwrap.dedent('''
    import sys
    sys.path.insert(0, sys.argv[1])
    import clcoop.native.jit as jit
    assert jit.__file__.startswith(sys.argv[1]), jit.__file__
    text = "define i32 @f(i32 %x) {\\n  %y = add i32 %x, 0\\n  ret i32 %y\\n}\\n"
    out = jit._optimizer.optimize(text, 2)          # the child's reply, no in-process fallback
    assert "= add" not in out and "ret i32 %x" in out, out
    assert "clcoop.native.math_ir" not in sys.modules     # so the marker's line is the child's
    print("optimized")
''')


def _copy_of_package(tmp_path, marker):
    """A copy of the package whose math_ir (imported by the child as it starts) writes
    which copy it was imported from to `marker`."""
    root = tmp_path / "copy"
    shutil.copytree(PACKAGE, root / "clcoop", ignore=shutil.ignore_patterns("__pycache__"))
    with open(root / "clcoop" / "native" / "math_ir.py", "a") as f:
        f.write(f"\nopen({str(marker)!r}, 'a').write(__file__ + '\\n')\n")
    return root


def test_the_child_imports_the_parents_copy_of_the_package(tmp_path):
    """The parent finds the copy only through its own sys.path (not installed, not on
    PYTHONPATH, not the current directory): the child must import that copy too, not
    fail, and not some other installed clcoop."""
    marker = tmp_path / "imported_from.txt"
    root = _copy_of_package(tmp_path, marker)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", PARENT, str(root)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "optimized" in run.stdout, run.stdout + run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    imported = marker.read_text().split()
    assert len(imported) == 1 and imported[0].startswith(str(root)), imported


def test_a_child_that_cannot_start_prints_no_traceback(tmp_path):
    """Started where llvmlite cannot be imported (no site-packages: -S -I), the child
    exits without a traceback; the parent then runs the pipeline itself."""
    run = subprocess.run([sys.executable, "-S", "-I", str(PACKAGE / "native" / "jit.py"), "--optimizer"],
                         cwd=tmp_path, input=b"", capture_output=True, timeout=60)
    assert run.returncode == 1
    assert b"Traceback" not in run.stderr, run.stderr
