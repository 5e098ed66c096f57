#!/usr/bin/env python3
"""Interpreter fuzzer, longer runs on demand (issue 5 item 3, "the interpreter too").

Generates random valid kernels with known results (test/unit/support/kernel_gen.py) and runs
them in the interpreter:
  scalar  random typed expressions, if/else, loops, switch, private arrays, a helper,
          4-vectors over int/uint/long/ulong/float inputs on random 1-3D NDRanges and
          subgroup sizes, through clcoop -O0 and -O2, vs a Python reference of the C
          rules; also work-item ids, sub-group/work-group collectives, __local memory
          across a barrier and atomics
  cross   UB-free scalar kernels through clcoop -O0/-O2 and clang-22 -O0/-O2
          (Program.from_ir): bit-identical integer results
  coop    cooperative-matrix kernels (random shapes, types, layouts, strides,
          operators, mul-add with sign flags) through clcoop -O0 and -O2 vs NumPy
  vector  plain kernels over vectors of every width and element type (some as user
          ext_vector_type typedefs) through clcoop and clang-22, compared bit for bit
          (--known-bugs: also the typedef'd ones, issue 15 item 1)
  divergence  matrix kernels whose branches and loop trip counts differ between
          subgroups and work-groups (test/unit/support/divergence_gen.py), through clcoop -O0
          and -O2, run all at once and one subgroup at a time: bit-identical (issue 10)

    python3 scripts/fuzz_interp.py --count 500 --seed 1
    python3 scripts/fuzz_interp.py --count 200 --kinds coop --seed 9 --save-dir /tmp/found
    python3 scripts/fuzz_interp.py --count 100 --known-bugs   # also generate known bugs
    python3 scripts/fuzz_interp.py --kinds divergence --count 5000 --seed 0

Exit status 0 when nothing was found, 1 otherwise. Case i of kind k uses seed
(seed * 1000003 + i) so a finding is reproduced with --seed/--first.
"""
import argparse
import shutil
import sys
import time
import traceback
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "test" / "unit" / "support"))
import divergence_gen as dg  # noqa: E402
import kernel_gen as kg  # noqa: E402

KINDS = ("scalar", "cross", "coop", "vector", "divergence")


def case_rng(seed, index):
    return np.random.default_rng(seed * 1000003 + index)


def run_scalar(rng, args):
    avoid = set() if args.known_bugs else kg.KNOWN_BUGS
    case = kg.scalar_case(rng, depth=args.depth, avoid=avoid)
    expected, defined = kg.scalar_expectation(case)
    problems = []
    for producer in ("clcoop", "clcoop-O2"):
        problem = kg.scalar_problem(case, kg.run_scalar(case, producer), expected, defined)
        if problem:
            problems.append(f"{producer}: {problem}")
    return case.source, "\n".join(problems) or None


def run_cross(rng, args):
    case, expected = kg.ub_free_scalar_case(rng, depth=args.depth)
    problems = []
    for producer in kg.CROSS_PRODUCERS:
        problem = kg.scalar_problem(case, kg.run_scalar(case, producer, args.clang), expected)
        if problem:
            problems.append(f"{producer}: {problem}")
    return case.source, "\n".join(problems) or None


def run_coop(rng, args):
    case = kg.coop_case(rng)
    expected = kg.coop_expected(case)
    problems = []
    for producer in ("clcoop", "clcoop-O2"):
        problem = kg.coop_mismatch(case, kg.run_coop(case, producer), expected)
        if problem:
            problems.append(f"{producer}: {problem}")
    return case.source, "\n".join(problems) or None


def run_vector(rng, args):
    case = kg.vector_diff_case(rng, typedefs=None if args.known_bugs else False)
    return case.source, kg.vector_diff_problem(case, args.clang)




def run_divergence(rng, args):
    case = dg.divergence_case(rng)
    return case.source, dg.oracle_problem(case)


RUNNERS = {"scalar": run_scalar, "cross": run_cross, "coop": run_coop, "vector": run_vector,
           "divergence": run_divergence}


def fuzz_one(kind, index, args):
    """(source or None, problem or None) for case `index` of `kind`."""
    try:
        return RUNNERS[kind](case_rng(args.seed, index), args)
    except Exception:  # a finding: the interpreter or compiler raised
        return None, traceback.format_exc(limit=6)


def save(args, kind, index, source, problem):
    if not args.save_dir:
        return
    directory = Path(args.save_dir)
    directory.mkdir(parents=True, exist_ok=True)
    stem = directory / f"{kind}-seed{args.seed}-{index}"
    if source:
        stem.with_suffix(".cl").write_text(source)
    stem.with_suffix(".txt").write_text(problem)


def quiet_portability_warnings():
    """The generated kernels leave out the pragma and the size_t casts that clang's pull
    request wants (-Wcoop-portability): not findings, and one per kernel flooded the console.
    Other compiler warnings (-Wuninitialized, ...) still show."""
    from clcoop.errors import CompilerWarning
    warnings.filterwarnings("ignore", message=r"(?s).*\[-Wcoop-portability\]", category=CompilerWarning)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200, help="cases per kind")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help="index of the first case")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help=f"comma-separated subset of {', '.join(KINDS)}")
    parser.add_argument("--depth", type=int, default=4, help="expression depth")
    parser.add_argument("--known-bugs", action="store_true",
                        help="also generate constructs with known, reported bugs")
    parser.add_argument("--save-dir", help="write each finding's kernel and report here")
    parser.add_argument("--clang", default=shutil.which("clang-22"))
    args = parser.parse_args(argv)
    quiet_portability_warnings()
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        parser.error(f"unknown kind(s) {', '.join(unknown)}; choose from {', '.join(KINDS)}")
    for needs_clang in ("cross", "vector"):
        if needs_clang in kinds and not args.clang:
            print(f"clang-22 not found: skipping the {needs_clang} kind", file=sys.stderr)
            kinds.remove(needs_clang)
    findings = 0
    start = time.time()
    for kind in kinds:
        for index in range(args.first, args.first + args.count):
            source, problem = fuzz_one(kind, index, args)
            if problem:
                findings += 1
                print(f"FINDING {kind} --seed {args.seed} --first {index}:\n{problem}\n", flush=True)
                save(args, kind, index, source, problem)
        print(f"{kind}: {args.count} cases done ({time.time() - start:.0f}s)", flush=True)
    print(f"{findings} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
