"""Which cases of a parametrized test the default run keeps (scripts/test.sh: at most 5 minutes
on two idle cores, issue 27); the others are marked slow, and `scripts/test.sh --all` and CI
run them."""
import pytest


def quick_or_slow(cases, quick):
    """pytest params of `cases`, those not in `quick` marked slow. A case is a tuple of the
    test's arguments, or one value for a test of one argument."""
    return [case if case in quick else
            pytest.param(*(case if isinstance(case, tuple) else (case,)), marks=pytest.mark.slow)
            for case in cases]
