#!/usr/bin/env bash
# Installs everything clcoop and its tests use: LLVM 22 (llc-22, clang-22) from Debian,
# and the Python package with its test tools from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi
if ! command -v llc-22 >/dev/null || ! command -v clang-22 >/dev/null; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq llvm-22 clang-22 >/dev/null
fi
python3 -m pip install -q -e '.[test]'
