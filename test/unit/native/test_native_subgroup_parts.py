"""The subgroup generator is composed of parts, not mixins (issue 27, "Composition over
mixins"; the checker's test_check_parts holds the front end to the same rule).

subgroup._SubgroupGen builds masking.Masking (lane-varying ifs and masked accesses) and
regions.Regions (lane-varying loops and nested ifs) and hands them itself as the generator
they emit through. A part inherits nothing; every `self.<name>` it reads is its own (a
method, a class constant or an attribute it assigns); and what it uses of the generator is
the short list its module declares (GENERATOR_USES), each a name the generator (or its
base codegen._FunctionGen) defines. The test reads the modules as text (ast), so it also
fails when a mixin or an undeclared use of the generator comes back.
"""
import ast
import importlib
from pathlib import Path

import pytest

from clcoop.native import subgroup
import class_parts
from class_parts import defined_names, undefined_self_uses

NATIVE = Path(subgroup.__file__).resolve().parent
# module -> the part class it holds (subgroup._SubgroupGen composes them).
PARTS = {
    "masking.py": "Masking",
    "regions.py": "Regions",
}


def class_node(module, name):
    return class_parts.class_node(NATIVE, module, name)


def generator_uses(cls):
    """Names the class reads or sets on its generator: `self.gen.<name>`, or `gen.<name>`
    where a method took `gen = self.gen`."""
    def is_gen(v):
        return isinstance(v, ast.Name) and v.id == "gen" or \
            isinstance(v, ast.Attribute) and v.attr == "gen" and isinstance(v.value, ast.Name) and v.value.id == "self"
    return {node.attr for node in ast.walk(cls) if isinstance(node, ast.Attribute) and is_gen(node.value)}


def generator_names():
    """What _SubgroupGen and its base _FunctionGen define."""
    return defined_names(class_node("subgroup.py", "_SubgroupGen")) | \
        defined_names(class_node("codegen.py", "_FunctionGen"))


@pytest.mark.parametrize("module,name", sorted(PARTS.items()))
def test_part_inherits_nothing(module, name):
    cls = class_node(module, name)
    assert not cls.bases, f"{module}: {name} inherits {[ast.unparse(b) for b in cls.bases]}"


@pytest.mark.parametrize("module,name", sorted(PARTS.items()))
def test_part_uses_only_what_it_defines_or_receives(module, name):
    assert undefined_self_uses(class_node(module, name)) == []


@pytest.mark.parametrize("module,name", sorted(PARTS.items()))
def test_part_uses_only_the_generator_interface_it_declares(module, name):
    """Every use of the generator is in the module's GENERATOR_USES, and each of those the
    generator defines (no stale entry either)."""
    declared = set(importlib.import_module(f"clcoop.native.{module[:-3]}").GENERATOR_USES)
    used = generator_uses(class_node(module, name))
    assert used - declared == set(), f"{module}: used but not declared"
    assert declared - used == set(), f"{module}: declared but not used"
    assert declared - generator_names() == set(), f"{module}: not defined by the generator"


def test_a_mixin_is_caught():
    """The rules fail on the mixin shape this replaced (a method of a sibling class) and on
    a use of the generator the module does not declare."""
    cls = ast.parse("class Part:\n    def __init__(self, gen):\n        self.gen = gen\n\n"
                    "    def f(self, ins):\n        gen = self.gen\n"
                    "        return self.lane(gen.fresh('x'), self.gen.S)\n").body[0]
    assert undefined_self_uses(cls) == [(7, "lane")]
    assert generator_uses(cls) == {"fresh", "S"}


def test_generator_composes_the_parts():
    """_SubgroupGen inherits only the per-work-item generator, and builds each part."""
    cls = class_node("subgroup.py", "_SubgroupGen")
    assert [ast.unparse(b) for b in cls.bases] == ["_FunctionGen"]
    built = {node.func.id for node in ast.walk(cls) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name)}
    assert set(PARTS.values()) <= built
