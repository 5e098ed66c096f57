# lit configuration: one feature per test file; CHECK lines say what matters.
import os
import shutil
import sys

import lit.formats

config.name = "clcoop"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cl", ".ll", ".test"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)

root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
py = sys.executable
config.environment["PYTHONPATH"] = root + os.pathsep + os.environ.get("PYTHONPATH", "")
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"
for var in ("HOME", "PATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%clcoop-run", f"{py} -m clcoop.cli.run_main"))
config.substitutions.append(("%clcoop-layout", f"{py} -m clcoop.cli.layout_main"))
config.substitutions.append(("%clcoop", f"{py} -m clcoop.cli.compile_main"))
config.substitutions.append(("%python", py))
config.substitutions.append(("%inputs", os.path.join(os.path.dirname(__file__), "Inputs")))
config.substitutions.append(("%examples", os.path.join(root, "examples")))
# Python FileCheck (PyPI package `filecheck`), run through this interpreter.
config.substitutions.append(("FileCheck", f"{py} -m filecheck"))
config.substitutions.append(("%not", f"{py} {os.path.join(root, 'test', 'lit', 'not.py')}"))


def _find(names):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    for name in names:
        path = os.path.join("/usr/lib/llvm-22/bin", name.replace("-22", ""))
        if os.path.exists(path):
            return path
    return None


# External tools: tests that need them say `REQUIRES: llc` / `REQUIRES: spirv-tools` / `REQUIRES: clang`.
llc = _find(["llc-22", "llc"])
if llc:
    config.available_features.add("llc")
    config.substitutions.append(("%llc", llc))
clang = _find(["clang-22"])
if clang:
    config.available_features.add("clang")
    config.substitutions.append(("%clang", clang))
spirv_val = shutil.which("spirv-val")
if spirv_val:
    config.available_features.add("spirv-tools")
    for tool in ("spirv-val", "spirv-dis", "spirv-link"):
        config.substitutions.append((f"%{tool}", shutil.which(tool) or tool))
