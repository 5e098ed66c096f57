"""The checker is composed of parts, not mixins (issue 27, "Composition over mixins").

Each part is a class of its own module that inherits nothing and receives what it uses
(the CheckContext, the expression checker, other parts) in its constructor; so every
`self.<name>` a part reads is defined in that class itself (a method, a class constant,
or an attribute it assigns). The test reads the modules as text (ast), so it also fails
when a new mixin or an undeclared dependency on a sibling part's method comes back.
"""
import ast
from pathlib import Path

import pytest

from clcoop.frontend import check
import class_parts
from class_parts import defined_names, undefined_self_uses

FRONTEND = Path(check.__file__).resolve().parent
# module -> the checker class it holds (check.Checker composes the others).
PARTS = {
    "check.py": "Checker",
    "check_support.py": "CheckContext",
    "check_expr.py": "ExpressionChecks",
    "check_stmt.py": "StatementChecks",
    "literals.py": "Literals",
    "constfold.py": "ConstantFolding",
    "conversions.py": "Conversions",
    "asm_check.py": "InlineAsmChecks",
    "coop_tensor_check.py": "CoopTensorChecks",
    "coop_check.py": "CoopChecks",
    "decl_types.py": "DeclTypes",
    "initializers.py": "Initializers",
    "builtin_calls.py": "BuiltinCalls",
}


def class_node(module, name):
    return class_parts.class_node(FRONTEND, module, name)


@pytest.mark.parametrize("module,name", sorted(PARTS.items()))
def test_part_inherits_nothing(module, name):
    cls = class_node(module, name)
    assert not cls.bases, f"{module}: {name} inherits {[ast.unparse(b) for b in cls.bases]}"


@pytest.mark.parametrize("module,name", sorted(PARTS.items()))
def test_part_uses_only_what_it_defines_or_receives(module, name):
    assert undefined_self_uses(class_node(module, name)) == []


def test_a_mixin_is_caught():
    """The rule fails on the mixin shape this replaced (a method of a sibling class)."""
    cls = ast.parse("class Part:\n    def f(self, node):\n        return self.rvalue(self.expr(node))\n").body[0]
    assert undefined_self_uses(cls) == [(3, "expr"), (3, "rvalue")]


def test_checker_composes_every_part():
    """check.Checker and its ExpressionChecks build one of each part, all sharing one
    CheckContext; the parts that type operands are given the ExpressionChecks, the
    statements the Checker as their declarations."""
    from clcoop.diagnostics import DiagnosticEngine
    from clcoop.frontend import types as T
    checker = check.Checker(DiagnosticEngine(), T.SPIR64)
    expressions = checker.expressions
    owners = (checker, expressions, checker.statements)
    parts = {type(v).__name__: v for owner in owners for v in vars(owner).values()}
    for name in set(PARTS.values()) - {"Checker"}:
        assert name in parts, name
        if name != "CheckContext":
            assert parts[name].ctx is checker.ctx, name
        if hasattr(parts[name], "expressions"):
            assert parts[name].expressions is expressions, name
    assert checker.statements.declarations is checker
