"""State and helpers shared by the checker's modules: error recovery, node locations, scopes and
per-function state (labels, loops, uninitialized reads)."""
import contextlib

from pycparser import c_ast

from clcoop.diagnostics import SourceLocation


class Abandon(Exception):
    """An error was reported: give up the current statement/declaration."""


class TooManyErrors(Exception):
    """diag.max_errors reached: stop checking."""


def location(node):
    coord = getattr(node, "coord", None)
    if coord is None or coord.line is None:
        return None
    return SourceLocation(coord.file or "<source>", coord.line, coord.column or 1)


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
        s = self
        while s is not None:
            if name in s.names:
                return s.names[name]
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
