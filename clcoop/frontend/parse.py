"""The parsing stage: pycparserext's OpenCLCParser, extended, with clang-style syntax errors.

`parse(text, filename, diag, target) -> pycparser.c_ast.FileAST`

The text comes from preprocess() with `#line` markers, so node coordinates
(`node.coord.file/.line/.column`, 1-based) are positions in the user's files.

What the AST looks like for OpenCL C (what check.py reads)
-----------------------------------------------------------
- Built-in type names (half, bool, uchar, float4, size_t, ... from
  types.builtin_typedefs(target)) are typedef names to the parser: they appear as
  `c_ast.IdentifierType(names=['float4'])`. Nothing is inserted into the text.
- `__kernel` / `kernel` (and `inline`) are strings in `Decl.funcspec`.
- Address-space qualifiers are strings in `quals` of the Decl and of the TypeDecl that
  carries them, spelled as written: `__global`, `global`, `__local`, `local`,
  `__constant`, `constant`, `__private`, `private`, `__generic`, `generic`
  (types.ADDRSPACE_BY_KEYWORD maps all of them). For a pointer parameter
  `global float *p` the qualifier is on the pointee's TypeDecl (under the PtrDecl).
- ATTRIBUTES: wherever `__attribute__((...))` was written in a declaration (before the
  specifiers, among them, after the declarator), the parser moves them to one place:
    * functions (declarations and definitions): `FuncDeclExt.attributes`, the
      `c_ast.ExprList` of `decl.type` (class pycparserext.ext_c_parser.FuncDeclExt);
    * variables, parameters, typedefs, struct members: `TypeDeclExt.attributes`
      (a `c_ast.ExprList`) of the innermost TypeDecl, the one with `declname`
      (under any PtrDecl/ArrayDecl). A TypeDecl without attributes is a plain
      c_ast.TypeDecl; `getattr(td, "attributes", None)` covers both.
  `Decl.funcspec` keeps only strings. Each attribute is either `c_ast.ID(name)` (no
  arguments) or `c_ast.FuncCall(name=c_ast.ID(name), args=c_ast.ExprList([...]))`;
  the RFC's quoted form `coop_mat("CLK_COOPERATIVE_MATRIX_SCOPE_SUBGROUP", ...)` gives
  `c_ast.Constant(type='string', value='"CLK_..."')` arguments.
  `attributes_of(node)` returns them as `Attribute(name, args, coord)` for a Decl,
  Typedef, FuncDef, Typename or TypeDecl.
- Vector literals `(float4)(1, 2, 3, 4)` are `c_ast.Cast(to_type, c_ast.ExprList)`;
  `(float4)(x)` is a Cast of the single expression. Swizzles `v.xy`, `v.s0`, `v.lo` are
  `c_ast.StructRef(type='.')`.
- `true` / `false` are macros (1 / 0) of the default header, so they arrive as
  Constants.
- `#pragma OPENCL EXTENSION` and `FP_CONTRACT` lines reach the parser as `c_ast.Pragma`
  nodes (top level or statement; preprocess drops other `#pragma` lines); so does the
  `_Pragma("...")` operator, its `string` the destringized text as for a `#pragma` line.

Syntax errors are reported to `diag` as `file:line:col: error: expected ';' ...`; after
an error the parser skips to the end of the statement or top-level declaration and
goes on, so one run reports several errors (at most MAX_SYNTAX_ERRORS).
"""
import re
import weakref

from pycparser import c_ast
from pycparser import c_lexer as _c_lexer
from pycparser.c_parser import Coord, ParseError
from pycparserext.ext_c_lexer import OpenCLCLexer
from pycparserext.ext_c_parser import (_ATTRIBUTE_TOKENS, _OCL_DECL_START, _OCL_TYPE_QUALIFIERS, AttributeSpecifier,
                                       FuncDeclExt, OpenCLCParser, TypeDeclExt)
from pycparser.c_parser import _TYPE_QUALIFIER

from clcoop.diagnostics import SourceLocation
from clcoop.frontend.parse_decl import DeclarationRules
from clcoop.frontend.parse_expr import ExpressionRules
from clcoop.frontend.types import builtin_typedefs
from clcoop.records import record

MAX_SYNTAX_ERRORS = 20

# Spellings of tokens in messages, as clang prints them.
_TOKEN_SPELLING = {
    "SEMI": ";", "COMMA": ",", "LPAREN": "(", "RPAREN": ")", "LBRACE": "{", "RBRACE": "}",
    "LBRACKET": "[", "RBRACKET": "]", "COLON": ":", "EQUALS": "=", "PERIOD": ".",
    "ID": "identifier", "WHILE": "while",
}

# The lexer knows __kernel, __global & co. These are the OpenCL C / C99 keywords it lacks;
# each maps to a token type the parser already handles for a keyword of the same kind
# (the parser keeps the spelling from the token's value).
_EXTRA_KEYWORDS = {
    "__generic": "__PRIVATE__",     # address-space qualifier, OpenCL C 3.0 6.7
    "generic": "PRIVATE",
    "__restrict": "RESTRICT",
    "__restrict__": "RESTRICT",
    "__inline": "INLINE",
    "__inline__": "INLINE",
}

# What may follow a '*' in a declarator: C's qualifiers and OpenCL's address spaces.
_POINTER_QUALIFIERS = _TYPE_QUALIFIER | _OCL_TYPE_QUALIFIERS | {"__PRIVATE__", "PRIVATE"}

# Statements that their first token decides, by the base's rules (C99 6.8).
_STATEMENT_RULES = {
    "LBRACE": "_parse_compound_statement",
    "IF": "_parse_selection_statement", "SWITCH": "_parse_selection_statement",
    "WHILE": "_parse_iteration_statement", "DO": "_parse_iteration_statement",
    "FOR": "_parse_iteration_statement",
    "GOTO": "_parse_jump_statement", "BREAK": "_parse_jump_statement",
    "CONTINUE": "_parse_jump_statement", "RETURN": "_parse_jump_statement",
}
# After a name, a label's `:` or what _reject_unknown_type_name looks at (`T x`, `T *x`).
_NOT_AN_EXPRESSION_AFTER_NAME = frozenset({"COLON", "ID", "TIMES"})

# Postfix operators that may follow a compound literal ('(' would start a new type name).
_POSTFIX_AFTER_LITERAL = {"LBRACKET", "PERIOD", "ARROW", "PLUSPLUS", "MINUSMINUS"}

_IDENT_CHARS = re.compile(r"[A-Za-z0-9_]+")

# C keywords that builtin_typedefs also lists: they must stay keywords.
_C_TYPE_KEYWORDS = {"void", "char", "short", "int", "long", "float", "double", "signed",
                    "unsigned", "_Bool"}


# pycparser errors located at the declaration's start; clang points at the next token.
_AT_NEXT_TOKEN = {"Invalid declaration", "Invalid declarator"}


class SyntaxErrorAt(ParseError):
    """A syntax error with its location and a clang-like message."""

    def __init__(self, message, location, notes=None):
        super().__init__(f"{location}: {message}")
        self.message = message
        self.location = location
        self.notes = notes or []      # (message, SourceLocation) pairs


@record
class Attribute:
    name: str
    args: list          # c_ast expression nodes
    coord: object       # pycparser Coord


# The lexer's fast paths (throughput, issue 26). pycparser's _match_token tries its master
# pattern (two dozen alternatives) and the punctuator table at every token. A name or a
# punctuator is decided without the pattern: a name is what the pattern's ID rule matches
# unless a quote follows (`L"x"`, `u8'c'`: its literal rules, which come first); a
# punctuator whose first character starts none of the pattern's rules (not `/`, `.`) is
# the table's longest match. test_parse_fast_paths lexes with and without them.
_ID_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
_ID_RULE = re.compile(r"[a-zA-Z_$][0-9a-zA-Z_$]*")
_BLANKS = re.compile(r"[ \t]+")
_KEYWORDS = _c_lexer._keyword_map
_TOKEN = _c_lexer._Token
_NEW_TOKEN = _TOKEN.__new__
_PUNCTUATORS_ONLY = {first: bucket for first, bucket in _c_lexer._fixed_tokens_by_first.items()
                     if first not in "/."}
_PUNCTUATOR_TYPES = {entry.literal: entry.tok_type for bucket in _PUNCTUATORS_ONLY.values()
                     for entry in bucket}
# ClcoopLexer.token's one match: blanks, then a name or the longest punctuator (longest
# first in the alternation: the bucket's order, which is by length), then what the master
# pattern would match the same way where its other rules cannot start:
# - `.` not followed by a digit (`.5` is a number) and `...`, `/` and `/=` not followed by
#   `/` or `*` (comments): the table's punctuators (group 2);
# - an integer constant, with pycparser's suffix rule, followed by no name character, `.` or
#   quote (`1.5`, `1e3`, `0x1p3`, `08`, `1lL` stay with the pattern), of the type the
#   pattern's first matching rule gives: hexadecimal, else octal when it starts with 0 (`0`,
#   `0u` too), else decimal (group 3);
# - a string literal with pycparser's own rule: each backslash pairs with the next
#   character, so a string this matches has no bad escape for BAD_STRING_LITERAL, the
#   rule before it (group 4).
_SLOW_PUNCTUATORS = {entry.literal: entry.tok_type for first in "./"
                     for entry in _c_lexer._fixed_tokens_by_first[first]}
_PUNCTUATOR_TYPES.update(_SLOW_PUNCTUATORS)
# The type of a piece of a split line that is one punctuator or keyword.
_WHOLE_PIECE_TYPES = {**_KEYWORDS, **_PUNCTUATOR_TYPES}
_NAME_RULE = r"[a-zA-Z_$][0-9a-zA-Z_$]*(?![0-9a-zA-Z_$'\"])"
_PUNCTUATOR_RULE = ("|".join(re.escape(literal) for literal in sorted(_PUNCTUATOR_TYPES, key=len, reverse=True)
                             if literal not in _SLOW_PUNCTUATORS)
                    + r"|\.\.\.|\.(?![0-9])|/=|/(?![/*])")   # _SLOW_PUNCTUATORS where the table decides
_INTEGER_RULE = (r"(?:0[xX][0-9a-fA-F]+|[1-9][0-9]*|0[0-7]*)"
                 + _c_lexer._integer_suffix_opt.replace("(", "(?:") + r"(?![0-9a-zA-Z_$.'\"])")
_NAME_OR_PUNCTUATOR = re.compile(
    r"[ \t]*(?:(" + _NAME_RULE + ")|(" + _PUNCTUATOR_RULE + ")|(" + _INTEGER_RULE + ")"
    + r"|(" + _c_lexer._string_literal + "))")
# A piece of a split line that is several tokens (`f(x[i],`, `1.5f;`), split into them
# (the odd items of its split; the even ones, between them, are all empty where the whole
# piece is names, punctuators, integers and decimal floats): the tokens successive
# _NAME_OR_PUNCTUATOR matches give (a string literal without a space among them), and the
# decimal float `1.5`, `1.5f` (pycparser's FLOAT_CONST rule, the first of its rules that
# matches there; not followed by a name character, `.` or quote, so no `0.5h` suffix,
# exponent or second point follows).
_PIECE_TOKENS = re.compile("(" + _NAME_RULE + "|" + _PUNCTUATOR_RULE + "|" + _INTEGER_RULE
                           + r"|[0-9]+\.[0-9]+[fF]?(?![0-9a-zA-Z_$.'\"])"
                           + "|" + _c_lexer._string_literal.replace("(", "(?:") + ")")


# The #line marker the preprocessor writes, after its `#` (C99 6.10.4): what pycparser's
# _handle_ppline reads without an error into a line number and a file name (a decimal
# number, a string without escapes, blanks, the line's end, which is consumed).
_LINE_MARKER = re.compile(r'[ \t]*(?:line[ \t]+)?(0|[1-9][0-9]*)[ \t]+"([^"\\\n]*)"[ \t]*\n')

# _match_from_text's answer when a line starts that token() takes from its pieces.
_LINE_SPLIT = object()


def _plain_integer_type(value):
    """The type of an integer constant without a suffix that is all of `value` (as
    _NAME_OR_PUNCTUATOR's group 3 gives it), else None."""
    if value.isdigit():
        if value[0] != "0":
            return "INT_CONST_DEC"
        return None if value.strip("01234567") else "INT_CONST_OCT"
    if len(value) > 2 and value[0] == "0" and value[1] in "xX" and not value[2:].strip(_HEX_DIGITS):
        return "INT_CONST_HEX"
    return None


_HEX_DIGITS = "0123456789abcdefABCDEF"
_DIGITS = frozenset("0123456789")


class ClcoopLexer(OpenCLCLexer):
    _extra_keywords = {**OpenCLCLexer._extra_keywords, **_EXTRA_KEYWORDS}
    fast_paths = True       # False: every token through pycparser's own matching (the tests)

    def input(self, text, filename=""):
        super().input(text, filename)
        self._parts = None          # the rest of the line split at its spaces (token())
        self._part_index = 0        # the next piece
        self._part_column = 1       # its column
        self._part_end = None       # the end of a piece that the match lexes (token())
        self._line_end = 0          # where the split line ends
        self._split_line_start = 0  # and starts
        if self.fast_paths:
            self.token = self._token_stream().__next__

    def _token_stream(self):
        """The tokens, with the fast paths (throughput, issue 26): pycparser's CLexer.token,
        then the OpenCL keywords, with blanks, newlines, #line markers, names,
        punctuators, integers, decimal floats and strings handled here, where pycparser
        makes four or five calls a token: the pieces of a line split at its spaces
        (_split_line), each one token or split into its tokens (_PIECE_TOKENS), else
        _match_from_text. A generator: input() makes its __next__ the lexer's token(), so
        that the split line's place stays in its locals between tokens. A name's type is
        asked when the parser pulls the token, as in pycparser (typedef names change with
        the scopes)."""
        whole_piece_types = _WHOLE_PIECE_TYPES
        new_token = _NEW_TOKEN
        token_class = _TOKEN
        is_type_name = self.type_lookup_func
        extra_keywords = self._extra_keywords
        while True:
            parts = self._parts
            if parts is not None and self._part_end is None:
                index = self._part_index
                column = self._part_column
                lineno = self._lineno
                count = len(parts)
                matched = False         # the match lexes the rest of a piece
                while index < count:
                    value = parts[index]
                    index += 1
                    if not value:
                        column += 1         # one of several spaces
                        continue
                    piece, piece_column = value, column
                    tokens = None           # the rest of the piece's tokens, once split
                    while True:
                        tok_type = whole_piece_types.get(value)
                        if tok_type is None and value.isascii():
                            if value.isidentifier():
                                tok_type = "TYPEID" if is_type_name(value) else extra_keywords.get(value, "ID")
                            elif value.isdigit():
                                tok_type = _plain_integer_type(value)
                            elif tokens is not None and value[0] in _DIGITS:    # of _PIECE_TOKENS
                                tok_type = ("FLOAT_CONST" if "." in value else "INT_CONST_DEC" if value[0] != "0"
                                            else "INT_CONST_HEX" if value[1] in "xX" else "INT_CONST_OCT")
                            elif tokens is not None and value[0] == '"':
                                tok_type = "STRING_LITERAL"
                        if tok_type is None:
                            if tokens is None and value is piece:
                                # Several tokens (`f(x[i],`), a float, a suffixed integer, a
                                # string: split into them where _PIECE_TOKENS takes it all.
                                tokens = _PIECE_TOKENS.split(piece)
                                if not "".join(tokens[::2]):
                                    tokens = iter(tokens[1::2])
                                    value = next(tokens)
                                    continue
                            # The match lexes the piece from `column` on (a literal with a
                            # space, a comment, a tab, `08`, a name with `$`), and the
                            # split goes on after the token that reaches the piece's end.
                            self._part_index = index
                            self._part_column = piece_column + len(piece) + 1
                            self._pos = self._line_start + column - 1
                            self._part_end = self._line_start + piece_column - 1 + len(piece)
                            matched = True
                            break
                        # pycparser's _Token, its attributes set here: its dataclass
                        # __init__ is a Python call (a third of the cost of a token).
                        tok = new_token(token_class)
                        tok.type = tok_type
                        tok.value = value
                        tok.lineno = lineno
                        tok.column = column
                        column += len(value)
                        if tok_type == "LBRACE":
                            self.on_lbrace_func()
                        elif tok_type == "RBRACE":
                            self.on_rbrace_func()
                        yield tok
                        value = next(tokens, None) if tokens is not None else None
                        if value is None:
                            column += 1     # the space after the piece
                            break
                    if matched:
                        break
                else:
                    # The line's end, where _pos is: the next line, no directive, is
                    # split at once (as _match_from_text would after the newline).
                    pos = self._pos + 1
                    if self._lexdata[pos - 1:pos] == "\n" and self._lexdata[pos:pos + 1] not in ("#", ""):
                        self._lineno += 1
                        self._line_start = pos
                        self._split_line(pos)
                        continue
                    self._parts = None
            tok = self._match_from_text()
            if tok is not _LINE_SPLIT:
                yield tok

    def _match_from_text(self):
        """The next token from _pos by _NAME_OR_PUNCTUATOR; blanks, newlines and #line
        markers skipped; _LINE_SPLIT when a line starts that token() takes from its
        pieces; the rest (other `#` lines, a pending pragma string, other numbers and
        literals, comments, errors) in pycparser's code from the first character this
        loop does not take."""
        if self._pending_tok is not None or not self.fast_paths:
            return super().token()
        text = self._lexdata
        n = len(text)
        match = _NAME_OR_PUNCTUATOR.match
        pos = self._pos
        while pos < n:
            # Blanks, then a name or a punctuator, in one match: group 1 a name (not
            # followed by a quote: `L"x"`, `u8'c'` are literals; nor, backtracking, by a
            # name character), group 2 the longest punctuator at that place.
            m = match(text, pos)
            if m is not None:
                # Every group ends where the match does (only lookaheads follow them);
                # lastindex is the group that matched (the string's inner groups close
                # inside group 4).
                end = m.end()
                self._pos = end
                if self._part_end is not None and end >= self._part_end:
                    # The piece the split could not take is lexed.
                    self._resume_split(end)
                group = m.lastindex
                start = m.start(group)
                value = text[start:end]
                if group == 1:
                    tok_type = _KEYWORDS.get(value)
                    if tok_type is None:
                        if self.type_lookup_func(value):
                            tok_type = "TYPEID"
                        else:
                            tok_type = self._extra_keywords.get(value, "ID")
                elif group == 2:
                    tok_type = _PUNCTUATOR_TYPES[value]
                elif group == 3:
                    tok_type = ("INT_CONST_DEC" if value[0] != "0" else
                                "INT_CONST_HEX" if value[1:2] in ("x", "X") else "INT_CONST_OCT")
                else:
                    tok_type = "STRING_LITERAL"
                tok = _NEW_TOKEN(_TOKEN)        # without the dataclass __init__, as above
                tok.type = tok_type
                tok.value = value
                tok.lineno = self._lineno
                tok.column = start - self._line_start + 1
                if value == "{" and group == 2:
                    self.on_lbrace_func()
                elif value == "}" and group == 2:
                    self.on_rbrace_func()
                return tok
            first = text[pos]
            if first == " " or first == "\t":
                pos = _BLANKS.match(text, pos).end()
                continue
            if first == "\n":
                self._lineno += 1
                pos += 1
                self._line_start = pos
            elif first == "#" and _c_lexer._line_pattern.match(text, pos + 1):
                # A #line marker (the preprocessor writes one at each change of file
                # or line): `#line N "file"` read here, anything else by pycparser's
                # own handling, as its token() does.
                marker = _LINE_MARKER.match(text, pos + 1)
                if marker is not None:
                    self._lineno = int(marker.group(1))
                    self._filename = marker.group(2)
                    pos = self._line_start = marker.end()
                else:
                    self._pos = pos + 1
                    self._handle_ppline()
                    pos = self._pos
            else:
                self._pos = pos
                return super().token()
            if pos < n and text[pos] != "#":
                # A line's start (not a directive's): split the line at its spaces.
                self._split_line(pos)
                return _LINE_SPLIT
        self._pos = pos
        return super().token()

    def _split_line(self, start):
        """The line from `start` on split at its spaces, for token(); _pos at its end.
        The preprocessor writes a macro's expansion as tokens one space apart on one line."""
        end = self._lexdata.find("\n", start)
        if end < 0:
            end = len(self._lexdata)
        self._parts = self._lexdata[start:end].split(" ")
        self._part_index = 0
        self._part_column = start - self._line_start + 1
        self._part_end = None
        self._line_end = end
        self._split_line_start = self._line_start
        self._pos = end

    def _resume_split(self, end):
        """After the token that ends at `end`, at or past the end of the piece token() could
        not take: the pieces the token covered are skipped (a string with spaces spans
        several), and the split goes on after them; a piece the token ends inside is the
        next one the match lexes (its rest: `"a b",`). Where pycparser's code lexed past
        the line (a comment, an unterminated literal), the split ends: the match goes on to
        the next line's start, which is split again."""
        parts = self._parts
        line_start = self._line_start
        if end > self._line_end or line_start != self._split_line_start:
            self._parts = self._part_end = None
            return
        index = self._part_index
        column = self._part_column
        count = len(parts)
        while index < count and line_start + column - 1 < end:
            piece_end = line_start + column - 1 + len(parts[index])
            column += len(parts[index]) + 1
            index += 1
            if piece_end > end:
                self._part_index = index
                self._part_column = column
                self._part_end = piece_end
                return
        self._part_index = index
        self._part_column = column
        self._part_end = None
        self._pos = self._line_end

    def _match_token(self):
        if self.fast_paths:
            tok = self._match_name_or_punctuator()
            if tok is not None:
                return tok
        tok = super()._match_token()
        if tok is not None and tok.type in ("FLOAT_CONST", "HEX_FLOAT_CONST") and tok.value[-1] not in "fFlL":
            # The rest of the preprocessing number (C99 6.4.8) is the suffix: cl_khr_fp16's
            # `0.5h` (OpenCL C 3.0 6.1.1.1), which C's lexer lacks, or a wrong one (`0.5hx`)
            # that check reports as clang does.
            suffix = _IDENT_CHARS.match(self._lexdata, self._pos)
            if suffix is not None:
                tok.value += suffix.group()
                self._pos = suffix.end()
        return tok

    def _match_name_or_punctuator(self):
        """The token pycparser's _match_token would return for a name or a punctuator, else
        None with nothing consumed (the token is matched the slow way)."""
        text = self._lexdata
        pos = self._pos
        first = text[pos]
        if first in _ID_START:
            end = _ID_RULE.match(text, pos).end()
            if text[end:end + 1] in ("'", '"'):
                return None
            value = text[pos:end]
            tok_type = _c_lexer._keyword_map.get(value, "ID")
            if tok_type == "ID" and self.type_lookup_func(value):
                tok_type = "TYPEID"
            tok = self._make_token(tok_type, value, pos)
            self._pos = end
            return tok
        bucket = _PUNCTUATORS_ONLY.get(first)
        if bucket is None:
            return None
        for entry in bucket:
            if text.startswith(entry.literal, pos):
                tok = self._make_token(entry.tok_type, entry.literal, pos)
                self._pos = pos + len(entry.literal)
                if first == "{":
                    self.on_lbrace_func()
                elif first == "}":
                    self.on_rbrace_func()
                return tok
        return None


class ClcoopParser(ExpressionRules, DeclarationRules, OpenCLCParser):
    """OpenCLCParser with clcoop's type names, attribute placement and error recovery, its
    expressions by precedence climbing (parse_expr.ExpressionRules) and its common
    declarations without the base's descent (parse_decl.DeclarationRules)."""

    lexer_class = ClcoopLexer
    initial_type_symbols = frozenset()

    def __init__(self, **kwds):
        super().__init__(**kwds)
        # What each name means where the parser is: the innermost scope's entry for it
        # (the base's _is_type_in_scope searches the scopes from the innermost on, a loop
        # for every name the lexer meets). _shadowed holds, per scope above the file's,
        # the (name, outer meaning) pairs its declarations hid, restored when it ends.
        self._visible = {}
        self._shadowed = []
        # The lexer asks the table itself: no Python call per name.
        self.clex.type_lookup_func = self._visible.get
        self.errors = []            # SyntaxErrorAt, in order
        self._last_token = None
        self._semi_context = []     # what a missing ';' ends, for clang's wording

    def _try_parse_paren_type_name(self):
        """The base parser's, without marking the token stream where the next token is no `(`
        (twice for every operand: in the cast and the postfix rules)."""
        if self._peek_type() != "LPAREN":
            return None
        return super()._try_parse_paren_type_name()

    # The token stream's peek and next inline: a buffered token is read from the buffer,
    # and the token one past the buffer's end (nearly every unbuffered one) is lexed and
    # appended as the stream's fill does; anything else goes through the stream.
    def _peek(self, k=1):
        """The base stream's peek (k >= 1) without its two calls."""
        tokens = self._tokens
        buffer = tokens._buffer
        index = tokens._index + k - 1
        if k > 0:
            if index < len(buffer):
                return buffer[index]
            if index == len(buffer):
                tok = tokens._lexer.token()
                buffer.append(tok)
                return tok
        return tokens.peek(k)

    def _peek_type(self, k=1):
        """The base parser's _peek_type with _peek inline (~1.5 calls a token)."""
        tokens = self._tokens
        buffer = tokens._buffer
        index = tokens._index + k - 1
        if k > 0 and index < len(buffer):
            tok = buffer[index]
        elif k > 0 and index == len(buffer):
            tok = tokens._lexer.token()
            buffer.append(tok)
        else:
            tok = tokens.peek(k)
        return tok.type if tok is not None else None

    def _accept(self, token_type):
        """The base parser's _accept with _peek inline (~1.5 calls a token)."""
        tokens = self._tokens
        buffer = tokens._buffer
        index = tokens._index
        if index < len(buffer):
            tok = buffer[index]
        elif index == len(buffer):
            tok = tokens._lexer.token()
            buffer.append(tok)
        else:
            tok = tokens.peek(1)
        if tok is not None and tok.type == token_type:
            return self._advance()
        return None

    def _coord(self, lineno, column=None):
        """The base parser's Coord, the file read from the lexer without its property."""
        return Coord(self.clex._filename, lineno, column)

    def _tok_coord(self, tok):
        """The base parser's _tok_coord with _coord inline (a Coord for ~every other token)."""
        return Coord(self.clex._filename, tok.lineno, tok.column)

    def _parse_postfix_expression(self):
        """The base parser returns a compound literal without its postfix operators
        (`(int[]){5, 6}[1]`) and without a location: both added here (C99 6.5.2). An
        expression that starts with no `(` is no compound literal: its primary expression
        and postfix operators are parsed by _postfix_operators."""
        start = self._peek()
        if start is not None and start.type != "LPAREN":
            return self._postfix_operators(self._parse_primary_expression())
        expr = super()._parse_postfix_expression()
        if isinstance(expr, c_ast.CompoundLiteral):
            if expr.coord is None and start is not None:
                expr.coord = self._tok_coord(start)
            if self._peek_type() in _POSTFIX_AFTER_LITERAL:
                expr = self._postfix_operators(expr)
        return expr

    def _parse_asm_argument_expression_list(self):
        """GNU asm operands (GCC "Extended Asm"): `"constraint"(expr)`, each optionally named
        `[name] "constraint"(expr)`; a named one is a c_ast.NamedInitializer([ID(name)], operand)
        (the base parser took no names)."""
        if self._peek_type() in {"COLON", "RPAREN"}:
            return None
        items = []
        first = self._peek()
        # (At the end of input there is no token: the operand's parse reports it.)
        coord = self._tok_coord(first) if first is not None else None
        while True:
            if self._peek_type() == "LBRACKET":
                start = self._advance()
                name = self._expect("ID")
                self._expect("RBRACKET")
                operand = self._parse_assignment_expression()
                items.append(c_ast.NamedInitializer([c_ast.ID(name.value, self._tok_coord(name))], operand,
                                                    self._tok_coord(start)))
            else:
                items.append(self._parse_assignment_expression())
            if not self._accept("COMMA"):
                return c_ast.ExprList(items, coord)

    def _scan_declarator_name_info(self):
        """Skips '*'s with their qualifiers, OpenCL address spaces included (`global int *
        global *pp`, which the base scanner stops at), then scans the rest as the base does."""
        while self._accept("TIMES"):
            while True:
                if self._peek_type() in _POINTER_QUALIFIERS:
                    self._advance()
                elif self._peek_type() in _ATTRIBUTE_TOKENS:
                    self._advance()
                    self._scan_skip_paren_group()
                    self._scan_skip_paren_group()
                else:
                    break
        return super()._scan_declarator_name_info()

    # --- what a ';' ends, innermost last ("expected ';' after expression") -----------
    def _with_semi_context(self, context, parse, *args):
        self._semi_context.append(context)
        try:
            return parse(*args)
        finally:
            self._semi_context.pop()

    def _parse_external_declaration(self):
        self._reject_unknown_type_name()
        tok = self._peek()
        if tok is not None and tok.type == "ID":
            # pycparser would read `f() {...}` / `a {...}` as a K&R definition with an
            # implicit int; C99 (and OpenCL C) has no implicit int. clang's words.
            raise SyntaxErrorAt("type specifier missing, defaults to 'int'; "
                                "ISO C99 and later do not support implicit int",
                                self._token_location(tok))
        return self._with_semi_context("after top level declarator",
                                       super()._parse_external_declaration)

    def _parse_declaration(self):
        return self._with_semi_context("at end of declaration", super()._parse_declaration)

    def _parse_expression_statement(self):
        self._reject_unknown_type_name()
        tok = self._peek()
        if tok is not None and tok.type != "SEMI" and not self._starts_expression(tok):
            # e.g. the second ')' of `if (x)) ...`: clang says "expected expression" there.
            raise SyntaxErrorAt("expected expression", self._token_location(tok))
        return self._with_semi_context("after expression", super()._parse_expression_statement)

    def _parse_jump_statement(self):
        keyword = (self._peek_type() or "").lower()
        return self._with_semi_context(f"after {keyword} statement",
                                       super()._parse_jump_statement)

    def _parse_pppragma_directive(self):
        # `_Pragma("...")` is the #pragma its literal spells once destringized (C99 6.10.9:
        # the quotes dropped, \" and \\ unescaped); pycparser keeps the literal's node,
        # where a #pragma line gives the text that check reads.
        node = super()._parse_pppragma_directive()
        if isinstance(node.string, c_ast.Constant):
            node.string = re.sub(r'\\(["\\])', r"\1", node.string.value[1:-1])
        return node

    # --- tokens: remember the last consumed one (clang puts "expected ';'" after it) ---
    def _advance(self):
        tokens = self._tokens          # the stream's next() inline when the token is buffered
        index = tokens._index
        buffer = tokens._buffer
        if index < len(buffer):
            tok = buffer[index]
            tokens._index = index + 1
        elif index == len(buffer):
            tok = tokens._lexer.token()
            buffer.append(tok)
            tokens._index = index + 1
        else:
            tok = tokens.next()
        if tok is None:
            self._parse_error("unexpected end of file", None)
        self._last_token = tok
        return tok

    def _expect(self, token_type):
        """The next token, which must be of `token_type`; a buffered one (nearly always:
        the rules peek before they expect) taken as _advance takes it, without the calls."""
        tokens = self._tokens
        index = tokens._index
        buffer = tokens._buffer
        if index < len(buffer):
            tok = buffer[index]
            if tok is not None and tok.type == token_type:
                tokens._index = index + 1
                self._last_token = tok
                return tok
        tok = self._peek()
        if tok is None or tok.type != token_type:
            self._error_expected(token_type, tok)
        return self._advance()

    def _error_expected(self, token_type, tok):
        spelling = _TOKEN_SPELLING.get(token_type, token_type.lower())
        what = spelling if token_type == "ID" else f"'{spelling}'"
        if token_type == "SEMI" and self._last_token is not None:
            # clang: "expected ';' after expression", located just past the previous token.
            last = self._last_token
            loc = self._location(last.lineno, last.column + len(str(last.value)))
            context = self._semi_context[-1] if self._semi_context else ""
            raise SyntaxErrorAt(f"expected {what} {context}".rstrip(), loc)
        raise SyntaxErrorAt(f"expected {what}", self._token_location(tok))

    # --- errors -----------------------------------------------------------------
    def _location(self, line, column):
        return SourceLocation(self.clex.filename or "<input>", line or 1, column or 1)

    def _token_location(self, tok):
        if tok is None:
            return self._end_location()
        return self._location(tok.lineno, tok.column)

    def _end_location(self):
        last = self._last_token
        if last is None:
            return self._location(1, 1)
        return self._location(last.lineno, last.column + len(str(last.value)))

    def _lex_error_func(self, msg, line, column):
        # Record and go on: the lexer skips the bad character, so parsing can continue.
        self.errors.append(SyntaxErrorAt(_clang_message(msg, None), self._location(line, column)))

    def _parse_parameter_declaration(self):
        """`global foo_t *p` where foo_t is no type: clang's "unknown type name" at foo_t
        (known typedef names lex as TYPEID, so a name followed by a name or '*' here can
        only be an unknown type)."""
        k = 1
        while self._peek_type(k) in _POINTER_QUALIFIERS:
            k += 1
        tok = self._peek(k)
        if tok is not None and tok.type == "ID" and self._peek_type(k + 1) in ("ID", "TIMES"):
            raise SyntaxErrorAt(f"unknown type name '{tok.value}'", self._token_location(tok))
        return super()._parse_parameter_declaration()

    def _reject_unknown_type_name(self):
        """`foo x` where foo is no type: clang's "unknown type name 'foo'" at foo."""
        tok = self._peek()
        after = self._peek(2)
        if tok is not None and tok.type == "ID" and after is not None and \
                (after.type == "ID" or after.type == "TIMES" and self._peek_type(3) == "ID"
                 and self._peek_type(4) in ("SEMI", "EQUALS", "COMMA", "RPAREN", "LBRACKET")):
            raise SyntaxErrorAt(f"unknown type name '{tok.value}'", self._token_location(tok))

    def _build_function_definition(self, spec, decl, param_decls, body):
        # pycparser accepts a body after any declarator (`int calls { ... }`, `a[3](x) {}`);
        # only a function declarator may have one. clang: "expected ';' after top level
        # declarator", just past the declarator's name.
        if not isinstance(decl, (c_ast.FuncDecl, FuncDeclExt)):
            typedecl = _innermost_typedecl(decl)
            name = getattr(typedecl, "declname", None) or ""
            coord = getattr(typedecl, "coord", None) or getattr(body, "coord", None)
            loc = (self._location(coord.line, (coord.column or 1) + len(name)) if coord
                   else self._end_location())
            raise SyntaxErrorAt("expected ';' after top level declarator", loc)
        return super()._build_function_definition(spec, decl, param_decls, body)

    def _parse_compound_statement(self):
        lbrace = self._peek()
        try:
            return super()._parse_compound_statement()
        except SyntaxErrorAt as err:
            # clang: "expected '}'" + "note: to match this '{'" (innermost open block).
            if err.message == "expected '}'" and not err.notes and lbrace is not None \
                    and lbrace.type == "LBRACE":
                err.notes.append(("to match this '{'", self._token_location(lbrace)))
            raise

    def _parse_identifier_list_opt(self):
        # K&R identifier lists `f(a, b)`: OpenCL C (C99) has no implicit int. clang's words.
        tok = self._peek()
        self._reject_unknown_type_name()
        if tok is not None and tok.type == "ID":
            raise SyntaxErrorAt(f"parameter '{tok.value}' was not declared, defaults to 'int'; "
                                "ISO C99 and later do not support implicit int",
                                self._token_location(tok))
        return super()._parse_identifier_list_opt()

    # --- scopes (C99 6.2.1): the base's stack of dicts, and the table of what is visible ---
    def _push_scope(self):
        self._scope_stack.append({})
        self._shadowed.append([])

    def _pop_scope(self):
        assert len(self._scope_stack) > 1
        self._scope_stack.pop()
        visible = self._visible
        for name, outer in reversed(self._shadowed.pop()):
            if outer is None:
                del visible[name]
            else:
                visible[name] = outer

    def _add_typedef_name(self, name, coord):
        first_here = name not in self._scope_stack[-1]
        super()._add_typedef_name(name, coord)
        self._declare_visible(name, True, first_here)

    def _add_identifier(self, name, coord):
        first_here = name not in self._scope_stack[-1]
        super()._add_identifier(name, coord)
        self._declare_visible(name, False, first_here)

    def _declare_visible(self, name, is_type, first_here):
        """`name` now means a type (is_type) or not; the outer meaning a first declaration
        in an inner scope hides is restored when that scope ends."""
        if first_here and self._shadowed:
            self._shadowed[-1].append((name, self._visible.get(name)))
        self._visible[name] = is_type

    def _is_type_in_scope(self, name):
        return self._visible.get(name, False)

    def _lex_on_rbrace_func(self):
        # A '}' with no '{' open: leave the file scope in place; the parser reports it.
        if len(self._scope_stack) > 1:
            self._pop_scope()

    def _parse_error(self, msg, coord):
        if msg in _AT_NEXT_TOKEN or msg == "Missing type in declaration":
            self._reject_unknown_type_name()
        if msg in _AT_NEXT_TOKEN:
            loc = self._token_location(self._peek())
        elif isinstance(getattr(coord, "line", None), int) and coord.line:
            loc = SourceLocation(coord.file or self.clex.filename or "<input>", coord.line,
                                 coord.column or 1)
        else:
            loc = self._token_location(self._peek())
        raise SyntaxErrorAt(_clang_message(msg, self._peek()), loc)

    # --- attributes: one place per declaration (see the module docstring) ----------
    def _parse_attribute(self):
        """`vec_type_hint(float4)` (OpenCL C 3.0 6.11.2) takes a type: FuncCall(ID, [Typename])."""
        tok = self._peek()
        if tok is not None and tok.type == "ID" and tok.value.strip("_") == "vec_type_hint" \
                and self._peek_type(2) == "LPAREN":
            self._advance()
            self._advance()
            typename = self._parse_type_name()
            self._expect("RPAREN")
            return c_ast.FuncCall(c_ast.ID(tok.value, coord=self._tok_coord(tok)),
                                  c_ast.ExprList([typename], typename.coord), coord=self._tok_coord(tok))
        return super()._parse_attribute()

    def _build_declarations(self, spec, decls, typedef_namespace=False):
        self._reject_combined_tag(spec, decls)
        functions = spec["function"]      # (empty in nearly every declaration)
        leading = functions and [item for item in functions if isinstance(item, AttributeSpecifier)]
        if leading:
            spec = dict(spec)
            spec["function"] = [item for item in spec["function"]
                                if not isinstance(item, AttributeSpecifier)]
        declarations = super()._build_declarations(spec, decls, typedef_namespace)
        if leading:
            exprs = [e for attr in leading for e in attr.exprlist.exprs]
            for declaration in declarations:
                _attach_attributes(declaration, exprs)
        return declarations

    def _reject_combined_tag(self, spec, decls):
        """`double union U { ... };`, `int struct S { ... };`: a struct, union or enum after
        another type specifier, with no declarator. pycparser's _build_declarations reads
        the tag as a type name there and fails (AttributeError, an internal error); this is
        clang's error instead (C11 6.7.2p2: one type specifier list per declaration)."""
        types = spec["type"]
        if decls[0].get("bitsize") is None and decls[0]["decl"] is None and len(types) >= 2 \
                and not isinstance(types[-1], c_ast.IdentifierType):
            before = types[-2]
            name = " ".join(before.names) if isinstance(before, c_ast.IdentifierType) else type(before).__name__.lower()
            self._parse_error(f"cannot combine with previous '{name}' declaration specifier", types[-1].coord)

    # --- recovery: one bad statement or declaration does not end the parse -----------
    def _parse_translation_unit_or_empty(self):
        if hasattr(self, "_pending_initial_type_symbols"):
            self._scope_stack[0].update(self._pending_initial_type_symbols)
            del self._pending_initial_type_symbols
        self._visible.clear()
        self._visible.update(self._scope_stack[0])
        self._shadowed.clear()
        ext = []
        while self._peek() is not None and len(self.errors) < MAX_SYNTAX_ERRORS:
            start = self._mark()
            stray = self._peek()
            if stray.type == "RBRACE":
                self.errors.append(SyntaxErrorAt("extraneous closing brace ('}')",
                                                 self._token_location(stray)))
                self._advance()
                continue
            try:
                ext.extend(self._parse_external_declaration())
            except SyntaxErrorAt as err:
                if len(self.errors) >= MAX_SYNTAX_ERRORS:
                    break
                self.errors.append(err)
                self._recover(start, stop_at_rbrace=False)
        return c_ast.FileAST(ext)

    def _loop_attributes_ahead(self):
        """Whether the next tokens are `__attribute__((...))`... before for/while/do."""
        k = 1
        while self._peek_type(k) in ("__ATTRIBUTE__", "__ATTRIBUTE"):
            depth, k = 0, k + 1
            while True:
                kind = self._peek_type(k)
                if kind is None:
                    return False
                depth += {"LPAREN": 1, "RPAREN": -1}.get(kind, 0)
                k += 1
                if depth == 0:
                    break
        return k > 1 and self._peek_type(k) in ("FOR", "WHILE", "DO")

    def _parse_statement(self):
        """A statement (C99 6.8). The commonest are dispatched on their first token here
        (throughput: the base's rules look for loop attributes, asm and labels first, a
        dozen calls a statement); the rest go through the base's rules. The same rules
        parse them (test_parse_fast_paths compares with the base's dispatch)."""
        tok = self._peek()
        kind = tok.type if tok is not None else None
        rule = _STATEMENT_RULES.get(kind)
        if rule is not None:
            return getattr(self, rule)()
        if kind == "ID":
            # Not a label (`x:`) and not what _reject_unknown_type_name reports (`T x`,
            # `T *x`): an expression statement.
            second = self._peek_type(2)
            if second is not None and second not in _NOT_AN_EXPRESSION_AFTER_NAME:
                return self._expression_statement()
        if self._loop_attributes_ahead():
            hint = self._loop_attributes(self._parse_attributes_opt())
            loop = super()._parse_statement()
            LOOP_UNROLL_HINTS[loop] = hint
            return loop
        return super()._parse_statement()

    def _expression_statement(self):
        """`expression ;` (C99 6.8.3) that starts with a name: _parse_expression_statement's
        rule after its checks, which such a statement passes."""
        self._semi_context.append("after expression")
        try:
            expr = self._parse_expression()
            self._expect("SEMI")
        finally:
            self._semi_context.pop()
        return expr

    def _loop_attributes(self, attrs):
        """Loop attributes (OpenCL C 3.0 6.11.5 `opencl_unroll_hint(n)`): the unroll count n,
        0 without an argument, None for an invalid one (LOOP_UNROLL_HINTS). An error here is
        reported and the loop parsed on, as clang does."""
        hint = 0
        for attr in attrs.exprs:
            callee = attr.name if isinstance(attr, c_ast.FuncCall) else attr
            args = attr.args.exprs if isinstance(attr, c_ast.FuncCall) and attr.args else []
            where = _coord_location(callee.coord)
            if not isinstance(callee, c_ast.ID):
                message = "expected ')'"        # `__attribute__((0(1)))`: clang's words, there
            elif callee.name.strip("_") != "opencl_unroll_hint":
                message = f"'{callee.name}' attribute cannot be applied to a statement"
            elif len(args) > 1:
                message = "'opencl_unroll_hint' attribute takes no more than 1 argument"
            elif args and not (_integer_constant(args[0]) or 0) > 0:
                message = ("'opencl_unroll_hint' attribute requires a positive integral compile time "
                           "constant expression")
            else:
                hint = _integer_constant(args[0]) if args else 0
                continue
            self.errors.append(SyntaxErrorAt(message, where))
            hint = None
        return hint

    def _parse_block_item(self):
        start = self._tokens._index       # the base's _mark() without its two calls
        try:
            # A declaration or a statement (C99 6.8.2), as the base's rule decides, loop
            # attributes (which could start a declaration) first.
            tok = self._peek()
            kind = tok.type if tok is not None else None
            if kind in _ATTRIBUTE_TOKENS:
                if self._loop_attributes_ahead():
                    return self._parse_statement()
                return self._parse_declaration()
            if kind in _OCL_DECL_START:
                return self._parse_declaration()
            return self._parse_statement()
        except SyntaxErrorAt as err:
            if len(self.errors) >= MAX_SYNTAX_ERRORS:
                raise
            self.errors.append(err)
            self._recover(start, stop_at_rbrace=True)
            return []

    def _recover(self, start, stop_at_rbrace):
        """Skip from `start` past the next ';' or balanced {...} at the same nesting level.

        Inside a block (stop_at_rbrace) a '}' that closes the block is left for the block.
        At least one token is consumed so that parsing always moves on.
        """
        self._reset(start)
        depth = 0
        first = self._peek()
        # In `for (a; b; c)` a ';' inside the parentheses does not end the statement.
        # Elsewhere an unclosed '(' is the likely error, so ';' ends the statement anyway.
        track_parens = first is not None and first.type == "FOR"
        parens = 0
        consumed = 0
        while True:
            tok = self._peek()
            if tok is None:
                return
            if tok.type == "RBRACE" and depth == 0 and stop_at_rbrace and consumed:
                return
            self._tokens.next()
            consumed += 1
            if tok.type == "LPAREN" and track_parens:
                parens += 1
            elif tok.type == "RPAREN":
                parens = max(parens - 1, 0)
            elif tok.type == "LBRACE":
                parens = 0   # an unclosed '(' before a block: the block still ends it
                depth += 1
            elif tok.type == "RBRACE":
                depth -= 1
                if depth <= 0:
                    if depth < 0 and stop_at_rbrace:
                        # A stray '}' at block level ends nothing: skip it and stop.
                        return
                    if self._peek_type() == "SEMI":
                        self._tokens.next()
                    return
            elif tok.type == "SEMI" and depth == 0 and parens == 0:
                return


# Loop statement (c_ast.For/While/DoWhile) -> its opencl_unroll_hint: the count, or 0 without
# one. c_ast nodes have __slots__, so the parser keeps this beside the tree; check reads it.
LOOP_UNROLL_HINTS = weakref.WeakKeyDictionary()


def _coord_location(coord):
    return SourceLocation(coord.file or "<input>", coord.line, coord.column or 1)


_CONSTANT_OPERATORS = {"+": int.__add__, "-": int.__sub__, "*": int.__mul__, "<<": int.__lshift__,
                       ">>": int.__rshift__, "&": int.__and__, "|": int.__or__, "^": int.__xor__,
                       "/": lambda a, b: int(a / b) if b else None, "%": lambda a, b: a % b if b else None}


def _integer_constant(node):
    """The value of an integer constant expression made of literals and + - * / % << >> & | ^
    and unary -/+ (an attribute argument after macro expansion), else None."""
    if isinstance(node, c_ast.Constant) and node.type.endswith("int"):
        return _int_literal(node.value)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        value = _integer_constant(node.expr)
        return None if value is None else (-value if node.op == "-" else value)
    if isinstance(node, c_ast.BinaryOp) and node.op in _CONSTANT_OPERATORS:
        left, right = _integer_constant(node.left), _integer_constant(node.right)
        if left is None or right is None:
            return None
        return _CONSTANT_OPERATORS[node.op](left, right)
    return None


def _int_literal(text):
    try:
        return int(text.rstrip("uUlL"), 0)
    except ValueError:
        return 0


def _attach_attributes(declaration, exprs):
    """Put attribute expressions where the module docstring says they are."""
    node = declaration.type if isinstance(declaration, (c_ast.Decl, c_ast.Typedef)) else None
    if isinstance(node, FuncDeclExt):
        if node.attributes is None:
            node.attributes = c_ast.ExprList([], node.coord)
        node.attributes.exprs[:0] = list(exprs)
        return
    parent = declaration
    while node is not None and not isinstance(node, c_ast.TypeDecl):
        parent, node = node, getattr(node, "type", None)
    if node is None:
        return
    if not isinstance(node, TypeDeclExt):
        ext = TypeDeclExt.from_pycparser(node)
        parent.type = ext
        node = ext
    if getattr(node, "attributes", None) is None:
        node.attributes = c_ast.ExprList([], node.coord)
    node.attributes.exprs[:0] = list(exprs)


def _innermost_typedecl(node):
    while node is not None and not isinstance(node, c_ast.TypeDecl):
        node = getattr(node, "type", None)
    return node


def attributes_of(node):
    """The attributes written on a declaration, as Attribute(name, args, coord) objects."""
    if isinstance(node, c_ast.FuncDef):
        node = node.decl
    target = node.type if isinstance(node, (c_ast.Decl, c_ast.Typedef, c_ast.Typename)) else node
    if isinstance(target, FuncDeclExt):
        exprlist = target.attributes
    else:
        typedecl = _innermost_typedecl(target)
        exprlist = getattr(typedecl, "attributes", None) if typedecl is not None else None
    result = []
    for expr in (exprlist.exprs if exprlist is not None else []):
        if isinstance(expr, c_ast.FuncCall) and isinstance(expr.name, c_ast.ID):
            args = list(expr.args.exprs) if expr.args is not None else []
            result.append(Attribute(expr.name.name, args, expr.coord))
        elif isinstance(expr, c_ast.ID) and expr.name:
            result.append(Attribute(expr.name, [], expr.coord))
    return result


def _clang_message(msg, next_tok):
    """pycparser's error texts in clang's words."""
    near = f"'{next_tok.value}'" if next_tok is not None else "end of file"
    if msg.startswith("before: "):
        return f"expected expression or declaration before {near}"
    table = {
        "Invalid expression": "expected expression",
        "Missing type in declaration": "type specifier missing",
        "Invalid declaration": "expected identifier or '('",
        "Invalid declarator": "expected identifier or '('",
        "Invalid abstract declarator": "expected a type",
        "Invalid constant": "invalid constant",
        "Expected identifier": "expected identifier",
        "Invalid multiple types specified": "cannot combine with previous type specifier",
        "Invalid function definition": "invalid function definition",
        "Invalid typedef": "invalid typedef",
        "Invalid statement": "expected statement",
        "Invalid designator": "expected a field designator",
        "Directives not supported yet": "unexpected preprocessor directive",
    }
    if msg in table:
        return table[msg]
    if msg.startswith("Illegal character"):
        return "invalid character " + msg[len("Illegal character"):].strip() + " in source"
    if msg.startswith("Typedef ") and "previously declared" in msg:
        return "redefinition of " + msg.split()[1] + " as different kind of symbol"
    if msg.startswith("Non-typedef ") and "previously declared" in msg:
        return "redefinition of " + msg.split()[1] + " as different kind of symbol"
    return msg[:1].lower() + msg[1:]


def type_names(target):
    """The names the parser treats as typedef names before the source declares any."""
    return frozenset(name for name in builtin_typedefs(target) if name not in _C_TYPE_KEYWORDS)


def parse(text, filename, diag, target):
    """Parse preprocessed text; syntax errors go to diag. Returns the (partial) FileAST."""
    parser = ClcoopParser()
    try:
        ast = parser.parse(text, filename, initial_type_symbols=type_names(target))
    except SyntaxErrorAt as err:      # raised outside any recovery point
        if len(parser.errors) < MAX_SYNTAX_ERRORS:
            parser.errors.append(err)
        ast = c_ast.FileAST([])
    except RecursionError:
        loc = parser._end_location()
        diag.error("expression or statement nested too deeply", loc)
        return c_ast.FileAST([])
    seen = set()
    for err in parser.errors:
        key = (err.location, err.message)
        if key not in seen:       # recovery can meet the same bad token twice
            seen.add(key)
            notes = [diag.note(message, loc) for message, loc in err.notes]
            diag.error(err.message, err.location, notes=notes)
    return ast
