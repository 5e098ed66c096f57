"""Macro-heavy sources (pocl's test_bitselect.cl: a 1,000-number argument used by 48
expansions) took 24 s and 1.2 GB to preprocess: pcpp appends to the macro list of an
argument's token at every use, and clcoop found every token's place in every listed
macro's #define as it was written. Each macro is now named once per token, and the places
are found only for a token a diagnostic lands on."""
import random

from clcoop.diagnostics import DiagnosticEngine
from clcoop.frontend import driver
from clcoop.frontend import preprocess as P

USES = 48


def macro_heavy_source(numbers=100):
    rng = random.Random(26)
    variants = " ".join(f"BODY_OF(NAME, EXPR, t{k})" for k in range(USES))
    table = "".join(f"\n  {rng.getrandbits(32)}U," for _ in range(numbers))     # one a line, as pocl's
    return (f"#define BODY_OF(NAME, BODY, T) void NAME##_##T() {{ BODY; }}\n"
            f"#define DEFINE_ALL(NAME, EXPR) {variants}\n"
            f"DEFINE_ALL(test, ({{ uint const randoms[] = {{{table}\n}}; }}))\n")


def preprocess(source):
    options = driver.CompileOptions(filename="m.cl")
    diag = DiagnosticEngine()
    P.preprocess(source, "m.cl", [], driver.predefined_macros(options), diag)
    assert diag.error_count == 0, diag.render_all()
    return diag


def test_places_in_macros_are_found_only_when_a_diagnostic_asks(monkeypatch):
    calls = []
    real = P._place_in_macro
    monkeypatch.setattr(P, "_place_in_macro", lambda *args: calls.append(args) or real(*args))
    diag = preprocess(macro_heavy_source())
    origins = [origin for spans in diag.expansions.values() for _, _, origin in spans]
    assert len(origins) > USES * 100 and not calls
    invocation, chain = origins[-1]                 # what a diagnostic there would show
    assert [name for name, _ in chain] == ["DEFINE_ALL", "BODY_OF"] and calls


def test_each_macro_is_named_once_in_an_expansion_chain():
    diag = preprocess(macro_heavy_source(numbers=3))
    for spans in diag.expansions.values():
        for _, _, origin in spans:
            _, chain = origin
            names = [name for name, _ in chain]
            assert len(names) == len(set(names)) <= 2, names
