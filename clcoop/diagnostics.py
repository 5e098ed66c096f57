"""Clang-style diagnostics: `file:line:col: error: message`, the source line and a caret.

Every stage reports through a DiagnosticEngine so that several errors can be
collected in one run (clang does the same) and rendered identically.
"""
import sys
from dataclasses import field

from clcoop.records import record


@record(frozen=True)
class SourceLocation:
    file: str
    line: int          # 1-based
    column: int        # 1-based

    def __str__(self):
        return f"{self.file}:{self.line}:{self.column}"


@record
class Diagnostic:
    severity: str                      # "error", "warning" or "note"
    message: str
    location: SourceLocation | None
    notes: list = field(default_factory=list)   # further Diagnostic objects, severity "note"
    flag: str | None = None            # warning group, e.g. "coop-portability" (-Wcoop-portability)

    def __str__(self):
        where = f"{self.location}: " if self.location else ""
        return f"{where}{self.severity}: {self.message}{self.flag_suffix()}"

    def flag_suffix(self):
        """clang's ` [-Wgroup]`, or ` [-Werror,-Wgroup]` for a warning made an error."""
        if self.flag is None:
            return ""
        return f" [-Werror,-W{self.flag}]" if self.severity == "error" else f" [-W{self.flag}]"


@record
class WarningPolicy:
    """What -w, -Werror, -Werror=<group>, -Wno-<group> and -W<group> asked for.

    Warnings without a group follow only -w and -Werror (as in clang, every warning has a
    group there; clcoop names the groups it documents)."""
    suppress_all: bool = False                  # -w
    all_errors: bool = False                    # -Werror
    disabled: set = field(default_factory=set)  # -Wno-<group>
    errors: set = field(default_factory=set)    # -Werror=<group>
    not_errors: set = field(default_factory=set)   # -Wno-error=<group>

    def severity(self, flag):
        """'warning', 'error', or None when the warning is not reported."""
        if self.suppress_all or flag in self.disabled:
            return None
        if flag in self.errors or (self.all_errors and flag not in self.not_errors):
            return "error"
        return "warning"


class SourceManager:
    """Keeps the text of every file read, so diagnostics can quote the line."""

    def __init__(self):
        self._lines = {}

    def add(self, filename, text):
        self._lines[filename] = text.splitlines()

    def line(self, filename, line):
        lines = self._lines.get(filename)
        if lines is None or not (1 <= line <= len(lines)):
            return None
        return lines[line - 1]


def render(diag, sources=None):
    """Text of one diagnostic and its notes, with source line and caret where known."""
    out = [str(diag)]
    loc = diag.location
    if loc is not None and sources is not None:
        text = sources.line(loc.file, loc.line)
        if text is not None:
            text = text.expandtabs(1)  # keep the caret under the column (tabs count as one column)
            out.append(text)
            out.append(" " * max(loc.column - 1, 0) + "^")
    for note in diag.notes:
        out.append(render(note, sources))
    return "\n".join(out)


class DiagnosticEngine:
    """Collects diagnostics; `errors` counts them so a stage can stop after too many."""

    max_errors = 20

    def __init__(self, sources=None, warning_policy=None, error_limit=None):
        self.sources = sources or SourceManager()
        if error_limit is not None:
            # clang's -ferror-limit=N: stop after N errors; 0 means no limit (clang -cc1's default).
            self.max_errors = error_limit or sys.maxsize
        self.diagnostics = []
        self.warning_policy = warning_policy or WarningPolicy()
        # (file, line) -> [(first column, column after it, (the invocation's location,
        # [(macro name, the token's location in its #define)], outermost macro first))] for each token of a macro expansion the
        # preprocessor wrote: a diagnostic on (or just after) one is moved to the invocation
        # with clang's "expanded from macro" note. Filled from the preprocessor's records
        # only when read (`expansions`): a macro-heavy file writes ~60,000 expanded tokens
        # and has few diagnostics, if any (issue 26, throughput).
        self._expansions = {}
        self._expansion_drains = []

    def add_expansions_from(self, drain):
        """`drain(table)` appends to `table` ((file, line) -> [(start, end, origin)]) the
        entries recorded since its last call, in the order written; it is called each time
        the table is read, so the table is the one made by adding each entry at once."""
        self._expansion_drains.append(drain)

    @property
    def expansions(self):
        for drain in self._expansion_drains:
            drain(self._expansions)
        return self._expansions

    def expansion_at(self, location):
        spans = self.expansions.get((location.file, location.line)) if location else None
        for start, end, origin in spans or ():
            if start <= location.column < end:
                return origin
        for start, end, origin in spans or ():
            if location.column == end:     # clang's "expected ';'" points just after a token
                return origin
        return None

    @property
    def error_count(self):
        return sum(1 for d in self.diagnostics if d.severity == "error")

    def error(self, message, location, notes=()):
        return self._add("error", message, location, notes)

    def warning(self, message, location, notes=(), flag=None):
        """Report a warning of group `flag` as the policy says (None when suppressed)."""
        severity = self.warning_policy.severity(flag)
        if severity is None:
            return None
        diag = self._add(severity, message, location, notes)
        diag.flag = flag
        return diag

    @staticmethod
    def note(message, location):
        return Diagnostic("note", message, location)

    def _add(self, severity, message, location, notes):
        notes = list(notes)
        expansion = self.expansion_at(location)
        if expansion is not None:
            location, chain = expansion      # chain: (macro, place in its #define), outermost first
            notes[:0] = [self.note(f"expanded from macro '{macro}'", place) for macro, place in chain]
        diag = Diagnostic(severity, message, location, notes)
        self.diagnostics.append(diag)
        return diag

    def render_all(self):
        parts = [render(d, self.sources) for d in self.diagnostics]
        errors, warnings = self.error_count, sum(1 for d in self.diagnostics if d.severity == "warning")
        summary = []
        if warnings:
            summary.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
        if errors:
            summary.append(f"{errors} error{'s' if errors != 1 else ''}")
        if summary:
            parts.append(" and ".join(summary) + " generated.")
        return "\n".join(parts)
