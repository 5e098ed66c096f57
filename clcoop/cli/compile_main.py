"""`clcoop [options] file.cl -o out.ll`: the compiler command line (thin; logic is in driver.py).

Exit status: 0 success, 1 error in the input or the command line (clang-style diagnostics on
stderr), 70 internal compiler error (EX_SOFTWARE), 130 interrupted.
Output is written atomically and only on success: a failed run leaves an existing output
file byte-identical.
"""
import os
import sys
import tempfile

from clcoop.cli.dependencies import missing_dependency
from clcoop.cli.output import new_file_mode, stdout_closed

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
  -O0, -O1, -O2, -O3     Optimization level. Default -O0, as clang (Program.build() defaults to
                         -O2, as clBuildProgram). -O is -O1; -Os, -Oz are -O2; -Ofast is -O3.
  -cl-opt-disable        Same as -O0. The other -cl-* build options of OpenCL are accepted.
  -g, -gline-tables-only Emit debug line information (DICompileUnit, DISubprogram,
                         DILocation; clang's -gline-tables-only level). -g0 turns it off.
                         Program.build() and clcoop-run always compile with -g.
  -ffp-contract=<mode>   Floating-point contraction: on (default, OpenCL C's FP_CONTRACT ON:
                         a*b+c becomes llvm.fmuladd), off, or fast (contract flags).
  -ferror-limit=<n>      Stop after n errors (default 20; 0: no limit, as clang -cc1).
  -E                     Only preprocess; write the result (default: stdout).
  -fsyntax-only          Check the source and write nothing.
  --emit-spirv           Emit a SPIR-V binary (through llc-22) instead of LLVM IR text,
                         checked with spirv-val. spirv-val 2025.5 rejects coop_mat_get_coord,
                         the EXT use conversions and __global or decoded tensor accesses as
                         emitted: for those, a copy with exactly them changed is checked.
  --target-env=vulkan1.3 With --emit-spirv: a Vulkan compute module (Shader, GLCompute entry
                         points, push constants, device addresses; docs/vulkan.md), checked
                         with spirv-val --target-env vulkan1.3 exactly as written.
  -emit-llvm, -S         Accepted for clang compatibility (LLVM IR text is the default).
  -w                     Suppress all warnings.
  -Werror                Make every warning an error.
  -W<group>, -Wno-<group>, -Werror=<group>, -Wno-error=<group>
                         Enable, disable, or make an error the warnings of <group>:
                         uninitialized     a variable read before any assignment (on);
                         coop-portability  what clang's cooperative-matrix pull request
                                           (llvm/llvm-project #221328) rejects (on).
  --verbose, -v          Print the stages run and, on an internal error, the full traceback.
  --version              Print the version.
  --help, -h             Print this help.

ENVIRONMENT:
  CLCOOP_CACHE_DIR       Where the preprocessed default header and the compiler's compiled
                         regular expressions are cached, to start faster
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


def parse_args(argv):
    """The command line's options (clcoop.options, shared with Program.build)."""
    from clcoop.errors import ArgumentError
    from clcoop.options import parse_options
    try:
        return parse_options(argv, for_build=False)
    except ArgumentError as exc:
        raise UsageError(str(exc)) from None


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
        os.chmod(tmp, new_file_mode(path))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


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

    options = args.compile_options(filename)
    if args.target_env is not None:
        if not args.emit_spirv:
            raise UsageError("--target-env needs --emit-spirv")
        # The Vulkan target names source lines in what it cannot map (docs/vulkan.md).
        options.debug_info = True
    _log(args, f"compiling {filename} for {args.triple}, -cl-std={args.cl_std}, -O{args.opt_level}")
    if args.mode == "preprocess":
        result = driver.preprocess_source(source, options)
        return result.ir.encode("utf-8"), result.rendered
    if args.mode == "syntax":
        return None, driver.check_source(source, options).rendered
    result = driver.compile_source(source, options)
    data = result.ir.encode("utf-8")
    if args.emit_spirv and args.target_env is not None:
        from clcoop.spirv.vulkan import ir_to_vulkan_spirv
        _log(args, f"translating LLVM IR to a {args.target_env} module")
        return ir_to_vulkan_spirv(result.ir, args.target_env), result.rendered
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
        if warnings:
            print(warnings, file=sys.stderr)
        if data is not None:
            output = args.output or default_output(args)
            _log(args, f"writing {output}")
            try:
                write_output_atomically(output, data)
            except BrokenPipeError:
                stdout_closed()
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
        if missing_dependency(exc):
            print(f"clcoop: error: {missing_dependency(exc)}", file=sys.stderr)
            return EXIT_ERROR
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
    if argv is None:            # the command itself: its regular expressions come from the cache
        from clcoop.frontend import disk_cache
        disk_cache.install(disk_cache.cache_dir())
        # One compile, then the process ends (exit_without_teardown): no cyclic collection.
        # The driver pauses the collector while a source compiles; resumed, its first
        # collection walks every object the compile made, still alive then: 0.3-0.45 s of a
        # macro-heavy file's ~2.3 s (pocl's test_abs.cl; issue 26, throughput).
        import gc
        gc.disable()
    try:
        status = run(sys.argv[1:] if argv is None else argv)
    except ModuleNotFoundError as exc:       # before run() could catch it (the options' imports)
        if not missing_dependency(exc):
            raise
        print(f"clcoop: error: {missing_dependency(exc)}", file=sys.stderr)
        status = EXIT_ERROR
    sys.stderr.flush()
    if argv is None:            # the command itself (not a caller in the same process)
        disk_cache.save()
        exit_without_teardown(status)
    return status


def exit_without_teardown(status):
    """Ends the process without the interpreter's teardown, which frees every module and
    LLVM's objects one by one: 20-40 ms of CPU, a fifth of a small kernel's compile (issue 26,
    start-up). What teardown does that matters is done first: the atexit handlers and the
    flush of stdout (a reader that went away is exit status 1, as for any write)."""
    import atexit
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_closed()
        status = status or EXIT_ERROR
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
