"""Mutation fuzzing of the compiler in CI (issue 5 item 3): 2,000 mutants, fixed seed.

Each mutant of an example or lit kernel (token deletion, duplication, swap, replacement,
splices, random bytes, truncation; see scripts/fuzz.py) goes through
driver.compile_source in-process with a 10 s bound. It must compile or be rejected with
a CompileError whose diagnostics all carry file:line:col; any other exception, an
unlocated diagnostic or a timeout fails the test, naming the mutant's index so that
`python3 scripts/fuzz.py --seed 2026 --start <index> --count 1 --save-dir DIR` reproduces it.
Longer runs: `python3 scripts/fuzz.py --count 50000 --seed <any>`.
"""
from pathlib import Path

import pytest
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[3]
SEED = 2026
TOTAL = 2000
CHUNKS = 10


def _load_fuzz_module():
    return load_script("fuzz.py", "clcoop_fuzz")


fuzz = _load_fuzz_module()


@pytest.fixture(scope="module")
def corpus():
    seeds = fuzz.load_corpus(ROOT)
    assert len(seeds) >= 10, "the fuzzer needs the example and lit kernels as seeds"
    return seeds


def test_mutants_are_deterministic(corpus):
    import random
    first = [fuzz.mutate(random.Random(f"{SEED}:{i}"), corpus) for i in range(20)]
    again = [fuzz.mutate(random.Random(f"{SEED}:{i}"), corpus) for i in range(20)]
    assert first == again
    assert len({m[2] for m in first}) > 15, "mutants should differ from each other"


def test_the_oracle_catches_what_it_must():
    # The checks of this file must be able to fail: an unlocated diagnostic is a finding...
    from clcoop.diagnostics import Diagnostic, SourceLocation
    assert not fuzz._all_located([Diagnostic("error", "x", None)])
    assert not fuzz._all_located([Diagnostic("warning", "x", SourceLocation("k.cl", 1, 1)),
                                  Diagnostic("error", "y", None)])
    # ...and a located syntax error is not.
    assert fuzz.check_one(b"kernel void k() { int x = ; }", "k.cl") is None


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fuzz_compiler(chunk, corpus):
    size = TOTAL // CHUNKS
    findings = fuzz.run(size, SEED, start=chunk * size, time_limit=10.0, corpus=corpus)
    assert not findings, "\n".join(fuzz.describe(f) for f in findings[:10])
