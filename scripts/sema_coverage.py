#!/usr/bin/env python3
"""How many of clang's `expected-error` lines clcoop hits (issue 15, "the Sema side").

    python3 scripts/sema_coverage.py DIR [--by-file] [--json FILE] [--clang clang-22]

DIR holds clang's OpenCL Sema tests (clang/test/SemaOpenCL/*.cl; not part of clcoop:
bring them yourself). For every `RUN:` line of a test that runs `%clang_cc1 ... -verify`:

- the run's options become clcoop options: -cl-std= (CL1.0/CL1.1 -> CL1.2; C++ for
  OpenCL runs are left out: clcoop compiles OpenCL C), -D, -U, -I, -triple spir*;
  everything else (-pedantic, -ffake-address-space-map, other targets...) is dropped;
- its expected errors are the `<prefix>-error[-re][@<where>] [count] {{...}}` directives
  of its -verify prefixes (default `expected`), located like clang does (@+N, @-N, @N;
  directives about other files are left out). When clang-22 is available, the file is
  preprocessed with the run's options (`clang -E -C`) so that directives in #if blocks the
  run skips do not count; otherwise every directive counts;
- an expected error is *hit* when `clcoop -fsyntax-only` with those options reports an
  error (any wording) on that line of the test file.

Each (run, line) counts once however many directives name it. The total is
hits / expected over all runs. Exit status 0; 2 for bad arguments.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_DIRECTIVE = re.compile(
    r"(?<![A-Za-z0-9_-])(?P<prefix>[A-Za-z0-9_][A-Za-z0-9_-]*?)-error(?:-re)?"
    r"(?:@(?P<where>[^\s{]+))?\s*(?P<count>\d+\+?|\+)?\s*\{\{")
_LINE_MARKER = re.compile(r'^# (\d+) "(.*)"')


def run_lines(text):
    """The RUN: commands of a test, continuation lines joined."""
    commands, pending = [], ""
    for line in text.splitlines():
        match = re.search(r"RUN:\s?(.*)$", line)
        if not match:
            continue
        part = match.group(1).rstrip()
        if part.endswith("\\"):
            pending += part[:-1] + " "
            continue
        commands.append(pending + part)
        pending = ""
    return commands


def verify_runs(text):
    """[(clang options, verify prefixes)] of the test's `%clang_cc1 ... -verify` runs."""
    runs = []
    for command in run_lines(text):
        first = command.split("|")[0]
        try:
            words = shlex.split(first)
        except ValueError:
            continue
        if "%clang_cc1" not in words:
            continue
        prefixes = None
        for word in words:
            if word == "-verify":
                prefixes = ["expected"]
            elif word.startswith("-verify="):
                prefixes = word.split("=", 1)[1].split(",")
        if prefixes is None:
            continue
        options = [w for w in words[words.index("%clang_cc1") + 1:] if w != "%s"]
        runs.append((options, prefixes))
    return runs


def clcoop_options(options):
    """clcoop options for clang's, or None for a run clcoop does not take (C++ for OpenCL)."""
    out, words = [], list(options)
    i = 0
    while i < len(words):
        word = words[i]
        value = words[i + 1] if i + 1 < len(words) else ""
        if word.startswith("-cl-std="):
            std = word.split("=", 1)[1]
            if "++" in std.lower() or std.lower().startswith("clc"):
                return None
            out.append("-cl-std=" + {"CL": "CL1.2", "CL1.0": "CL1.2", "CL1.1": "CL1.2",
                                     "cl1.0": "CL1.2", "cl1.1": "CL1.2"}.get(std, std.upper()))
        elif word in ("-x",) and value in ("cl++", "clcpp"):
            return None
        elif word in ("-D", "-U", "-I") and value:
            out += [word, value]
            i += 1
        elif word[:2] in ("-D", "-U", "-I") and len(word) > 2:
            out.append(word)
        elif word in ("-triple", "-target") and value:
            out += _spir_triple(value)
            i += 1
        elif word.startswith("-triple="):
            out += _spir_triple(word[8:])
        i += 1
    return out


def _spir_triple(triple):
    """clcoop's spelling of a spir/spir64 triple; other targets are dropped."""
    if triple.startswith("spir64"):
        return ["-triple", "spir64-unknown-unknown"]
    if triple.startswith("spir"):
        return ["-triple", "spir-unknown-unknown"]
    return []


def _directive_lines(lines, prefixes, path_name):
    """{target line}: the lines `prefix-error` directives of `lines` ([(line number,
    text)]) expect an error on."""
    targets = set()
    for number, text in lines:
        for match in _DIRECTIVE.finditer(text):
            if match.group("prefix") not in prefixes:
                continue
            count = match.group("count")
            if count in ("0", "0+"):
                continue     # optional
            where = match.group("where")
            if where is None:
                targets.add(number)
            elif re.fullmatch(r"[+-]\d+", where):
                targets.add(number + int(where))
            elif where.isdigit():
                targets.add(int(where))
            elif ":" in where and Path(where.split(":")[0]).name == path_name:
                tail = where.split(":", 1)[1]
                if tail.isdigit():
                    targets.add(int(tail))
            # other files, `*`, markers (@#name): not counted
    return targets


def expected_lines(path, options, prefixes, clang):
    """The lines of `path` a run expects an error on (see the module docstring)."""
    text = path.read_text(errors="replace")
    lines = None
    if clang:
        lines = _active_lines(path, options, clang)
    if lines is None:
        lines = list(enumerate(text.splitlines(), start=1))
    return _directive_lines(lines, prefixes, path.name)


def _active_lines(path, options, clang):
    """[(line, text)] of the file after `clang -E -C` with the run's options (comments of
    skipped #if blocks removed), or None when clang does not preprocess it."""
    keep = []
    words = list(options)
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("-D", "-U", "-I", "-triple", "-include") and i + 1 < len(words):
            keep += [word, words[i + 1]]
            i += 2
            continue
        if word.startswith(("-D", "-U", "-I", "-cl-std=", "-triple=", "-cl-ext=",
                            "-finclude-default-header", "-fdeclare-opencl-builtins",
                            "-cl-", "-ffake-address-space-map")):
            keep.append(word)
        i += 1
    cmd = [clang, "-cc1", "-E", "-C", "-x", "cl"] + keep + [path.name]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=path.parent)
    if done.returncode != 0:
        return None
    result, current, in_file = [], 0, False
    for line in done.stdout.splitlines():
        marker = _LINE_MARKER.match(line)
        if marker:
            current = int(marker.group(1))
            in_file = Path(marker.group(2)).name == path.name
            continue
        if in_file:
            result.append((current, line))
        current += 1
    return result


def clcoop_error_lines(path, options):
    """{line} of `path` on which clcoop reports an error with these options."""
    # clang -cc1 (the RUN lines' %clang_cc1) has no error limit: neither has clcoop here.
    cmd = [sys.executable, "-m", "clcoop.cli.compile_main", "-fsyntax-only", "-w",
           "-ferror-limit=0"] + options + [path.name]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=path.parent, env=env, timeout=300)
    lines = set()
    pattern = re.compile(rf"^(?:.*/)?{re.escape(path.name)}:(\d+):(?:\d+:)?\s*(?:fatal )?error:", re.M)
    for match in pattern.finditer(done.stderr):
        lines.add(int(match.group(1)))
    return lines, done


def measure(directory, clang=None, progress=None):
    """{file name: [{"options", "expected", "hit", "missed"}]} for every test in directory."""
    results = {}
    for path in sorted(Path(directory).glob("*.cl")):
        runs = []
        for options, prefixes in verify_runs(path.read_text(errors="replace")):
            ours = clcoop_options(options)
            if ours is None:
                continue
            expected = expected_lines(path, options, prefixes, clang)
            if not expected:
                continue
            errors, _done = clcoop_error_lines(path, ours)
            hit = sorted(expected & errors)
            runs.append({"options": ours, "expected": len(expected), "hit": len(hit),
                         "missed": sorted(expected - errors)})
        if runs:
            results[path.name] = runs
            if progress:
                progress(path.name, runs)
    return results


def totals(results):
    expected = sum(r["expected"] for runs in results.values() for r in runs)
    hit = sum(r["hit"] for runs in results.values() for r in runs)
    return expected, hit


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", help="a directory of clang SemaOpenCL tests (*.cl)")
    parser.add_argument("--by-file", action="store_true", help="print each file's figures")
    parser.add_argument("--json", help="also write the per-run results to this file")
    parser.add_argument("--clang", default=shutil.which("clang-22"),
                        help="clang used to preprocess the tests (default: clang-22 on PATH)")
    parser.add_argument("--no-clang", action="store_true",
                        help="count every directive, without preprocessing")
    args = parser.parse_args(argv)
    if not Path(args.directory).is_dir():
        parser.error(f"{args.directory} is not a directory")
    clang = None if args.no_clang else args.clang

    def progress(name, runs):
        if args.by_file:
            expected = sum(r["expected"] for r in runs)
            hit = sum(r["hit"] for r in runs)
            print(f"{name:50s} {hit:4d} / {expected:4d}  ({len(runs)} run(s))", flush=True)

    results = measure(args.directory, clang, progress)
    expected, hit = totals(results)
    share = 100.0 * hit / expected if expected else 0.0
    print(f"{hit} of {expected} expected-error lines hit ({share:.1f}%) over "
          f"{sum(len(r) for r in results.values())} runs of {len(results)} files"
          f"{'' if clang else ' (not preprocessed)'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"expected": expected, "hit": hit,
                                               "files": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
