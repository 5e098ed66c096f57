"""macro_expander (clcoop/frontend/macro_expander.py; issue 26: throughput) against the
expansion it replaces, pcpp_methods.expand_macros (itself held to pcpp's own in
test_preprocess_fast_paths), which is the oracle: the same preprocessed text, diagnostics
and "expanded from" records, over hand-written sources with every construct of macro
replacement (C99 6.10.3) and sources made at random from the same constructs; and the
cases macro_expander hands back to pcpp_methods (argument count errors, an invocation
left open, __COUNTER__) with pcpp's state after them."""
import random

import pytest

from clcoop.diagnostics import DiagnosticEngine
from clcoop.frontend import macro_expander as ME
from clcoop.frontend import pcpp_methods as PM
from clcoop.frontend import preprocess as PP


def _preprocess(text, read_midway=False):
    diag = DiagnosticEngine()
    if read_midway:     # the records drained while the file is preprocessed (an #error midway)
        diag.add_expansions_from(lambda table: None)
    out = PP.preprocess(text, "m.cl", [], {}, diag)
    expansions = {key: [(start, end, tuple(origin)) for start, end, origin in spans]
                  for key, spans in diag.expansions.items()}
    return out, diag.render_all(), expansions


def _by_pcpp_methods(monkeypatch, text):
    with monkeypatch.context() as patched:
        patched.setattr(PP._preprocessor_class(), "expand_macros", PM.expand_macros)
        return _preprocess(text)


# pcpp's quirks that macro_expander keeps: an argument's token is one object at each of its
# uses (its chain grows with expansions of its other uses), the space before an identifier
# after a function-like expansion shares that identifier's chain (and is marked by the
# expansions around, not by its own: P's pasted `)__LINE__`), an argument is expanded with
# no macro hidden, a name at an expansion's end takes its arguments from the text.
QUIRKS = r"""
#define F(x) [x]
#define G(x) F(x) x
#define H(x) F(x)x
#define ID(x) x
#define OBJ F
#define SELF SELF + 1
#define REC(x) REC(x) + x
#define TWICE(x) x x
#define CALL(m, a) m(a)
#define LINE __LINE__
#define STR(x) #x
#define XSTR(x) STR(x)
#define CAT(a, b) a ## b
#define CAT3(a, b, c) a ## b ## c
#define VA(fmt, ...) fmt(__VA_ARGS__) , ## __VA_ARGS__
#define EMPTY()
#define DEFER(m) m EMPTY()
int a = G(1) + H(2)y + ID(ID)(3) + OBJ(4) + SELF + REC(5) + TWICE(F(6));
int b = CALL(F, 7) + CALL(OBJ, 8) + CALL(ID, ID)(9) + LINE + ID(__LINE__) + ID(
  LINE) + XSTR(  CAT( x , y )  LINE ) + CAT(1, e) + CAT3(a, , c) + CAT(+, +) + CAT(., 5);
int c = VA(f) + VA(g, 1, 2) + DEFER(F)(10) + F(F(F(11))) + ID(F)ID(F)(12) F(13)F(14);
#define F(x) {x}
int d = G(15) + CAT(F, )(16) + ID(CAT)(F, )(17) + undeclared_name + ID(undeclared_arg);
#define A(y) y 2.5 y
#define P(x) - #x e x ## x A f
P ( __LINE__ 1 B C A ( ) );
"""

# Argument errors and invocations left open, which pcpp reports (and stops at), then
# __COUNTER__ and __LINE__ after them.
HANDED_BACK = r"""
#define TWO(a, b) a + b
#define ATLEAST(a, b, ...) a + b
#define COUNT __COUNTER__ + __COUNTER__
int x = TWO(1) + ATLEAST(1) + __LINE__ + COUNT;
int y = COUNT + __LINE__ + TWO(3, 4);
int z = TWO(1, 2
"""
AFTER_OPEN = r"""
#define ID(x) x
int w = ID(__LINE__) + __LINE__;
"""


@pytest.mark.parametrize("source", [QUIRKS, HANDED_BACK, HANDED_BACK + AFTER_OPEN, QUIRKS + HANDED_BACK + QUIRKS])
def test_expands_as_pcpp_methods(monkeypatch, source):
    assert _preprocess(source) == _by_pcpp_methods(monkeypatch, source)


def test_records_read_midway_are_the_same(monkeypatch):
    source = QUIRKS + "\n#error stop here\n" + QUIRKS
    ours = _preprocess(source, read_midway=True)
    assert ours == _by_pcpp_methods(monkeypatch, source)
    assert "stop here" in ours[1] and ours[2]


def test_what_it_does_not_take_is_handed_back(monkeypatch):
    """An argument error, an invocation left open, __COUNTER__: pcpp_methods expands the
    run, from the tokens and the counter as they were."""
    handed = []
    real = PM.expand_macros

    def counting(pp, tokens, expanding_from=[]):     # noqa: B006
        if not expanding_from and pp.pcpp_expansions == 1:
            handed.append(len(tokens))
        return real(pp, tokens, expanding_from)

    monkeypatch.setattr(ME, "pcpp_expand_macros", counting)
    text, rendered, _ = _preprocess(HANDED_BACK)
    assert len(handed) == 1 and "0 + 1" in text and "2 + 3" in text
    assert "macro TWO requires 2 arguments but was passed 1" in rendered
    handed.clear()
    _preprocess(QUIRKS)
    assert handed == []


def test_an_include_operand_is_expanded_twice_as_by_pcpp(monkeypatch, tmp_path):
    (tmp_path / "inc.h").write_text("int from_include = 1;\n")
    source = f'#define NAME "{tmp_path}/inc.h"\n#define ID(x) x\n#include ID(NAME)\nint z = ID(2);\n'
    ours = _preprocess(source)
    assert "from_include" in ours[0]
    assert ours == _by_pcpp_methods(monkeypatch, source)


# Made at random: macros of every kind calling each other, invoked in text with nested
# parentheses, line breaks, pastes, strings, __LINE__ and a few errors.
_NAMES = ["A", "B", "C", "D", "E", "P", "Q"]
_PIECES = ["x", "y", "1", "2.5", "+", "(", ")", ",", "f", "__LINE__", "#x", "x ## y", "y ## 1", "x ## x",
           ".", "0x1p", "-", "e"]


def _random_body(rng, params):
    words = []
    for _ in range(rng.randint(0, 7)):
        choice = rng.random()
        if choice < 0.35:
            words.append(rng.choice(_NAMES))
        elif choice < 0.6 and params:
            words.append(rng.choice(params))
        else:
            piece = rng.choice(_PIECES)
            if ("x" in piece or "y" in piece) and piece not in ("x", "y") and not params:
                piece = "z"
            elif "#x" == piece and "x" not in params:
                piece = "q"
            elif "##" in piece and not ({"x", "y"} & set(params)):
                piece = "w"
            elif "##" in piece:
                piece = piece.replace("x", params[0]).replace("y", params[-1])
            words.append(piece)
    text = " ".join(words)
    return text.replace("( )", "()")


def _random_source(rng):
    lines = []
    for name in _NAMES:
        kind = rng.random()
        if kind < 0.3:
            lines.append(f"#define {name} {_random_body(rng, [])}")
        elif kind < 0.85:
            params = rng.sample(["x", "y"], rng.randint(1, 2))
            lines.append(f"#define {name}({', '.join(params)}) {_random_body(rng, params)}")
        else:
            lines.append(f"#define {name}(x, ...) {_random_body(rng, ['x', '__VA_ARGS__'])}")
    for _ in range(4):
        words = []
        depth = 0
        for _ in range(rng.randint(3, 14)):
            choice = rng.random()
            if choice < 0.35:
                words.append(rng.choice(_NAMES))
            elif choice < 0.5:
                words.append("(")
                depth += 1
            elif choice < 0.62 and depth:
                words.append(")")
                depth -= 1
            elif choice < 0.7:
                words.append(",")
            elif choice < 0.75:
                words.append("\n ")
            else:
                words.append(rng.choice(["v", "1", "2.5", "__LINE__", "+", "w", "0x1p"]))
        if rng.random() < 0.9:
            words += [")"] * depth
        lines.append(" ".join(words) + ";")
    return "\n".join(lines) + "\n"


def test_random_sources_expand_as_pcpp_methods(monkeypatch):
    rng = random.Random(26)
    compared = handed_back = 0
    for _ in range(120):
        source = _random_source(rng)
        ours = _preprocess(source)
        assert ours == _by_pcpp_methods(monkeypatch, source), source
        compared += 1
        handed_back += "macro" in ours[1] or "unterminated" in ours[1]
    assert compared == 120 and 5 < handed_back < 100
