"""`clcoop [options] file.cl -o out.ll`: the compiler command line (thin; logic is in driver.py).

Exit status: 0 success, 1 error in the input or the command line (clang-style diagnostics on
stderr), 70 internal compiler error (EX_SOFTWARE), 130 interrupted.
Output is written atomically and only on success: a failed run leaves an existing output
file byte-identical.
"""
import os
import sys
import tempfile

USAGE = """\
OVERVIEW: clcoop OpenCL C compiler for cooperative matrices (SPV_KHR_cooperative_matrix)

USAGE: clcoop [options] <file.cl | ->

OPTIONS:
  -o <file>              Write output to <file> ('-' for stdout).
                         Default: <input stem>.ll (.spv with --emit-spirv); stdout for stdin.
  -I <dir>, -I<dir>      Add <dir> to the include search path.
  -D <name>[=<value>]    Define a macro (value 1 when omitted).
  -U <name>              Undefine a macro.
  -cl-std=<version>      OpenCL C version: CL1.2, CL2.0 or CL3.0 (default CL3.0).
  -triple <triple>       spir64-unknown-unknown (default) or spir-unknown-unknown.
                         Also accepted as --target=<triple> and -target <triple>.
  -O0, -O1, -O2, -O3     Optimization level (default -O0).
  -ffp-contract=<mode>   Floating-point contraction: on (default, OpenCL C's FP_CONTRACT ON:
                         a*b+c becomes llvm.fmuladd), off, or fast (contract flags).
  -E                     Only preprocess; write the result (default: stdout).
  -fsyntax-only          Check the source and write nothing.
  --emit-spirv           Emit a SPIR-V binary (through llc-22) instead of LLVM IR text.
  -emit-llvm, -S         Accepted for clang compatibility (LLVM IR text is the default).
  -w                     Suppress warnings.
  --verbose, -v          Print the stages run and, on an internal error, the full traceback.
  --version              Print the version.
  --help, -h             Print this help.

ENVIRONMENT:
  CLCOOP_CACHE_DIR       Where the preprocessed default header is cached
                         (default: $XDG_CACHE_HOME/clcoop or ~/.cache/clcoop).
  CLCOOP_NO_CACHE=1      Do not read or write that cache.
"""

# Where internal compiler errors should be reported (placeholder until the project has a
# public tracker; keep it in one place).
# Where users report internal errors: the project's issue tracker (no public URL yet).
ISSUE_TRACKER = "the clcoop issue tracker"
EXIT_OK, EXIT_ERROR, EXIT_ICE, EXIT_INTERRUPTED = 0, 1, 70, 130


class UsageError(Exception):
    """A bad command line (reported as `clcoop: error: ...`, exit 1)."""


class Args:
    def __init__(self):
        self.input = None
        self.output = None
        self.include_dirs = []
        self.defines = {}
        self.undefines = []
        self.cl_std = "CL3.0"
        self.triple = "spir64-unknown-unknown"
        self.opt_level = 0
        self.fp_contract = "on"
        self.emit_spirv = False
        self.verbose = False
        self.no_warnings = False
        self.action = "compile"     # or "help", "version"
        self.mode = "compile"       # or "preprocess" (-E), "syntax" (-fsyntax-only)


def _split_define(text):
    name, sep, value = text.partition("=")
    if not name:
        raise UsageError("macro name missing after '-D'")
    return name, (value if sep else None)


def _take_value(args, option, value):
    """Store the value of an option that takes one (-o, -I, -D, -U, -triple, -cl-std)."""
    if option == "-o":
        args.output = value
    elif option == "-I":
        args.include_dirs.append(value)
    elif option == "-D":
        name, val = _split_define(value)
        args.defines[name] = val
        if name in args.undefines:
            args.undefines.remove(name)
    elif option == "-U":
        args.undefines.append(value)
        args.defines.pop(value, None)
    elif option in ("-triple", "-target", "--target"):
        args.triple = value
    elif option == "-cl-std":
        args.cl_std = value
    elif option == "-ffp-contract":
        args.fp_contract = value


_VALUE_OPTIONS = ("-o", "-I", "-D", "-U")            # also written joined: -Ifoo, -DX=1
_SEPARATE_VALUE_OPTIONS = ("-triple", "-target")
_EQUALS_OPTIONS = ("-cl-std", "--target", "-triple", "-ffp-contract")  # written -cl-std=CL3.0
_OPT_FLAGS = {"-O0": 0, "-O1": 1, "-O2": 2, "-O3": 3, "-O": 1, "-Os": 2, "-Oz": 2, "-Ofast": 3}
_IGNORED_FLAGS = ("-emit-llvm", "-S", "-c", "-finclude-default-header",
                  "-disable-llvm-passes", "-cc1")


def parse_args(argv):
    args = Args()
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg in ("--help", "-h", "-help"):
            args.action = "help"
        elif arg == "--version":
            args.action = "version"
        elif arg in ("--verbose", "-v"):
            args.verbose = True
        elif arg == "-E":
            args.mode = "preprocess"
        elif arg == "-fsyntax-only":
            args.mode = "syntax"
        elif arg == "--emit-spirv":
            args.emit_spirv = True
        elif arg == "-w":
            args.no_warnings = True
        elif arg in _OPT_FLAGS:
            args.opt_level = _OPT_FLAGS[arg]
        elif arg in _IGNORED_FLAGS:
            pass
        elif arg in _VALUE_OPTIONS or arg in _SEPARATE_VALUE_OPTIONS:
            if i >= len(argv):
                raise UsageError(f"argument to '{arg}' is missing (expected 1 value)")
            _take_value(args, arg, argv[i])
            i += 1
        elif any(arg.startswith(opt + "=") for opt in _EQUALS_OPTIONS):
            option, _, value = arg.partition("=")
            _take_value(args, option, value)
        elif arg[:2] in _VALUE_OPTIONS and len(arg) > 2:
            _take_value(args, arg[:2], arg[2:])
        elif arg == "-" or not arg.startswith("-"):
            if args.input is not None:
                raise UsageError(f"only one input file is supported (got '{args.input}' "
                                 f"and '{arg}')")
            args.input = arg
        elif arg.startswith("-O"):
            raise UsageError(f"invalid optimization level '{arg}' (use -O0, -O1, -O2 or -O3)")
        else:
            raise UsageError(f"unknown argument: '{arg}'")
    return args


def default_output(args):
    if args.input == "-" or args.mode == "preprocess":
        return "-"
    stem = os.path.splitext(os.path.basename(args.input))[0]
    return stem + (".spv" if args.emit_spirv else ".ll")


def write_output_atomically(path, data):
    """Write bytes to path through a temporary file in the same directory and a rename.

    Special files (/dev/null, a FIFO) are written directly: renaming over them would
    replace the device node.
    """
    if path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    if os.path.exists(path) and not os.path.isfile(path):
        with open(path, "wb") as handle:
            handle.write(data)
        return
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                               dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            # No fsync (~10 ms, far more on a busy disk): like clang, the temporary file
            # and the rename make the output atomic for readers and for a failed run;
            # durability across a power loss is the file system's business.
            handle.write(data)
        os.chmod(tmp, _output_mode(path))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _output_mode(path):
    """Keep an existing file's permissions; a new file gets 0666 minus the umask, like clang."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _read_input(args):
    if args.input == "-":
        return sys.stdin.buffer.read(), "<stdin>"
    try:
        with open(args.input, "rb") as handle:
            return handle.read(), args.input
    except IsADirectoryError:
        raise UsageError(f"'{args.input}' is a directory, not a source file") from None
    except OSError as exc:
        raise UsageError(f"no such file or directory: '{args.input}'"
                         if isinstance(exc, FileNotFoundError)
                         else f"cannot read '{args.input}': {exc.strerror}") from None


def _log(args, message):
    if args.verbose:
        print(f"clcoop: {message}", file=sys.stderr)


def _bytecode_note():
    """Why start-up may be slow: Python compiles clcoop's sources on every run when it may
    not write .pyc files (PYTHONDONTWRITEBYTECODE / -B) and none exist yet (e.g. a fresh
    editable checkout). clcoop does not override that choice; the note says how to fix it."""
    if not sys.dont_write_bytecode:
        return None
    import importlib.util
    from clcoop.frontend import driver
    cached = importlib.util.cache_from_source(driver.__file__)
    if os.path.exists(cached):
        return None
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(driver.__file__)))
    return ("note: Python writes no bytecode here (PYTHONDONTWRITEBYTECODE or -B) and "
            "clcoop has none, so every run recompiles clcoop's sources (~0.3-0.6 s); "
            f"run `python3 -m compileall -q {package_dir}` once to fix it")


def compile_to_bytes(args, source, filename):
    """Run the driver; returns (output bytes, warnings text)."""
    from clcoop.frontend import driver

    if args.verbose:
        note = _bytecode_note()
        if note:
            _log(args, note)

    options = driver.CompileOptions(include_dirs=args.include_dirs, defines=args.defines,
                                    undefines=args.undefines, triple=args.triple,
                                    opt_level=args.opt_level, cl_std=args.cl_std,
                                    fp_contract=args.fp_contract, filename=filename)
    _log(args, f"compiling {filename} for {args.triple}, -cl-std={args.cl_std}, -O{args.opt_level}")
    if args.mode == "preprocess":
        result = driver.preprocess_source(source, options)
        return result.ir.encode("utf-8"), result.rendered
    if args.mode == "syntax":
        return None, driver.check_source(source, options).rendered
    result = driver.compile_source(source, options)
    data = result.ir.encode("utf-8")
    if args.emit_spirv:
        from clcoop.spirv import ir_to_spirv
        _log(args, "translating LLVM IR to SPIR-V")
        data = ir_to_spirv(result.ir, args.triple)
    return data, result.rendered


def run(argv):
    """The whole command; returns the exit status."""
    from clcoop.errors import ClcoopError, CompileError

    try:
        args = parse_args(argv)
    except UsageError as exc:
        print(f"clcoop: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if args.action == "help":
        sys.stdout.write(USAGE)
        return EXIT_OK
    if args.action == "version":
        from clcoop import __version__
        print(f"clcoop version {__version__}\nTarget: {args.triple}\n"
              "OpenCL C 1.2, 2.0, 3.0 with cooperative matrices (SPV_KHR_cooperative_matrix)")
        return EXIT_OK
    if args.input is None:
        print("clcoop: error: no input files (try 'clcoop --help')", file=sys.stderr)
        return EXIT_ERROR

    filename = args.input
    try:
        source, filename = _read_input(args)
        data, warnings = compile_to_bytes(args, source, filename)
        if warnings and not args.no_warnings:
            print(warnings, file=sys.stderr)
        if data is not None:
            output = args.output or default_output(args)
            _log(args, f"writing {output}")
            try:
                write_output_atomically(output, data)
            except BrokenPipeError:
                return EXIT_ERROR
            except OSError as exc:
                print(f"clcoop: error: unable to write output file '{output}': "
                      f"{exc.strerror or exc}", file=sys.stderr)
                return EXIT_ERROR
        return EXIT_OK
    except UsageError as exc:
        print(f"clcoop: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except CompileError as exc:
        print(exc.rendered or str(exc), file=sys.stderr)
        return EXIT_ERROR
    except ClcoopError as exc:
        print(f"clcoop: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("clcoop: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:       # a bug in clcoop: short report, traceback only if asked
        report_internal_error(exc, filename, args.verbose)
        return EXIT_ICE


def report_internal_error(exc, filename, verbose):
    from clcoop.frontend.driver import internal_error_location

    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    summary = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    if len(summary) > 200:
        summary = summary[:197] + "..."
    where = internal_error_location(exc) or filename
    lines = [f"clcoop: internal compiler error: {summary}",
             f"clcoop: while compiling {where}",
             f"clcoop: please report this on {ISSUE_TRACKER}, attaching the source file, "
             "the command line and the output of --verbose"]
    if verbose:
        import traceback
        lines.append("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip())
    else:
        lines.append("clcoop: run with --verbose for the full traceback")
    print("\n".join(lines), file=sys.stderr)


def main(argv=None):
    status = run(sys.argv[1:] if argv is None else argv)
    sys.stderr.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
