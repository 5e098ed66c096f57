"""`clcoop-run`: run a kernel in the interpreter from the command line (thin; the work is
in clcoop.api).

    clcoop-run kernel.cl|kernel.ll --kernel NAME --global 64,8 --local 16,1
               [--subgroup-size 16] --arg A=a.npy --arg n=64 [--arg tmp=local:1024]
               [--out DIR] [-D NAME[=VALUE]] [-I DIR] [-O0|-O2]
    clcoop-run --engine vulkan k.spv --kernel NAME --local 256,1 --pipeline-statistics
               [--arg tmp=local:1024] [--internal-representations]

Buffer arguments (.npy files) the kernel may write are written back to DIR under the name of
the file they came from (`--arg out=data/deq.npy --out res` writes res/deq.npy), all of them
and atomically, only when the whole launch succeeds. Errors print `clcoop-run: error: ...`
and exit with status 1; a kernel fault is printed at its source line (`k.cl:12:9: error:
...`, .cl input is compiled with -g, .ll input located by its own debug information);
an internal error exits with 70.

Kernel printf output goes to stdout while the kernel runs (work-items in order), before
the `wrote DIR/<file>.npy` lines; a newline ends printf output that lacks one.

--pipeline-statistics (--engine vulkan) prints the driver's statistics of the pipeline the
kernel would be launched with (VK_KHR_pipeline_executable_properties: registers, spills, ...,
as the driver names them; docs/gpu.md) instead of launching it: --global is not needed, and of
the --arg values only the local:BYTES ones are read (they specialize the pipeline).
"""
import argparse
import os
import sys
import tempfile
import warnings

from clcoop.cli.dependencies import missing_dependency
from clcoop.cli.output import new_file_mode, stdout_closed
from clcoop.engine import CHOICES as ENGINE_CHOICES

EXIT_OK, EXIT_ERROR, EXIT_ICE = 0, 1, 70


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def _parser():
    p = _Parser(prog="clcoop-run", description="Run an OpenCL C or LLVM IR kernel in the clcoop interpreter.",
                epilog="Kernel printf output goes to stdout during the launch, in work-item order, "
                       "before the 'wrote DIR/FILE.npy' lines of the updated buffers (a newline "
                       "ends printf output that lacks one); errors go to stderr. A buffer the "
                       "kernel may write (not const, not __constant) is written back as "
                       "DIR/FILE.npy, FILE.npy the name of the file it was read from: "
                       "--arg out=data/deq.npy --out res writes res/deq.npy.")
    p.add_argument("input", help="kernel source (.cl), LLVM IR (.ll) or a Vulkan module (.spv, --engine vulkan)")
    p.add_argument("--kernel", help="kernel name (optional when the program has one kernel)")
    p.add_argument("--global", dest="global_size", help="global size, e.g. 64,8 (required unless "
                   "--pipeline-statistics)")
    p.add_argument("--local", dest="local_size", help="local size, e.g. 16,1 (default: chosen)")
    p.add_argument("--subgroup-size", type=int, help="sub-group size (default 16 or the kernel's)")
    p.add_argument("--specialize", action="append", default=[], metavar="NAME[,NAME...]",
                   help="scalar arguments whose values the launch compiles in (--engine vulkan: a pipeline "
                        "specialized with them; the CPU engines run the kernel unchanged)")
    p.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                   help="kernel argument: NAME=file.npy, NAME=<number>, NAME=1,2,3,4 (vector), "
                        "NAME=local:<bytes>")
    p.add_argument("--out", default=".", help="directory for the updated buffers, each written "
                   "under its input file's name (default .)")
    p.add_argument("--instruction-limit", type=int, help="abort runaway kernels after this many instructions")
    p.add_argument("--serial-subgroups", action="store_true",
                   help="run every sub-group alone, one after the other (interpreter): results must "
                        "not change, which checks kernels whose sub-groups take different paths; a "
                        "work-group barrier then faults unless a work-group is one sub-group")
    p.add_argument("-D", action="append", default=[], dest="defines", metavar="NAME[=VALUE]")
    p.add_argument("-U", action="append", default=[], dest="undefines", metavar="NAME")
    p.add_argument("-I", action="append", default=[], dest="include_dirs", metavar="DIR")
    p.add_argument("-O", dest="opt", metavar="LEVEL",
                   help="optimization level for .cl input: 0, 1, 2, 3, s, z (default 2, as Program.build "
                        "and clBuildProgram; the clcoop command defaults to -O0, as clang)")
    p.add_argument("--engine", choices=ENGINE_CHOICES, default="interp",
                   help="interp: the interpreter (reference, default); native: kernels compiled "
                        "by LLVM for this CPU (docs/native.md); auto: native where the kernel is "
                        "supported, else the interpreter with a note saying why; vulkan: a Vulkan "
                        "GPU (docs/gpu.md), the only engine of a .spv module from "
                        "`clcoop --emit-spirv --target-env vulkan1.3`")
    p.add_argument("--pipeline-statistics", action="store_true",
                   help="--engine vulkan: print the driver's statistics of the kernel's pipeline for "
                        "--local (and --subgroup-size, local:BYTES arguments) instead of launching it "
                        "(VK_KHR_pipeline_executable_properties)")
    p.add_argument("--internal-representations", action="store_true",
                   help="with --pipeline-statistics: also print the driver's internal representations "
                        "(its IR, its assembly) where it gives them")
    return p


def _sizes(text, what):
    try:
        sizes = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise UsageError(f"{what} must be comma-separated integers, got '{text}'") from None
    return sizes


def _load_program(args):
    import clcoop
    with open(args.input, encoding="utf-8") as f:
        text = f.read()
    with warnings.catch_warnings(record=True) as notes:
        warnings.simplefilter("always")
        if args.input.endswith(".ll"):
            prog = clcoop.Program.from_ir(text, engine=args.engine)
        else:
            options = [f"-D{d}" for d in args.defines] + [f"-U{u}" for u in args.undefines] + \
                [f"-I{i}" for i in args.include_dirs] + ([f"-O{args.opt}"] if args.opt else [])
            prog = clcoop.Program(text).build(options=options, filename=args.input, engine=args.engine)
    if prog.build_log:                  # the compiler's warnings, printed once, clang-style
        print(prog.build_log, file=sys.stderr)
    for note in notes:                  # the engine's notes (why a kernel falls back)
        if not isinstance(note.message, clcoop.CompilerWarning):
            print(f"clcoop-run: note: {note.message}", file=sys.stderr)
    return prog


def _load_vulkan_module(args):
    """A precompiled Vulkan module: its kernels' signatures travel inside it, and it loads
    with NumPy and the Vulkan loader alone (clcoop.vulkan; no llvmlite, no compiler)."""
    if args.engine != "vulkan":
        raise UsageError(f"'{args.input}' is a SPIR-V module: it runs on --engine vulkan only")
    refused = [flag for flag, given in (("--instruction-limit", args.instruction_limit is not None),
                                        ("--serial-subgroups", args.serial_subgroups),
                                        ("-D/-U/-I/-O", args.defines or args.undefines or args.include_dirs or args.opt))
               if given]
    if refused:
        raise UsageError(f"{', '.join(refused)} do not apply to a precompiled module on --engine vulkan")
    from clcoop.vulkan import VulkanProgram
    with open(args.input, "rb") as f:
        return VulkanProgram(f.read())


def _parse_value(name, text):
    import numpy as np
    import clcoop
    if text.startswith("local:"):
        try:
            return clcoop.LocalMemory(int(text[6:]))
        except ValueError:
            raise UsageError(f"--arg {name}: 'local:' needs a byte count, got '{text}'") from None
    if text.endswith(".npy"):
        try:
            return np.ascontiguousarray(np.load(text, allow_pickle=False))
        # EOFError: an empty file; MemoryError: a header that claims terabytes
        except (OSError, ValueError, EOFError, MemoryError) as exc:
            raise UsageError(f"--arg {name}: cannot read '{text}': {exc}") from None
    values = []
    for part in text.split(","):       # a vector argument is comma-separated: v=1,2,3,4
        for conv in (int, float):
            try:
                values.append(conv(part))
                break
            except ValueError:
                pass
        else:
            raise UsageError(f"--arg {name}: expected a .npy file, a number, comma-separated "
                             f"numbers or local:<bytes>, got '{text}'")
    return values[0] if len(values) == 1 else tuple(values)


def _kernel_args(prog, kernel_name, arg_texts):
    info = prog.kernel(kernel_name).info
    names = [n for n, _ in info.params]
    given, texts = {}, {}
    for item in arg_texts:
        name, eq, value = item.partition("=")
        if not eq:
            raise UsageError(f"--arg expects NAME=VALUE, got '{item}'")
        if name not in names:
            raise UsageError(f"kernel '{kernel_name}' has no parameter '{name}' "
                             f"(parameters: {', '.join(names)})")
        if name in given:
            raise UsageError(f"--arg {name} given twice")
        given[name] = _parse_value(name, value)
        texts[name] = value
    missing = [n for n in names if n not in given]
    if missing:
        raise UsageError(f"missing --arg for parameter(s): {', '.join(missing)}")
    written = [os.path.basename(texts[n]) if _is_written(info, i) else None
               for i, n in enumerate(names)]
    _refuse_clashing_outputs(names, written)
    return [given[n] for n in names], written


def _refuse_clashing_outputs(names, written):
    """Two written buffers read from files of one name would overwrite each other's output."""
    first = {}
    for name, output in zip(names, written):
        if output is None or not output.endswith(".npy"):
            continue
        if output in first:
            raise UsageError(f"--arg {first[output]} and --arg {name} are both read from a file "
                             f"named '{output}'; their updated buffers would both be written to "
                             f"DIR/{output} (rename one of the files)")
        first[output] = name


def _is_written(info, i):
    """Buffers the kernel may modify: not __constant, not const-qualified."""
    _, ptype = info.params[i]
    qual = info.arg_qualifiers[i] if i < len(info.arg_qualifiers) else ""
    return ptype.kind == "ptr" and ptype.addrspace != 2 and "const" not in qual.split()


def _write_outputs(out_dir, names, values):
    import numpy as np
    os.makedirs(out_dir, exist_ok=True)
    temps = []
    try:
        for name, value in zip(names, values):
            if name is not None and isinstance(value, np.ndarray):
                fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".npy", dir=out_dir)
                with os.fdopen(fd, "wb") as f:
                    np.save(f, value)
                final = os.path.join(out_dir, name)
                os.chmod(tmp, new_file_mode(final))     # mkstemp made it 0600
                temps.append((tmp, final))
        for tmp, final in temps:
            os.replace(tmp, final)
    finally:
        for tmp, _ in temps:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return [final for _, final in temps]


class _LineTracker:
    """sys.stdout during the launch: passes kernel printf output through and remembers
    whether it ended a line."""

    def __init__(self, stream):
        self.stream = stream
        self.at_line_start = True

    def write(self, text):
        if text:
            self.at_line_start = text.endswith("\n")
        return self.stream.write(text)

    def __getattr__(self, name):
        return getattr(self.stream, name)


def _vulkan_program(prog):
    """The VulkanProgram behind a loaded .spv module or a program built with engine='vulkan'."""
    from clcoop.vulkan import VulkanProgram
    if isinstance(prog, VulkanProgram):
        return prog
    return prog._preferred().program       # clcoop.Program's build for the one engine asked for


def _specialized_names(args):
    """The --specialize names, each option a comma-separated list."""
    return tuple(name.strip() for item in args.specialize for name in item.split(",") if name.strip())


def _pipeline_statistics(args, prog, kernel, local):
    """--pipeline-statistics: the kernel's pipeline described by the driver, not launched."""
    from clcoop.vulkan.statistics import format_executables
    target = _vulkan_program(prog).kernel(kernel)
    specialized = _specialized_names(args)
    local_memory, values = {}, {}
    for item in args.arg:
        name, _eq, value = item.partition("=")
        if value.startswith("local:"):
            local_memory[name] = _parse_value(name, value)
        elif name in specialized:
            values[name] = _parse_value(name, value)
    missing = [name for name in specialized if name not in values]
    if missing:
        raise UsageError(f"--specialize {','.join(missing)} needs --arg {missing[0]}=VALUE: the pipeline is "
                         f"specialized with that value")
    found = target.statistics(local, local_memory, args.subgroup_size, args.internal_representations,
                              specialize=values)
    description = target.program.description
    print(f"kernel {kernel}" + (f", local size {','.join(map(str, local))}" if local else "") +
          f", on {description.title()}:")
    print(format_executables(found, args.internal_representations))
    return EXIT_OK


def run(argv):
    args = _parser().parse_args(argv)
    if args.pipeline_statistics and args.engine != "vulkan":
        raise UsageError("--pipeline-statistics needs --engine vulkan (the driver's statistics of a Vulkan pipeline)")
    if args.internal_representations and not args.pipeline_statistics:
        raise UsageError("--internal-representations goes with --pipeline-statistics")
    if args.global_size is None and not args.pipeline_statistics:
        raise UsageError("the following arguments are required: --global")
    global_size = _sizes(args.global_size, "--global") if args.global_size else None
    local = _sizes(args.local_size, "--local") if args.local_size else None
    try:
        prog = _load_vulkan_module(args) if args.input.endswith(".spv") else _load_program(args)
    except OSError as exc:
        raise UsageError(f"cannot read '{args.input}': {exc.strerror}") from None
    kernel = args.kernel
    if kernel is None:
        if len(prog.kernel_names) != 1:
            raise UsageError(f"--kernel is required (kernels: {', '.join(prog.kernel_names)})")
        kernel = prog.kernel_names[0]
    if args.pipeline_statistics:
        return _pipeline_statistics(args, prog, kernel, local)
    values, names = _kernel_args(prog, kernel, args.arg)
    kwargs = {}
    if args.subgroup_size is not None:
        kwargs["subgroup_size"] = args.subgroup_size
    if args.instruction_limit is not None:
        kwargs["instruction_limit"] = args.instruction_limit
    if args.serial_subgroups:
        kwargs["serial_subgroups"] = True
    if args.specialize:
        kwargs["specialize"] = _specialized_names(args)
    tracker = _LineTracker(sys.stdout)
    sys.stdout = tracker
    try:
        prog.run(kernel, global_size, local, *values, **kwargs)
    finally:
        sys.stdout = tracker.stream
        if not tracker.at_line_start:
            print()             # end kernel printf output that lacks a final newline
    for path in _write_outputs(args.out, names, values):
        print(f"wrote {path}")
    return EXIT_OK


def main(argv=None):
    from clcoop.errors import ClcoopError
    argv = sys.argv[1:] if argv is None else argv
    try:
        return run(argv)
    except UsageError as exc:
        print(f"clcoop-run: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except ClcoopError as exc:
        text = str(exc)
        if text.startswith("kernel "):
            print(f"clcoop-run: error: {text}", file=sys.stderr)
        else:
            print(text if "error:" in text else f"clcoop-run: error: {text}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:    # stdout's reader stopped early (`| head -1`)
        stdout_closed()
        return EXIT_ERROR
    except Exception as exc:   # an interpreter bug: say so without a traceback
        if missing_dependency(exc):
            print(f"clcoop-run: error: {missing_dependency(exc)}", file=sys.stderr)
            return EXIT_ERROR
        print(f"clcoop-run: internal error: {type(exc).__name__}: {exc}\n"
              f"please report this with the kernel and arguments", file=sys.stderr)
        return EXIT_ICE


if __name__ == "__main__":
    sys.exit(main())
