"""The C preprocessor stage: pcpp underneath, clang-style located diagnostics on top.

`preprocess(source, filename, include_dirs, defines, diag) -> str` returns C text for the
parser. Every token of the output stands on a line preceded by `#line N "file"` markers
and at the column it had in its original file, so pycparser's coordinates (file, line,
column) are those of the source the user wrote. Tokens produced by a macro expansion are
placed on the line of the macro invocation, after whatever precedes them on that line.

The force-included header (include/clcoop/opencl-c-coop.h, like clang's
-finclude-default-header) is preprocessed first with the same Preprocessor, so its
macros are visible in the source and its enum/typedef declarations reach the parser.

Rules taken from clang (its messages are quoted where they are reproduced):
- a missing include file: "'name' file not found", at the file name token;
- `#error text` is an error, `#warning text` a warning, at the directive name;
- "unterminated conditional directive" at the #if that is not closed;
- "unterminated /* comment", "missing terminating '\"' character";
- bytes that are not UTF-8: an error at the first bad byte (clcoop is stricter than
  clang, which only warns in some contexts: the IR would carry mojibake otherwise);
- an empty translation unit compiles (to an empty module) with the warning clang gives
  under -pedantic: "ISO C requires a translation unit to contain at least one declaration".
- `#pragma OPENCL EXTENSION name : behavior` lines pass through to the parser, which
  makes them c_ast.Pragma nodes in source order: check follows cl_khr_fp16 (half values
  need it, as in clang; every other extension clcoop knows is always on). So do the
  `#pragma OPENCL FP_CONTRACT` / `#pragma STDC FP_CONTRACT` lines (contraction). Other
  `#pragma` lines are dropped (`#pragma unroll` is a hint, and would break a for statement).
"""
import copy
import io
import itertools
import os
import re
import sys
from pathlib import Path

from clcoop.diagnostics import SourceLocation
from clcoop.frontend.disk_cache import cache_dir as _cache_dir
from clcoop.frontend.macro_expander import Expansion, expand_text
from clcoop.frontend.pcpp_methods import copy_token, expand_macros, group_lines, macro_expand_args, TokenCopies
from clcoop.frontend.pcpp_methods import uncomment
from clcoop.frontend.plain_runs import PlainRun

DEFAULT_HEADER_NAME = "clcoop/opencl-c-coop.h"
# Deeper than this and a self-including header is reported instead of recursing forever.
MAX_INCLUDE_DEPTH = 200
# pcpp emits tokens of these types for whitespace and newlines.
_WS_TYPES = ("CPP_WS", "CPP_LINECONT")


def default_include_dir():
    """The directory holding clcoop/opencl-c-coop.h: package data of clcoop (`include`).

    In the repository clcoop/include is a link to the top-level include/, the declarations'
    home; a wheel carries a copy (pyproject.toml package-data). Found with importlib.resources
    so that it works for an installed wheel, an editable install and a plain checkout alike.
    """
    from importlib.resources import files
    return Path(str(files("clcoop").joinpath("include")))


def decode_source(data, filename, diag):
    """Bytes of a source file -> text, or None after reporting the first non-UTF-8 byte."""
    if isinstance(data, str):
        # A str read with Python's "utf-8" codec keeps the byte-order mark; clang skips it.
        return data[1:] if data.startswith("\ufeff") else data
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        diag.sources.add(filename, data.decode("utf-8", errors="replace"))
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        loc = SourceLocation(filename, data.count(b"\n", 0, exc.start) + 1, exc.start - line_start + 1)
        diag.error("source file is not valid UTF-8", loc)
        return None


class _FileText:
    """A file's text as pcpp lexes it, to turn a token's lexpos back into a column."""

    def __init__(self, display_name, text):
        self.display_name = display_name
        self.text = text
        # pcpp's group_lines strips trailing whitespace of every line and joins with "\n"
        # (group_lines takes `joined` for `text`); columns of tokens are unchanged by that.
        lines = [line.rstrip() for line in text.splitlines()]
        self.joined = "\n".join(lines)
        # Where each line starts in `joined`: after the previous lines and their newlines
        # (a line holds none: splitlines took them). Summed in C, where a loop over every
        # character of the text was ~1.5 ms of each compile for the default header alone.
        self.line_starts = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))

    def position(self, tok, lineno=None):
        """(line, column) of an original token, or None if tok came from a macro body
        (a token of a macro body is found with the #define's line as `lineno`)."""
        pos = getattr(tok, "lexpos", None)
        if pos is None or self.joined[pos:pos + len(tok.value)] != tok.value:
            return None
        # On its line: between the line's start and the next line's (what a search of the
        # line starts for pos would find).
        line = lineno or tok.lineno
        starts = self.line_starts
        try:
            if not 1 <= line <= len(starts):
                return None
        except TypeError:       # a token without a line number
            return None
        start = starts[line - 1]
        if pos < start or (line < len(starts) and pos >= starts[line]):
            return None
        return line, pos - start + 1


class _Writer:
    """Lays tokens out line by line so that each original token keeps its line and column
    (`original`); _emit_tokens writes the tokens of macro expansions itself."""

    # Gaps of more blank lines than this get a #line marker instead of newlines.
    MAX_BLANK_LINES = 8

    def __init__(self):
        self.parts = []
        self.file = None      # display name of the output line being written
        self.line = 0         # its line number in that file
        self.col = 1          # the column the next character written will have
        self.run = ""         # text of the last token run written without spaces
        self.last_expanded = False   # the last token written came from a macro expansion

    def _new_line(self, file, line):
        if file != self.file or line < self.line or line > self.line + self.MAX_BLANK_LINES:
            if self.parts:
                self.parts.append("\n")
            escaped = file.replace("\\", "\\\\").replace('"', '\\"')
            self.parts.append(f'#line {line} "{escaped}"\n')
        else:
            self.parts.append("\n" * (line - self.line))
        self.file, self.line, self.col = file, line, 1

    def original(self, file, line, col, text, adjacent=False):
        """An original token at its column; `adjacent`: no whitespace since the last token."""
        touching = adjacent and file == self.file and line == self.line and col == self.col
        if file != self.file or line != self.line:
            self._new_line(file, line)
        elif col < self.col or (col == self.col and self.last_expanded and _would_join(self.run, text)):
            # A macro expansion pushed this line right: restart the same line with a
            # #line marker so that this token gets its true column again.
            self.parts.append("\n")
            self.file = None
            self._new_line(file, line)
        if col > self.col:
            self.parts.append(" " * (col - self.col))
            self.col = col
        self.parts.append(text)
        self.run = self.run + text if touching else text
        self.col += len(text)
        self.last_expanded = False

    def plain_lines(self, file, lines):
        """A PlainRun's lines (line, column, text, run): what `original` writes for each of
        their tokens (plain_runs: the text holds each token at its column)."""
        parts = self.parts
        for line, col, text, run in lines:
            if file == self.file and line == self.line:
                self.original(file, line, col, text)
            else:
                self._new_line(file, line)
                if col > 1:
                    parts.append(" " * (col - 1))
                parts.append(text)
                self.col = col + len(text)
            self.run = run
        self.last_expanded = False

    def text(self):
        return "".join(self.parts) + ("\n" if self.parts else "")


def _make_preprocessor_class():
    # pcpp is imported here so that importing this module stays cheap.
    import pcpp.parser
    import pcpp.preprocessor
    from pcpp import Action, OutputDirective, Preprocessor
    from pcpp.parser import LexToken

    if "__copy__" not in LexToken.__dict__:
        LexToken.__copy__ = copy_token
    if pcpp.preprocessor.copy is copy:
        pcpp.preprocessor.copy = TokenCopies(LexToken)

    class ClcoopPreprocessor(Preprocessor):
        """pcpp with its hooks sending clang-style located messages to a DiagnosticEngine."""

        expand_macros = _expand_macros
        macro_expand_args = macro_expand_args
        group_lines = group_lines
        pcpp_group_lines = Preprocessor.group_lines
        fast_group_lines = True     # False: pcpp's group_lines (the tests' oracle)
        plain_lines = True          # False: plain lines lexed as any other (the tests' oracle)
        uncomment = uncomment
        token_class = LexToken
        whitespace_rule = staticmethod(pcpp.parser.t_CPP_WS)

        def __init__(self, diag):
            # _record_expansion's chain of macro names (or a long one's list: id, length) -> [(name, Macro)]
            self.expansion_chains = {}
            super().__init__()          # (which defines macros: define empties expansion_chains)
            self.diag = diag
            self.expansion_records = []     # _record_expansion's, until the table is read
            self.unscanned_expansions = 0   # expansions scanned short or with an error (_rescan_start)
            self.pcpp_expansions = 0        # > 0: expand_macros is pcpp_methods' (_expand_macros)
            diag.add_expansions_from(lambda table: _drain_expansions(self, table))
            self.files = {}            # pcpp source key (absolute path) -> _FileText
            # _emit_tokens's source key -> (_FileText, display name): two lookups less per
            # token. Emptied when a file is registered (again: an include too deep is empty).
            self.known_sources = {}
            self.last_include_loc = None
            self.rewrite_paths = []    # keep token sources absolute: we map them ourselves
            self.bad_macro_names = []  # (location, message) of #ifdef/#ifndef without a name

        # --- files ---------------------------------------------------------------
        def register(self, key, display_name, text):
            self.files[key] = _FileText(display_name, text)
            self.known_sources.clear()
            self.diag.sources.add(display_name, text)

        def display_name(self, key):
            entry = self.files.get(key)
            if entry:
                return entry.display_name
            return key or "<command line>"    # -D definitions are tokenized without a file

        def on_file_open(self, is_system_include, includepath):
            with open(includepath, "rb") as handle:   # raises OSError: pcpp tries the next dir
                data = handle.read()
            display = _display_path(includepath)
            text = decode_source(data, display, self.diag)
            if text is None:
                text = ""
            if self.include_depth > MAX_INCLUDE_DEPTH:
                self.diag.error("#include nested too deeply", self.last_include_loc)
                text = ""
            self.register(includepath, display, text)
            return io.StringIO(text)

        # --- locations -------------------------------------------------------------
        def token_location(self, tok):
            entry = self.files.get(tok.source)
            pos = entry.position(tok) if entry else None
            column = pos[1] if pos else 1
            return SourceLocation(self.display_name(tok.source), tok.lineno, column)

        def line_location(self, source, line):
            """Location of the directive name on a line (clang points there), else column 1."""
            entry = self.files.get(source)
            column = 1
            if entry and 1 <= line <= len(entry.line_starts):
                start = entry.line_starts[line - 1]
                end = entry.joined.find("\n", start)
                text = entry.joined[start:end if end >= 0 else len(entry.joined)]
                stripped = text.lstrip()
                column = len(text) - len(stripped) + 1
                if stripped.startswith("#"):
                    after = stripped[1:]
                    column += 1 + len(after) - len(after.lstrip())
            return SourceLocation(self.display_name(source), max(line, 1), column)

        # --- hooks ------------------------------------------------------------------
        def on_error(self, file, line, msg):
            self.return_code += 1
            self.diag.error(_clang_wording(msg), self.line_location(file, line))

        def on_directive_handle(self, directive, toks, ifpassthru, precedingtoks):
            if directive.value in ("ifdef", "ifndef") and (not toks or toks[0].type != "CPP_ID"):
                # pcpp would index toks[0]; a placeholder name keeps the #if stack balanced
                # and the error is reported if the directive is evaluated (not skipped).
                bad = toks[0] if toks else directive
                placeholder = copy.copy(bad)
                placeholder.type, placeholder.value = "CPP_ID", _PLACEHOLDER_MACRO
                self.bad_macro_names.append((self.token_location(bad),
                                             _macro_name_message(toks)))
                toks[:] = [placeholder]
            if directive.value == "include":
                first = next((t for t in toks if t.type not in _WS_TYPES), directive)
                self.last_include_loc = self.token_location(first)
            return super().on_directive_handle(directive, toks, ifpassthru, precedingtoks)

        def evalexpr(self, tokens):
            # An #if's expansion, as pcpp's #if evaluation is kept whole: pcpp_methods'.
            self.pcpp_expansions += 1
            try:
                return super().evalexpr(tokens)
            finally:
                self.pcpp_expansions -= 1

        def on_unknown_macro_in_defined_expr(self, tok):
            if tok.value == _PLACEHOLDER_MACRO and self.bad_macro_names:
                loc, message = self.bad_macro_names.pop(0)
                self.diag.error(message, loc)
            return False     # C99 6.10.1: an unknown name is not defined

        def define(self, tokens):
            if isinstance(tokens, str) and tokens.startswith('__FILE__ "'):
                # pcpp defines __FILE__ as the absolute path; clang uses the name as given.
                name = self.display_name(tokens[len('__FILE__ "'):-1])
                tokens = '__FILE__ "' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
            elif not isinstance(tokens, str) and not self._macro_name_ok(tokens):
                return
            self.expansion_chains.clear()
            return super().define(tokens)

        def undef(self, tokens):
            if not isinstance(tokens, str) and not self._macro_name_ok(tokens):
                return
            self.expansion_chains.clear()
            return super().undef(tokens)

        def _macro_name_ok(self, tokens):
            if tokens and tokens[0].type == "CPP_ID":
                return True
            where = tokens[0] if tokens else self.lastdirective
            self.diag.error(_macro_name_message(tokens), self.token_location(where))
            return False

        def on_include_not_found(self, is_malformed, is_system_include, curdir, includepath):
            loc = self.last_include_loc or self.line_location(self.lastdirective.source,
                                                             self.lastdirective.lineno)
            if is_malformed:
                self.diag.error("expected \"FILENAME\" or <FILENAME>", loc)
            else:
                self.diag.error(f"'{includepath}' file not found", loc)
            raise OutputDirective(Action.IgnoreAndRemove)

        def on_directive_unknown(self, directive, toks, ifpassthru, precedingtoks):
            text = "".join(t.value for t in toks).strip()
            loc = self.token_location(directive)
            if directive.value == "error":
                self.return_code += 1
                self.diag.error(text or "#error", loc)
            elif directive.value == "warning":
                self.diag.warning(text or "#warning", loc)
            elif directive.value == "pragma" and _is_checked_pragma(toks):
                return None    # passed through (pcpp keeps a line for None): check follows them in source order
            elif directive.value not in ("pragma", "line", "ident"):
                # `#line` and `#ident` are accepted and ignored; anything else is clang's error.
                self.diag.error("invalid preprocessing directive", loc)
            return True    # remove the directive line from the output

    return ClcoopPreprocessor


def _expand_macros(pp, tokens, expanding_from=[]):     # noqa: B006 (pcpp's signature, never mutated)
    """pcpp's expand_macros as the Preprocessor's method: a run of text lines (and an
    #include's operands) by macro_expander.expand_text; an #if's expression, and pcpp's own
    recursion where macro_expander hands a run back to it, by pcpp_methods.expand_macros."""
    if expanding_from or pp.pcpp_expansions:
        return expand_macros(pp, tokens, expanding_from)
    return expand_text(pp, tokens)


def _is_checked_pragma(toks):
    """`#pragma OPENCL EXTENSION name : behavior` (OpenCL C 3.0 6.2.1), `#pragma OPENCL
    FP_CONTRACT` (6.11.1) and `#pragma STDC FP_CONTRACT` (C99 7.12.2)."""
    words = [t.value for t in toks if t.type not in _WS_TYPES]
    return words[:2] in (["OPENCL", "EXTENSION"], ["OPENCL", "FP_CONTRACT"], ["STDC", "FP_CONTRACT"])


_PREPROCESSOR_CLASS = None
# -D NAME or -D 'NAME(params)': what pcpp can define from the command line.
_COMMAND_LINE_MACRO = re.compile(r"[A-Za-z_]\w*(\([\w\s,.]*\))?$")
_PLACEHOLDER_MACRO = "__clcoop_missing_macro_name__"


def _macro_name_message(tokens):
    # clang's wording (DiagnosticLexKinds.td: err_pp_missing_macro_name, err_pp_macro_not_identifier)
    return "macro name must be an identifier" if tokens else "macro name missing"


def _preprocessor_class():
    global _PREPROCESSOR_CLASS
    if _PREPROCESSOR_CLASS is None:
        _PREPROCESSOR_CLASS = _make_preprocessor_class()
    return _PREPROCESSOR_CLASS


def _display_path(path):
    """Include files are named relative to the working directory when below it, as clang does."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _clang_wording(msg):
    """pcpp's error texts rewritten in clang's words where clang has an equivalent."""
    if msg.startswith("Unterminated ") and "#" in msg:
        return "unterminated conditional directive"
    for directive in ("elif", "else", "endif"):
        if msg.startswith(f"Misplaced #{directive}"):
            return f"#{directive} without #if"
    if msg.startswith("Could not evaluate expression"):
        return "invalid expression in preprocessor #if directive"
    if msg.startswith("Missing ')' in macro arguments"):
        return "unterminated function-like macro invocation"
    return msg[:1].lower() + msg[1:]


_WORD_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")
_OPERATOR_CHARS = set("+-*/%<>=!&|^.#:")


def _would_join(before, after):
    """Whether `after` written right after `before` could lex as one token (`int` `x`, `+` `+`)."""
    a, b = before[-1:], after[:1]
    return bool(a and b) and ((a in _WORD_CHARS and b in _WORD_CHARS)
                              or (a in _OPERATOR_CHARS and b in _OPERATOR_CHARS))


_PP_NUMBER = re.compile(r"\.?\d(?:[eEpP][+-]|[\w.])*")


def _continues_pp_number(run, text):
    """Whether `text` continues the pp-number that ends the run (`-1.5` then `f`: the run
    is `-`, `1`, `.`, `5`; only its last pp-number, 1.5, is pasted, C99 6.10.3.3)."""
    first, last = text[:1], run[-1:]
    if not (first.isalnum() or first in "._+-"):    # continues no number (`)`, `,`, ...)
        return False
    # A pp-number ends in a word character (\w: alphanumeric or _), `.`, or a sign after an
    # exponent: a run ending in anything else (`(`, `,`) has none at its end.
    if not (last.isalnum() or last in "_.+-"):
        return False
    number = _trailing_pp_number(run)
    if number is None:
        return False
    return text[:1].isalnum() or text[:1] in "._" or (number[-1] in "eEpP" and text[:1] in "+-")


def _trailing_pp_number(run):
    """The longest pp-number that ends `run` and starts a token there (not inside an
    identifier such as x1), or None."""
    for start in range(len(run)):
        if start and (run[start - 1] in _WORD_CHARS or run[start - 1] == "."):
            continue
        if _PP_NUMBER.fullmatch(run, start):
            return run[start:]
    return None


def _emit_tokens(pp, writer, state):
    """Drain pcpp's token stream into the writer, checking what pcpp lets through.

    Per token, the work is what _record_expansion and the writer's methods did, inline:
    a macro-heavy file writes ~55,000-100,000 expanded tokens (pocl's test_bitselect.cl,
    test_as_type.cl, test_hadd.cl), and calls and attribute lookups were a third of their
    writing (issue 26, throughput; test_preprocess_fast_paths: the calls are the oracle).
    An Expansion (macro_expander) comes whole: its tokens share its file and line, which are
    looked up once, and are recorded in an _ExpansionRun (each token and its column; their
    chains are read when a diagnostic reads the records)."""
    pending_quote = None
    previous = None
    adjacent = False   # a token was written with no whitespace token since
    invocation_cols = {}   # (file, line) -> column after the last original token written there
    sources = pp.known_sources
    # pcpp's token() is its parser generator less the ignored types, and None (the parser
    # dropped) at the end: iterated here without a call per token.
    ignore = pp.ignore
    # Changed in place only while the loop runs (define/undef empty the chains, a drain
    # empties the records, the writer appends to its parts), so read once.
    macro_table = pp.macros
    chains = pp.expansion_chains
    records = pp.expansion_records
    add_record = records.append
    parts = writer.parts
    long_chain = _LONG_CHAIN
    continues = _CONTINUES
    expansion_class = Expansion
    plain_class = PlainRun
    run = None          # the _ExpansionRun that an Expansion's tokens are recorded in
    # The last item's file and line, and what they give: the range of lexpos an original
    # token on that line has, the column its invocation starts at.
    last_source = _UNSEEN
    last_line = inv_col = None
    lo = hi = 0
    written = 0     # tokens written: added to state["tokens"] however the loop ends
    try:
        for item in pp.parser:
            kind = item.type
            # An Expansion, or a token of a type the group's loop writes: its place.
            if kind not in ignore and kind not in _WS_TYPES:
                source = item.source
                if source is not last_source:
                    known = sources.get(source)
                    last_source = source
                    if known is None:
                        known = (pp.files.get(source), pp.display_name(source))
                        if known[0] is not None:     # -D tokens have no file: looked up each time
                            sources[source] = known
                        else:
                            last_source = _UNSEEN
                    entry, file = known
                    last_line = None
                line = item.lineno
                if line != last_line or line is None:
                    # entry.position's test, inline: an original token's lexpos is on its line.
                    last_line, inv_col = line, None
                    lo = hi = 0         # no lexpos is on no line
                    if entry is not None:
                        starts = entry.line_starts
                        try:
                            on_a_line = 1 <= line <= len(starts)
                        except TypeError:       # a token without a line number
                            on_a_line = False
                        if on_a_line:
                            lo = starts[line - 1]
                            hi = starts[line] if line < len(starts) else sys.maxsize
            if item.__class__ is expansion_class:
                expansion, group = item, item.tokens
            elif item.__class__ is plain_class:
                # Plain lines (plain_runs), written as their tokens would be; their newline
                # ends what touches the last token written.
                writer.plain_lines(file, item.lines)
                written += len(item.lines)     # (one a line: what is read is whether any was)
                previous = None
                adjacent = False
                last_line = None
                continue
            else:
                expansion, group = None, (item,)
            for tok in group:
                kind = tok.type
                if kind in ignore:
                    continue
                if kind in _WS_TYPES:
                    previous = None
                    adjacent = False
                    continue
                written += 1
                # entry.position(tok), inline: where the token's text is at its lexpos on
                # its own line, an original token.
                value = tok.value
                lexpos = tok.lexpos if expansion is not None else getattr(tok, "lexpos", None)
                if lexpos is not None and lo <= lexpos < hi and entry.joined[lexpos:lexpos + len(value)] == value:
                    col = lexpos - lo + 1
                    # Not an argument of a macro invocation (an Expansion's chains all hold its macro).
                    if expansion is None and not getattr(tok, "expanded_from", None):
                        invocation_cols[(file, line)] = col + len(value)
                        inv_col = None
                    # pcpp lexes an unterminated comment or string as single punctuation tokens.
                    if kind == "CPP_STAR" and previous is not None and previous[0] == "CPP_FSLASH" \
                            and previous[1:] == (source, line, col - 1):
                        pp.diag.error("unterminated /* comment", SourceLocation(file, line, col - 1))
                        return
                    if kind in ("CPP_DQUOTE", "CPP_SQUOTE") and pending_quote is None:
                        pending_quote = value
                        pp.diag.error(f"missing terminating {value} character" if value == "'"
                                      else "missing terminating '\"' character",
                                      SourceLocation(file, line, col))
                    previous = (kind, source, line, col)
                    writer.original(file, line, col, value, adjacent)
                    adjacent = True
                    continue
                out_file = writer.file
                out_line = writer.line
                # A token from a macro expansion, written after a space, unless it continues
                # a number: pcpp lexes e.g. the hex float 0x1.fffffep127f of FLT_MAX as
                # several tokens, which must stay one pp-number (C99 6.4.8), and `x##f` with
                # x = 0.5 gives the argument's tokens 0 . 5 then f (6.10.3.3: one pp-number
                # 0.5f). (_continues_pp_number's first two tests inline: most tokens fail
                # them; its answers kept per run and text.)
                if out_file is None or file != out_file or line > out_line:
                    writer._new_line(file, line)
                    out_line = line
                    glued = False
                else:
                    glued = False
                    if adjacent:
                        first, last = value[:1], writer.run[-1:]
                        if (first.isalnum() or first in "._+-") and (last.isalnum() or last in "_.+-"):
                            key = (writer.run, value)
                            glued = continues.get(key)
                            if glued is None:
                                if len(continues) > _CONTINUES_MAX:
                                    continues.clear()
                                glued = continues[key] = _continues_pp_number(writer.run, value)
                out_col = writer.col
                if glued:
                    writer.run += value
                else:
                    writer.run = value
                    if out_col > 1:
                        parts.append(" ")
                        out_col += 1
                parts.append(value)
                writer.col = out_col + len(value)
                writer.last_expanded = True
                previous = None
                adjacent = True
                if entry is None:
                    continue
                if expansion is not None:
                    # An Expansion's token: its chain holds only macros of the Expansion's.
                    if inv_col is None:
                        inv_col = invocation_cols.get((file, line), 1)
                    if run is None or run.expansion is not expansion or run.line != out_line \
                            or run.start_col != inv_col or not records or records[-1] is not run:
                        run = _ExpansionRun(expansion, file, out_line, inv_col, entry)
                        add_record(run)
                    run.columns.append(out_col)
                    run.tokens.append(tok)
                    continue
                # _record_expansion, inline: the chain of macros the token came from (each
                # macro once: test_preprocess_fast_paths compares with its calls).
                macros = getattr(tok, "expanded_from", None)
                if not macros:
                    continue
                name = macros[-1]
                if name not in macro_table:
                    continue
                if len(macros) > long_chain:
                    defined = _long_chain_defined(pp, macros)
                else:
                    key = tuple(macros)
                    defined = chains.get(key)
                    if defined is None:
                        defined = _chain_defined(pp, key)
                add_record((file, out_line, out_col, invocation_cols.get((file, tok.lineno), 1), name,
                            defined, entry, lexpos, value, tok.lineno))
        pp.parser = None
    finally:
        state["tokens"] += written


class _ExpansionRun:
    """Tokens of an Expansion (macro_expander) written one after another on one output line,
    for one invocation column: each token and its column. They and the Expansion hold what
    _record_expansion recorded for each (its chain, the Macros, its position), read when a
    diagnostic reads the records (_drain_expansions)."""
    __slots__ = ("expansion", "file", "line", "start_col", "entry", "columns", "tokens")

    def __init__(self, expansion, file, line, start_col, entry):
        self.expansion, self.file, self.line, self.start_col, self.entry = expansion, file, line, start_col, entry
        self.columns = []
        self.tokens = []


_UNSEEN = object()      # _emit_tokens's last source before any (None is a source)

# _continues_pp_number's answers, per (run, text): pairs repeat thousands of times in a
# macro-heavy file (`x` `.`, `.` `s0`). Emptied when it grows past _CONTINUES_MAX.
_CONTINUES = {}
_CONTINUES_MAX = 50_000


# A chain of more macro names than this is looked up by its list (_record_expansion).
_LONG_CHAIN = 16


def _record_expansion(pp, tok, entry, file, line, col, invocation_cols):
    """Remember where an expanded token (written at file:line:col, from the source file
    `entry`) came from, for DiagnosticEngine.expansions: the outermost macro invoked in the
    file (pcpp lists inner expansions first), found after the last original token on the
    invocation line, and the token's place in that macro's body. Each macro is named once:
    pcpp appends to the list of an argument's token at every use of the argument (48 uses of
    a 1,000-number argument in pocl's test_bitselect.cl: lists of 96 names). Only what may
    change later (the macro table, the invocation columns, the token) is read now, into one
    tuple of pp.expansion_records; the table's entries are made when a diagnostic reads it
    (_drain_expansions) and the places when one needs them (_ExpansionOrigin)."""
    macros = getattr(tok, "expanded_from", None)
    if not macros:
        return
    name = macros[-1]
    if name not in pp.macros:
        return
    # The chain's Macros as the table holds them now: the same for every token of the same
    # chain until a macro is defined or undefined (which empties expansion_chains), except
    # __FILE__, which pcpp puts back after an #include without define (not kept).
    if len(macros) > _LONG_CHAIN:
        defined = _long_chain_defined(pp, macros)
    else:
        key = tuple(macros)
        defined = pp.expansion_chains.get(key)
        if defined is None:
            defined = _chain_defined(pp, key)
    pp.expansion_records.append((file, line, col, invocation_cols.get((file, tok.lineno), 1), name,
                                 defined, entry, getattr(tok, "lexpos", None), tok.value, tok.lineno))


def _long_chain_defined(pp, macros):
    """_chain_defined of a chain of more than _LONG_CHAIN names, found by the list itself:
    pcpp's lists only grow (appends), so one list at one length is one chain; the entry
    keeps the list, so its id is not reused while the entry stands. The key, two ints, is
    never a chain of names (the other entries). One list is shared by every copy of a token
    and every use of an argument: before _expanded_at, 50,448 of test_bitselect.cl's 54,059
    expanded tokens had chains of 108 names, made into a tuple and hashed for each token."""
    chains = pp.expansion_chains
    found = chains.get((id(macros), len(macros)))
    if found is not None:
        return found[1]
    defined = _chain_defined(pp, tuple(macros))
    if "__FILE__" not in macros:
        chains[(id(macros), len(macros))] = (macros, defined)
    return defined


def _chain_defined(pp, key):
    """[(name, Macro)] of a chain of macro names (innermost first), outermost first, each
    name once, as the macro table holds them now; _record_expansion keeps it per chain."""
    found = pp.expansion_chains.get(key)
    if found is not None:
        return found
    defined = [(m, pp.macros[m]) for m in dict.fromkeys(reversed(key)) if m in pp.macros]
    if "__FILE__" not in key:
        pp.expansion_chains[key] = defined
    return defined


def _drain_expansions(pp, table):
    """DiagnosticEngine.expansions's entries for the records made since the last call."""
    records = pp.expansion_records
    for record in records:
        if record.__class__ is _ExpansionRun:
            _drain_run(pp, record, table)
            continue
        file, line, col, start_col, name, defined, entry, lexpos, value, lineno = record
        origin = _ExpansionOrigin(pp, entry, file, lineno, start_col, name, defined, (lexpos, value, lineno))
        table.setdefault((file, line), []).append((col, col + len(value), origin))
    records.clear()


def _drain_run(pp, run, table):
    """The entries of an _ExpansionRun's tokens: as _record_expansion's, each token's chain
    as pcpp leaves it and its Macros its Expansion's (the table's when it was written)."""
    spans = table.setdefault((run.file, run.line), [])
    expansion = run.expansion
    macros, lineno = expansion.macros, expansion.lineno
    chains = {}
    for col, tok in zip(run.columns, run.tokens):
        names = expansion.chain(tok)
        key = tuple(names)
        defined = chains.get(key)
        if defined is None:
            defined = chains[key] = [(m, macros[m]) for m in dict.fromkeys(reversed(names)) if m in macros]
        value = tok.value
        origin = _ExpansionOrigin(pp, run.entry, run.file, lineno, run.start_col, names[-1], defined,
                                  (tok.lexpos, value, lineno))
        spans.append((col, col + len(value), origin))


class _ExpansionOrigin:
    """(the invocation's location, [(macro, the token's place in its #define)], outermost
    first) of an expanded token, as DiagnosticEngine.expansion_at unpacks it; computed on the
    first unpacking: a macro-heavy file writes millions of expanded tokens and few
    diagnostics. What pcpp may change later (the token, the macro table) is copied now."""
    __slots__ = ("pp", "entry", "file", "line", "start_col", "name", "defined", "token", "value")

    def __init__(self, pp, entry, file, line, start_col, name, defined, token):
        self.pp, self.entry, self.file, self.line = pp, entry, file, line
        self.start_col, self.name, self.defined, self.token = start_col, name, defined, token
        self.value = None

    def __iter__(self):
        if self.value is None:
            self.value = (self._invocation(), [(m, _place_in_macro(self.pp, macro, self.token))
                                               for m, macro in self.defined])
        return iter(self.value)

    def _invocation(self):
        starts = self.entry.line_starts
        text = ""
        if self.line <= len(starts):
            end = starts[self.line] - 1 if self.line < len(starts) else len(self.entry.joined)
            text = self.entry.joined[starts[self.line - 1]:end]
        found = re.search(rf"\b{re.escape(self.name)}\b", text[self.start_col - 1:])
        return SourceLocation(self.file, self.line, self.start_col + found.start() if found else self.start_col)


class _Token:
    """A token's position as _FileText.position reads it."""
    __slots__ = ("lexpos", "value", "lineno")

    def __init__(self, lexpos, value, lineno):
        self.lexpos, self.value, self.lineno = lexpos, value, lineno


def _place_in_macro(pp, macro, token):
    """Where the token (lexpos, value, lineno) is written in `macro`'s #define, else where
    its replacement list starts."""
    tok = _Token(*token)
    definition = SourceLocation(pp.display_name(macro.source), macro.lineno, 1)
    body = pp.files.get(macro.source)
    if body is not None:
        pos = body.position(tok, lineno=macro.lineno)
        if pos is None and macro.value:
            pos = body.position(macro.value[0], lineno=macro.lineno)
        if pos is not None:
            definition = SourceLocation(definition.file, pos[0], pos[1])
    return definition


def preprocess(source, filename, include_dirs, defines, diag):
    """Preprocess `source` (the text of `filename`); returns text with #line markers.

    include_dirs: the -I directories, searched in order after the including file's own
    directory for quoted includes. defines: name -> value (None means 1, like -DNAME).
    Errors go to `diag`; the caller checks diag.error_count.
    """
    source = decode_source(source, filename, diag)
    if source is None:
        return ""
    cls = _preprocessor_class()
    pp = cls(diag)
    for directory in include_dirs:
        pp.add_path(str(directory))
    header_dir = default_include_dir()
    pp.add_path(str(header_dir))
    pp.rewrite_paths = []          # add_path adds rewrites; we keep sources absolute
    definitions = []
    for name, value in defines.items():
        if not _COMMAND_LINE_MACRO.match(name):
            diag.error("macro name must be an identifier", SourceLocation("<command line>", 1, 1))
            continue
        definitions.append(f"{name} {1 if value is None else value}")

    writer = _Writer()
    state = {"tokens": 0}
    _run_default_header(pp, header_dir / DEFAULT_HEADER_NAME, defines, definitions, writer, state)

    main_key = os.path.abspath(filename)
    pp.register(main_key, filename, source)
    tokens_before_main = state["tokens"]
    _run(pp, source, filename, writer, state)
    # Empty: nothing from the file or what it includes (the default header does not count).
    if state["tokens"] == tokens_before_main and diag.error_count == 0:
        diag.warning("ISO C requires a translation unit to contain at least one declaration "
                     "[-Wempty-translation-unit]", SourceLocation(filename, 1, 1))
    return writer.text()


# The default header's result depends only on the predefined macros: kept per process
# (the API and the fuzzer compile many kernels; the header is most of a small kernel's
# preprocessing time). Key: the defines; value: what preprocessing the header leaves.
_HEADER_CACHE = {}
# pcpp defines these from the clock when a Preprocessor is made: never taken from a cache.
_CLOCK_MACROS = ("__DATE__", "__TIME__")


def _run_default_header(pp, header_path, defines, definitions, writer, state):
    """The predefined and -D macros (`definitions`, pcpp's `NAME value` text), then the default
    header. A cached result holds the macros both leave, so a hit defines nothing: defining
    the ~330 predefined macros one by one is ~10 ms of a small kernel's compile (issue 26)."""
    header_key = os.path.abspath(str(header_path))
    text = header_path.read_text(encoding="utf-8")
    pp.register(header_key, str(header_path), text)
    key = (header_key, text, tuple(sorted(defines.items(), key=lambda kv: kv[0])))
    cached = _HEADER_CACHE.get(key)
    if cached is None and pp.diag.error_count == 0:
        cached = _load_header_snapshot(key)
        if cached is not None:
            _HEADER_CACHE.clear()
            _HEADER_CACHE[key] = cached
    if cached is not None and pp.diag.error_count == 0:
        macros, include_once, parts, position = cached
        clock = {name: pp.macros[name] for name in _CLOCK_MACROS if name in pp.macros}
        pp.macros = dict(macros)
        pp.macros.update(clock)
        pp.expansion_chains.clear()     # a new macro table: no chain of the old one holds
        pp.include_once = dict(include_once)
        writer.parts = list(parts)
        writer.file, writer.line, writer.col = position
        return
    errors_before = pp.diag.error_count
    diagnostics_before = len(pp.diag.diagnostics)
    for definition in definitions:
        pp.define(definition)
    _run(pp, text, str(header_path), writer, state)
    if pp.diag.error_count == errors_before:
        _HEADER_CACHE.clear()      # one entry is enough: defines rarely change in a process
        _HEADER_CACHE[key] = snapshot = (dict(pp.macros), dict(pp.include_once), list(writer.parts),
                                         (writer.file, writer.line, writer.col))
        if len(pp.diag.diagnostics) == diagnostics_before:   # a hit must not lose a warning
            _store_header_snapshot(key, snapshot)


# ---------------------------------------------------------------- on-disk header cache
# Preprocessing the default header is ~15-20 ms of a ~200 ms `clcoop k.cl` run (issue 6:
# compile latency), redone by every process. Its result (macro table, include guards,
# output text) is kept as JSON under $CLCOOP_CACHE_DIR, else $XDG_CACHE_HOME/clcoop, else
# ~/.cache/clcoop; CLCOOP_NO_CACHE=1 turns it off. JSON, not pickle: loading a cache file
# never runs code. The file holds its full key (format, pcpp version, this module's
# mtime and size, header path and text, defines) and is used only when the key matches
# exactly; a missing, unreadable, corrupt or read-only cache is silently a miss.
_DISK_CACHE_FORMAT = 2


def _disk_key(key):
    import pcpp
    header_key, text, defines = key
    me = os.stat(__file__)
    return [_DISK_CACHE_FORMAT, getattr(pcpp, "version", "?"), me.st_mtime_ns, me.st_size,
            header_key, text, [list(item) for item in defines]]


def _cache_file(directory, disk_key):
    import json
    import zlib
    digest = zlib.crc32(json.dumps(disk_key).encode("utf-8"))
    return os.path.join(directory, f"header-{digest:08x}.json")


def _token_fields(tok):
    return [tok.type, tok.value, tok.lineno, tok.lexpos, tok.source]


def _prescan_fields(macro):
    """What pcpp's macro_prescan computed for a function-like macro (it also rewrote
    macro.value, so it cannot simply be run again on the stored value)."""
    if macro.arglist is None:
        return None
    return [macro.patch, macro.str_patch, macro.var_comma_patch]


def _make_token(token_class, fields):
    tok = token_class()
    tok.type, tok.value, tok.lineno, tok.lexpos, tok.source = fields
    return tok


def _store_header_snapshot(key, snapshot):
    import json
    import tempfile
    directory = _cache_dir()
    if directory is None:
        return
    macros, include_once, parts, position = snapshot
    disk_key = _disk_key(key)
    data = {"key": disk_key,
            "macros": [[name, m.name, [_token_fields(t) for t in m.value], m.arglist,
                        m.variadic, m.source, m.lineno, _prescan_fields(m)]
                       for name, m in macros.items() if name not in _CLOCK_MACROS],
            "include_once": include_once, "parts": parts, "position": list(position)}
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".header-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle)
            os.replace(tmp, _cache_file(directory, disk_key))   # atomic: readers see all or nothing
        except BaseException:
            os.unlink(tmp)
            raise
        _prune_cache(directory)
    except (OSError, TypeError, ValueError):
        pass     # read-only or full disk, unserializable token: compile without the cache


# Each set of -D/-U options gets its own file (~40 KB); only a miss writes, so only a miss
# pays for keeping the most recent few.
_MAX_CACHE_FILES = 32


def _prune_cache(directory):
    entries = []
    for name in os.listdir(directory):
        if name.startswith("header-") and name.endswith(".json"):
            path = os.path.join(directory, name)
            try:
                entries.append((os.stat(path).st_mtime_ns, path))
            except OSError:
                continue        # removed by a concurrent run
    entries.sort()
    for _, path in entries[:-_MAX_CACHE_FILES]:
        try:
            os.unlink(path)
        except OSError:
            pass


def _load_header_snapshot(key):
    import json
    directory = _cache_dir()
    if directory is None:
        return None
    disk_key = _disk_key(key)
    try:
        with open(_cache_file(directory, disk_key), encoding="utf-8") as handle:
            data = json.load(handle)
        if data.get("key") != disk_key:
            return None
        return _snapshot_from_json(data)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def _snapshot_from_json(data):
    from pcpp.parser import LexToken, Macro
    macros = {}
    for name, macro_name, tokens, arglist, variadic, source, lineno, prescan in data["macros"]:
        macro = Macro(macro_name, [_make_token(LexToken, t) for t in tokens], arglist, variadic)
        macro.source, macro.lineno = source, lineno
        if prescan is not None:
            patch, str_patch, var_comma_patch = prescan
            macro.patch = [tuple(p) for p in patch]
            macro.str_patch = [tuple(p) for p in str_patch]
            macro.var_comma_patch = list(var_comma_patch)
        macros[name] = macro
    file, line, col = data["position"]
    return macros, dict(data["include_once"]), list(data["parts"]), (file, line, col)


def _run(pp, text, filename, writer, state):
    """Preprocess one top-level file into the writer."""
    pp.parse(text, filename)
    try:
        _emit_tokens(pp, writer, state)
    except RecursionError:
        pp.diag.error("macro expansion or #include nesting too deep",
                      pp.last_include_loc or SourceLocation(filename, 1, 1))
    except (IndexError, KeyError, AttributeError, TypeError, ValueError, AssertionError) as exc:
        # pcpp fails on some malformed directives instead of reporting them. The user gets
        # a located error (the last line reached) instead of a traceback.
        where = SourceLocation(writer.file or filename, max(writer.line, 1), 1)
        directive = getattr(pp, "lastdirective", None)
        if directive is not None and getattr(directive, "source", None) in pp.files:
            where = pp.token_location(directive)
        pp.diag.error(f"malformed preprocessor directive (pcpp: {type(exc).__name__})", where)
