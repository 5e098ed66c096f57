"""One parser for clang's compile options, used by the `clcoop` command line and by
`Program.build(options)`, so that an option means the same in both.

    opts = parse_options(argv, for_build=False)   # clcoop command line
    opts = parse_options(options, for_build=True) # Program.build: compile options only

The defaults differ, as in the tools they follow: `clcoop` optimizes at -O0 like clang;
`Program.build()` at -O2 like clBuildProgram (-cl-opt-disable or -O0 turns it off).
`-O` alone is -O1, `-Os` and `-Oz` are -O2, `-Ofast` is -O3 (clang's meanings).
`Program.build()` also compiles with -g by default, so that runtime faults name source lines
(-g0 turns it off); `clcoop` emits no debug information unless given -g, as clang.

To add an option, add a row to OPTIONS (or a prefix to PREFIX_OPTIONS): its spellings, whether
it takes a value, whether Program.build accepts it, and a function that stores it.
Errors raise clcoop.errors.ArgumentError (a bad command line prints `clcoop: error: ...`).
"""
from dataclasses import field

from clcoop.diagnostics import WarningPolicy
from clcoop.errors import ArgumentError
from clcoop.records import record

CLI_DEFAULT_OPT_LEVEL = 0      # clang
BUILD_DEFAULT_OPT_LEVEL = 2    # clBuildProgram
# clang: -O alone is -O1; -Os/-Oz optimize for size (at -O2 here); -Ofast is -O3 plus fast math.
OPT_FLAGS = {"-O0": 0, "-O1": 1, "-O2": 2, "-O3": 3, "-O": 1, "-Os": 2, "-Oz": 2, "-Ofast": 3}
# Warning groups clcoop reports; -W<group>, -Wno-<group>, -Werror=<group> name these.
WARNING_GROUPS = ("uninitialized", "coop-portability", "implicit-enum-enum-cast", "enum-conversion")
# clang's parent groups: -W<parent> and its forms act on each member.
WARNING_GROUP_MEMBERS = {"enum-conversion": ("implicit-enum-enum-cast",)}
# The OpenCL build options (OpenCL 3.0 API 5.8.6) besides -cl-std and -cl-opt-disable: accepted
# (clang accepts them too); they change nothing in clcoop's IR or the interpreter.
OPENCL_MATH_FLAGS = ("-cl-single-precision-constant", "-cl-denorms-are-zero",
                     "-cl-fp32-correctly-rounded-divide-sqrt", "-cl-mad-enable",
                     "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations",
                     "-cl-finite-math-only", "-cl-fast-relaxed-math",
                     "-cl-uniform-work-group-size", "-cl-no-subgroup-ifp", "-cl-kernel-arg-info")


@record
class CompileOptions:
    """What the front end's driver (frontend/driver.py, compile_source) takes: Options narrowed
    to one compilation (compile_options())."""
    include_dirs: list = field(default_factory=list)
    defines: dict = field(default_factory=dict)      # name -> value or None (-DNAME means 1)
    triple: str = "spir64-unknown-unknown"
    opt_level: int = 0
    cl_std: str = "CL3.0"
    filename: str = "<input>"
    undefines: list = field(default_factory=list)    # -U names, applied after defines
    warning_policy: WarningPolicy = field(default_factory=WarningPolicy)   # -w, -Werror, -W<group>
    debug_info: bool = False                         # -g: line information (DILocation)
    fp_contract: str = "on"      # -ffp-contract: on (OpenCL C's default, as clang), off, fast
    error_limit: str | int | None = None   # -ferror-limit=N: errors before stopping (0: none)


@record
class Options:
    input: str | None = None
    output: str | None = None
    include_dirs: list = field(default_factory=list)
    defines: dict = field(default_factory=dict)       # name -> value or None (-DNAME means 1)
    undefines: list = field(default_factory=list)
    cl_std: str = "CL3.0"
    triple: str = "spir64-unknown-unknown"
    opt_level: int = CLI_DEFAULT_OPT_LEVEL
    fp_contract: str = "on"        # -ffp-contract: OpenCL C's FP_CONTRACT ON by default, as clang
    error_limit: str | None = None  # -ferror-limit=N (checked by the driver); None: clcoop's 20
    debug_info: bool = False       # -g; Program.build() always asks for it (faults name source lines)
    emit_spirv: bool = False
    target_env: str | None = None   # --target-env=vulkan1.3: the Vulkan target (clcoop.spirv.vulkan)
    verbose: bool = False
    action: str = "compile"        # or "help", "version"
    mode: str = "compile"          # or "preprocess" (-E), "syntax" (-fsyntax-only)
    warnings: WarningPolicy = field(default_factory=WarningPolicy)

    def compile_options(self, filename):
        """The driver's CompileOptions for these options."""
        return CompileOptions(include_dirs=list(self.include_dirs), defines=dict(self.defines),
                              undefines=list(self.undefines), triple=self.triple,
                              opt_level=self.opt_level, cl_std=self.cl_std, filename=filename,
                              warning_policy=self.warnings, debug_info=self.debug_info,
                              fp_contract=self.fp_contract, error_limit=self.error_limit)


# ----------------------------------------------------------------------- what each option stores
def _define(o, text):
    name, sep, value = text.partition("=")
    if not name:
        raise ArgumentError("macro name missing after '-D'")
    o.defines[name] = value if sep else None
    if name in o.undefines:
        o.undefines.remove(name)


def _undefine(o, name):
    o.undefines.append(name)
    o.defines.pop(name, None)


def _set(attribute, value=None):
    """Store the option's value (or a fixed value) in Options.<attribute>."""
    def store(o, given=None):
        setattr(o, attribute, given if value is None else value)
    return store


def _no_op(o, given=None):
    pass


@record(frozen=True)
class Option:
    names: tuple        # spellings; a value option's value follows: separate, joined or after '='
    store: object       # store(options) for a flag, store(options, value) for a value option
    takes_value: bool = False
    joined: bool = False          # value may be glued to the name (-Ifoo)
    equals: bool = False          # value may follow '=' (-cl-std=CL3.0)
    separate: bool = True         # value may be the next argument (-I foo)
    build: bool = True            # accepted by Program.build(options)


OPTIONS = (
    Option(("-o",), _set("output"), takes_value=True, joined=True, build=False),
    Option(("-I",), lambda o, v: o.include_dirs.append(v), takes_value=True, joined=True),
    Option(("-D",), _define, takes_value=True, joined=True),
    Option(("-U",), _undefine, takes_value=True, joined=True),
    Option(("-cl-std",), _set("cl_std"), takes_value=True, equals=True, separate=False),
    Option(("-triple", "-target"), _set("triple"), takes_value=True, equals=True, build=False),
    Option(("--target",), _set("triple"), takes_value=True, equals=True, separate=False, build=False),
    Option(("-cl-opt-disable",), _set("opt_level", 0)),
    # Checked by the driver (clang's "invalid value 'x' in '-ffp-contract=x'").
    Option(("-ffp-contract",), _set("fp_contract"), takes_value=True, equals=True, separate=False),
    # clang's -ferror-limit=N (0: no limit); checked by the driver.
    Option(("-ferror-limit",), _set("error_limit"), takes_value=True, equals=True, separate=False),
    # clang's -gline-tables-only level: DICompileUnit, DISubprogram, DILocation.
    Option(("-g", "-gline-tables-only"), _set("debug_info", True)),
    Option(("-g0",), _set("debug_info", False)),
    Option(OPENCL_MATH_FLAGS, _no_op),
    Option(("-w",), lambda o: setattr(o.warnings, "suppress_all", True)),
    Option(("-Werror",), lambda o: setattr(o.warnings, "all_errors", True)),
    Option(("-Wno-error",), lambda o: setattr(o.warnings, "all_errors", False)),
    Option(("-Wall", "-Wextra"), _no_op),       # every group clcoop has is on by default
    Option(("-E",), _set("mode", "preprocess"), build=False),
    Option(("-fsyntax-only",), _set("mode", "syntax"), build=False),
    Option(("--emit-spirv",), _set("emit_spirv", True), build=False),
    Option(("--target-env",), _set("target_env"), takes_value=True, equals=True, build=False),
    Option(("--verbose", "-v"), _set("verbose", True), build=False),
    Option(("--help", "-h", "-help"), _set("action", "help"), build=False),
    Option(("--version",), _set("action", "version"), build=False),
    # Accepted for clang compatibility: LLVM IR text is what clcoop writes anyway.
    Option(("-emit-llvm", "-S", "-c", "-finclude-default-header", "-disable-llvm-passes", "-cc1"),
           _no_op, build=False),
)
_BY_NAME = {name: option for option in OPTIONS for name in option.names}


def _warning_option(o, arg):
    """-W<group>, -Wno-<group>, -Werror=<group>, -Wno-error=<group>."""
    policy = o.warnings
    for prefix, action in (("-Werror=", "error"), ("-Wno-error=", "no-error"), ("-Wno-", "off"),
                           ("-W", "on")):
        if arg.startswith(prefix):
            group = arg[len(prefix):]
            break
    if group not in WARNING_GROUPS:
        # clang only warns about an unknown -W option; clcoop cannot honour it either way.
        raise ArgumentError(f"unknown warning option '{arg}' (warning groups: "
                            f"{', '.join('-W' + g for g in WARNING_GROUPS)})")
    for member in WARNING_GROUP_MEMBERS.get(group, (group,)):
        if action == "error":
            policy.errors.add(member)
            policy.disabled.discard(member)
        elif action == "no-error":
            policy.not_errors.add(member)
            policy.errors.discard(member)
        elif action == "off":
            policy.disabled.add(member)
        else:
            policy.disabled.discard(member)


def _opt_level(o, arg):
    if arg not in OPT_FLAGS:
        raise ArgumentError(f"invalid optimization level '{arg}' "
                            f"(use -O0, -O1, -O2, -O3, -O, -Os, -Oz or -Ofast)")
    o.opt_level = OPT_FLAGS[arg]


# Options recognized by a prefix (after the table): prefix -> store(options, whole argument).
PREFIX_OPTIONS = (("-W", _warning_option), ("-O", _opt_level))


def _value_option(arg):
    """(option, value or None when the value is the next argument) for a value option."""
    option = _BY_NAME.get(arg)
    if option is not None and option.takes_value and option.separate:
        return option, None
    name, eq, value = arg.partition("=")
    option = _BY_NAME.get(name)
    if eq and option is not None and option.takes_value and option.equals:
        return option, value
    option = _BY_NAME.get(arg[:2])
    if len(arg) > 2 and option is not None and option.takes_value and option.joined:
        return option, arg[2:]
    return None, None


def parse_options(argv, for_build=False):
    """Options from a list of arguments. for_build: Program.build's options (no input file,
    no output options, -O2 by default)."""
    o = Options(opt_level=BUILD_DEFAULT_OPT_LEVEL if for_build else CLI_DEFAULT_OPT_LEVEL,
                debug_info=for_build)
    argv = list(argv)
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if not isinstance(arg, str):
            raise ArgumentError(f"build options must be strings, got {arg!r}")
        option = _BY_NAME.get(arg)
        value = None
        if option is None or option.takes_value:
            option, value = _value_option(arg)
            if option is not None and value is None:
                if i >= len(argv):
                    raise ArgumentError(f"argument to '{arg}' is missing (expected 1 value)")
                value = argv[i]
                i += 1
        if option is not None:
            if for_build and not option.build:
                raise ArgumentError(f"'{arg}' is a command-line option, not a build option")
            option.store(o, value) if option.takes_value else option.store(o)
            continue
        prefix = next((store for p, store in PREFIX_OPTIONS if arg.startswith(p)), None)
        if prefix is not None:
            prefix(o, arg)
        elif not for_build and (arg == "-" or not arg.startswith("-")):
            if o.input is not None:
                raise ArgumentError(f"only one input file is supported (got '{o.input}' and '{arg}')")
            o.input = arg
        else:
            raise ArgumentError(f"unknown {'build option' if for_build else 'argument'}: '{arg}'")
    return o
