#!/usr/bin/env bash
# The test suite: lit tests (what the compiler emits and prints), then pytest (APIs, semantics,
# examples against NumPy). Fails if either fails.
#
#   bash scripts/test.sh            # without the tests marked slow (fuzzing, differential,
#                                   # corpus, long native runs): the target is 5 minutes on 2
#                                   # idle cores (README has the time measured)
#   bash scripts/test.sh --all      # everything; CI (.ci/run sets CI=true) always runs everything
#   bash scripts/test.sh ARGS...    # ARGS go to pytest (a file or test named there runs even if
#                                   # it is slow: test/unit/conftest.py; -n 0 runs in one process)
#
# pytest runs on every CPU (-n auto, pytest-xdist: the `test` extra scripts/setup.sh installs;
# without it, in one process). Each worker has its own session fixtures and builds.
cd "$(dirname "$0")/.."
. scripts/env.sh            # the .venv that scripts/setup.sh made, where it made one
pytest_args=()
if python3 -c "import xdist" >/dev/null 2>&1; then pytest_args+=(-n auto); fi
for arg in "$@"; do
  if [ "$arg" = --all ]; then pytest_args+=(--run-slow); else pytest_args+=("$arg"); fi
done
lit -s test/lit
lit_status=$?
python3 -m pytest -q -p no:cacheprovider "${pytest_args[@]}"
pytest_status=$?
[ $lit_status -eq 0 ] && [ $pytest_status -eq 0 ]
