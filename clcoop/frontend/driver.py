"""Runs the compiler stages: preprocess -> parse -> check -> lower.

`compile_source(source, options) -> CompileResult(ir, diagnostics)`; raises
clcoop.errors.CompileError (with every diagnostic and their clang-style rendering) when
any stage reported an error. Warnings come back in CompileResult.diagnostics.

A stage that reported errors ends the run: later stages would only repeat them
(a declaration the parser skipped looks undeclared to the checker).
Heavy modules (check, lower and llvmlite behind them) are imported when first needed,
so `clcoop --help` and a syntax error stay fast.
"""
import gc
import sys
from contextlib import contextmanager
from pathlib import Path

from clcoop.diagnostics import DiagnosticEngine, SourceLocation
from clcoop.errors import ArgumentError, CompileError
from clcoop.frontend.types import Target
from clcoop.options import CompileOptions  # noqa: F401 (the driver's input)
from clcoop.records import record

TRIPLES = ("spir64-unknown-unknown", "spir-unknown-unknown")
# -cl-std value -> __OPENCL_C_VERSION__ (clang's predefines).
CL_STD_VERSIONS = {"CL1.0": 100, "CL1.1": 110, "CL1.2": 120, "CL2.0": 200, "CL3.0": 300,
                   "cl1.0": 100, "cl1.1": 110, "cl1.2": 120, "cl2.0": 200, "cl3.0": 300}
OPT_LEVELS = (0, 1, 2, 3)
FP_CONTRACT_MODES = ("on", "off", "fast")


@record
class CompileResult:
    ir: str
    diagnostics: list            # warnings (Diagnostic objects)
    rendered: str = ""           # their clang-style text, with source lines and carets
    sources: object = None       # the SourceManager, to render one diagnostic with its line


def error_limit(options):
    """-ferror-limit's value as an int (None: the default), or ArgumentError in clang's words."""
    value = options.error_limit
    if value is None:
        return None
    text = str(value)
    if not text.isdigit():
        raise ArgumentError(f"invalid integral value '{text}' in '-ferror-limit={text}'")
    return int(text)


def validate_options(options):
    """Reject options no stage can honour (ArgumentError names the option)."""
    if options.triple not in TRIPLES:
        raise ArgumentError(f"unknown target triple '{options.triple}' "
                            f"(supported: {', '.join(TRIPLES)})")
    if options.cl_std not in CL_STD_VERSIONS:
        raise ArgumentError(f"invalid value '{options.cl_std}' in '-cl-std={options.cl_std}' "
                            "(supported: CL1.2, CL2.0, CL3.0)")
    if options.fp_contract not in FP_CONTRACT_MODES:
        raise ArgumentError(f"invalid value '{options.fp_contract}' in '-ffp-contract={options.fp_contract}' "
                            f"(supported: {', '.join(FP_CONTRACT_MODES)})")
    error_limit(options)
    if options.opt_level not in OPT_LEVELS:
        raise ArgumentError(f"invalid optimization level -O{options.opt_level}")


_PREDEFINES_FILE = Path(__file__).with_name("clang_predefines.txt")
_PREDEFINES = {}


def clang_data_model_macros(triple):
    """clang-22's data-model macros for `triple` (__SIZE_TYPE__, __INTPTR_TYPE__, __SIZEOF_*__,
    __*_MAX__, ...; clang_predefines.txt, made by scripts/gen_predefines.py)."""
    if not _PREDEFINES:
        section = None
        for line in _PREDEFINES_FILE.read_text(encoding="utf-8").splitlines():
            if line.startswith("["):
                section = _PREDEFINES.setdefault(line.strip("[]"), {})
            elif line and not line.startswith("#"):
                name, _, value = line.partition(" ")
                section[name] = value
    return dict(_PREDEFINES.get(triple, {}))


def predefined_macros(options):
    """What clang predefines for the target and language version; -D/-U apply on top."""
    target = Target(options.triple)
    macros = clang_data_model_macros(options.triple)
    # No __OPENCL_VERSION__: clang-22 -cc1 does not predefine it (a runtime passes it).
    macros.update({"__OPENCL_C_VERSION__": str(CL_STD_VERSIONS[options.cl_std]),
              "__SPIR__": "1", "__SPIR": "1"})
    if target.pointer_bits == 64:
        macros.update({"__SPIR64__": "1", "__SPIR64": "1"})
    if options.opt_level > 0:
        macros["__OPTIMIZE__"] = "1"
    macros.update(options.defines)
    for name in options.undefines:
        macros.pop(name, None)
    return macros


# pycparser, check and lower recurse once per nesting level of the source (a chain of
# 5,000 `+` is 5,000 levels). Python's default limit of 1,000 stops real kernels with
# long expressions; 20,000 was measured safe (no C stack overflow) on CPython 3.11.
RECURSION_LIMIT = 20000


@contextmanager
def _deep_recursion():
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


@contextmanager
def _no_cycle_collection():
    """Python's cyclic garbage collector paused while a source compiles: the stages allocate
    millions of objects that all live until the end (tokens, AST, typed AST, IR), and every
    collection walks them again for nothing. Paused, a 50,000-line macro-heavy file (pocl's
    test_bitselect.cl) takes 30% less CPU and 7% more memory, a small kernel 4% fewer
    instructions (docs/performance.md). Reference counting still frees everything acyclic;
    the few cycles left behind are collected once the compile is over."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _too_deep(exc, diag, filename):
    """A RecursionError in check or lower: the source nests too deeply. A located error."""
    where = internal_error_location(exc)
    loc = SourceLocation(filename, 1, 1)
    if where:
        file, line, column = where.rsplit(":", 2)
        loc = SourceLocation(file, int(line), int(column))
    diag.error("expression or statement nested too deeply", loc)
    raise CompileError(diag.diagnostics, rendered=diag.render_all()) from None


def _fail_if_errors(diag):
    if diag.error_count:
        raise CompileError(diag.diagnostics, rendered=diag.render_all())


def front_end(source, options, diag):
    """Preprocess and parse; returns the pycparser FileAST (errors are in diag)."""
    from clcoop.frontend.parse import parse
    from clcoop.frontend.preprocess import preprocess

    target = Target(options.triple)
    text = preprocess(source, options.filename, list(options.include_dirs),
                      predefined_macros(options), diag)
    _fail_if_errors(diag)
    ast = parse(text, options.filename, diag, target)
    _fail_if_errors(diag)
    return ast


def preprocess_source(source, options=None):
    """Only the preprocessor (`clcoop -E`): returns the text the parser would see."""
    from clcoop.frontend.preprocess import preprocess

    options = options or CompileOptions()
    validate_options(options)
    diag = DiagnosticEngine(warning_policy=options.warning_policy, error_limit=error_limit(options))
    with _no_cycle_collection():
        text = preprocess(source, options.filename, list(options.include_dirs),
                          predefined_macros(options), diag)
    _fail_if_errors(diag)
    return CompileResult(ir=text, diagnostics=list(diag.diagnostics),
                         rendered=diag.render_all() if diag.diagnostics else "")


def check_source(source, options=None):
    """Preprocess, parse and check, without generating IR (`clcoop -fsyntax-only`)."""
    options = options or CompileOptions()
    validate_options(options)
    diag = DiagnosticEngine(warning_policy=options.warning_policy, error_limit=error_limit(options))
    with _deep_recursion(), _no_cycle_collection():
        ast = front_end(source, options, diag)
        from clcoop.frontend import check
        try:
            check.check(ast, diag, Target(options.triple), options.fp_contract, options.cl_std)
        except RecursionError as exc:
            _too_deep(exc, diag, options.filename)
    _fail_if_errors(diag)
    return CompileResult(ir="", diagnostics=list(diag.diagnostics),
                         rendered=diag.render_all() if diag.diagnostics else "")


def compile_source(source, options=None):
    """OpenCL C source (str, or bytes that must be UTF-8) -> CompileResult with LLVM IR text."""
    options = options or CompileOptions()
    validate_options(options)
    diag = DiagnosticEngine(warning_policy=options.warning_policy, error_limit=error_limit(options))
    with _deep_recursion(), _no_cycle_collection():
        ast = front_end(source, options, diag)
        from clcoop.frontend import check, lower   # heavy: llvmlite comes with lower
        target = Target(options.triple)
        try:
            unit = check.check(ast, diag, target, options.fp_contract, options.cl_std)
            _fail_if_errors(diag)
            ir = lower.lower(unit, target, options.opt_level, options.debug_info, options.filename)
        except RecursionError as exc:
            _too_deep(exc, diag, options.filename)
    rendered = diag.render_all() if diag.diagnostics else ""
    return CompileResult(ir=ir, diagnostics=list(diag.diagnostics), rendered=rendered,
                         sources=diag.sources)


def _location_text(value):
    """'file:line:col' for a SourceLocation, a pycparser Coord, or a node carrying one."""
    for candidate in (value, getattr(value, "loc", None), getattr(value, "coord", None)):
        line = getattr(candidate, "line", None)
        file = getattr(candidate, "file", None)
        if isinstance(line, int) and line > 0 and isinstance(file, str):
            column = getattr(candidate, "column", None) or 1
            return f"{file}:{line}:{column}"
    return None


def internal_error_location(exc):
    """The source location being compiled when an internal error happened, if findable.

    Walks the traceback from the innermost frame outwards and returns the first local
    variable that is a location or an AST node with one (names: loc, node, expr, stmt, decl).
    """
    names = ("loc", "node", "expr", "stmt", "decl", "n")
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        for name in names:
            if name in frame.f_locals:
                text = _location_text(frame.f_locals[name])
                if text:
                    return text
    return None
