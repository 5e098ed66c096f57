#!/usr/bin/env python3
"""Mutation fuzzer for the clcoop compiler (issue 5 item 3).

Takes the kernels in examples/*.cl and test/lit/**/*.cl, mutates them (token deletion,
duplication, swap, replacement, splices, numbers at their limits, random bytes,
truncation) with a seeded generator, and
compiles each mutant in-process with driver.compile_source under a time bound.

A mutant passes when it compiles, or when it is rejected with a CompileError whose every
diagnostic carries a file:line:col location (notes about built-ins may have none). Anything else is a finding:
another exception (a traceback a user would see), a diagnostic without a location, or a
compile that exceeds the time bound (a hang).

    python3 scripts/fuzz.py --count 20000 --seed 7          # longer run on demand
    python3 scripts/fuzz.py --count 500 --seed 1 --save-dir /tmp/findings

test/unit/frontend/test_fuzz_compiler.py runs 2,000 mutants of this generator in CI.
"""
import argparse
import os
import random
import re
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Rough C tokens: enough to cut a program into pieces worth shuffling.
TOKEN_RE = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|"
                      r"//[^\n]*|/\*.*?\*/|\s+|\S", re.S)
# Bytes worth injecting: C punctuation, preprocessor and comment starters, non-UTF-8.
INTERESTING = [b"{", b"}", b"(", b")", b"[", b"]", b";", b",", b"#", b"/*", b"\"", b"'",
               b"\\", b"\n#if 1\n", b"\n#endif\n", b"__attribute__((", b"coop_mat(",
               b"\xff", b"\xc3", b"\x00", b"@", b"`", b"$", b"..."]
# Numbers that probe limits: matrix shapes, strides, vector sizes, literal ranges.
NUMBERS = ["0", "1", "-1", "3", "7", "17", "4096", "65536", "2147483647", "2147483648",
           "4294967296", "18446744073709551616", "1.5", "1.5f", "0x1p-3f", "1e309", "0x", "08",
           "1u", "1ul", "'a'", "1.0h"]
MUTATIONS = ("delete", "duplicate", "swap", "replace", "bytes", "truncate", "splice", "number")
DEFAULT_TIME_LIMIT = 10.0     # seconds per input; a legitimate compile takes well under 1 s


@dataclass
class Finding:
    index: int
    origin: str
    mutation: str
    kind: str          # "exception", "unlocated", "timeout"
    detail: str
    source: bytes


def corpus_files(root=ROOT):
    files = sorted(root.glob("examples/*.cl")) + sorted(root.glob("test/lit/**/*.cl"))
    return [f for f in files if "/Output/" not in str(f)]


def load_corpus(root=ROOT):
    """(name, bytes, tokens) of every seed kernel."""
    corpus = []
    for path in corpus_files(root):
        data = path.read_bytes()
        text = data.decode("utf-8", errors="replace")
        corpus.append((str(path.relative_to(root)), data, TOKEN_RE.findall(text)))
    return corpus


def _significant(tokens):
    return [i for i, t in enumerate(tokens) if not t.isspace()]


def mutate(rng, corpus):
    """One mutant: (origin name, mutation names, bytes). 1-3 mutations stacked."""
    name, data, tokens = corpus[rng.randrange(len(corpus))]
    tokens = list(tokens)
    applied = []
    result = None
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        kind = rng.choice(MUTATIONS)
        applied.append(kind)
        sig = _significant(tokens)
        if kind in ("delete", "duplicate", "swap", "replace") and sig:
            i = rng.choice(sig)
            if kind == "delete":
                del tokens[i]
            elif kind == "duplicate":
                tokens.insert(i, tokens[i])
            elif kind == "swap":
                j = rng.choice(sig)
                tokens[i], tokens[j] = tokens[j], tokens[i]
            else:
                other = corpus[rng.randrange(len(corpus))][2]
                other_sig = _significant(other)
                if other_sig:
                    tokens[i] = other[rng.choice(other_sig)]
        elif kind == "number":
            numbers = [i for i in _significant(tokens) if tokens[i][:1].isdigit()]
            if numbers:
                tokens[rng.choice(numbers)] = rng.choice(NUMBERS)
        elif kind == "splice":
            # a run of tokens from another kernel inserted somewhere
            other = corpus[rng.randrange(len(corpus))][2]
            start = rng.randrange(len(other)) if other else 0
            piece = other[start:start + rng.randint(1, 40)]
            at = rng.randrange(len(tokens) + 1)
            tokens[at:at] = piece
        elif kind == "bytes":
            raw = "".join(tokens).encode("utf-8", errors="replace")
            at = rng.randrange(len(raw) + 1)
            if rng.random() < 0.5:
                blob = rng.choice(INTERESTING)
            else:
                blob = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
            result = raw[:at] + blob + raw[at:]
            tokens = TOKEN_RE.findall(result.decode("utf-8", errors="surrogateescape"))
        elif kind == "truncate":
            raw = "".join(tokens)
            tokens = TOKEN_RE.findall(raw[:rng.randrange(len(raw) + 1)])
    text = "".join(tokens)
    return name, applied, text.encode("utf-8", errors="surrogateescape")


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so that no `except Exception` in clcoop eats it."""


def _on_alarm(signum, frame):
    raise _Timeout()


def _all_located(diagnostics):
    """Every error and warning has file:line:col. Notes may lack one: a note about a
    built-in candidate (e.g. "candidate function not viable: ... atomic_add(...)") has
    no source to point at, as clang's would point into a header clcoop does not have.
    The error limit's "too many errors emitted" is about the run, not a line (clang's
    fatal error has no location either)."""
    return all(diagnostic.location is not None or diagnostic.message == TOO_MANY_ERRORS
               for diagnostic in diagnostics)


TOO_MANY_ERRORS = "too many errors emitted, stopping now"


def check_one(source, origin, time_limit=DEFAULT_TIME_LIMIT):
    """Compile one input; returns None when it behaved, else (kind, detail)."""
    from clcoop.errors import CompileError
    from clcoop.frontend.driver import CompileOptions, compile_source

    options = CompileOptions(filename=os.path.basename(origin),
                             include_dirs=[str(ROOT / "test" / "lit" / "preprocess" / "Inputs")])
    use_alarm = hasattr(signal, "setitimer")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, time_limit)
    try:
        compile_source(source, options)
        return None
    except CompileError as exc:
        if not exc.diagnostics:
            return "unlocated", "CompileError without diagnostics"
        if not _all_located(exc.diagnostics):
            bad = [str(d) for d in exc.diagnostics if d.location is None and d.message != TOO_MANY_ERRORS]
            return "unlocated", "; ".join(bad)[:500]
        return None
    except _Timeout:
        return "timeout", f"no result within {time_limit} s"
    except RecursionError as exc:
        return "exception", f"RecursionError: {exc}"
    except Exception as exc:      # the finding: a traceback would reach the user
        import traceback
        frames = traceback.extract_tb(exc.__traceback__)
        where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "?"
        return "exception", f"{type(exc).__name__}: {str(exc)[:300]} (at {where})"
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def run(count, seed, start=0, time_limit=DEFAULT_TIME_LIMIT, corpus=None, progress=None):
    """Mutants number start .. start+count-1 of generator `seed`; returns the findings.

    Mutant i depends only on (seed, i), so a finding is reproduced by its index.
    """
    corpus = corpus or load_corpus()
    findings = []
    for index in range(start, start + count):
        rng = random.Random(f"{seed}:{index}")
        origin, applied, source = mutate(rng, corpus)
        outcome = check_one(source, origin, time_limit)
        if outcome is not None:
            kind, detail = outcome
            findings.append(Finding(index, origin, "+".join(applied), kind, detail, source))
        if progress and (index - start + 1) % progress == 0:
            print(f"  {index - start + 1}/{count} inputs, {len(findings)} findings",
                  file=sys.stderr)
    return findings


def describe(finding):
    return (f"#{finding.index} {finding.kind} from {finding.origin} ({finding.mutation}): "
            f"{finding.detail}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000, help="number of mutants (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--start", type=int, default=0, help="first mutant index (to reproduce one)")
    parser.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT,
                        help="seconds allowed per input (default %(default)s)")
    parser.add_argument("--save-dir", help="write each failing input there as <seed>-<index>.cl")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    began = time.monotonic()
    findings = run(args.count, args.seed, args.start, args.time_limit, progress=500)
    elapsed = time.monotonic() - began
    for finding in findings:
        print(describe(finding))
        if args.save_dir:
            os.makedirs(args.save_dir, exist_ok=True)
            path = Path(args.save_dir) / f"{args.seed}-{finding.index}.cl"
            path.write_bytes(finding.source)
    print(f"{args.count} inputs in {elapsed:.1f} s, {len(findings)} findings", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
