"""The lowering is composed of parts, not mixins (issue 27, "Composition over mixins"; the
checker's test_check_parts and the native subgroup generator's test_native_subgroup_parts
hold the same rule).

lower.Lowerer (types, module-level objects, functions, statements) builds
lower_expr.ExpressionLowering, which builds lower_coop.CoopLowering and
lower_tensor.TensorLowering; each is handed the Lowerer as `lw`, the one it emits through.
A part inherits nothing; every `self.<name>` it reads is its own or an object it was
handed; what it uses of the Lowerer is the list its module declares (LOWERER_USES), each a
public name the Lowerer defines. The expression parts' `ex_<node>` handlers are one table:
no node is lowered by two parts. The tests read the modules as text (ast).
"""
import ast
import importlib
from pathlib import Path

import pytest

from clcoop.frontend import lower, lower_expr
from clcoop.frontend.types import Target
import class_parts
from class_parts import defined_names, received_uses, undefined_self_uses

FRONTEND = Path(lower.__file__).resolve().parent
# module -> the part class it holds (lower.Lowerer composes them).
PARTS = {
    "lower_expr.py": "ExpressionLowering",
    "lower_coop.py": "CoopLowering",
    "lower_tensor.py": "TensorLowering",
}


def class_node(module, name):
    return class_parts.class_node(FRONTEND, module, name)


def handler_names(module, name):
    """The class's ex_<node> methods (defined, or assigned as `ex_X = method`)."""
    return {n for n in defined_names(class_node(module, name)) if n.startswith("ex_")}


@pytest.mark.parametrize("module,name", sorted(PARTS.items()) + [("lower.py", "Lowerer")])
def test_class_inherits_nothing(module, name):
    cls = class_node(module, name)
    assert not cls.bases, f"{module}: {name} inherits {[ast.unparse(b) for b in cls.bases]}"


@pytest.mark.parametrize("module,name", sorted(PARTS.items()) + [("lower.py", "Lowerer")])
def test_class_uses_only_what_it_defines_or_receives(module, name):
    assert undefined_self_uses(class_node(module, name)) == []


@pytest.mark.parametrize("module,name", sorted(PARTS.items()))
def test_part_uses_only_the_lowerer_interface_it_declares(module, name):
    """Every use of the Lowerer is in the module's LOWERER_USES, each of those a public
    name the Lowerer defines (no stale entry either)."""
    declared = set(importlib.import_module(f"clcoop.frontend.{module[:-3]}").LOWERER_USES)
    used = received_uses(class_node(module, name), "lw")
    assert used - declared == set(), f"{module}: used but not declared"
    assert declared - used == set(), f"{module}: declared but not used"
    assert declared - defined_names(class_node("lower.py", "Lowerer")) == set(), f"{module}: not the Lowerer's"
    assert {n for n in declared if n.startswith("_")} == set(), f"{module}: a private name of the Lowerer"


def test_no_node_is_lowered_by_two_parts():
    names = {module: handler_names(module, name) for module, name in PARTS.items()}
    seen = {}
    for module, handlers in names.items():
        for h in handlers:
            assert h not in seen, f"{h} in {seen.get(h)} and {module}"
            seen[h] = module
    assert names["lower_coop.py"] and names["lower_tensor.py"]


def test_every_handler_is_dispatched():
    """The ExpressionLowering's table holds each part's ex_ methods, bound to that part."""
    low = lower.Lowerer(Target("spir64-unknown-unknown"))
    table = low.expressions.handlers
    expected = set().union(*(handler_names(m, n) for m, n in PARTS.items()))
    assert {"ex_" + k for k in table} == expected
    assert table["CoopLoad"].__self__ is low.expressions.coop
    assert table["TensorOp"].__self__ is low.expressions.tensor
    assert low.expressions.coop.lw is low and low.expressions.tensor.coop is low.expressions.coop


def test_the_lowerer_composes_the_parts():
    """The Lowerer builds the ExpressionLowering, which builds the matrix and tensor parts."""
    def built(module, name):
        return {node.func.id for node in ast.walk(class_node(module, name))
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert "ExpressionLowering" in built("lower.py", "Lowerer")
    assert {"CoopLowering", "TensorLowering"} <= built("lower_expr.py", "ExpressionLowering")
    assert lower_expr.ExpressionLowering.__bases__ == (object,)
