"""State and helpers shared by the checker's parts: the CheckContext every part is given, error
recovery, node locations, scopes and per-function state (labels, loops, uninitialized reads)."""
import contextlib

from pycparser import c_ast
from pycparser.c_parser import Coord

from clcoop.diagnostics import SourceLocation
from clcoop.frontend import types as T


class Abandon(Exception):
    """An error was reported: give up the current statement/declaration."""


class TooManyErrors(Exception):
    """diag.max_errors reached: stop checking."""


def location(node):
    """The SourceLocation of a c_ast node (None without a line). Made once per pycparser Coord
    and kept on it: the checker asks again for most nodes (55,727 times for pocl's
    test_mad_sat.cl), and a SourceLocation is immutable (test_check_fast_paths)."""
    coord = getattr(node, "coord", None)
    if coord is None:
        return None
    try:
        return coord.clcoop_location
    except AttributeError:      # not pycparser's Coord, or one that takes no attributes
        return coord_location(coord)


class _KeptLocation:
    """`Coord.clcoop_location`: a descriptor without __set__, so its first read makes the
    location and keeps it in the Coord's __dict__, where every later read finds it before
    the class, as a plain attribute. Reading the __dict__ and testing what it held cost
    1-8% of checking pocl's test_hadd.cl more (55,000 reads of 21,000 Coords); catching
    a missing attribute's AttributeError instead cost more at every Coord's first read."""

    def __get__(self, coord, owner=None):
        if coord is None:
            return self
        loc = coord.__dict__["clcoop_location"] = coord_location(coord)
        return loc


Coord.clcoop_location = _KeptLocation()


# SourceLocations by (file, line, column), shared by Coords at one position (macro-heavy
# code: 21,065 Coords at 6,181 positions in pocl's test_mad_sat.cl); emptied when large.
_LOCATIONS = {}
_LOCATIONS_KEPT = 1 << 16


def coord_location(coord):
    """A pycparser Coord as a SourceLocation (None without a line)."""
    if coord.line is None:
        return None
    key = (coord.file, coord.line, coord.column)
    loc = _LOCATIONS.get(key)
    if loc is None:
        if len(_LOCATIONS) >= _LOCATIONS_KEPT:
            _LOCATIONS.clear()
        loc = _LOCATIONS[key] = SourceLocation(coord.file or "<source>", coord.line, coord.column or 1)
    return loc


def name_location(decl):
    """Location of the declared name (clang points declaration errors at it), else of decl."""
    node = decl
    while node is not None and not isinstance(node, c_ast.TypeDecl):
        node = getattr(node, "type", None)
        if not isinstance(node, c_ast.Node):
            node = None
    return location(node) if node is not None and node.coord is not None else location(decl)


def operator_location(sources, op, operand, fallback):
    """Location of an operator token written just before `operand` (clang points at operators).

    pycparser records an operator expression at its first operand; the operator itself is
    found in the source line, right before the operand that follows it (skipping blanks and
    opening parentheses). Falls back to `fallback` when the text does not match. `operand`
    is a c_ast node or the SourceLocation of one."""
    loc = operand if isinstance(operand, SourceLocation) else location(operand)
    if loc is None or sources is None:
        return fallback
    text = sources.line(loc.file, loc.line)
    if text is None:
        return fallback
    text = text.expandtabs(1)

    # 0-based index of the character before the operand; after a macro expansion the
    # column may lie past the end of the written line.
    i = min(loc.column - 2, len(text) - 1)
    while i >= 0 and text[i] in " (":
        i -= 1
    start = i - len(op) + 1
    if start >= 0 and text[start:i + 1] == op:
        return SourceLocation(loc.file, loc.line, start + 1)
    return fallback


class Scope:
    def __init__(self, parent=None):
        self.parent = parent
        self.names = {}      # name -> Var | Function | ("enum", int, EnumType, loc) | ("typedef", CType, aspace, loc)
        self.tags = {}       # struct/union/enum tag -> type

    def lookup(self, name):
        """The innermost entry of `name`, else None. An entry is never None, so one `get` per
        scope does what `in` and a subscript did (~10,000 look-ups a large file, through
        each block's scope up to the file's)."""
        s = self
        while s is not None:
            found = s.names.get(name)
            if found is not None:
                return found
            s = s.parent
        return None

    def lookup_tag(self, name):
        s = self
        while s is not None:
            if name in s.tags:
                return s.tags[name]
            s = s.parent
        return None


class UninitializedUses:
    """Reads of local variables declared without an initializer, for -Wuninitialized.

    Every reference to such a variable is recorded in source order with the loops around
    it; a reference that rvalue() reads is a read, any other (assignment target, &v, v.x = ,
    v++) counts as an assignment. A read warns when no assignment comes before it and no
    assignment inside a loop that encloses the read (but not the declaration) could reach
    it through the loop's back edge. This is clang's "is uninitialized when used here"
    (every path), not its "sometimes uninitialized" analysis."""

    def __init__(self):
        self.variables = {}        # id(var) -> (var, loops open at the declaration)
        self.events = []           # [kind, ref, loops] in source order; kind 'write' or 'read'
        self.by_ref = {}           # id(ref) -> its event
        self.open_loops = []
        self.loop_count = 0

    def declared(self, var):
        self.variables[id(var)] = (var, tuple(self.open_loops))

    def referenced(self, ref):
        if id(ref.var) in self.variables:
            event = ["write", ref, tuple(self.open_loops)]
            self.events.append(event)
            self.by_ref[id(ref)] = event

    def read(self, ref):
        event = self.by_ref.get(id(ref))
        if event is not None:
            event[0] = "read"

    @contextlib.contextmanager
    def loop(self):
        self.loop_count += 1
        self.open_loops.append(self.loop_count)
        try:
            yield
        finally:
            self.open_loops.pop()

    def uses(self):
        """[(var, first uninitialized read)] in declaration order."""
        found = []
        for var, decl_loops in self.variables.values():
            events = [e for e in self.events if e[1].var is var]
            writes = [loops for kind, _, loops in events if kind == "write"]
            for kind, ref, loops in events:
                if kind == "write":
                    break
                inner = [loop for loop in loops if loop not in decl_loops]
                if not any(loop in w for loop in inner for w in writes):
                    found.append((var, ref))
                break
        return found


class FunctionContext:
    def __init__(self, function):
        self.function = function
        self.labels = {}
        self.gotos = []
        self.loop_depth = 0
        self.switch_stack = []
        self.depth = 0       # compound nesting (0 = outermost body)
        self.uninitialized = UninitializedUses()


class CheckContext:
    """What every part of the checker shares: the diagnostics (and where they point), the
    scopes, the target, the function being checked and the program-wide tables the parts
    read and add to. One per translation unit (check.check)."""

    def __init__(self, diag, target):
        self.diag = diag
        self.target = target
        self.scope = Scope()
        self.fn = None                  # FunctionContext of the function being checked
        self.last_loc = None            # location of the statement/declaration being checked
        self.poisoned = set()           # names whose declaration failed (their uses stay silent)
        self.enabled_extensions = set()     # by #pragma OPENCL EXTENSION, in source order
        self.pre_cl20 = False           # -cl-std CL1.x: OpenCL C 1.2's rules (no to_global & co.)
        self.functions = []             # the tast.Functions declared, in order
        self.overloads = {}             # name -> the user's __attribute__((overloadable)) Functions
        self.overload_sets = {}         # name -> ExpressionChecks.overload_set's kept records and choices
        self.call_edges = []            # (caller Function, callee Function, call location)
        self.coop_decl_locs = {}        # matrix typedef name -> location of its declaration (for notes)
        # Kept by the declarations, pragmas and check.check; read by the expressions:
        self.extern_vars = {}           # id -> Var declared `extern` and not (yet) defined
        self.extern_uses = {}           # name -> first use of such a variable
        # ids of __constant Vars declared without `const`: read-only, but clang gives pointers to
        # them no const qualifier (so no "discards qualifiers" warning on `constant T *p = arr;`).
        self.implicitly_const = set()
        self.declared_param_names = {}  # id(Function) -> parameter names of its first declaration
        self.hidden_builtins = frozenset()  # not declared at the -cl-std compiled for (check.check)
        # Floating-point contraction of `a * b + c` (OpenCL C 3.0 6.11.1: FP_CONTRACT is ON by
        # default): "on" (llvm.fmuladd, as clang), "off", or "fast" (contract flags); the
        # FP_CONTRACT pragmas change it to the end of their compound statement.
        self.fp_contract = "on"
        for name, t in T.builtin_typedefs(target).items():
            self.scope.names[name] = ("typedef", t, None, None)

    # ------------------------------------------------------------------ diagnostics
    def require_fp16(self, message, where):
        """A half value (not a pointer to half, a half vector or a half matrix) needs
        cl_khr_fp16 enabled (OpenCL C 3.0 6.3.1.1 / cl_khr_fp16); clang-22's wording."""
        if "cl_khr_fp16" not in self.enabled_extensions:
            self.error(message, where)

    def node_location(self, node):
        """Where a diagnostic about `node` points: operators at the operator token."""
        if isinstance(node, SourceLocation) or node is None:
            return node
        loc = location(node)
        if isinstance(node, c_ast.BinaryOp):
            return operator_location(self.diag.sources, node.op, node.right, loc)
        if isinstance(node, c_ast.Assignment):
            return operator_location(self.diag.sources, node.op, node.rvalue, loc)
        if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+", "!", "~", "*", "&", "++", "--"):
            return operator_location(self.diag.sources, node.op, node.expr, loc)
        return loc

    def error(self, message, node_or_loc, notes=()):
        loc = self.node_location(node_or_loc) or self.last_loc   # never an unlocated error
        self.diag.error(message, loc, notes)
        if self.diag.error_count >= self.diag.max_errors:
            # clang's "fatal error: too many errors emitted" carries no location either.
            self.diag.error("too many errors emitted, stopping now", None)
            raise TooManyErrors()

    def fail(self, message, node_or_loc, notes=()):
        self.error(message, node_or_loc, notes)
        raise Abandon()

    def warn(self, message, node_or_loc, notes=(), flag=None):
        loc = self.node_location(node_or_loc)
        self.diag.warning(message, loc, notes, flag)

    def note(self, message, loc):
        return self.diag.note(message, loc)

    def open_paren_before(self, node, fallback):
        """The '(' written just before `node` (a vector literal's list), else fallback."""
        loc = location(node)
        text = self.diag.sources.line(loc.file, loc.line) if self.diag.sources is not None and loc else None
        if text is None:
            return fallback
        text = text.expandtabs(1)
        i = min(loc.column - 2, len(text) - 1)
        while i >= 0 and text[i] == " ":
            i -= 1
        return SourceLocation(loc.file, loc.line, i + 1) if i >= 0 and text[i] == "(" else fallback

    def call_rparen_location(self, node):
        """The ')' closing a call (clang points "too few arguments" there); found by matching
        parentheses on the callee's line, else the call's location."""
        loc = location(node)
        text = self.diag.sources.line(loc.file, loc.line) if self.diag.sources is not None and loc else None
        if text is None:
            return loc
        text = text.expandtabs(1)
        depth = 0
        for i in range(loc.column - 1, len(text)):
            if text[i] == "(":
                depth += 1
            elif text[i] == ")":
                depth -= 1
                if depth == 0:
                    return SourceLocation(loc.file, loc.line, i + 1)
        return loc

