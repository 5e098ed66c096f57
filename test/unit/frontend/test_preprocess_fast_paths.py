"""The preprocessor's fast paths (clcoop/frontend/preprocess.py; issue 26: throughput), each
against the slower path it replaces, which is the oracle:
- the token copy (copy_token, installed as pcpp's LexToken.__copy__, and TokenCopies, which
  stands for the copy module inside pcpp) makes what copy.copy makes without it (copy's
  generic path: a new instance, the same attributes);
- expand_macros, pcpp's expand_macros without its per-token bookkeeping, expands as pcpp's;
- the expansion chains kept per chain of macro names follow a macro's redefinition, and a
  long chain found by its list is the chain of its names;
- the lexer's first-character patterns match as ply's master pattern, and group_lines
  groups as pcpp's group_lines with them and without;
- the rescan of an expansion from its end (_rescan_start) and macro_expand_args expand as
  pcpp's expand_macros and macro_expand_args;
- _emit_tokens writes what _FileText.position and the writer's method wrote, and records
  inline what _record_expansion's calls recorded;
so the preprocessed text, the diagnostics and the expansion records are the same."""
import copy
import os
import re

import pcpp.preprocessor
from pcpp import Preprocessor
from pcpp.parser import LexToken

from clcoop.diagnostics import DiagnosticEngine
from clcoop.frontend import macro_expander as ME
from clcoop.frontend import pcpp_methods as PM
from clcoop.frontend import preprocess as PP

MACRO_HEAVY = r"""
#define CAT(a, b) a##b
#define STR(x) #x
#define XSTR(x) STR(x)
#define TWICE(x) ((x) + (x))
#define VEC(T, n) CAT(T, n)
#define DEFINE(T, n) VEC(T, n) CAT(f_, CAT(T, n))(VEC(T, n) a) { return TWICE(a) * (VEC(T, n))(__LINE__); }
#define ALL(T) DEFINE(T, 2) DEFINE(T, 4) DEFINE(T, 8)
#define CPREC(a) a##f
ALL(int)
ALL(float)
constant char *s = XSTR(TWICE(CAT(x, y)));
float g(void) { return CPREC(-1.5) + CPREC(0.5); }
#undef TWICE
#define TWICE(x) (2 * (x))
int h(int v) { return TWICE(v) + __LINE__; }
#define VARIADIC(fmt, ...) fmt, __VA_ARGS__
#define FN(x) x
#define OBJ FN
#define COUNT __COUNTER__ + __COUNTER__
int v[] = { VARIADIC(1, 2, 3), VARIADIC(4), COUNT, OBJ(5) FN, FN (6), __LINE__ };
int w = TWICE(TWICE(TWICE(__LINE__)));
"""
# What pcpp reports and keeps going after: argument counts, an invocation left open.
MACRO_ERRORS = r"""
#define TWO(a, b) a + b
#define ATLEAST(a, b, ...) a + b
int x = TWO(1) + ATLEAST(1) + __LINE__;
int y = TWO(1, 2
"""


# Where rescanning an expansion with what follows it expands more (a function-like macro's
# name at an expansion's end, its `(` after it), and expansions scanned short (an invocation
# left open inside, its `)` after the expansion) or with an argument error, which pcpp
# reports again at each rescan.
RESCANS = r"""
#define F(x) [x]
#define OBJ F
#define OBJ2 OBJ /* c */
#define G(x) x F
#define H() OBJ
#define TWO(a, b) a + b
#define OPEN F(
#define ERR TWO(1)
#define NESTED_ERR G(ERR)
#define SELF SELF + F
#define LATER(m) m
int a[] = { OBJ(1), OBJ2 (2), G(3)(4), H()(5), OPEN 6), G(OPEN) 7), NESTED_ERR (0), G(G(8))(9) };
int b = SELF(10) + LATER(F) /* c */ (11) + LATER(LATER)(F)(12) + OBJ2
  (13) + G(OBJ)(14)(15) + F(OPEN 16)) + G(F(F)) (17) + __LINE__ + LATER(__LINE__) + OBJ;
"""


def _preprocess(text):
    diag = DiagnosticEngine()
    out = PP.preprocess(text, "m.cl", [], {}, diag)
    expansions = {key: [(start, end, tuple(origin)) for start, end, origin in spans]
                  for key, spans in diag.expansions.items()}
    return out, diag.render_all(), expansions


def test_the_copy_is_copys_generic_copy():
    tok = LexToken()
    tok.type, tok.value, tok.lineno, tok.lexpos, tok.source = "CPP_ID", "x", 3, 17, "f.cl"
    tok.expanded_from = ["M"]
    fast = PM.copy_token(tok)
    generic = copy._reconstruct(tok, None, *tok.__reduce_ex__(4))
    assert type(fast) is type(generic) is LexToken
    assert fast.__dict__ == generic.__dict__ == tok.__dict__
    assert fast is not tok and fast.__dict__ is not tok.__dict__
    assert fast.expanded_from is tok.expanded_from      # shallow, as copy.copy is
    fast.value = "y"
    assert tok.value == "x"


def test_pcpps_tokens_are_copied_by_it():
    PP._preprocessor_class()
    assert LexToken.__dict__.get("__copy__") is PM.copy_token


def test_the_same_text_and_expansions_with_the_generic_copy(monkeypatch):
    fast = _preprocess(MACRO_HEAVY)
    with monkeypatch.context() as patched:
        PP._preprocessor_class()
        patched.delattr(LexToken, "__copy__")
        generic = _preprocess(MACRO_HEAVY)
    assert fast == generic
    assert "int8" in fast[0] and fast[1] == "" and len(fast[2]) >= 5


def test_pcpps_copies_go_through_the_token_copy():
    PP._preprocessor_class()
    assert isinstance(pcpp.preprocessor.copy, PM.TokenCopies)
    tok = LexToken()
    tok.type, tok.value, tok.lineno, tok.lexpos, tok.source = "CPP_ID", "x", 3, 17, "f.cl"
    copied = pcpp.preprocessor.copy.copy(tok)
    assert type(copied) is LexToken and copied is not tok and copied.__dict__ == tok.__dict__
    tokens = [tok]
    copied = pcpp.preprocessor.copy.copy(tokens)      # pcpp copies argument lists too
    assert copied == tokens and copied is not tokens and copied[0] is tok


def test_the_same_text_and_expansions_with_the_copy_module(monkeypatch):
    fast = _preprocess(MACRO_HEAVY)
    with monkeypatch.context() as patched:
        PP._preprocessor_class()
        patched.setattr(pcpp.preprocessor, "copy", copy)
        generic = _preprocess(MACRO_HEAVY)
    assert fast == generic


def test_expand_macros_expands_as_pcpps(monkeypatch):
    """pcpp_methods.expand_macros and macro_expander's (the Preprocessor's expand_macros:
    PP._expand_macros) against pcpp's own."""
    cls = PP._preprocessor_class()
    assert cls.expand_macros is PP._expand_macros
    for source in (MACRO_HEAVY, MACRO_ERRORS, RESCANS, MACRO_ERRORS + RESCANS + MACRO_HEAVY,
                   LONG_CHAINS, ALTERNATING):
        fast = _preprocess(source)
        with monkeypatch.context() as patched:
            patched.setattr(cls, "expand_macros", PM.expand_macros)
            methods = _preprocess(source)
            patched.setattr(cls, "expand_macros", Preprocessor.expand_macros)
            pcpps = _preprocess(source)
        assert fast == methods == pcpps
    heavy, errors = _preprocess(MACRO_HEAVY), _preprocess(MACRO_ERRORS)
    assert "0 + 1," in heavy[0] and "( 2 * ( 22 ) )" in heavy[0]    # __COUNTER__, __LINE__ nested
    assert "macro TWO requires 2 arguments but was passed 1" in errors[1]
    assert "macro ATLEAST must have at least 2 arguments" in errors[1]


REDEFINED = """#define F(x) (x + undeclared_a)
int f1(void) { return F(1); }
#undef F
#define F(x) (x + undeclared_b)
int f2(void) { return F(2); }
"""


def test_an_expansion_names_the_definition_in_force():
    """Both expansions have the chain (F,); the second's note is at the second #define."""
    from clcoop.errors import CompileError
    from clcoop.frontend import driver
    try:
        driver.check_source(REDEFINED, driver.CompileOptions(filename="redef.cl"))
    except CompileError as exc:
        rendered = exc.rendered
    notes = [line for line in rendered.splitlines() if "expanded from macro 'F'" in line]
    assert notes == ["redef.cl:1:19: note: expanded from macro 'F'",
                     "redef.cl:4:19: note: expanded from macro 'F'"]


def _line_starts_by_scanning(joined):
    starts = [0]
    for index, char in enumerate(joined):
        if char == "\n":
            starts.append(index + 1)
    return starts


def test_line_starts_are_where_the_scan_finds_them():
    """_FileText sums the line lengths where it scanned every character for newlines."""
    for text in ("", "\n", "a", "a\n", "int x;  \n\n  y\r\nz\x0cw\u2028v\n\n", MACRO_HEAVY, "x\n" * 50):
        entry = PP._FileText("f.cl", text)
        assert entry.line_starts == _line_starts_by_scanning(entry.joined), repr(text)


def _preprocess_recording_eagerly(monkeypatch, source):
    """_preprocess with every expansion record drained into the table as it is made (the
    table as DiagnosticEngine kept it before it was filled when read); the records are made
    by _record_expansion's calls (_emit_tokens_by_calls), _emit_tokens makes them inline."""
    record = PP._record_expansion

    def eager(pp, *args):
        record(pp, *args)
        PP._drain_expansions(pp, pp.diag._expansions)

    with monkeypatch.context() as patched:
        patched.setattr(PP, "_record_expansion", eager)
        patched.setattr(PP, "_emit_tokens", _emit_tokens_by_calls)
        return _preprocess(source)


def test_the_expansion_table_filled_when_read_is_the_eager_one(monkeypatch):
    """The records are turned into DiagnosticEngine.expansions's entries only when a
    diagnostic (or anyone) reads the table; the entries and their order are those of adding
    each at once, diagnostics reported in the middle of the file (MACRO_ERRORS) included."""
    for source in (MACRO_HEAVY, MACRO_ERRORS, REDEFINED, MACRO_ERRORS + MACRO_HEAVY):
        lazy = _preprocess(source)
        assert lazy == _preprocess_recording_eagerly(monkeypatch, source)
    assert any(len(spans) > 1 for spans in _preprocess(MACRO_HEAVY)[2].values())


def test_the_expansion_table_is_not_made_without_a_reader():
    diag = DiagnosticEngine()
    PP.preprocess(MACRO_HEAVY, "m.cl", [], {}, diag)
    assert diag._expansions == {}
    assert len(diag.expansions) >= 5 and diag.expansions is diag._expansions


def _position_by_search(entry, tok, lineno=None):
    """_FileText.position as it was: the line found by a binary search of the line starts."""
    import bisect
    pos = getattr(tok, "lexpos", None)
    if pos is None or entry.joined[pos:pos + len(tok.value)] != tok.value:
        return None
    line_index = bisect.bisect_right(entry.line_starts, pos) - 1
    if line_index + 1 != (lineno or tok.lineno):
        return None
    return line_index + 1, pos - entry.line_starts[line_index] + 1


def test_a_tokens_position_is_what_the_search_finds():
    """position checks the token's own line instead of searching every line start."""
    entry = PP._FileText("m.cl", MACRO_HEAVY)
    found = 0
    for lexpos in range(len(entry.joined) + 2):
        for length in (1, 3):
            for lineno in (None, 0, 1, 2, 5, 9, 14, 22, 23, 24, 40):
                tok = PP._Token(lexpos, entry.joined[lexpos:lexpos + length] or "x", lineno)
                for given in (None, 3, 9):
                    expected = _position_by_search(entry, tok, given)
                    assert entry.position(tok, given) == expected, (lexpos, length, lineno, given)
                    found += expected is not None
    assert found > len(entry.joined)


def _continues_pp_number_as_it_was(run, text):
    number = PP._trailing_pp_number(run)
    if number is None:
        return False
    return text[:1].isalnum() or text[:1] in "._" or (number[-1] in "eEpP" and text[:1] in "+-")


def test_a_pp_number_is_continued_as_before():
    """_continues_pp_number answers without searching the run when the text starts with
    what continues no pp-number or the run ends with what ends none."""
    runs = ["", "x", "1", "-1.5", "0x1.fe", "1e", "1.5e", "x1", "(1", "a.b", ".5", "1p", "++", "(", ",",
            "x(", "1e+", "1e-", "1+", "\u00e9", "1\u00e9", "1\u0663", "1_", "1 ", "1)"]
    texts = ["", "f", "5", ".", "_", "+", "-", "(", ")", ",", "+1", "e", "\u00e9", " "]
    for run in runs:
        for text in texts:
            assert PP._continues_pp_number(run, text) == _continues_pp_number_as_it_was(run, text), (run, text)


# What pcpp's lexer meets: continuations, comments over lines, strings with escapes and
# continued lines, a character or string left open, characters no rule takes (`@`, `$`, a
# backslash), numbers pcpp splits (1.5f, 0x1p3), non-ASCII names and blanks, no final newline.
LEXER_TEXT = ("#define LONG(a) a + \\\n  a \\  \n  * 2\n/* one\n two */ int x = 1.5f + 0x1p3 + 07u;\n"
              "char *s = \"a\\\"b\\\n c\"; char c = '\\n', d = L'x'; // tail\n"
              "@ $ ` \\ \x0c\t \u00e9t\u00e9 x\u00e9 \"open\n'open\n/* open\nend")


def _grouped(pp_class, text, fast):
    pp = pp_class(DiagnosticEngine())
    pp.fast_group_lines = fast
    lines = []
    for line in pp.group_lines(text, "/src/f.cl"):
        lines.append([{key: ("lexer" if key == "lexer" else value) for key, value in tok.__dict__.items()}
                      for tok in line])
    return lines


def test_the_lines_are_grouped_as_pcpps_group_lines(monkeypatch):
    """group_lines lexes with ply's master pattern inline, whole or by the first character
    (_FirstCharMatcher: a text of _FIRST_CHAR_MIN_TEXT characters and more); pcpp's
    group_lines (ply's Lexer.token) is the oracle: the same tokens, attributes (the lexer a
    rule saw included) and lines."""
    cls = PP._preprocessor_class()
    assert cls.group_lines is PM.group_lines
    for by_first_char in (False, True):
        monkeypatch.setattr(PM._FirstCharMatcher, "_made", {})
        monkeypatch.setattr(PM, "_FIRST_CHAR_MIN_TEXT", 0 if by_first_char else 10 ** 9)
        for text in (LEXER_TEXT, MACRO_HEAVY, MACRO_ERRORS, REDEFINED, "", "\n", "x", "\\", "a\\\n",
                     ALL_CHARACTERS):
            fast = _grouped(cls, text, True)
            assert fast == _grouped(cls, text, False), text
        assert bool(PM._FirstCharMatcher._made) == by_first_char
    lines = _grouped(cls, LEXER_TEXT, True)
    kinds = {tok["type"] for line in lines for tok in line}
    assert {"CPP_LINECONT", "CPP_COMMENT1", "CPP_STRING", "CPP_CHAR", "CPP_COMMENT2", "@", "CPP_DQUOTE",
            "CPP_SQUOTE"} <= kinds, kinds


def test_the_same_text_and_expansions_with_pcpps_group_lines(monkeypatch):
    for by_first_char in (False, True):
        monkeypatch.setattr(PM._FirstCharMatcher, "_made", {})
        monkeypatch.setattr(PM, "_FIRST_CHAR_MIN_TEXT", 0 if by_first_char else 10 ** 9)
        fast = [_preprocess(source) for source in (MACRO_HEAVY, MACRO_ERRORS, LEXER_TEXT)]
        with monkeypatch.context() as patched:
            patched.setattr(PP._preprocessor_class(), "fast_group_lines", False)
            slow = [_preprocess(source) for source in (MACRO_HEAVY, MACRO_ERRORS, LEXER_TEXT)]
        assert fast == slow


def test_a_small_text_is_lexed_without_making_the_first_character_patterns(monkeypatch):
    """Making the patterns costs more than a small kernel's lexing gains (compile latency):
    a text shorter than _FIRST_CHAR_MIN_TEXT is lexed by the master whole until a longer
    one has made them; then the process keeps them for every text."""
    monkeypatch.setattr(PM._FirstCharMatcher, "_made", {})
    _preprocess(MACRO_HEAVY)
    assert PM._FirstCharMatcher._made == {}
    long_text = "int x;\n" * (PM._FIRST_CHAR_MIN_TEXT // 7 + 1)
    assert _preprocess(long_text)[0].count("int x;") == PM._FIRST_CHAR_MIN_TEXT // 7 + 1
    (matcher,) = PM._FirstCharMatcher._made.values()
    assert matcher.alternatives is not None and "i" in matcher.by_char
    before = dict(matcher.by_char)
    _preprocess("int y;\n")
    assert "y" in matcher.by_char and len(matcher.by_char) > len(before)


# An argument used many times (pocl's DEFINE_BODY_G: a 1,000-token body used 48 times):
# each use appends to the chain list its tokens share, past _LONG_CHAIN names; F redefined
# between two uses, and an error inside the expansion, which the expansion note must name.
LONG_CHAINS = r"""
#define USE4(b) b b b b
#define USE16(b) USE4(b) USE4(b) USE4(b) USE4(b)
#define BODY(T) T f_##T(T x) { return x + undeclared_##T + F(x); }
#define F(x) (x * 2)
USE16(BODY(int))
#undef F
#define F(x) (x + undeclared_f)
USE16(USE4(BODY(float)))
"""
# Tokens passed through two macros in turn (A, B, A, B, ...): each expansion appends its
# name to the chain list the tokens share, so the list stays long with a name appended once
# per expansion (_expanded_at); an error in the tokens names the macros in the note.
ALTERNATING = r"""
#define A(y) y
#define B(y) y
#define ALT(x) A(x) B(x) A(x) B(x) A(x) B(x) A(x) B(x) A(x) B(x) A(x) B(x) A(x) B(x) A(x) B(x) A(x) B(x)
#define BODY(T) T g_##T = undeclared_##T;
ALT(BODY(int))
"""


def test_long_chains_found_by_their_list_are_the_chains_of_names(monkeypatch):
    """_record_expansion looks a chain of more than _LONG_CHAIN names up by its list (id and
    length) instead of a tuple of its names; the oracle is every chain looked up by its names,
    and by its list (_LONG_CHAIN 0): the same text, diagnostics and expansion records."""
    from clcoop.errors import CompileError
    from clcoop.frontend import driver

    def compile_errors(source):
        try:
            driver.check_source(source, driver.CompileOptions(filename="m.cl"))
        except CompileError as exc:
            return exc.rendered
        return ""

    results = {}
    for limit in (PP._LONG_CHAIN, 10 ** 9, 0):
        monkeypatch.setattr(PP, "_LONG_CHAIN", limit)
        results[limit] = [(_preprocess(source), compile_errors(source))
                          for source in (LONG_CHAINS, ALTERNATING, MACRO_HEAVY, REDEFINED, MACRO_ERRORS)]
    assert results[PP._LONG_CHAIN] == results[10 ** 9] == results[0]
    (text, _, expansions), rendered = results[0][0]
    chains = [len(origin[1]) for spans in expansions.values() for _, _, origin in spans]
    assert max(chains) >= 3 and "undeclared_f" in text
    assert "note: expanded from macro 'BODY'" in rendered and "undeclared_int" in rendered


def test_a_long_chain_is_found_by_its_list(monkeypatch):
    """(pcpp_methods' expansion: an Expansion's tokens are recorded without a chain lookup.)"""
    cls = PP._preprocessor_class()
    monkeypatch.setattr(cls, "expand_macros", PM.expand_macros)
    pp = cls(DiagnosticEngine())
    pp.register(os.path.abspath("m.cl"), "m.cl", ALTERNATING)
    pp.parse(ALTERNATING, "m.cl")
    PP._emit_tokens(pp, PP._Writer(), {"tokens": 0})
    by_list = [key for key in pp.expansion_chains if isinstance(key[0], int)]
    assert by_list and all(len(pp.expansion_chains[key][0]) == key[1] > PP._LONG_CHAIN for key in by_list)


def _longest_chain(source):
    """The most macro names an expanded token of `source` carries (its expanded_from list)."""
    pp = PP._preprocessor_class()(DiagnosticEngine())
    pp.register(os.path.abspath("m.cl"), "m.cl", source)
    pp.parse(source, "m.cl")
    longest = 0
    for tok in _pcpp_stream(pp.parser):
        longest = max(longest, len(getattr(tok, "expanded_from", None) or ()))
    return longest


def test_a_name_is_appended_to_a_shared_chain_once_per_expansion(monkeypatch):
    """_expanded_at does not append a macro's name right after itself (pcpp appends it once
    per copy of a token in the expansion, to the list the copies share); pcpp's
    expand_macros, which appends every time, is the oracle: the same text, diagnostics and
    expansion records, from much shorter lists."""
    cls = PP._preprocessor_class()
    ours = [(_preprocess(source), _longest_chain(source)) for source in (LONG_CHAINS, ALTERNATING)]
    with monkeypatch.context() as patched:
        patched.setattr(cls, "expand_macros", Preprocessor.expand_macros)
        pcpps = [(_preprocess(source), _longest_chain(source)) for source in (LONG_CHAINS, ALTERNATING)]
    assert [result for result, _ in ours] == [result for result, _ in pcpps]
    (long_ours, alternating_ours), (long_pcpps, alternating_pcpps) = \
        [[length for _, length in results] for results in (ours, pcpps)]
    assert long_ours <= 6 < PP._LONG_CHAIN < 50 <= long_pcpps
    assert PP._LONG_CHAIN < alternating_ours < alternating_pcpps
    text, _, expansions = ours[1][0]
    names = {name for spans in expansions.values() for _, _, origin in spans for name, _ in origin[1]}
    assert text.count("undeclared_int") == 18 and names == {"ALT", "A", "B", "BODY"}


# Every character up to U+00FF, Unicode digits, letters and separators, an emoji.
ALL_CHARACTERS = "".join(map(chr, range(256))) + "\u0663\u0967\u00e9\u2028\u3000\U0001f600"


def _matches_as_master(master, index_funcs, text):
    """The number of alternatives tried at each character, after checking that the first
    character's pattern matches at every position of `text` what `master` matches, with
    the rule the master takes."""
    matcher = PM._FirstCharMatcher(master, index_funcs)
    for pos in range(len(text)):
        expected = master.match(text, pos)
        pattern, funcs = matcher.by_char[text[pos]]
        found = pattern.match(text, pos)
        assert (found is None) == (expected is None), (master.pattern, text[pos:pos + 10])
        if found is not None:
            assert found.span() == expected.span(), (master.pattern, text[pos:pos + 10])
            assert funcs[found.lastindex] == index_funcs[expected.lastindex], text[pos:pos + 10]
    return {char: len(pattern.groupindex) for char, (pattern, _) in matcher.by_char.items()}


def test_the_first_character_patterns_match_as_pcpps_master_pattern():
    """group_lines matches with a pattern of the master's alternatives that can start with
    the character at hand; ply's master pattern is the oracle, at every position."""
    pp = PP._preprocessor_class()(DiagnosticEngine())
    master, index_funcs = pp.lexer.lexre[0]
    text = LEXER_TEXT + MACRO_HEAVY + MACRO_ERRORS + ALL_CHARACTERS + "0x1fUL 1.5e+3f 07 \u0663\u0663 L'a' L\"s\""
    tried = _matches_as_master(master, index_funcs, text)
    rules = len(master.groupindex)
    assert rules > 50 and PM._FirstCharMatcher(master, index_funcs).alternatives is not None
    # A name, a blank, a parenthesis try their own rule, L a character constant first, a digit
    # the integer and float rules; and each pcpp's t_CPP_XOREQUAL, r'^=', an anchor (`^` not
    # escaped: it only matches at the text's start), which is tried everywhere, as the master does.
    assert tried["x"] == tried[" "] == tried["("] == 2 and tried["L"] == tried["7"] == 3
    assert list(PM._FirstCharMatcher(master, index_funcs).by_char["x"][0].groupindex) == ["t_CPP_ID", "t_CPP_XOREQUAL"]


def test_the_first_characters_of_other_constructs():
    """Alternatives that start with an optional part, a negated or category class, a
    lookahead, an inline ignore-case group or `|` in a class (the splitter's cases) still
    match as the master; what _first_chars does not follow is tried at every character."""
    rules = [r"x?y", r"[^a-c]b", r"\d+", r"(?=z)zz", r"(?i:k)", r"[|]\|", r"[]q]w", r"(a|)c", r"\s\S",
             r"\w\W", r"(ab)*d", r"e{0,2}f", r"^g", r"[\D]h"]
    master = re.compile("|".join(f"(?P<r{index}>{rule})" for index, rule in enumerate(rules)), re.VERBOSE)
    index_funcs = [None] * (master.groups + 1)
    for name, index in master.groupindex.items():
        index_funcs[index] = (None, name)
    text = "xy y zb ab 12 zz z kK |\\| ]w qw w c ac abd abababd d ef eef f g h 1h \t. x_ " + ALL_CHARACTERS
    tried = _matches_as_master(master, index_funcs, text)
    assert tried["b"] < len(rules) and tried["1"] < len(rules)
    for kept in ("z", "k", "g"):        # lookahead, ignore-case, anchor: tried everywhere
        assert tried[kept] >= 3
    assert PM._top_level_alternatives(r"(a|b)|[|(]|\||c") == ["(a|b)", "[|(]", r"\|", "c"]
    assert PM._top_level_alternatives(r"[]|]|[^]|]|x") == ["[]|]", "[^]|]", "x"]


def _write_expanded(writer, file, line, text, adjacent):
    """_Writer.expanded as it was, before _emit_tokens wrote expanded tokens itself."""
    if writer.file is None or line > writer.line or file != writer.file:
        writer._new_line(file, line)
        adjacent = False
    glued = adjacent and PP._continues_pp_number(writer.run, text)
    writer.run = writer.run + text if glued else text
    if writer.col > 1 and not glued:
        writer.parts.append(" ")
        writer.col += 1
    writer.parts.append(text)
    writer.col += len(text)
    writer.last_expanded = True
    return writer.col - len(text)


def _pcpp_stream(parser):
    """pcpp's parser's tokens as pcpp leaves them: an Expansion's by its pcpp_tokens."""
    for tok in parser:
        if isinstance(tok, ME.Expansion):
            yield from tok.pcpp_tokens()
        else:
            yield tok


def _emit_tokens_by_calls(pp, writer, state):
    """_emit_tokens as it was: each token's place by _FileText.position, each expanded token
    written by _write_expanded and recorded by _record_expansion (macro_expander's
    Expansions as the tokens pcpp leaves)."""
    from clcoop.diagnostics import SourceLocation
    pending_quote, previous, adjacent, invocation_cols = None, None, False, {}
    for tok in _pcpp_stream(pp.parser):
        if tok.type in pp.ignore:
            continue
        if tok.type in PP._WS_TYPES:
            previous, adjacent = None, False
            continue
        entry, file = pp.files.get(tok.source), pp.display_name(tok.source)
        pos = entry.position(tok) if entry else None
        state["tokens"] += 1
        if pos is None:
            line = tok.lineno
            if file == writer.file and writer.line > line:
                line = writer.line
            out_col = _write_expanded(writer, file, line, tok.value, adjacent)
            if entry is not None:
                PP._record_expansion(pp, tok, entry, file, writer.line, out_col, invocation_cols)
            previous, adjacent = None, True
            continue
        line, col = pos
        if not getattr(tok, "expanded_from", None):
            invocation_cols[(file, line)] = col + len(tok.value)
        if tok.type == "CPP_STAR" and previous is not None and previous[0] == "CPP_FSLASH" \
                and previous[1:] == (tok.source, line, col - 1):
            pp.diag.error("unterminated /* comment", SourceLocation(file, line, col - 1))
            return
        if tok.type in ("CPP_DQUOTE", "CPP_SQUOTE") and pending_quote is None:
            pending_quote = tok.value
            pp.diag.error(f"missing terminating {tok.value} character" if tok.value == "'"
                          else "missing terminating '\"' character", SourceLocation(file, line, col))
        previous = (tok.type, tok.source, line, col)
        writer.original(file, line, col, tok.value, adjacent)
        adjacent = True
    pp.parser = None


# Expanded numbers glued and not (C99 6.10.3.3), expansions across lines, a token written
# at its column after an expansion, an argument on its own line.
EMITTED = r"""#define F(x) x##f + x ## .5e ## -3 + 0x1.fp ## -2 + 1e + x
#define G(a, b) a b
#define E 1e
float f = F(0.5) + F(1) + E-3 + G(1, .5) +
  G(x
    , 2) + F(
  7);
int after = G(1,2);   int next;
"""


# pocl's common.cl pattern (test_bitselect.cl, the common_hadd.cl tests): a body given as an
# argument, put in a function per type by a macro invoked once per type, a macro redefined
# between two uses, an error inside the expansion (its "expanded from" notes), a string made
# of an argument, and __LINE__ in the body.
POCL_SHAPED = r"""
#define count_bits(T) (8 * sizeof(T))
#define IMPLEMENT(NAME, BODY, SIZE, GTYPE, SGTYPE) \
  void NAME##_##GTYPE() {                         \
    typedef GTYPE gtype;                          \
    typedef SGTYPE sgtype;                        \
    constant char *typename = #GTYPE;             \
    const int vecsize = SIZE;                     \
    BODY;                                         \
  }
#define DEFINE(NAME, EXPR)                 \
  IMPLEMENT(NAME, EXPR, 1, char, char)     \
  IMPLEMENT(NAME, EXPR, 2, char2, char)    \
  IMPLEMENT(NAME, EXPR, 4, int4, int)      \
  IMPLEMENT(NAME, EXPR, 16, uint16, uint)
DEFINE(test_body, ({
  int const bits = count_bits(sgtype);
  for (int n = 0; n < vecsize; ++n) {
    gtype v = (gtype)(bits + n + __LINE__);
    if (v.s0 != undeclared_value) printf("%s %d\n", typename, n);
  }
}))
#undef count_bits
#define count_bits(T) (sizeof(T) << 3)
DEFINE(again, ({ int b = count_bits(gtype); }))
"""


def test_expanded_tokens_are_written_as_by_position_and_the_writer(monkeypatch):
    """_emit_tokens finds an original token's place and writes and records an expanded token
    itself; the oracle is _FileText.position, _Writer's expanded method it had and
    _record_expansion, over sources with expansions of every kind (POCL_SHAPED: pocl's
    common.cl pattern) and the examples' kernels: the same text, diagnostics and records."""
    from pathlib import Path
    examples = sorted(Path(__file__).resolve().parents[3].joinpath("examples").rglob("*.cl"))[:12]
    sources = [EMITTED, MACRO_HEAVY, MACRO_ERRORS, RESCANS, LONG_CHAINS, REDEFINED, LEXER_TEXT, POCL_SHAPED]
    sources += [path.read_text() for path in examples]
    fast = [_preprocess(source) for source in sources]
    with monkeypatch.context() as patched:
        patched.setattr(PP, "_emit_tokens", _emit_tokens_by_calls)
        patched.setattr(PP._preprocessor_class(), "plain_lines", False)   # (pcpp's tokens only)
        by_calls = [_preprocess(source) for source in sources]
    assert fast == by_calls
    assert "0.5f" in fast[0][0] and "1.5e-3" in fast[0][0] and "0x1.fp-2" in fast[0][0] and len(examples) >= 5


# Replacement lists with `#` (blanks in the argument collapsed), `##` (between arguments,
# with an empty argument, at a list's ends, pasting what lexes as two tokens), `##` given
# in an argument and made by a paste, the variadic comma patch, an argument used many times.
PASTES = r"""
#define CAT(a, b) a ## b
#define CAT3(a, b, c) a ## b ## c
#define STR(x) #x
#define XSTR(x) STR(x)
#define EDGE(a) ## a ##
#define SPLIT(a, b) a ## b
#define HASHES # ## #
#define PASS(x) x
#define LOG(fmt, ...) printf(fmt, ## __VA_ARGS__)
#define MANY(x) x x x x x x x x x x x x x x x x x x
#define EMPTY_LEFT(a, b) [ a ## b ]
int CAT(x, 1) = CAT3(1, 2, 3) + CAT(, y) + CAT(z, ) + SPLIT(+, -) + SPLIT(., 5);
const char *s = STR(  a   "b\n"   c  ) XSTR(CAT(p, q)) STR( PASS(HASHES) );
EDGE(e) PASS(a ## b) PASS(HASHES) LOG("x") LOG("y", 1, 2) MANY(CAT(m, n)) EMPTY_LEFT(, w);
"""


def test_macro_expand_args_expands_as_pcpps(monkeypatch):
    """macro_expand_args (the body copied in a loop, the `##` pass only where there is a
    `##`) against pcpp's macro_expand_args: the same text, diagnostics and expansions."""
    cls = PP._preprocessor_class()
    assert cls.macro_expand_args is PM.macro_expand_args
    sources = (PASTES, MACRO_HEAVY, MACRO_ERRORS, RESCANS, LONG_CHAINS, EMITTED)
    fast = [_preprocess(source) for source in sources]
    with monkeypatch.context() as patched:
        patched.setattr(cls, "macro_expand_args", Preprocessor.macro_expand_args)
        pcpps = [_preprocess(source) for source in sources]
    assert fast == pcpps
    text = fast[0][0]
    assert "int x1 " in text and "= 123 " in text and '"a \\"b\\\\n\\" c"' in text and "mn mn" in text
    assert 'printf (      "x" )' in text      # the comma before an empty __VA_ARGS__ removed
