"""Overload resolution's fast paths (clcoop/frontend/builtins.py, issue 26: throughput):
`_best_viable` finds the best candidate in two passes, and `_better` decides rank lists
without an ill-formed conversion directly. Both must agree with the definitions they
replace (C++ [over.match.best] as clang applies it to C), written out here as the oracle."""
import itertools
import random

from clcoop.frontend import builtins as B
from clcoop.frontend.types import SCALARS as S, VectorType


def _better_by_definition(ranks_a, ranks_b):
    bad_a = [r == B.INCOMPATIBLE for r in ranks_a]
    bad_b = [r == B.INCOMPATIBLE for r in ranks_b]
    if any(a and not b for a, b in zip(bad_a, bad_b)):
        return False
    if any(b and not a for a, b in zip(bad_a, bad_b)):
        return True
    return all(a <= b for a, b in zip(ranks_a, ranks_b)) and ranks_a != ranks_b


def _best_by_definition(viable):
    best = [(o, r) for o, r in viable
            if all(_better_by_definition(r, r2) for o2, r2 in viable if o2 is not o)]
    return best[0] if len(best) == 1 else None


RANKS = (B.EXACT, B.PROMOTION, B.CONVERSION, B.WIDENING, B.VOID_POINTER, B.INCOMPATIBLE)


def test_better_agrees_with_the_definition_on_every_pair_of_rank_lists():
    for length in (1, 2, 3):
        lists = [list(p) for p in itertools.product(RANKS, repeat=length)]
        for a in lists:
            for b in lists:
                assert B._better(a, b) == _better_by_definition(a, b), (a, b)


def test_the_two_pass_best_is_the_definitions_best():
    rng = random.Random(26)
    found = ambiguous = 0
    for _ in range(3000):
        arity = rng.randint(1, 3)
        # Few distinct ranks make ties and ambiguities common, as in real overload sets.
        pool = rng.sample(RANKS, rng.randint(2, len(RANKS)))
        viable = [(object(), [rng.choice(pool) for _ in range(arity)])
                  for _ in range(rng.randint(1, 12))]
        if rng.random() < 0.2:        # the same candidate twice (skipped by identity)
            viable.append(viable[0])
        expected = _best_by_definition(viable)
        assert B._best_viable(viable) == expected, viable
        found += expected is not None
        ambiguous += expected is None
    assert found > 300 and ambiguous > 300      # both outcomes exercised


def test_select_overload_picks_as_before_for_a_family_of_vector_types():
    """A user's overloadable function for 48 vector types (pocl's tests), called with each."""
    names = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong")
    types = [S[n] for n in names] + [VectorType(S[n], c) for n in names for c in (2, 3, 4, 8, 16)]
    family = [B.BuiltinOverload("f", t, (t, t), f"f_{i}") for i, t in enumerate(types)]
    for t in types:
        chosen = B.select_overload("f", family, [t, t])
        assert chosen.params == (t, t)
    # int and a vector: only the vector candidate is viable (the int widens); int, long: ambiguous.
    assert B.select_overload("f", family, [S["int"], VectorType(S["int"], 4)]).params[0] == VectorType(S["int"], 4)
    try:
        B.select_overload("f", family, [S["int"], S["long"]])
    except B.BuiltinMismatch as exc:
        assert exc.message == "call to 'f' is ambiguous"
    else:
        raise AssertionError("int, long should be ambiguous")


# A user's overloadable family: its records are made once per set of declarations and each
# choice is kept per argument types (ExpressionChecks.overload_set).
GROWING_FAMILY = """
__attribute__((overloadable)) int f(float x) { return 1; }
kernel void before(global int *o) { o[0] = f(1); o[1] = f(2); }
__attribute__((overloadable)) int f(int x) { return 2; }
kernel void after(global int *o) { o[0] = f(1); o[1] = f(1.0f); }
"""


def _callees(ir, kernel):
    body = ir.split(f"@{kernel}(", 1)[1].split("\n}\n", 1)[0]
    return [line.split("@", 1)[1].split("(", 1)[0] for line in body.splitlines() if " call " in line]


def test_a_declaration_after_a_call_joins_the_overload_set():
    from clcoop.frontend import driver
    ir = driver.compile_source(GROWING_FAMILY, driver.CompileOptions(filename="family.cl")).ir
    # Before f(int) is declared, f(1) converts to float; after, it is an exact match.
    assert _callees(ir, "before") == ["_Z1ff", "_Z1ff"]
    assert _callees(ir, "after") == ["_Z1fi", "_Z1ff"]


def test_each_argument_type_list_is_resolved_once(monkeypatch):
    from clcoop.frontend import check_expr, driver
    resolved = []
    real = B.select_overload

    def counted(name, candidates, arg_types, exact=None):
        resolved.append(tuple(arg_types))
        return real(name, candidates, arg_types, exact)
    monkeypatch.setattr(check_expr._builtins, "select_overload", counted)
    source = ("__attribute__((overloadable)) int g(int x) { return x; }\n"
              "__attribute__((overloadable)) float g(float x) { return x; }\n"
              "kernel void k(global int *o, global float *p) {\n"
              + "".join(f"  o[{i}] = g({i}); p[{i}] = g({i}.5f);\n" for i in range(20)) + "}\n")
    driver.compile_source(source, driver.CompileOptions(filename="calls.cl"))
    assert resolved == [(S["int"],), (S["float"],)]


def _outcome(name, candidates, arg_types, exact=None):
    try:
        return B.select_overload(name, candidates, arg_types, exact)
    except B.BuiltinMismatch as exc:
        return exc.message, tuple(getattr(exc, "notes", ()))


BUILTIN_NAMES = ("mad_sat", "abs", "max", "clamp", "select", "bitselect", "rotate", "vload4",
                 "atomic_add", "fract", "convert_int4_sat", "sqrt", "mix", "shuffle", "atomic_cmpxchg",
                 "vstore_half4_rte", "frexp")


def test_an_exact_match_is_the_full_resolutions_choice():
    """select_overload with the exact_overloads index against the same call without it: every
    candidate's own parameter types, then lists built from the family's types (exact or not,
    pointers and qualifiers, scalars widening, ambiguous ones), and a family with two
    candidates of the same parameters."""
    from clcoop.frontend.types import Target
    target = Target("spir64-unknown-unknown")
    rng = random.Random(26)
    taken = 0
    for name in BUILTIN_NAMES:
        candidates = B.overloads(name, target)
        exact = B.exact_overloads(candidates)
        assert exact
        pool = sorted({t for o in candidates for t in o.params}, key=repr) + [S["int"], S["float"]]
        lists = [list(o.params) for o in candidates]
        lists += [[rng.choice(pool) for _ in o.params] for o in candidates for _ in range(3)]
        for arg_types in lists:
            fast = _outcome(name, candidates, arg_types, exact)
            assert fast == _outcome(name, candidates, arg_types), (name, arg_types)
            taken += B._exact_match(exact, arg_types) is not None
    assert taken > 300
    twice = [B.BuiltinOverload("f", S["int"], (S["int"],), "a"), B.BuiltinOverload("f", S["long"], (S["int"],), "b")]
    assert _outcome("f", twice, [S["int"]], B.exact_overloads(twice))[0] == "call to 'f' is ambiguous"


def test_an_exact_match_ranks_only_its_candidate(monkeypatch):
    names = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong")
    types = [VectorType(S[n], c) for n in names for c in (2, 3, 4, 8, 16)]
    family = [B.BuiltinOverload("f", t, (t, t, t), f"f_{i}") for i, t in enumerate(types)]
    ranked = []
    real = B.conversion_rank
    monkeypatch.setattr(B, "conversion_rank", lambda arg, param: ranked.append(1) or real(arg, param))
    t = VectorType(S["short"], 8)
    assert B.select_overload("f", family, [t, t, t], B.exact_overloads(family)).params == (t, t, t)
    assert len(ranked) == 3
    B.select_overload("f", family, [t, t, t])
    assert len(ranked) > 3 + len(family)
