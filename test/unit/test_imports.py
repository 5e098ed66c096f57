"""The import graph (clcoop/_imports.py): no cycle, no import inside a function in
clcoop/interp/ (issue 11)."""
import subprocess
import sys

from clcoop import _imports


def test_package_import_graph_has_no_cycle_and_no_lazy_interp_import():
    run = subprocess.run([sys.executable, "-m", "clcoop._imports"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    graph = dict(line.split(" -> ", 1) for line in run.stdout.splitlines())
    assert "clcoop.interp.lanes" in graph["clcoop.interp.instructions"]
    assert "clcoop.interp.execute" not in graph["clcoop.interp.ocl_builtins"]
    assert not any(target.startswith("clcoop.frontend") for target in graph["clcoop.interp.loader"].split(", "))


def _package(tmp_path, files):
    root = tmp_path / "clcoop"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return _imports.read_modules(root)


def test_a_cycle_through_a_function_level_import_is_found(tmp_path):
    modules = _package(tmp_path, {
        "__init__.py": "", "interp/__init__.py": "",
        "interp/a.py": "from clcoop.interp import b\n",
        "interp/b.py": "def f():\n    from clcoop.interp.a import g\n"})
    assert _imports.find_cycle(modules) == ["clcoop.interp.a", "clcoop.interp.b", "clcoop.interp.a"]
    assert _imports.lazy_import_problems(modules) == [
        "clcoop/interp/b.py:2: import of clcoop.interp.a inside a function"]


def test_lazy_imports_outside_interp_and_of_llvmlite_are_allowed(tmp_path):
    modules = _package(tmp_path, {
        "__init__.py": "", "interp/__init__.py": "", "api.py": "def f():\n    import json\n",
        "interp/loader.py": "import re\ndef load():\n    import llvmlite.binding as llvm\n",
        "interp/x.py": "def f():\n    import struct\n"})
    assert _imports.find_cycle(modules) is None
    assert _imports.lazy_import_problems(modules) == ["clcoop/interp/x.py:2: import of struct inside a function"]
