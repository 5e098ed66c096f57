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
    assert not any(target.startswith("clcoop.frontend") for target in graph["clcoop.ir.loader"].split(", "))


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
        "ir/loader.py": "import re\ndef load():\n    import llvmlite.binding as llvm\n",
        "interp/x.py": "def f():\n    import struct\n"})
    assert _imports.find_cycle(modules) is None
    assert _imports.lazy_import_problems(modules) == ["clcoop/interp/x.py:2: import of struct inside a function"]


def test_a_cycle_through_the_package_itself_is_found(tmp_path):
    # The circle issue 27 found: __init__ -> api -> frontend.driver -> frontend.lower ->
    # __init__ (for __version__), every edge an import inside a function.
    modules = _package(tmp_path, {
        "__init__.py": "def __getattr__(name):\n    from clcoop import api\n",
        "api.py": "def build():\n    from clcoop.frontend.driver import compile_source\n",
        "frontend/__init__.py": "",
        "frontend/driver.py": "def compile_source():\n    from clcoop.frontend import lower\n",
        "frontend/lower.py": "def producer():\n    from clcoop import __version__\n"})
    assert _imports.find_cycle(modules) == ["clcoop", "clcoop.api", "clcoop.frontend.driver",
                                            "clcoop.frontend.lower", "clcoop"]
    assert _imports.inside_functions(modules) == [
        "clcoop/__init__.py:2: clcoop -> clcoop.api",
        "clcoop/api.py:2: clcoop.api -> clcoop.frontend.driver",
        "clcoop/frontend/driver.py:2: clcoop.frontend.driver -> clcoop.frontend.lower",
        "clcoop/frontend/lower.py:2: clcoop.frontend.lower -> clcoop"]


def test_the_version_and_the_compile_options_import_nothing_that_circles():
    run = subprocess.run([sys.executable, "-m", "clcoop._imports", "--inside-functions"], capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    graph_text, _, inside = run.stdout.partition("\n\n")
    graph = dict(line.split(" -> ", 1) for line in graph_text.splitlines())
    assert graph["clcoop.version"] == "(none)"
    assert "clcoop.version" in graph["clcoop.frontend.lower"].split(", ")
    assert "clcoop" not in graph["clcoop.frontend.lower"].split(", ")
    assert not any(target.startswith("clcoop.frontend") for target in graph["clcoop.options"].split(", "))
    assert "clcoop.options" in graph["clcoop.frontend.driver"].split(", ")
    assert "clcoop/frontend/lower.py:" in inside and "imports of clcoop modules inside functions" in inside


def test_no_engine_imports_another_and_the_ir_package_imports_no_engine(tmp_path):
    modules = _package(tmp_path, {
        "__init__.py": "", "interp/__init__.py": "", "native/__init__.py": "", "ir/__init__.py": "",
        "interp/execute.py": "from clcoop.native import runtime\n",
        "native/runtime.py": "from clcoop.interp import memory\nfrom clcoop.ir import loader\n",
        "interp/memory.py": "", "ir/loader.py": "from clcoop.interp import memory\n"})
    assert _imports.engine_edges(modules) == [("clcoop.interp.execute", "clcoop.native.runtime"),
                                              ("clcoop.native.runtime", "clcoop.interp.memory")]
    assert _imports.engine_problems(modules) == [
        "clcoop.interp.execute imports clcoop.native.runtime: an engine imports no other engine "
        "(shared code belongs in clcoop.ir or clcoop.prepare)",
        "clcoop.native.runtime imports clcoop.interp.memory: an engine imports no other engine "
        "(shared code belongs in clcoop.ir or clcoop.prepare)",
        "clcoop.ir.loader imports clcoop.interp.memory: the IR package imports no engine"]
    assert _imports.engine_problems(_imports.read_modules()) == []
