# lit configuration: one feature per test file; CHECK lines say what matters.
import compileall
import os
import shutil
import sys

import lit.formats

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

config.name = "clcoop"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cl", ".ll", ".test"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)

root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
py = sys.executable
config.environment["PYTHONPATH"] = root + os.pathsep + os.environ.get("PYTHONPATH", "")
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"
# The tests' processes write no bytecode, so on a fresh checkout each of them would compile the
# package's sources again (lit 54 s against 41 s, idle): compile them once here, as installing does.
compileall.compile_dir(os.path.join(root, "clcoop"), quiet=2)
for var in ("HOME", "PATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%clcoop-run", f"{py} -m clcoop.cli.run_main"))
config.substitutions.append(("%clcoop-layout", f"{py} -m clcoop.cli.layout_main"))
config.substitutions.append(("%clcoop", f"{py} -m clcoop.cli.compile_main"))
config.substitutions.append(("%python", py))
config.substitutions.append(("%inputs", os.path.join(os.path.dirname(__file__), "Inputs")))
config.substitutions.append(("%examples", os.path.join(root, "examples")))
config.substitutions.append(("%not", f"{py} {os.path.join(root, 'test', 'lit', 'not.py')}"))


from clcoop.spirv.tools import find_tool  # noqa: E402  (one way to locate the tools)

# LLVM's FileCheck where llvm-22 is installed (CI installs it: scripts/setup.sh), else the
# PyPI package `filecheck` run through this interpreter. Both read the same CHECK lines; LLVM's
# starts in milliseconds where Python's takes 0.1-0.2 s, and the tests run it 288 times (the
# whole lit run on the loaded 2-core VM: 64 s with Python's, 30 s with LLVM's).
config.substitutions.append(("FileCheck", find_tool("FileCheck", required=False) or f"{py} -m filecheck"))

# External tools: tests that need them say `REQUIRES: llc` / `REQUIRES: spirv-tools` / `REQUIRES: clang`.
llc = find_tool("llc", required=False)
if llc:
    config.available_features.add("llc")
    config.substitutions.append(("%llc", llc))
clang = shutil.which("clang-22")
if clang:
    config.available_features.add("clang")
    config.substitutions.append(("%clang", clang))
# SPIRV-Tools from PyPI first: Debian's 2023.1 rejects the CooperativeMatrixKHR capability.
spirv_tools = {tool: find_tool(tool, required=False) for tool in ("spirv-val", "spirv-dis", "spirv-link", "spirv-as")}
if all(spirv_tools.values()):
    config.available_features.add("spirv-tools")
    for tool, path in spirv_tools.items():
        config.substitutions.append((f"%{tool}", path))

# Where CI is set (.ci/run), the external tools are installed by scripts/setup.sh: a missing one
# must fail the run, not turn the tests that REQUIRE it into UNSUPPORTED.
if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
    missing = [name for name, found in (("llc-22", llc), ("clang-22", clang),
                                        ("SPIRV-Tools", all(spirv_tools.values()))) if not found]
    if missing:
        lit_config.fatal(f"CI is set but {', '.join(missing)} not found (run scripts/setup.sh)")
