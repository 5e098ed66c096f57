"""Shared helpers of the interpreter tests: compile test kernels with clang-22 or clcoop."""
import shutil
import subprocess
from pathlib import Path

import pytest

import clcoop

KERNELS = Path(__file__).resolve().parents[1] / "kernels"
CLANG = shutil.which("clang-22")
needs_clang = pytest.mark.skipif(CLANG is None, reason="clang-22 is not installed")

_CACHE = {}


def _clang_cmd(opt, triple):
    cmd = [CLANG, "-cc1", "-triple", triple, "-cl-std=CL3.0",
           "-finclude-default-header", "-emit-llvm", f"-O{opt}"]
    if opt == 0:
        cmd.append("-disable-llvm-passes")
    return cmd


def clang_ir(name, opt, triple="spir64-unknown-unknown"):
    """LLVM IR of test/unit/kernels/<name>.cl by clang-22 at -O0 or -O2 (stub form)."""
    key = (name, opt, triple)
    if key not in _CACHE:
        cmd = _clang_cmd(opt, triple) + [str(KERNELS / f"{name}.cl"), "-o", "-"]
        _CACHE[key] = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return _CACHE[key]


def clang_ir_text(source, opt=0, triple="spir64-unknown-unknown"):
    """LLVM IR of OpenCL C `source` (a string) by clang-22 (skips the test without it)."""
    if CLANG is None:
        pytest.skip("clang-22 is not installed")
    cmd = _clang_cmd(opt, triple) + ["-", "-o", "-"]
    return subprocess.run(cmd, input=source, check=True, capture_output=True, text=True).stdout


def program(name, producer):
    """A built clcoop.Program for a test kernel; producer is 'clang-O0', 'clang-O2',
    'clcoop' (its default -O0) or 'clcoop-O2'."""
    if producer.startswith("clcoop"):
        options = ["-O2"] if producer == "clcoop-O2" else []
        return clcoop.Program((KERNELS / f"{name}.cl").read_text()).build(options=options)
    if CLANG is None:
        pytest.skip("clang-22 is not installed")
    return clcoop.Program.from_ir(clang_ir(name, int(producer[-1])))
