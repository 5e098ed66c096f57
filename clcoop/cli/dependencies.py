"""A missing Python dependency, said as such: which package and how to install it.

A command that cannot import one of clcoop's dependencies (pycparserext, llvmlite, NumPy, ...)
reports an installation problem, not an internal compiler error (issue 26: "internal compiler
error: ModuleNotFoundError: No module named 'pycparserext' ... please report this").
"""
import re
import sys

# The install requirement of each dependency, when clcoop's own metadata cannot be read
# (a checkout on PYTHONPATH); pyproject.toml is the source of both.
_FALLBACK_REQUIREMENTS = ("llvmlite==0.50.*", "pycparser==3.0", "pycparserext==2026.1",
                          "pcpp>=1.30", "numpy>=1.26", "ml_dtypes>=0.5")
_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _canonical(name):
    return re.sub(r"[-_.]+", "_", name).lower()


def _requirements():
    """{canonical name: requirement text} of clcoop's run-time dependencies."""
    try:
        from importlib.metadata import PackageNotFoundError, requires
        listed = [r for r in (requires("clcoop") or []) if "extra ==" not in r]
    except (ImportError, PackageNotFoundError):
        listed = []
    found = {}
    for text in list(listed) + list(_FALLBACK_REQUIREMENTS):
        match = _REQUIREMENT_NAME.match(text)
        if match:
            found.setdefault(_canonical(match.group(1)), text.split(";")[0].strip())
    return found


def missing_dependency(exc):
    """The message for an ImportError that a missing package caused, or None when `exc` is
    not one (a missing clcoop module is a bug, reported as an internal error)."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return None
    top = exc.name.split(".")[0]
    if top == "clcoop":
        return None
    requirement = _requirements().get(_canonical(top))
    package = requirement or top
    how = f"{sys.executable} -m pip install '{package}'"
    needed = (f"the Python package '{top}' ({requirement}), which clcoop needs, is not installed"
              if requirement else f"the Python package '{top}' is not installed")
    return (f"{needed} in this Python environment ({sys.prefix}); install it with: {how} "
            "(or reinstall clcoop, which installs its dependencies)")
