"""Runs of plain text lines, written through without pcpp's tokens (issue 26: throughput).

A plain 4,750-line file (pocl's test_convert_type_N.cl) spent ~50 us a line in the preprocess
stage on lines no macro touches: pcpp's lexer made a token object for each of ~79,000
tokens, pcpp's parsegen looked at each line's tokens, and _emit_tokens placed each original
token at its column through the writer. What the writer makes of such a line is the line
itself with the characters that are not part of a token (blanks, comments) as spaces and
the trailing ones dropped: each token at its own column (preprocess._Writer.original).

So pcpp_methods.group_lines hands a run of consecutive plain lines to parsegen as one item,
a PlainRun, and _emit_tokens writes its lines as they are. A line is plain when it is
certain that the token path would write it so, and that nothing else would read its tokens:
- it is a whole logical line (the previous line does not end in `\\`) that does not end in
  `\\`, is not the file's last line (which pcpp ends with a made-up newline token), and is
  in a file whose text is the one the diagnostics know (no trigraph replaced: the token
  path's positions are checked against that text);
- it is made of blanks (space, tab), comments closed on the line, string and character
  literals closed on the line, runs of ASCII letters, digits and `_`, and the punctuators
  pcpp lexes as such: no `#` (a directive, or `#`/`##` pcpp treats apart), no `\\`, no
  character pcpp reports or makes a token of its own (`@`, `$`, controls), no quote
  left open (an error in _emit_tokens) and no `/*` left open (a comment over lines);
- no identifier in it names a macro, `__LINE__`, `__COUNTER__`, `_Pragma` or `defined`,
  counting the identifiers that pcpp would lex as identifiers (after a number: `1.5f` ->
  `1` `.` `5` `f`) and, to be safe, every word inside its strings and comments;
- a run's first token is not `(`: a function-like macro's name at the end of the line
  before would take it as its invocation. An invocation left open on a line before
  (`F(a,` then plain lines) takes its arguments from the run: the expander then lexes the
  run into the tokens pcpp would have had (PlainRun.tokens), and so does anything else that
  reads a run's tokens (pcpp's own expansion, where macro_expander hands a run back).

The macro table a line is checked against is the one it is expanded with: parsegen pulls a
line from group_lines only after the line before is handled, and a #define, #undef or
#include first expands the text gathered before it (pcpp 1.30's parsegen).

test_preprocess_plain_runs holds the output (text, diagnostics, expansion table) to the
token path's (`plain_lines = False` on the Preprocessor)."""
import re

# Blanks (a maximal run), a comment closed on the line, a line comment (to the line's end).
_GAP = r"[ \t]+(?![ \t])|/\*(?:[^*]|\*(?!/))*\*/|//.*\Z"
# A token piece: a maximal word, a closed string or character literal (pcpp's patterns on
# one line), a punctuator character, a `/` that starts no comment.
_TOKEN = (r"""[A-Za-z0-9_]+(?![A-Za-z0-9_])|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'"""
          r"""|[!%&()*+,\-.:;<=>?\[\]^{|}~]|/(?![*/])""")
# A plain line: gaps and runs of touching token pieces (each run ends at a gap or the line's
# end, so a line parses one way only and a failing match backtracks in linear time). The
# group is the last run: the writer's `run`, the text of the last tokens written touching.
_LINE = re.compile(rf"(?:{_GAP}|((?:{_TOKEN})+)(?=[ \t]|/[*/]|\Z))*")
_PIECE = re.compile(rf"({_GAP})|{_TOKEN}")
# pcpp's lexing of a word: a number (pcpp's CPP_INTEGER, which comes before the identifier
# rule: `5f` is 5 then f), else an identifier (group 1). Over a whole line, strings and
# comments included.
_NAMES = re.compile(r"(?:0[xX][0-9a-fA-F]+|[0-9]+)(?:[uU][lL]|[lL][uU]|[uU]|[lL])?|([A-Za-z_][A-Za-z0-9_]*)")
# Names pcpp or the compiler treats apart in text, macros or not.
_SPECIAL_NAMES = frozenset({"__LINE__", "__COUNTER__", "_Pragma", "defined"})


def _blank_gap(match):
    return " " * len(match.group()) if match.group(1) is not None else match.group()


def line_shape(line):
    """Of a line as group_lines leaves it (no trailing blank): (the identifiers in it and
    the words of its strings and comments, what the writer writes of it: () for no token,
    else (column of the first token, the text from it, the writer's `run` after it)), or
    None for a line that is not plain whatever the macros."""
    written = _blanks_and_tokens(line) if _NOT_BLANK_OR_TOKEN.search(line) is None else _pieces(line)
    if written is None:
        return None
    names = frozenset(_NAMES.findall(line))
    if not _SPECIAL_NAMES.isdisjoint(names):
        return None
    return names, written


# A character that is neither a blank nor one a token of _TOKEN's words and punctuators is
# made of (no quote, comment, `#`, `\\`): a line without one is blanks and such tokens only.
_NOT_BLANK_OR_TOKEN = re.compile(r"[^ \tA-Za-z0-9_!%&()*+,\-.:;<=>?\[\]^{|}~]")


def _blanks_and_tokens(line):
    """What _pieces gives of a line of blanks and token characters only (the usual line of
    code; ~5x faster than the pattern): its tokens are what the blanks separate."""
    if "\t" in line:
        line = line.replace("\t", " ")
    text = line.lstrip(" ")
    if not text:
        return ()
    return len(line) - len(text) + 1, text, text.rpartition(" ")[2]


def _pieces(line):
    """The written part of line_shape, by _LINE: None where the line is not plain."""
    found = _LINE.fullmatch(line)
    if found is None:
        return None
    last_run = found.group(1)
    if last_run is None:
        return ()
    if "/" in line or "\t" in line:
        line = _PIECE.sub(_blank_gap, line).rstrip(" ")
    text = line.lstrip(" ")
    return len(line) - len(text) + 1, text, last_run


class PlainRun:
    """Consecutive plain lines of one file, as one item of pcpp's parsegen (a line of one
    item) and of the text it expands: `lines`, (line number, column, text, writer's run) of
    each line with tokens, written by preprocess._Writer.plain_lines; `tokens()`, the tokens
    the lines lex as, where something must read them."""
    __slots__ = ("source", "lineno", "lines", "start", "stop", "runs")
    type = "CLCOOP_PLAIN"      # no pcpp token type
    value = None               # not `#` (parsegen), not `(` (an invocation's)

    def __init__(self, runs, source, lineno, start, stop, lines):
        self.runs, self.source, self.lineno = runs, source, lineno
        self.start, self.stop, self.lines = start, stop, lines

    def tokens(self):
        """pcpp's tokens of the run's lines, as parsegen leaves them in the text it expands
        (comments made blanks)."""
        return self.runs.tokens(self)


class PlainRuns:
    """The plain runs of one file's text, found line by line as pcpp's parsegen pulls them
    (`take`); `lex_lines(start, stop, lineno)`: the file's tokens of a span, line by line, as
    group_lines lexes them; `uncomment(tokens)`: parsegen's treatment of comments."""

    def __init__(self, pp, source, text, lex_lines, uncomment):
        self.pp, self.source, self.text = pp, source, text
        self.lex_lines, self.uncomment = lex_lines, uncomment
        self.not_before = -1     # a run looked for from before here found no token line
        # line_shape of each line text met: a generated file repeats most of its lines
        # (4,752 lines, 1,295 different, in pocl's test_convert_type_16.cl).
        self.shapes = {}

    def take(self, pos, lineno):
        """The PlainRun of the plain lines from pos (a line's start, line `lineno`) on, or
        None: the line is not plain, or the plain lines before the next line that is not
        hold no token (pcpp's parsegen treats lines of blanks apart: include guards)."""
        if pos < self.not_before:
            return None
        text, macros, shapes = self.text, self.pp.macros, self.shapes
        no_macro_in = macros.keys().isdisjoint
        lines = []
        start, line_number = pos, lineno
        while True:
            end = text.find("\n", pos)
            if end < 0:         # the last line: pcpp adds a newline token of its own
                break
            line = text[pos:end]
            try:
                shape = shapes[line]
            except KeyError:
                shape = shapes[line] = line_shape(line) if not line.endswith("\\") else None
            if shape is None or not no_macro_in(shape[0]):
                break
            written = shape[1]
            if written:
                if not lines and written[1][0] == "(":
                    break
                lines.append((line_number, *written))
            pos = end + 1
            line_number += 1
        if not lines:
            self.not_before = pos
            return None
        return PlainRun(self, self.source, lineno, start, pos, lines)

    def tokens(self, run):
        tokens = []
        for line in self.lex_lines(run.start, run.stop, run.lineno):
            tokens += line
        return self.uncomment(tokens)


def with_tokens(tokens):
    """The tokens with each PlainRun's in its place (pcpp's own code reads every token)."""
    flat = with_items_replaced(tokens, PlainRun, PlainRun.tokens)
    return tokens if flat is None else flat


def with_items_replaced(tokens, item_class, replacement):
    """A new list of the tokens with each item of `item_class` replaced by the tokens
    `replacement(item)`, or None if there is no such item (a PlainRun, an Expansion)."""
    if item_class not in map(type, tokens):
        return None
    flat = []
    for tok in tokens:
        if tok.__class__ is item_class:
            flat += replacement(tok)
        else:
            flat.append(tok)
    return flat
