#!/usr/bin/env bash
# The whole test suite: lit tests (what the compiler emits and prints), then pytest
# (APIs, semantics, examples against NumPy, fuzzing). Fails if either fails.
cd "$(dirname "$0")/.."
lit -s test/lit
lit_status=$?
python3 -m pytest -q -p no:cacheprovider "$@"
pytest_status=$?
[ $lit_status -eq 0 ] && [ $pytest_status -eq 0 ]
