"""The preprocessor's fast token copy (clcoop/frontend/preprocess.py, _copy_token, installed as
pcpp's LexToken.__copy__; issue 26: throughput). It must make what copy.copy makes without it
(copy's generic path: a new instance, the same attributes), so the preprocessed text is the
same with and without it."""
import copy

from pcpp.parser import LexToken

from clcoop.diagnostics import DiagnosticEngine
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
    fast = PP._copy_token(tok)
    generic = copy._reconstruct(tok, None, *tok.__reduce_ex__(4))
    assert type(fast) is type(generic) is LexToken
    assert fast.__dict__ == generic.__dict__ == tok.__dict__
    assert fast is not tok and fast.__dict__ is not tok.__dict__
    assert fast.expanded_from is tok.expanded_from      # shallow, as copy.copy is
    fast.value = "y"
    assert tok.value == "x"


def test_pcpps_tokens_are_copied_by_it():
    PP._preprocessor_class()
    assert LexToken.__dict__.get("__copy__") is PP._copy_token


def test_the_same_text_and_expansions_with_the_generic_copy(monkeypatch):
    fast = _preprocess(MACRO_HEAVY)
    with monkeypatch.context() as patched:
        PP._preprocessor_class()
        patched.delattr(LexToken, "__copy__")
        generic = _preprocess(MACRO_HEAVY)
    assert fast == generic
    assert "int8" in fast[0] and fast[1] == "" and len(fast[2]) >= 5
