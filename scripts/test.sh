#!/usr/bin/env bash
# The test suite: lit tests (what the compiler emits and prints), then pytest (APIs, semantics,
# examples against NumPy). Fails if either fails.
#
#   bash scripts/test.sh            # without the tests marked slow (fuzzing, differential,
#                                   # corpus, long native runs): the target is 5 minutes on 2
#                                   # idle cores (README has the time measured)
#   bash scripts/test.sh --all      # everything; CI (.ci/run sets CI=true) always runs everything
#   bash scripts/test.sh ARGS...    # ARGS go to pytest (a file or test named there runs even if
#                                   # it is slow: test/unit/conftest.py)
cd "$(dirname "$0")/.."
. scripts/env.sh            # the .venv that scripts/setup.sh made, where it made one
pytest_args=()
for arg in "$@"; do
  if [ "$arg" = --all ]; then pytest_args+=(--run-slow); else pytest_args+=("$arg"); fi
done
lit -s test/lit
lit_status=$?
python3 -m pytest -q -p no:cacheprovider "${pytest_args[@]}"
pytest_status=$?
[ $lit_status -eq 0 ] && [ $pytest_status -eq 0 ]
