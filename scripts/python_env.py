#!/usr/bin/env python3
"""Where scripts/setup.sh installs clcoop: prints one word for the Python that runs it.

    venv      a virtual environment is active: install into it
    dotvenv   the checkout's .venv (made by an earlier run, or to be made now): this Python
              is externally managed (PEP 668: Debian's and Ubuntu's system Python refuse
              `pip install` with "externally-managed-environment"), or .venv exists already
    plain     any other Python (pyenv, conda, python.org builds): install into it
"""
import os
import sys
import sysconfig


def install_target(prefix, base_prefix, stdlib_dir, dotvenv_exists):
    """The word above, from the interpreter's prefixes, its standard library's directory (where
    a distribution puts the EXTERNALLY-MANAGED marker, PEP 668) and whether .venv exists."""
    if prefix != base_prefix:
        return "venv"
    if dotvenv_exists or os.path.isfile(os.path.join(stdlib_dir, "EXTERNALLY-MANAGED")):
        return "dotvenv"
    return "plain"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dotvenv = os.path.isfile(os.path.join(root, ".venv", "bin", "activate"))
    print(install_target(sys.prefix, sys.base_prefix, sysconfig.get_path("stdlib"), dotvenv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
