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
from pathlib import Path

try:
    from re import _parser as _re_parser      # the parse of a pattern (_FirstCharMatcher)
except ImportError:         # Python 3.10: the same module under its old name
    import sre_parse as _re_parser

from clcoop.diagnostics import SourceLocation
from clcoop.frontend.disk_cache import cache_dir as _cache_dir

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
        # pcpp's group_lines strips trailing whitespace of every line and joins with "\n";
        # columns of tokens are unchanged by that.
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

    def text(self):
        return "".join(self.parts) + ("\n" if self.parts else "")


def _copy_token(tok):
    """copy.copy of a pcpp token, as copy.copy makes it without a __copy__ (a new instance
    of the class, the same attributes: copy._reconstruct of __reduce_ex__(4)), without that
    generic path's ten calls. pcpp copies every token of a macro's body and of its arguments
    at each expansion: ~100,000 copies in pocl's test_mad_sat.cl, a quarter of the
    preprocessing time (issue 26, throughput; test_preprocess_fast_paths)."""
    new = object.__new__(tok.__class__)
    # A copy of the attributes' dict put in place: ~40% faster than updating the new
    # instance's empty one, the same attributes in the same order.
    new.__dict__ = tok.__dict__.copy()
    return new


class _TokenCopies:
    """Stands for the `copy` module inside pcpp.preprocessor, whose only use of it is
    copy.copy of a token or of a list of tokens: a token is copied by _copy_token directly,
    without copy.copy's dispatch (type lookups, a getattr for __copy__) at each of the
    ~100,000 copies of a macro-heavy file; anything else goes to copy.copy
    (test_preprocess_fast_paths)."""

    def __init__(self, token_class):
        self.token_class = token_class

    def copy(self, value):
        if value.__class__ is self.token_class:      # _copy_token's two lines, without its call
            new = object.__new__(value.__class__)
            new.__dict__ = value.__dict__.copy()
            return new
        return copy.copy(value)


def _expand_macros(self, tokens, expanding_from=[]):    # noqa: B006 (pcpp's signature, never mutated)
    """pcpp 1.30's Preprocessor.expand_macros with the same steps, its per-token bookkeeping
    done only where it shows: a token that is no macro name (nearly all of them: every token
    of an expansion is scanned again at each level of its nesting, C99 6.10.3.4) is passed by
    with the line macro and its depth counter untouched (pcpp raises and lowers the counter
    around every token, which nets to nothing, and sets the line macro before and clears it
    after, read by nothing in between) and the table and type in locals. A macro name, __LINE__ and __COUNTER__
    take pcpp's own code (_expand_one). The same tokens as pcpp's (test_preprocess_fast_paths;
    issue 26: throughput)."""
    for tok in tokens:
        if not hasattr(tok, "expanded_from"):
            tok.expanded_from = []
    macros = self.macros
    t_id = self.t_ID
    i = 0
    while True:
        # The next macro name from i (a for over a range: a third of the while loop's time).
        for i in range(i, len(tokens)):
            t = tokens[i]
            if t.type == t_id and (t.value in macros or t.value in ("__LINE__", "__COUNTER__")):
                break
        else:
            break
        if self.linemacrodepth == 0:
            self.linemacro = t.lineno       # what __LINE__ expands to inside this expansion
        self.linemacrodepth = self.linemacrodepth + 1
        i, stop = _expand_one(self, tokens, i, t, expanding_from)
        if stop:
            return tokens
    # pcpp sets the line macro before and clears it after every other token at depth 0
    # (read by nothing in between): what that leaves is a cleared one.
    if tokens and self.linemacrodepth == 0:
        self.linemacro = 0
    return tokens


def _expanded_at(t, expansion):
    """An expansion's tokens placed at the macro name `t` and marked as expanded from it
    (pcpp 1.30's expand_macros does this for object- and function-like macros alike)."""
    source, lineno, name = t.source, t.lineno, t.value
    for e in expansion:
        e.source = source
        e.lineno = lineno
        try:
            e.expanded_from.append(name)
        except AttributeError:      # (expand_macros gives every token one: not met)
            e.expanded_from = [name]
    return expansion


def _expand_one(self, tokens, i, t, expanding_from):
    """One step of pcpp 1.30's expand_macros loop at a macro name, __LINE__ or __COUNTER__
    (its code, linemacrodepth already raised): (the next index, whether pcpp breaks out)."""
    if t.value in self.macros and t.value not in t.expanded_from and t.value not in expanding_from:
        m = self.macros[t.value]
        unscanned = self.unscanned_expansions
        if m.arglist is None:
            rep = [_copy_token(x) for x in m.value]
            ex = _expanded_at(t, self.expand_macros(rep, expanding_from + [t.value]))
            tokens[i:i + 1] = ex
            if self.unscanned_expansions == unscanned:
                i += _rescan_start(self, ex)
        else:
            j = i + 1
            while j < len(tokens) and (tokens[j].type in self.t_WS or tokens[j].type in self.t_COMMENT):
                j += 1
            if j == len(tokens) or tokens[j].value != "(":
                i = j
            else:
                tokcount, args, positions = self.collect_args(tokens[j:], True)
                if tokcount == 0:
                    self.unscanned_expansions += 1      # the rest of `tokens` is not scanned
                    return i, True      # pcpp breaks out here, the counter left raised
                if (not m.variadic and (args != [[]] or len(m.arglist) > 1)
                        and len(args) != len(m.arglist)):
                    self.on_error(t.source, t.lineno, "Macro %s requires %d arguments but was passed %d"
                                  % (t.value, len(m.arglist), len(args)))
                    self.unscanned_expansions += 1      # a rescan reports it again
                    i = j + tokcount
                elif m.variadic and len(args) < len(m.arglist) - 1:
                    if len(m.arglist) > 2:
                        self.on_error(t.source, t.lineno, "Macro %s must have at least %d arguments"
                                      % (t.value, len(m.arglist) - 1))
                    else:
                        self.on_error(t.source, t.lineno, "Macro %s must have at least %d argument"
                                      % (t.value, len(m.arglist) - 1))
                    self.unscanned_expansions += 1
                    i = j + tokcount
                else:
                    if m.variadic:
                        if len(args) == len(m.arglist) - 1:
                            args.append([])
                        else:
                            args[len(m.arglist) - 1] = tokens[j + positions[len(m.arglist) - 1]:j + tokcount - 1]
                            del args[len(m.arglist):]
                    else:
                        while len(args) < len(m.arglist):
                            args.append([])
                    rep = self.macro_expand_args(m, args)
                    ex = _expanded_at(t, self.expand_macros(rep, expanding_from + [t.value]))
                    # GCC's and clang's space between an expansion and a following identifier.
                    if len(tokens) > j + tokcount and tokens[j + tokcount].type in self.t_ID:
                        newtok = _copy_token(tokens[j + tokcount])
                        newtok.type = self.t_SPACE
                        newtok.value = " "
                        ex.append(newtok)
                    tokens[i:j + tokcount] = ex
                    if self.unscanned_expansions == unscanned:
                        i += _rescan_start(self, ex)
        self.linemacrodepth = self.linemacrodepth - 1
        if self.linemacrodepth == 0:
            self.linemacro = 0
        return i, False
    if self.expand_linemacro and t.value == "__LINE__":
        t.type = self.t_INTEGER
        t.value = self.t_INTEGER_TYPE(self.linemacro)
    elif self.expand_countermacro and t.value == "__COUNTER__":
        t.type = self.t_INTEGER
        t.value = self.t_INTEGER_TYPE(self.countermacro)
        self.countermacro += 1
    i += 1
    self.linemacrodepth = self.linemacrodepth - 1
    if self.linemacrodepth == 0:
        self.linemacro = 0
    return i, False


def _macro_expand_args(self, macro, args):
    """pcpp 1.30's Preprocessor.macro_expand_args (a function-like macro's replacement list
    with its arguments in place, C99 6.10.3.1-3) with the same steps, but: the body's copies
    made in the loop (pcpp called copy.copy per token: ~115,000 copies in test_as_type.cl),
    and the pass that pastes the tokens around `##` made only where there is one: in the body
    (looked for once per macro) or in an argument put in (pcpp scanned every replacement for
    one). The same tokens as pcpp's (test_preprocess_fast_paths; issue 26: throughput)."""
    new = object.__new__
    rep = []
    for x in macro.value:
        copied = new(x.__class__)
        copied.__dict__ = x.__dict__.copy()
        rep.append(copied)

    # Make string expansion patches.  These do not alter the length of the replacement sequence
    str_expansion = {}
    for argnum, i in macro.str_patch:
        if argnum not in str_expansion:
            # Strip all non-space whitespace before stringization
            tokens = list(args[argnum])
            for j in range(len(tokens)):
                if tokens[j].type in self.t_WS and tokens[j].type != self.t_LINECONT:
                    tokens[j].value = ' '
            # Collapse all multiple whitespace too
            j = 0
            while j < len(tokens) - 1:
                if tokens[j].type in self.t_WS and tokens[j + 1].type in self.t_WS:
                    del tokens[j + 1]
                else:
                    j += 1
            text = "".join([x.value for x in tokens])
            text = text.replace("\\", "\\\\").replace('"', '\\"')
            str_expansion[argnum] = '"' + text + '"'
        rep[i] = _copy_token(rep[i])
        rep[i].value = str_expansion[argnum]

    # The variadic macro comma patch: an empty variadic argument removes it
    comma_patch = False
    if macro.variadic and not args[-1]:
        for i in macro.var_comma_patch:
            rep[i] = None
            comma_patch = True

    # The other patches, in reverse order of their places (macro_prescan sorted them)
    t_dpound = self.t_DPOUND
    pastes = _body_pastes(macro, t_dpound)
    looked_at = set()       # (patch type, argument) whose tokens were looked at for `##`
    expanded = {}
    for ptype, argnum, i in macro.patch:
        if ptype == 't':        # concatenation: the argument is left unexpanded
            put = args[argnum]
        elif ptype == 'e':      # the argument macro-expanded first
            if argnum not in expanded:
                expanded[argnum] = self.expand_macros(list(args[argnum]))
            put = expanded[argnum]
        else:
            continue
        rep[i:i + 1] = put
        if not pastes and (ptype, argnum) not in looked_at:
            looked_at.add((ptype, argnum))
            pastes = any(tok.type == t_dpound for tok in put)

    # Get rid of removed comma if necessary
    if comma_patch:
        rep = [_i for _i in rep if _i]
    if not pastes:      # no `##` anywhere in rep: pcpp's pass below changes nothing
        return rep

    # A token concatenation pass, stitching any tokens separated by ## into a single token
    while len(rep) and rep[0].type == t_dpound:
        del rep[0]
    while len(rep) and rep[-1].type == t_dpound:
        del rep[-1]
    i = 1
    stitched = False
    while i < len(rep) - 1:
        if rep[i].type == t_dpound:
            j = i + 1
            while rep[j].type == t_dpound:
                j += 1
            rep[i - 1] = _copy_token(rep[i - 1])
            rep[i - 1].type = None
            rep[i - 1].value += rep[j].value
            while j >= i:
                del rep[i]
                j -= 1
            stitched = True
        else:
            i += 1
    if stitched:
        # Stitched tokens will have unknown type, so figure those out now
        i = 0
        lex = self.lexer.clone()
        while i < len(rep):
            if rep[i].type is None:
                lex.input(rep[i].value)
                toks = []
                while True:
                    tok = lex.token()
                    if not tok:
                        break
                    toks.append(tok)
                if len(toks) != 1:
                    # Split it once again
                    while len(toks) > 1:
                        rep.insert(i + 1, _copy_token(rep[i]))
                        rep[i + 1].value = toks[-1].value
                        rep[i + 1].type = toks[-1].type
                        toks.pop()
                    rep[i].value = toks[0].value
                    rep[i].type = toks[0].type
                else:
                    rep[i].type = toks[0].type
            i += 1
    return rep


def _body_pastes(macro, t_dpound):
    """Whether a macro's replacement list holds a `##` (kept on the Macro: pcpp changes its
    value only when it is defined)."""
    pastes = macro.__dict__.get("clcoop_pastes")
    if pastes is None:
        pastes = macro.clcoop_pastes = any(tok.type == t_dpound for tok in macro.value)
    return pastes


def _rescan_start(self, ex):
    """Where pcpp's rescan of a macro's expansion `ex` (C99 6.10.3.4) can first expand
    something, from the start of `ex`: at its last token that is not whitespace or a comment.
    pcpp rescans the whole of `ex` with the tokens after it; but `ex` was scanned as a whole
    already (expand_macros of the replacement list) and each of its tokens then marked as
    expanded from the macro (_expanded_at), so a name that was not expanded there is not here
    either, but for a function-like macro's name with only whitespace after it in `ex`, whose
    `(` may follow `ex`. _expand_one rescans from the start where the scan of `ex` stopped
    short or reported an argument error (unscanned_expansions), which a rescan reports
    again. Every token of an expansion was rescanned at each level of nesting: ~270,000 in
    test_as_type.cl (test_preprocess_fast_paths: pcpp's expand_macros is the oracle)."""
    t_ws, t_comment = self.t_WS, self.t_COMMENT
    for k in range(len(ex) - 1, -1, -1):
        kind = ex[k].type
        if kind not in t_ws and kind not in t_comment:
            return k
    return len(ex)


def _group_lines(self, input, abssource):     # noqa: A002 (pcpp's signature)
    """pcpp 1.30's Preprocessor.group_lines (a file's tokens, line by line) with ply's
    Lexer.token inline: the same master pattern, rules and token attributes, without a call
    and ply's set-up per token, and pcpp's whitespace rule (a third of the tokens) done in
    place. A position the pattern does not match (a literal or an error) and a lexer other
    than pcpp's one-pattern lexer take ply's own code (test_preprocess_fast_paths; issue 26:
    throughput: ~45% of a plain 4,750-line file's preprocessing was this lexing)."""
    lex = self.lexer.clone()
    if not self.fast_group_lines or len(lex.lexre) != 1 or lex.lexignore or not lex.lexoptimize:
        yield from self.pcpp_group_lines(input, abssource)
        return
    lines = [x.rstrip() for x in input.splitlines()]
    input = "\n".join(lines)    # noqa: A001
    lex.input(input)
    lex.lineno = 1
    master, index_funcs = lex.lexre[0]
    matchers = _FirstCharMatcher.for_text(master, index_funcs, len(input)).by_char
    whitespace_rule = self.whitespace_rule
    token_class = self.token_class
    t_ws = self.t_WS
    end = len(input)
    pos = 0
    lineno = 1
    current_line = []
    while pos < end:
        # The master pattern's alternatives that may start with this character (below).
        found = matchers[input[pos]]
        m = found[0].match(input, pos)
        if m is None:
            lex.lexpos, lex.lineno = pos, lineno
            tok = lex.token()
            pos, lineno = lex.lexpos, lex.lineno
            if tok is None:
                break
        else:
            func, tok_type = found[1][m.lastindex]
            tok = token_class()
            tok.value = m.group()
            tok.lineno = lineno
            tok.lexpos = pos
            tok.type = tok_type
            pos = m.end()
            if func is None:
                if not tok_type:
                    continue
            else:
                tok.lexer = lex
                if func is whitespace_rule:      # t_CPP_WS: counts the newlines
                    lineno += tok.value.count("\n")
                else:
                    lex.lexmatch, lex.lexpos, lex.lineno = m, pos, lineno
                    tok = func(tok)
                    pos, lineno = lex.lexpos, lex.lineno
                    if not tok:
                        continue
        tok.source = abssource
        current_line.append(tok)
        if tok.type in t_ws and tok.value == "\n":
            yield current_line
            current_line = []
    if current_line:
        nltok = copy.copy(current_line[-1])
        nltok.type = self.t_NEWLINE
        nltok.value = "\n"
        current_line.append(nltok)
        yield current_line


class _FirstCharMatcher:
    """ply's master pattern (one alternative per token rule, the first that matches wins)
    split by the character a match starts with: for each character, a pattern of only the
    alternatives that can start with it, in their order, so it matches what the master
    matches with the rule the master would take. The regular-expression engine tries the
    master's 59 alternatives one after another at each token: half of the lexing time of a
    plain file (test_convert_type_4.cl, 70,341 tokens). `by_char[c]`: (pattern, the master's
    index_funcs entry for each of its groups), made when c is first met; a pattern that never
    matches where no alternative can start with c. An alternative whose first characters
    are not worked out here (an unknown construct) is kept for every character, and a
    master that does not split as ply writes it (`(?P<rule>...)|...`) is used whole
    (test_preprocess_fast_paths: every position of a text against the master)."""

    _made = {}      # (pattern text, flags, index_funcs) -> _FirstCharMatcher

    def __init__(self, master, index_funcs, split=True):
        self.master, self.index_funcs = master, index_funcs
        # [(text, first-character test)], or None: the master for every character
        self.alternatives = _rule_alternatives(master) if split else None
        self.by_char = _CharTable(self._for_char)
        self.by_alternatives = {}   # the alternatives' indices -> (pattern, index_funcs)

    @classmethod
    def for_text(cls, master, index_funcs, length):
        """The process's matcher of this master, made for a text of at least
        _FIRST_CHAR_MIN_TEXT characters; for a shorter one before that, the master whole.
        Making it (splitting the master, a pattern for each set of alternatives met) costs
        ~5-10 ms, more than lexing a small kernel gains: ~1-2 us a token."""
        key = (master.pattern, master.flags, tuple(index_funcs))
        made = cls._made.get(key)
        if made is None:
            if length < _FIRST_CHAR_MIN_TEXT:
                return cls(master, index_funcs, split=False)
            made = cls._made[key] = cls(master, index_funcs)
        return made

    def _for_char(self, char):
        if self.alternatives is None:
            return self.master, self.index_funcs
        taken = tuple(index for index, (_, starts) in enumerate(self.alternatives)
                      if starts is None or starts(char))
        made = self.by_alternatives.get(taken)      # one pattern for all letters, all digits, ...
        if made is None:
            texts = [self.alternatives[index][0] for index in taken]
            pattern = re.compile("|".join(texts) if texts else "(?!)", self.master.flags)
            funcs = [None] * (pattern.groups + 1)
            for name, index in pattern.groupindex.items():
                funcs[index] = self.index_funcs[self.master.groupindex[name]]
            made = self.by_alternatives[taken] = (pattern, funcs)
        return made


class _CharTable(dict):
    """A dict that makes a character's entry with `make` when it is first asked for."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, char):
        made = self[char] = self.make(char)
        return made


# A text this long (~5,000 tokens) pays for making the first-character patterns.
_FIRST_CHAR_MIN_TEXT = 30_000


def _rule_alternatives(master):
    """[(alternative text, a test of its first character or None: any)] of ply's master
    pattern, or None where it does not split into named groups that join back to it (or
    its flags make a literal match more than itself)."""
    texts = _top_level_alternatives(master.pattern)
    if "|".join(texts) != master.pattern or master.flags & (re.IGNORECASE | re.LOCALE):
        return None
    alternatives = []
    try:
        for text in texts:
            parsed = _re_parser.parse(text, master.flags)
            if len(parsed.data) != 1 or parsed.data[0][0] is not _re_parser.SUBPATTERN \
                    or parsed.data[0][1][0] is None:
                return None     # not one named group
            chars, may_be_empty = _first_chars(parsed.data, master.flags)
            alternatives.append((text, None if chars is None or may_be_empty else chars))
    except (re.error, TypeError, ValueError, IndexError, AttributeError):
        return None
    return alternatives


def _top_level_alternatives(pattern):
    """The pattern's text split at each `|` outside groups and character classes."""
    parts, depth, start, in_class, i = [], 0, 0, False, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern.startswith("]", i + 1) or pattern.startswith("^]", i + 1):
                i += 1 + (pattern[i + 1] == "^")      # a leading ] is a member
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    return parts + [pattern[start:]]


# The parser's character classes, as the pattern's flags make them (\d: Unicode digits).
_CATEGORY_CLASSES = {_re_parser.CATEGORY_DIGIT: r"[\d]", _re_parser.CATEGORY_NOT_DIGIT: r"[\D]",
                     _re_parser.CATEGORY_SPACE: r"[\s]", _re_parser.CATEGORY_NOT_SPACE: r"[\S]",
                     _re_parser.CATEGORY_WORD: r"[\w]", _re_parser.CATEGORY_NOT_WORD: r"[\W]"}


def _first_chars(items, flags):
    """(a test of the characters a match of the parsed items can start with, or None: not
    worked out; whether the items can match the empty string). Literals, sets and ranges,
    groups, alternations and repeats are followed; anything else answers None."""
    tests = []
    for op, arg in items:
        if op is _re_parser.LITERAL:
            tests.append(chr(arg).__eq__)
            return _any_of(tests), False
        if op is _re_parser.IN:
            for kind, value in arg:
                if kind is _re_parser.LITERAL:
                    tests.append(chr(value).__eq__)
                elif kind is _re_parser.RANGE:
                    tests.append(lambda c, low=chr(value[0]), high=chr(value[1]): low <= c <= high)
                elif kind is _re_parser.CATEGORY and value in _CATEGORY_CLASSES:
                    tests.append(re.compile(_CATEGORY_CLASSES[value], flags).fullmatch)
                else:
                    return None, True
            return _any_of(tests), False
        if op is _re_parser.SUBPATTERN and not arg[1] & re.IGNORECASE:
            test, may_be_empty = _first_chars(arg[3], flags)
        elif op is _re_parser.BRANCH:
            branches = [_first_chars(branch, flags) for branch in arg[1]]
            if any(test is None for test, _ in branches):
                return None, True
            test, may_be_empty = _any_of([test for test, _ in branches]), any(empty for _, empty in branches)
        elif op in (_re_parser.MAX_REPEAT, _re_parser.MIN_REPEAT):
            test, may_be_empty = _first_chars(arg[2], flags)
            may_be_empty = may_be_empty or arg[0] == 0
        else:
            return None, True
        if test is None:
            return None, True
        tests.append(test)
        if not may_be_empty:
            return _any_of(tests), False
    return _any_of(tests), True


def _any_of(tests):
    return lambda char: any(test(char) for test in tests)


def _make_preprocessor_class():
    # pcpp is imported here so that importing this module stays cheap.
    import pcpp.parser
    import pcpp.preprocessor
    from pcpp import Action, OutputDirective, Preprocessor
    from pcpp.parser import LexToken

    if "__copy__" not in LexToken.__dict__:
        LexToken.__copy__ = _copy_token
    if pcpp.preprocessor.copy is copy:
        pcpp.preprocessor.copy = _TokenCopies(LexToken)

    class ClcoopPreprocessor(Preprocessor):
        """pcpp with its hooks sending clang-style located messages to a DiagnosticEngine."""

        expand_macros = _expand_macros
        macro_expand_args = _macro_expand_args
        group_lines = _group_lines
        pcpp_group_lines = Preprocessor.group_lines
        fast_group_lines = True     # False: pcpp's group_lines (the tests' oracle)
        token_class = LexToken
        whitespace_rule = staticmethod(pcpp.parser.t_CPP_WS)

        def __init__(self, diag):
            # _record_expansion's chain of macro names (or a long one's list: id, length) -> [(name, Macro)]
            self.expansion_chains = {}
            super().__init__()          # (which defines macros: define empties expansion_chains)
            self.diag = diag
            self.expansion_records = []     # _record_expansion's, until the table is read
            self.unscanned_expansions = 0   # expansions scanned short or with an error (_rescan_start)
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
    """Drain pcpp's token stream into the writer, checking what pcpp lets through."""
    pending_quote = None
    previous = None
    adjacent = False   # a token was written with no whitespace token since
    invocation_cols = {}   # (file, line) -> column after the last original token written there
    sources = pp.known_sources
    # pcpp's token() is its parser generator less the ignored types, and None (the parser
    # dropped) at the end: iterated here without a call per token.
    ignore = pp.ignore
    written = 0     # tokens written: added to state["tokens"] however the loop ends
    try:
        for tok in pp.parser:
            if tok.type in ignore:
                continue
            if tok.type in _WS_TYPES:
                previous = None
                adjacent = False
                continue
            known = sources.get(tok.source)
            if known is None:
                known = (pp.files.get(tok.source), pp.display_name(tok.source))
                if known[0] is not None:     # -D tokens have no file: looked up each time
                    sources[tok.source] = known
            entry, file = known
            written += 1
            # entry.position(tok), inline (a call less for each of ~60,000 expanded tokens):
            # where the token's text is at its lexpos on its own line, an original token.
            value, line, lexpos = tok.value, tok.lineno, getattr(tok, "lexpos", None)
            pos = None
            if entry is not None and lexpos is not None and entry.joined[lexpos:lexpos + len(value)] == value:
                starts = entry.line_starts
                try:
                    on_a_line = 1 <= line <= len(starts)
                except TypeError:       # a token without a line number
                    on_a_line = False
                if on_a_line and starts[line - 1] <= lexpos and (line == len(starts) or lexpos < starts[line]):
                    pos = (line, lexpos - starts[line - 1] + 1)
            if pos is None:
                if file == writer.file and writer.line > line:
                    line = writer.line
                # A token from a macro expansion, written after a space, unless it continues a
                # number: pcpp lexes e.g. the hex float 0x1.fffffep127f of FLT_MAX as several
                # tokens, which must stay one pp-number (C99 6.4.8), and `x##f` with x = 0.5
                # gives the argument's tokens 0 . 5 then f (6.10.3.3: one pp-number 0.5f).
                # (_continues_pp_number's first two tests inline: most tokens fail them.)
                if writer.file is None or line > writer.line or file != writer.file:
                    writer._new_line(file, line)
                    glued = False
                else:
                    glued = adjacent and (value[:1].isalnum() or value[:1] in "._+-") \
                        and (writer.run[-1:].isalnum() or writer.run[-1:] in "_.+-") \
                        and _continues_pp_number(writer.run, value)
                if glued:
                    writer.run += value
                else:
                    writer.run = value
                    if writer.col > 1:
                        writer.parts.append(" ")
                        writer.col += 1
                writer.parts.append(value)
                out_col = writer.col
                writer.col += len(value)
                writer.last_expanded = True
                if entry is not None:
                    _record_expansion(pp, tok, entry, file, writer.line, out_col, invocation_cols)
                previous = None
                adjacent = True
                continue
            line, col = pos
            if not getattr(tok, "expanded_from", None):     # not an argument of a macro invocation
                invocation_cols[(file, line)] = col + len(tok.value)
            # pcpp lexes an unterminated comment or string as single punctuation tokens.
            if tok.type == "CPP_STAR" and previous is not None and previous[0] == "CPP_FSLASH" \
                    and previous[1:] == (tok.source, line, col - 1):
                pp.diag.error("unterminated /* comment", SourceLocation(file, line, col - 1))
                return
            if tok.type in ("CPP_DQUOTE", "CPP_SQUOTE") and pending_quote is None:
                pending_quote = tok.value
                pp.diag.error(f"missing terminating {tok.value} character" if tok.value == "'"
                              else "missing terminating '\"' character",
                              SourceLocation(file, line, col))
            previous = (tok.type, tok.source, line, col)
            writer.original(file, line, col, tok.value, adjacent)
            adjacent = True
        pp.parser = None
    finally:
        state["tokens"] += written


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
    chains = pp.expansion_chains
    if len(macros) > _LONG_CHAIN:
        # Found by the list itself: pcpp's lists only grow (appends), so one list at one
        # length is one chain; the entry keeps the list, so its id is not reused while the
        # entry stands. The key, two ints, is never a chain of names (the other entries).
        # One list is shared by every copy of a token and every use of an argument: 50,448
        # of test_bitselect.cl's 54,059 expanded tokens have chains of 108 names, made into
        # a tuple and hashed for each token before.
        found = chains.get((id(macros), len(macros)))
        if found is None:
            defined = _chain_defined(pp, tuple(macros))
            if "__FILE__" not in macros:
                chains[(id(macros), len(macros))] = (macros, defined)
        else:
            defined = found[1]
    else:
        key = tuple(macros)
        defined = chains.get(key)
        if defined is None:
            defined = _chain_defined(pp, key)
    pp.expansion_records.append((file, line, col, invocation_cols.get((file, tok.lineno), 1), name,
                                 defined, entry, getattr(tok, "lexpos", None), tok.value, tok.lineno))


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
    for file, line, col, start_col, name, defined, entry, lexpos, value, lineno in records:
        origin = _ExpansionOrigin(pp, entry, file, lineno, start_col, name, defined, (lexpos, value, lineno))
        table.setdefault((file, line), []).append((col, col + len(value), origin))
    records.clear()


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
