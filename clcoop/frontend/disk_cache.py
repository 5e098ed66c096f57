"""What the `clcoop` command keeps on disk between runs: the cache directory (`cache_dir`;
the default header's preprocessed state is there too, clcoop.frontend.preprocess) and
compiled regular expressions (`install` ... `save`).

Python compiles a regular expression from its text in Python code (re._parser, re._compiler)
on every process start. The compile path's lexers build large ones at import: pycparser's
master token pattern alone is ~11 ms, pcpp's lexer ~1.5 ms, ~20 ms in all of a ~120 ms
small-kernel compile (issue 26, start-up; docs/performance.md). What that compilation
produces is plain data: the pattern's final flags, its SRE code (a list of integers), its
group count and names, from which `_sre.compile` makes the Pattern without parsing. This
module keeps that data in a JSON file beside the default header's cache and hands it to
`_sre.compile` on a later run; a pattern compiled this way is equal (==: same flags and
code) to one compiled from its text, which the tests check.

Only the command installs it (`install` ... `save`), never a library caller. The file is
keyed by the exact Python build (sys.version) and the SRE engine's version (_sre.MAGIC):
any other file, a corrupt one or an unwritable directory is silently a miss. JSON, not
pickle or marshal: loading it never runs code, and `_sre.compile` checks the code it is given.
"""
import json
import os
import sys

_FORMAT = 2
# A bound on the file, whatever code compiles patterns (format 1 kept any, ~350 after a day).
_MAX_PATTERNS = 256
_RE_DIRECTORY = os.path.dirname(os.path.abspath(__import__("re").__file__))
_CO_OPTIMIZED = 0x1       # inspect.CO_OPTIMIZED: a function's code, not a module's or class's body
_FILE_NAME = "regex-{}.json"

_state = None      # while installed: {"path", "key", "known", "added", "original"}


def cache_dir():
    """$CLCOOP_CACHE_DIR, else $XDG_CACHE_HOME/clcoop, else ~/.cache/clcoop; None when
    CLCOOP_NO_CACHE is set or there is no home directory."""
    if os.environ.get("CLCOOP_NO_CACHE"):
        return None
    explicit = os.environ.get("CLCOOP_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None      # no home directory: never create "~/.cache" under the working directory
    return os.path.join(base, "clcoop")


def _key():
    import _sre
    return [_FORMAT, sys.version, _sre.MAGIC, _sre.CODESIZE]


def _supported():
    """The reimplemented step mirrors re._compiler.compile of CPython 3.11-3.13."""
    import re._compiler as compiler
    import re._parser as parser
    return (sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 13)
            and hasattr(compiler, "_code") and hasattr(parser, "parse"))


def _compile_from_text(pattern, flags):
    """What re._compiler.compile does, keeping the pieces: (final flags, code, groups,
    groupindex, indexgroup)."""
    import re._compiler as compiler
    import re._parser as parser
    parsed = parser.parse(pattern, flags)
    code = compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return [flags | parsed.state.flags, list(code), parsed.state.groups - 1, groupindex, indexgroup]


def _make_pattern(pattern, parts):
    import _sre
    final_flags, code, groups, groupindex, indexgroup = parts
    return _sre.compile(pattern, final_flags, code, groups, groupindex, tuple(indexgroup))


def _cached_compile(pattern, flags=0):
    state = _state
    if not isinstance(pattern, str) or flags & 128:     # bytes; 128: re.DEBUG prints the code
        return state["original"](pattern, flags)
    key = f"{flags}:{pattern}"
    parts = state["known"].get(key)
    if parts is not None:
        try:
            return _make_pattern(pattern, parts)
        except Exception:          # a file that does not fit this engine: compile from the text
            state["known"].pop(key, None)
    parts = _compile_from_text(pattern, flags)
    compiled = _make_pattern(pattern, parts)
    if len(state["known"]) + len(state["added"]) < _MAX_PATTERNS and _fixed_by_the_code(pattern):
        state["added"][key] = parts
    return compiled


def _fixed_by_the_code(pattern):
    """Whether the pattern being compiled is one the code fixes, the same every run: compiled
    by a module's or a class's body (pycparser's lexer, textwrap), written as a constant of
    the calling function (`re.match(r"...", text)`) or kept in a global of its module
    (`re.match(_decimal_constant, ...)`), or compiled by PLY's lexer from its stored tables
    (pcpp's). Others may come from the input (a macro's name): kept, the file would grow and
    be rewritten every run. (A module global built from a set's order changes with the hash
    seed: tokenize's, which the compile path does not run; _MAX_PATTERNS bounds the rest.)"""
    frame = sys._getframe(2)
    while frame is not None and os.path.dirname(frame.f_code.co_filename) == _RE_DIRECTORY:
        frame = frame.f_back
    if frame is None:
        return False
    code = frame.f_code
    return (not code.co_flags & _CO_OPTIMIZED or pattern in code.co_consts
            or any(value is pattern for value in frame.f_globals.values())
            or code.co_filename.endswith(os.path.join("ply", "lex.py")))


def _load(path, key):
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        if data.get("key") != key or not isinstance(data.get("patterns"), dict):
            return {}
        return data["patterns"]
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def install(directory):
    """From now on, this process compiles regular expressions through the cache in
    `directory` (None: no cache, nothing installed). Returns whether it was installed."""
    global _state
    if directory is None or _state is not None or not _supported():
        return False
    import re._compiler as compiler
    key = _key()
    path = os.path.join(directory, _FILE_NAME.format(f"{sys.hexversion:08x}"))
    _state = {"path": path, "key": key, "known": _load(path, key), "added": {},
              "original": compiler.compile}
    compiler.compile = _cached_compile
    return True


def uninstall():
    """Back to Python's own compilation (the tests; the command simply exits)."""
    global _state
    if _state is not None:
        import re._compiler as compiler
        compiler.compile = _state["original"]
        _state = None


def save():
    """Write the patterns first compiled in this run (nothing when there were none)."""
    state = _state
    if state is None or not state["added"]:
        return
    import tempfile
    patterns = dict(_load(state["path"], state["key"]))
    patterns.update(state["added"])
    directory = os.path.dirname(state["path"])
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".regex-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump({"key": state["key"], "patterns": patterns}, handle)
            os.replace(tmp, state["path"])       # atomic: readers see all or nothing
        except BaseException:
            os.unlink(tmp)
            raise
    except (OSError, TypeError, ValueError):
        pass          # read-only or full disk: the next run compiles from the text again
    state["known"].update(state["added"])
    state["added"] = {}
