#!/usr/bin/env python3
"""The compiler's outputs over a corpus, to show a change leaves them byte-identical.

    python3 scripts/compare_outputs.py dump OUT.json PATH...      # this checkout's outputs
    python3 scripts/compare_outputs.py diff BEFORE.json AFTER.json

`dump` compiles every *.cl file under each PATH (a file, or a directory searched
recursively), with and without -g, in one process, and writes for each the emitted IR or,
when the compile fails, the rendered diagnostics (errors and warnings alike, with their
locations and expansion notes), plus the warnings of a compile that succeeds. A FILE.options
beside a file (the OpenCL-CTS kernel dumps) gives its build options. Which clcoop is
compiled is the one Python imports: run it with PYTHONPATH set to another checkout (`git
archive REV clcoop include | tar -x -C DIR`) for the "before" dump. `diff` lists the
outputs that differ, and exits 1 if any does.

Throughput work (issue 26, docs/performance.md "Throughput of large files") must leave these
outputs byte-identical: every faster path is checked against the slower one it replaces.
"""
import json
import sys
from pathlib import Path


def sources(paths):
    found = []
    for path in map(Path, paths):
        found += sorted(path.rglob("*.cl")) if path.is_dir() else [path]
    return found


def build_options(path):
    """The recorded build options of a corpus file (FILE.options, whitespace-separated)."""
    options = path.with_suffix(".options")
    return options.read_text().split() if options.is_file() else []


def compile_one(path, extra):
    """What `clcoop [options] path` emits: the IR and the warnings, or the rendered errors."""
    from clcoop.errors import ArgumentError, CompileError
    from clcoop.frontend import driver
    from clcoop.options import parse_options
    try:
        options = parse_options(build_options(path) + extra + [str(path)],
                                for_build=False).compile_options(str(path))
        result = driver.compile_source(path.read_bytes(), options)
    except CompileError as exc:
        return {"error": exc.rendered}
    except ArgumentError as exc:
        return {"error": f"argument: {exc}"}
    except Exception as exc:       # an internal error is an output too: it must not change
        return {"crash": f"{type(exc).__name__}: {exc}"}
    return {"ir": result.ir, "warnings": result.rendered}


def tree_independent(output):
    """The output with the path of the checkout compiled (the default header's, in a note
    "expanded from macro 'NULL'") written <clcoop>: two checkouts name it differently."""
    import clcoop
    root = str(Path(clcoop.__file__).resolve().parent.parent)
    return {key: text.replace(root, "<clcoop>") for key, text in output.items()}


def dump(out, paths):
    results = {}
    for path in sources(paths):
        for extra in ([], ["-g"]):
            results[" ".join([str(path)] + extra)] = tree_independent(compile_one(path, extra))
    Path(out).write_text(json.dumps(results, indent=0, sort_keys=True))
    errors = sum("error" in r for r in results.values())
    print(f"{len(results)} outputs ({errors} of them errors) written to {out}")
    return 0


def diff(before_path, after_path):
    before = json.loads(Path(before_path).read_text())
    after = json.loads(Path(after_path).read_text())
    differing = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    for key in differing:
        print(f"differs: {key}")
    print(f"{len(before.keys() & after.keys())} outputs compared, {len(differing)} differ")
    return 1 if differing else 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "dump":
        return dump(argv[1], argv[2:])
    if len(argv) == 3 and argv[0] == "diff":
        return diff(argv[1], argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
