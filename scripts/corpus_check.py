#!/usr/bin/env python3
"""Which OpenCL C kernels that clang-22 accepts clcoop rejects (issue 15, "Done when").

    python3 scripts/corpus_check.py PATH... [--json FILE] [--jobs N] [--cl-std CL3.0]

Each PATH is a kernel file (*.cl), a C/C++ file whose string literals hold kernels (as
OpenCL-CTS's test_conformance/basic/*.cpp do), or a directory searched for both (*.cl;
*.c/*.cpp/*.h only with --kernel-strings). The corpora (PolyBench-ACC OpenCL, Rodinia
opencl, pocl tests/kernel and examples, OpenCL-CTS basic) are not part of clcoop: bring
them yourself.

Every kernel source is checked, at the requested OpenCL C version, by
  clang-22 -cc1 -triple spir64-unknown-unknown -cl-std=... -finclude-default-header -fsyntax-only
and by `clcoop -fsyntax-only -cl-std=...`, both with the file's folder on the include path.
A string literal is a kernel when it contains `kernel`; one with `%s` is a template the
host fills with sprintf and is left out. Sources that use images (image*_t, sampler_t,
read/write_image*) are counted apart. The report lists, per source clang accepts and
clcoop rejects, clcoop's first error; exit status 0 (1 for bad arguments).
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGE_WORDS = re.compile(r"\b(image[123]d(?:_array|_buffer)?(?:_depth|_msaa)?_t|sampler_t|"
                         r"(?:read|write)_image[a-z]*)\b")
_STRING_PIECE = re.compile(r'R"(?P<delim>[^(\s]*)\((?P<raw>.*?)\)(?P=delim)"|"(?P<text>(?:[^"\\\n]|\\.)*)"',
                           re.S)
_BETWEEN_PIECES = re.compile(r"(?:\s|//[^\n]*\n|/\*.*?\*/)*", re.S)
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "r": "\r", "0": "\0",
            "a": "\a", "b": "\b", "f": "\f", "v": "\v", "?": "?"}


def unescape(text):
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "\n":
                i += 2
                continue
            if nxt == "x":
                digits = re.match(r"[0-9A-Fa-f]+", text[i + 2:])
                if digits:
                    out.append(chr(int(digits.group(0), 16)))
                    i += 2 + len(digits.group(0))
                    continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def string_literals(source):
    """[(line, text)] of the C/C++ string literals of `source`: adjacent pieces joined, and
    the elements of an array of strings joined while the kernel text's braces are open
    (`const char *kernel[] = {"kernel void f()\\n", "{\\n", ...}`)."""
    literals, pos = [], 0
    while True:
        match = _STRING_PIECE.search(source, pos)
        if not match:
            return literals
        start_line = source.count("\n", 0, match.start()) + 1
        pieces = []
        while match:
            pieces.append(match.group("raw") if match.group("raw") is not None
                          else unescape(match.group("text")))
            pos = match.end()
            gap = _BETWEEN_PIECES.match(source, pos)
            after = gap.end()
            text = "".join(pieces)
            body_open = text.count("{") > text.count("}") or "{" not in text
            if source.startswith(",", after) and body_open \
                    and re.search(r"\b(?:__)?kernel\b", text):
                after = _BETWEEN_PIECES.match(source, after + 1).end()
            following = _STRING_PIECE.match(source, after)
            if following is None:
                break
            match = following
        literals.append((start_line, "".join(pieces)))


def kernel_strings(path):
    """[(name, source, skip reason or None)] of the kernels in a C/C++ file's literals."""
    found = []
    for line, text in string_literals(path.read_text(errors="replace")):
        if not re.search(r"\b(?:__)?kernel\b", text) or "{" not in text:
            continue
        name = f"{path}:{line}"
        found.append((name, text, "template (%s filled in by the host)" if "%s" in text else None))
    return found


def units(paths, with_strings):
    """[(name, source text, include dir, skip reason)] of every kernel source."""
    out = []
    for given in paths:
        path = Path(given)
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in files:
            if file.suffix == ".cl":
                out.append((str(file), file.read_text(errors="replace"), file.parent, None))
            elif file.suffix in (".c", ".cpp", ".cc", ".h", ".hpp") and (with_strings or not path.is_dir()):
                out += [(name, text, file.parent, skip) for name, text, skip in kernel_strings(file)]
    return out


def clang_accepts(clang, source, include, std):
    cmd = [clang, "-cc1", "-triple", "spir64-unknown-unknown", f"-cl-std={std}",
           "-finclude-default-header", "-fsyntax-only", "-I", str(include), "-x", "cl", "-"]
    done = subprocess.run(cmd, input=source, capture_output=True, text=True, timeout=300)
    return done.returncode == 0, _first_error(done.stderr)


def clcoop_accepts(source, include, std):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "clcoop.cli.compile_main", "-fsyntax-only", "-w",
           f"-cl-std={std}", "-I", str(include), "-"]
    done = subprocess.run(cmd, input=source, capture_output=True, text=True, env=env, timeout=600)
    return done.returncode == 0, _first_error(done.stderr) or done.stderr.strip()[-300:]


def _first_error(stderr):
    for line in stderr.splitlines():
        if "error" in line:
            return line.strip()
    return ""


def check(unit, clang, std):
    name, source, include, skip = unit
    result = {"name": name}
    if skip:
        return dict(result, status="skipped", reason=skip)
    ok, why = clang_accepts(clang, source, include, std)
    if not ok:
        return dict(result, status="clang rejects", reason=why)
    images = bool(IMAGE_WORDS.search(source))
    ok, why = clcoop_accepts(source, include, std)
    if ok:
        return dict(result, status="images, both accept" if images else "both accept")
    return dict(result, status="images, clcoop rejects" if images else "clcoop rejects", reason=why)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="kernel files, C/C++ files or directories")
    parser.add_argument("--kernel-strings", action="store_true",
                        help="also read kernels from the string literals of C/C++ files in directories")
    parser.add_argument("--cl-std", default="CL3.0")
    parser.add_argument("--clang", default=shutil.which("clang-22"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", help="write every result to this file")
    args = parser.parse_args(argv)
    if not args.clang:
        parser.error("clang-22 was not found (--clang)")
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        parser.error(f"no such file or directory: {', '.join(missing)}")
    todo = units(args.paths, args.kernel_strings)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda u: check(u, args.clang, args.cl_std), todo))
    counts = {}
    for result in results:
        counts[result["status"]] = counts.get(result["status"], 0) + 1
    for result in results:
        if result["status"] == "clcoop rejects":
            print(f"REJECTED {result['name']}\n    {result['reason']}")
    accepted = sum(n for s, n in counts.items() if s in ("both accept", "clcoop rejects"))
    rejected = counts.get("clcoop rejects", 0)
    print(f"{len(results)} kernel sources: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    print(f"clang-22 accepts {accepted} (images aside); clcoop rejects {rejected} of them")
    if args.json:
        Path(args.json).write_text(json.dumps({"cl_std": args.cl_std, "counts": counts,
                                               "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
