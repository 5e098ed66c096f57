"""Plain lines written through without pcpp's tokens (clcoop/frontend/plain_runs.py; issue 26:
throughput) against the token path they replace (`plain_lines = False`: every line lexed
into pcpp's tokens, expanded and written token by token), which is the oracle: the same
preprocessed text (#line markers included), diagnostics and "expanded from" table (read at
the end and midway), over every kernel of examples/ and test/lit, sources of the cases a
plain line must not hide (macros named in strings, comments and after numbers, comments
over lines, continuations, #line, quotes and comments left open, invocations over plain
lines, disabled lines, include guards, trigraphs, tabs, the last line) and random sources
of plain and macro lines; and that the plain lines are written through."""
import random
from pathlib import Path

import pytest

from clcoop.diagnostics import DiagnosticEngine
from clcoop.frontend import driver
from clcoop.frontend import plain_runs as PR
from clcoop.frontend import preprocess as PP

ROOT = Path(__file__).resolve().parents[3]


def _preprocess(text, filename="m.cl", read_midway=False, defines=None):
    diag = DiagnosticEngine()
    if read_midway:     # the records drained while the file is preprocessed (an #error midway)
        diag.add_expansions_from(lambda table: None)
    options = driver.CompileOptions(filename=filename)
    out = PP.preprocess(text, filename, list(options.include_dirs),
                        driver.predefined_macros(options) if defines is None else defines, diag)
    expansions = {key: [(start, end, tuple(origin)) for start, end, origin in spans]
                  for key, spans in diag.expansions.items()}
    return out, diag.render_all(), expansions


def _both(monkeypatch, text, **kwargs):
    """(plain lines written through, every line as tokens), and the (file name, line number)
    of each line of a source, not of the default header, that the first wrote through."""
    written = []
    real = PP._Writer.plain_lines

    def counting(writer, file, lines):
        if not file.endswith(PP.DEFAULT_HEADER_NAME):
            written.extend((Path(file).name, line) for line, *_ in lines)
        return real(writer, file, lines)

    with monkeypatch.context() as patched:
        patched.setattr(PP._Writer, "plain_lines", counting)
        plain = _preprocess(text, **kwargs)
    with monkeypatch.context() as patched:
        patched.setattr(PP._preprocessor_class(), "plain_lines", False)
        tokens = _preprocess(text, **kwargs)
    return plain, tokens, written


# Macros named where a plain line must see them (after a number: pcpp lexes `1.5f` as 1 . 5 f,
# `1llu` as 1l lu, `0x1p3` as 0x1 p3), in strings and comments (not expanded, but the line is
# not taken), and plain lines around them: comments, strings with `#`, `/*` and quotes,
# character constants, tabs, punctuators, blank lines.
NAMES = r"""
#define f + 100
#define lu * 3
#define p3 - 7
#define MAC 42
#define FN(x) [x]
float a = 1.5f, b = 1llu, c = 0x1p3, d = 2.0;
int e = 3;	/* a	comment */  int g	= 4; // a line comment
const char *s = "MAC in a string # /* not a comment */ 'q' \" \\";
const char *t = "no macro here # /* */ ' \t";   int h = 'x' + L'y' + '\'' + '"';
int i = a/b + c/ d; int j = i /= 2;  /* MAC */
char k[] = "tab	inside";	  	int l = k[0]?1:0, m = ~l ^ l | l & l % 3;

  /* only a comment */
	// only a line comment
int n = MAC + FN(1);  int o = FN
(2);
int p = FN
  /* a comment between */ (3), q = FN    // a name at the line's end
   ;
int r = sizeof(int) * (2 + 3);
(void)0;
"""

# Comments over lines, continuations, #line, directives after comments, the last line.
LINES = "\n".join([
    "int a; /* a comment",
    "   over lines MAC */ int b;",
    "#define MAC 1",
    "int c = 2 \\",
    "  + MAC; int d = 3;",
    "int e = 4; // a line comment \\",
    "  continued",
    "int f = 5;",
    "/* x */ #define LATE 6",
    "int g = LATE;",
    "#line 100 \"other.cl\"",
    "int h = 7;",
    "    ",
    "",
    "int i = 8;",
    "int \\",
    "j = 9;",
    "int k = 10;"])       # no newline at the end

# What _emit_tokens reports on a plain-looking line: a quote and a comment left open, a
# character pcpp makes a token of its own; #error and #warning between plain lines.
ERRORS = r"""
int a = 1;
#warning here
int b = 2;
const char *s = "open;
int c = 3;
char d = 'e;
int e = 4 @ $ 5;
#error stop here
int f = 6;
int g = 7; /* never closed
int h = 8;
"""

# Invocations whose arguments (and `(`) lie on plain lines, disabled lines inside one, a
# name at a run's end, an invocation left open at the end of the text.
INVOCATIONS = r"""
#define F(x, y) {x | y}
#define G(x) #x
#define OBJ F
int a[] = { F(1,
   2), F(
   3, 4
   ), OBJ
   (5, 6), G(
      a  b
      c) };
int b[] = { F(7,
#if 0
   never,
#endif
   8), F(9,
#ifdef F
   10
#else
   11
#endif
   ) };
int c = 12;
int d = F
int e = 13;
int y = F(16,
   17;
int w = 18;
int v = 19;
int z = F(14,
   15
"""

# Include guards after blank lines, an included file of plain lines, included twice.
INCLUDER = '\n\n#include "inc.h"\n#include "inc.h"\nint main_line = INC_VALUE;\n'
INCLUDED = ("\n\n#ifndef INC_H\n#define INC_H\n\nint included = 1;\nint more = 2;\n"
            "#define INC_VALUE 3\n#endif\n")

# Names pcpp or the compiler treats apart; a trigraph (the positions after one replaced are
# no longer the source's: no line of that file is written through).
SPECIAL = "int a = 1;\nint b = __LINE__;\nint c = __COUNTER__ + __COUNTER__;\n#define Z\n" \
          "_Pragma(\"OPENCL EXTENSION cl_khr_fp16 : enable\")\nint d = defined;\nint e = 3;\nint f;\n"
TRIGRAPH = "int a = 1 ??- 2;\nint b = 3;\nint c = 4;\n"

QUIRKS = {"names": NAMES, "lines": LINES, "errors": ERRORS, "invocations": INVOCATIONS, "special": SPECIAL,
          "trigraph": TRIGRAPH,
          "empty": "\n\n   \n/* nothing */\n", "one line": "int x;", "no newline": "int x;\nint y;"}


@pytest.mark.parametrize("name", sorted(QUIRKS))
def test_quirk_sources_as_the_token_path(monkeypatch, name):
    plain, tokens, _ = _both(monkeypatch, QUIRKS[name])
    assert plain == tokens
    plain, tokens, _ = _both(monkeypatch, QUIRKS[name], read_midway=True)
    assert plain == tokens


def test_what_plain_lines_hold_is_seen(monkeypatch):
    """The lines that must not be taken are not: their macros expand, their errors are
    reported; the others are written through."""
    (text, rendered, _), _, written = _both(monkeypatch, NAMES, defines={})
    assert "1.5 + 100" in text and "1l * 3" in text and "0x1 - 7" in text and "int n = 42 " in text
    assert '"MAC in a string' in text and "[  1 ]" in text and "[ 2 ]" in text and "[ 3 ]" in text
    assert "int e = 3;" in text and "int g = 4;" in text and "int r = sizeof(int) * (2 + 3);" in text
    assert written == [("m.cl", n) for n in (8, 10, 12, 20, 21)] and rendered == ""     # (not the last line: pcpp's newline)
    (text, rendered, _), _, _ = _both(monkeypatch, ERRORS, defines={})
    for message in ("missing terminating '\"' character", "stop here",
                    "unterminated /* comment", "here"):
        assert message in rendered
    (text, _, _), _, written = _both(monkeypatch, SPECIAL, defines={})
    # (__COUNTER__: the text before the #define is expanded by pcpp_methods, from its tokens)
    assert "int b = 2 " in text and "int c = 0 " in text and written == [("m.cl", 7)]
    assert _both(monkeypatch, TRIGRAPH, defines={})[2] == []
    (text, rendered, _), _, _ = _both(monkeypatch, INVOCATIONS, defines={})
    assert "{ 1 | 2 }" in text and "{ 7 | 8 }" in text and "{ 9 | 10 }" in text and '"a b c"' in text
    assert "int y = F(16," in text and "int w = 18;" in text


def test_an_included_file_and_its_guard(monkeypatch, tmp_path):
    (tmp_path / "inc.h").write_text(INCLUDED)
    main = tmp_path / "main.cl"
    main.write_text(INCLUDER)
    plain, tokens, written = _both(monkeypatch, INCLUDER, filename=str(main))
    assert plain == tokens and written == [("inc.h", 6), ("inc.h", 7)]
    assert plain[0].count("int included = 1;") == 1 and "int main_line = 3 " in plain[0]


def test_every_kernel_of_the_examples_and_lit(monkeypatch):
    """Every .cl file of examples/ and test/lit (errors and all), as its own file."""
    paths = sorted((ROOT / "examples").glob("**/*.cl")) + sorted((ROOT / "test" / "lit").glob("**/*.cl"))
    assert len(paths) > 200
    written = 0
    for path in paths:
        plain, tokens, count = _both(monkeypatch, path.read_bytes(), filename=str(path))
        assert plain == tokens, path
        written += len(count)
    assert written > 1500


# Made at random: lines of plain code, macro names (object-like, function-like with their
# arguments over lines), comments (some over lines), strings naming macros, numbers with
# suffixes, blank lines and #define/#undef between them.
_PLAIN = ["int", "x", "=", "1", "1.5f", "0x1p3", "1lu", ";", "(", ")", ",", "+", "/", "a/b", "'c'",
          '"s A"', '"B # /*"', "/* c */", "/* A */", "\t", "  ", "->", "[0]", "{", "}"]
_MACROS = ["A", "B", "F", "f", "lu", "p3"]


def _random_line(rng):
    words = []
    for _ in range(rng.randint(0, 9)):
        choice = rng.random()
        if choice < 0.12:
            words.append(rng.choice(_MACROS))
        elif choice < 0.16:
            words.append(rng.choice(["F(", "F (", "(", "/* open", "close */", "// end"]))
        else:
            words.append(rng.choice(_PLAIN))
    return " ".join(words)


def _random_source(rng):
    lines = ["#define A 1", "#define B(x) x + A", "#define F(x, y) [x y]", "#define f 2"]
    for _ in range(rng.randint(10, 40)):
        choice = rng.random()
        if choice < 0.06:
            lines.append(rng.choice(["#define lu 3", "#undef A", "#define A (4)", "#define p3 5", "#undef f"]))
        elif choice < 0.1:
            lines.append("")
        else:
            lines.append(_random_line(rng))
    return "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")


def test_random_sources_as_the_token_path(monkeypatch):
    rng = random.Random(2611)
    written = 0
    for _ in range(150):
        source = _random_source(rng)
        plain, tokens, count = _both(monkeypatch, source, defines={})
        assert plain == tokens, source
        written += len(count)
    assert written > 300


@pytest.mark.parametrize("line", ["int x = 1;", "  a  /* c */ b // d", '"MAC" x', "x/y", "'a' L'b'", "\t x", ""])
def test_a_plain_lines_text_is_the_line_with_its_gaps_blank(line):
    """What line_shape writes is the line with each comment and blank as spaces, from its
    first token, and the last touching tokens are the writer's run."""
    names, written = PR.line_shape(line)
    if not line.strip():
        assert written == ()
        return
    col, text, run = written
    blank = line.replace("/* c */", "       ").replace("// d", "    ").replace("\t", " ").rstrip()
    assert col == len(blank) - len(blank.lstrip()) + 1 and text == blank.lstrip()
    assert run == text.split(" ")[-1] or run == text


@pytest.mark.parametrize("line", ["#define X", "  # x", "a \\", 'x = "open', "y = 'c", "/* open", "a @ b", "a $ b",
                                  "x\\y", "\x01"])
def test_lines_that_are_not_plain(line):
    assert PR.line_shape(line) is None


def test_a_line_of_blanks_and_token_characters_is_written_as_the_pattern_says():
    """_blanks_and_tokens, the shortcut for lines without quotes, comments, `#` or `\\`,
    against _pieces (the pattern), over random lines of those characters."""
    rng = random.Random(18)
    alphabet = " \t\t  aZ_09x!%&()*+,-.:;<=>?[]^{|}~"
    for _ in range(3000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))).rstrip()
        assert PR._NOT_BLANK_OR_TOKEN.search(line) is None
        assert PR._blanks_and_tokens(line) == PR._pieces(line), repr(line)


def test_the_default_header_as_the_token_path(monkeypatch):
    """The default header preprocessed each way (no cached result): the same text, and
    its plain lines written through."""
    monkeypatch.setenv("CLCOOP_NO_CACHE", "1")
    header_lines = []
    real = PP._Writer.plain_lines

    def counting(writer, file, lines):
        header_lines.extend(lines)
        return real(writer, file, lines)

    outputs = []
    for plain in (True, False):
        with monkeypatch.context() as patched:
            patched.setattr(PP._preprocessor_class(), "plain_lines", plain)
            patched.setattr(PP._Writer, "plain_lines", counting)
            patched.setattr(PP, "_HEADER_CACHE", {})
            outputs.append(_preprocess("int x;\n"))
    assert outputs[0] == outputs[1] and len(header_lines) > 50
