"""Debug line information of a module (`-g`, from clcoop or clang-22) for fault reports.

`read_debug_info(ir_text)` reads the `!dbg` of every instruction and the names of the
parameters (DILocalVariable `arg:`) from LLVM's own printing of the module: instruction
metadata numbers are only stable within one whole-module printing, so the locations are
listed per function in instruction order (the order llvmlite iterates).
`render_fault(message, point, sources)` prints `file:line:col: error: message` with the
source line and a caret (clcoop.diagnostics), reading the source from `sources` (texts
the Program compiled) or from the DIFile's directory/filename.
"""
import hashlib
import os
import re
from dataclasses import dataclass

from clcoop.diagnostics import Diagnostic, SourceLocation, SourceManager, render
from clcoop.ir.text import DEFINE_RE, llvm_unquote


@dataclass(frozen=True)
class SourcePoint:
    """Where an instruction comes from: a DILocation resolved through its scopes."""
    file: str                  # DIFile filename, as the compiler saw it
    directory: str             # DIFile directory ('' when not recorded)
    line: int
    column: int
    function: str              # the DISubprogram's name (the source-level function)
    checksum: str = ""         # the DIFile's MD5 (clang-22), to detect an edited file
    inlined_at: "SourcePoint" = None

    def __str__(self):
        return f"{self.file}:{self.line}:{self.column}" if self.column else f"{self.file}:{self.line}"


class DebugInfo:
    """Per function, the `!dbg` node id of each instruction (None without one); nodes are
    resolved to SourcePoints only when a fault asks (`point`), so loading stays cheap."""

    def __init__(self, lines, nodes, param_names):
        self.lines = lines                # function -> [node id | None] per instruction
        self.nodes = nodes                # node id -> (kind, field text)
        self.param_names = param_names    # function -> {parameter index: name}
        self._points = {}
        self._fields = {}

    def point(self, node_id):
        """The SourcePoint of a DILocation node (None if it cannot be resolved)."""
        return _point(self, node_id) if node_id else None

    def fields(self, node_id):
        fields = self._fields.get(node_id)
        if fields is None:
            kind, body = self.nodes.get(node_id, (None, ""))
            fields = self._fields[node_id] = (kind, _fields(body))
        return fields


_NODE_RE = re.compile(r"^!(\d+) = (?:distinct )?!(DI\w+)\((.*)\)[ \t]*$", re.M)
_ARG_VARIABLE_RE = re.compile(r"^!\d+ = !DILocalVariable\((.*\barg: \d+.*)\)[ \t]*$", re.M)
_FIELD_RE = re.compile(r'(\w+): ("(?:[^"\\]|\\.)*"|[^,]+)')
_DBG_RE = re.compile(r"!dbg !(\d+)")


def read_debug_info(ir_text):
    """DebugInfo of LLVM's printing of a module (None without debug locations)."""
    if "!DILocation(" not in ir_text:
        return None
    nodes = {m.group(1): (m.group(2), m.group(3)) for m in _NODE_RE.finditer(ir_text)}
    lines, function_of = {}, {}
    for name, subprogram, dbg_ids in _function_instructions(ir_text):
        lines[name] = dbg_ids
        if subprogram:
            function_of[subprogram] = name
    param_names = {}
    for m in _ARG_VARIABLE_RE.finditer(ir_text):
        fields = _fields(m.group(1))
        function = function_of.get(fields.get("scope", "").lstrip("!"))
        if function is not None:
            param_names.setdefault(function, {})[int(fields["arg"]) - 1] = \
                llvm_unquote(fields.get("name", '""'))
    return DebugInfo(lines, nodes, param_names)


def _fields(body):
    return {m.group(1): m.group(2).strip() for m in _FIELD_RE.finditer(body)}


def _function_instructions(ir_text):
    """(function name, its DISubprogram node id, [the !dbg node id or None per instruction])
    for every definition, in the order LLVM prints (and llvmlite iterates) instructions."""
    name, subprogram, ids, in_brackets = None, None, [], False
    for line in ir_text.splitlines():
        if name is None:
            if line.startswith("define "):
                m = DEFINE_RE.match(line)
                if m:
                    name, subprogram, ids = llvm_unquote(m.group(1)), _dbg(line), []
            continue
        if in_brackets:                  # the case list of a switch: one instruction
            if line.strip().startswith("]"):
                in_brackets = False
                ids[-1] = _dbg(line)
            continue
        if line.startswith("}"):
            yield name, subprogram, ids
            name = None
        elif line.startswith("  ") and not line.lstrip().startswith(("#dbg_", ";")):
            ids.append(_dbg(line))
            in_brackets = line.rstrip().endswith("[")


def _dbg(line):
    m = _DBG_RE.search(line)
    return m.group(1) if m else None


def _point(info, node_id):
    points = info._points
    if node_id in points:
        return points[node_id]
    point = None
    kind, fields = info.fields(node_id)
    if kind == "DILocation" and int(fields.get("line", 0)):   # line 0: no source line
        function, file_node = _scope_info(info, fields.get("scope", "").lstrip("!"))
        if file_node is not None:
            file_fields = info.fields(file_node)[1]
            inlined = fields.get("inlinedAt", "").lstrip("!")
            point = SourcePoint(
                file=llvm_unquote(file_fields.get("filename", '""')),
                directory=llvm_unquote(file_fields.get("directory", '""')),
                line=int(fields.get("line", 0)), column=int(fields.get("column", 0)),
                function=function,
                checksum=llvm_unquote(file_fields.get("checksum", '""')),
                inlined_at=_point(info, inlined) if inlined else None)
    points[node_id] = point
    return point


def _scope_info(info, scope_id):
    """(function name, DIFile node id) of a scope: the innermost file, the enclosing
    DISubprogram's name."""
    file_node, function = None, ""
    seen = set()
    while scope_id and scope_id not in seen:
        seen.add(scope_id)
        kind, fields = info.fields(scope_id)
        if kind is None:
            break
        if file_node is None and fields.get("file", "").startswith("!"):
            file_node = fields["file"].lstrip("!")
        if kind == "DISubprogram":
            function = llvm_unquote(fields.get("name", '""'))
            break
        scope_id = fields.get("scope", "").lstrip("!")
    if file_node is not None and info.fields(file_node)[0] != "DIFile":
        file_node = None
    return function, file_node


# ------------------------------------------------------------------------- rendering

def source_text(point, sources):
    """The text of the point's file: from `sources` (what the Program compiled), else the
    file at directory/filename when it exists and matches the recorded checksum."""
    if point.file in sources:
        return sources[point.file]
    path = point.file if os.path.isabs(point.file) or not point.directory \
        else os.path.join(point.directory, point.file)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if point.checksum and hashlib.md5(data).hexdigest() != point.checksum.lower():
        return None            # the file changed since it was compiled: its lines would lie
    return data.decode("utf-8", errors="replace")


def render_fault(message, point, sources, notes=()):
    """`file:line:col: error: message`, the source line and caret when the source is
    readable, then the call sites it was inlined at and each note line (indented)."""
    manager = SourceManager()
    text = source_text(point, sources)
    if text is not None:
        manager.add(point.file, text)
    if point.column:
        head = render(Diagnostic("error", message, SourceLocation(point.file, point.line,
                                                                   point.column)), manager)
    else:                      # no column (clang's column: 0): the line without a caret
        text = manager.line(point.file, point.line)
        head = f"{point}: error: {message}" + (f"\n{text.expandtabs(1)}" if text is not None else "")
    lines = [head]
    callers = _callers(point)
    if callers:
        lines.append(f"  in '{point.function}', inlined at " + ", inlined at ".join(
            f"{p} (in '{p.function}')" for p in callers))
    lines.extend(f"  {note}" for note in notes)
    return "\n".join(lines)


def _chain(point):
    while point is not None:
        yield point
        point = point.inlined_at


def _callers(point):
    """The call sites `point` was inlined into, outermost last. clang's kernel stub (a
    kernel calling its own body, __clang_ocl_kern_imp_<name>, both named <name>) is no
    source-level call and is left out."""
    callers, callee = [], point.function
    for site in _chain(point.inlined_at):
        if site.function != callee:
            callers.append(site)
        callee = site.function
    return callers
