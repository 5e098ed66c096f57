#!/usr/bin/env bash
# Installs everything clcoop and its tests use: LLVM 22 (llc-22, clang-22), the Vulkan loader
# and Mesa's lavapipe (the GPU engine's tests run on it where there is no GPU) from Debian/Ubuntu
# packages, and the Python package with its test tools from PyPI.
#
# Where pip installs (scripts/python_env.py decides):
#   - in the active virtual environment, if there is one;
#   - else, if the system Python is externally managed (Debian/Ubuntu, PEP 668) or .venv exists,
#     in .venv in the checkout (made here): `. scripts/env.sh` activates it afterwards;
#   - else into the Python that `python3` runs.
#
#   bash scripts/setup.sh [--dry-run]     # --dry-run: print the commands, run nothing
set -euo pipefail
cd "$(dirname "$0")/.."
DRY_RUN=""
if [ "${1:-}" = "--dry-run" ]; then DRY_RUN=1; fi
run() {
  if [ -n "$DRY_RUN" ]; then echo "+ $*"; else "$@"; fi
}
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi
APT_PACKAGES=(llvm-22 clang-22 libvulkan1 mesa-vulkan-drivers)

target="$(python3 scripts/python_env.py)"
if [ "$target" = dotvenv ] && [ ! -f .venv/bin/activate ] && ! python3 -c 'import ensurepip' 2>/dev/null; then
  APT_PACKAGES+=(python3-venv)          # Debian's python3 makes venvs only with it
fi
missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null; then
    echo "setup.sh: install these packages with your system's package manager: ${missing[*]}" >&2
    exit 1
  fi
  run $SUDO apt-get update -qq
  run env DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

case "$target" in
  venv)
    echo "setup.sh: installing clcoop into the active virtual environment ($(python3 -c 'import sys; print(sys.prefix)'))"
    run python3 -m pip install -q -e '.[test]' ;;
  dotvenv)
    if [ ! -f .venv/bin/activate ]; then
      echo "setup.sh: this Python is externally managed (PEP 668); making a virtual environment in .venv"
      run python3 -m venv .venv
    fi
    echo "setup.sh: installing clcoop into .venv; '. scripts/env.sh' (or '. .venv/bin/activate') puts it on PATH"
    run .venv/bin/python3 -m pip install -q -e '.[test]' ;;
  plain)
    run python3 -m pip install -q -e '.[test]' ;;
esac
