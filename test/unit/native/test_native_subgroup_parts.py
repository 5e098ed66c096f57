"""The subgroup generator is composed of parts, not mixins (issue 27, "Composition over
mixins"; the checker's test_check_parts holds the front end to the same rule).

subgroup._SubgroupGen inherits nothing: it is handed the kernel's per-work-item emitter
(codegen._FunctionGen, made by _ModuleGen.function_emitter) and uses of it only the public
names subgroup.WORK_ITEM_USES lists. It builds masking.Masking (lane-varying ifs and masked
accesses), regions.Regions (lane-varying loops and nested ifs), collectives.Collectives
(sub-group collectives and ballots) and matrix_tiles.MatrixTiles (cooperative-matrix
operations), and hands them itself as the generator they emit through. A part inherits
nothing; every `self.<name>` it reads is its own (a method, a class constant or an
attribute it assigns); what it uses of the generator is the short list its module declares
(GENERATOR_USES), each a public name _SubgroupGen itself defines (not the emitter behind
it); ballot_ir's functions that take the generator declare theirs the same way. The lane
analysis (lane_kinds.LaneKinds) takes plain values, not the generator. No module of the
generator reaches into another's private names, and no class of clcoop/native inherits
another class of the engine (only object, builtin types, exceptions, ctypes and llvmlite
types). The tests read the modules as text (ast), so they also fail when a mixin, a base
class or an undeclared use of the generator or the emitter comes back.
"""
import ast
import importlib
from pathlib import Path

import llvmlite.binding as llvm
import pytest

from clcoop.native import lane_kinds, subgroup
import class_parts
from class_parts import defined_names, received_uses, undefined_self_uses

NATIVE = Path(subgroup.__file__).resolve().parent
# module -> the part class it holds (subgroup._SubgroupGen composes them).
PARTS = {
    "masking.py": "Masking",
    "regions.py": "Regions",
    "collectives.py": "Collectives",
    "matrix_tiles.py": "MatrixTiles",
}
# Modules whose top-level functions take the generator as a parameter named gen.
FUNCTION_PARTS = ("ballot_ir.py",)
# The generator's modules: none reaches into another's private names.
GENERATOR_MODULES = ("subgroup.py", "lane_kinds.py", "ballot_ir.py", *PARTS)


def class_node(module, name):
    return class_parts.class_node(NATIVE, module, name)


def module_tree(module):
    return ast.parse((NATIVE / module).read_text())


def generator_uses(node):
    """Names the class (or function) reads or sets on its generator: `self.gen.<name>`, or
    `gen.<name>` where a method took `gen = self.gen` (or a function the parameter gen)."""
    return received_uses(node, "gen")


def generator_names():
    """What _SubgroupGen defines (a method, a property, an attribute it assigns)."""
    return defined_names(class_node("subgroup.py", "_SubgroupGen"))


def emitter_names():
    """What the per-work-item emitter codegen._FunctionGen defines."""
    return defined_names(class_node("codegen.py", "_FunctionGen"))


def declared(module):
    return set(importlib.import_module(f"clcoop.native.{module[:-3]}").GENERATOR_USES)


def check_declared_uses(module, used):
    names = declared(module)
    assert used - names == set(), f"{module}: used but not declared"
    assert names - used == set(), f"{module}: declared but not used"
    assert names - generator_names() == set(), f"{module}: not defined by the generator"
    assert {n for n in names if n.startswith("_")} == set(), f"{module}: a private name of the generator"
    # The emitter behind the generator is the generator's business: a part that reached it
    # (gen.emitter.<name>) would use names no list declares.
    assert "emitter" not in names, f"{module}: reaches the generator's emitter"


@pytest.mark.parametrize("module,name", sorted(PARTS.items()))
def test_part_inherits_nothing(module, name):
    cls = class_node(module, name)
    assert not cls.bases, f"{module}: {name} inherits {[ast.unparse(b) for b in cls.bases]}"


@pytest.mark.parametrize("module,name", sorted(PARTS.items()))
def test_part_uses_only_what_it_defines_or_receives(module, name):
    assert undefined_self_uses(class_node(module, name)) == []


@pytest.mark.parametrize("module,name", sorted(PARTS.items()))
def test_part_uses_only_the_generator_interface_it_declares(module, name):
    """Every use of the generator is in the module's GENERATOR_USES, each of those a public
    name the generator defines (no stale entry either)."""
    check_declared_uses(module, generator_uses(class_node(module, name)))


@pytest.mark.parametrize("module", FUNCTION_PARTS)
def test_functions_use_only_the_generator_interface_they_declare(module):
    functions = [n for n in module_tree(module).body if isinstance(n, ast.FunctionDef)
                 and "gen" in [a.arg for a in n.args.args]]
    assert functions, f"{module}: no function takes the generator"
    check_declared_uses(module, set().union(*(generator_uses(f) for f in functions)))


def private_reaches(tree, siblings):
    """(line, text) of each use of another object's private name: `from <sibling> import
    _x`, and `<expr>._x` where expr is not self (another part, the generator, an emitter, a
    sibling module). Names imported from outside the generator's modules (codegen,
    coop_routines, ...) are not this rule's business."""
    outside = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            from_sibling = node.module.rsplit(".", 1)[-1] + ".py" in siblings
            for a in node.names:
                if from_sibling and a.name.startswith("_"):
                    found.append((node.lineno, f"from {node.module} import {a.name}"))
                if not from_sibling and a.name + ".py" not in siblings:
                    outside.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            outside.update((a.asname or a.name).split(".")[0] for a in node.names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if isinstance(node.value, ast.Name) and node.value.id in {"self"} | outside:
                continue
            found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


@pytest.mark.parametrize("module", GENERATOR_MODULES)
def test_no_module_reaches_into_another_s_privates(module):
    assert private_reaches(module_tree(module), GENERATOR_MODULES) == []


def test_the_rules_catch_the_old_shapes():
    """The rules fail on the mixin shape this replaced (a method of a sibling class), on a
    use of the generator the module does not declare, and on a private reach (ballot_ir
    called the generator's _lanes_table; regions imported masking's _BRANCH)."""
    cls = ast.parse("class Part:\n    def __init__(self, gen):\n        self.gen = gen\n\n"
                    "    def f(self, ins):\n        gen = self.gen\n"
                    "        return self.lane(gen.fresh('x'), self.gen.S)\n").body[0]
    assert undefined_self_uses(cls) == [(7, "lane")]
    assert generator_uses(cls) == {"fresh", "S"}
    old = ast.parse("from clcoop.native.masking import _BRANCH\nfrom clcoop.native import coop_routines\n\n"
                    "def emit_fast(gen, emit):\n    coop_routines._memory_operands()\n"
                    "    return gen._lanes_table(emit._flags())\n")
    assert private_reaches(old, GENERATOR_MODULES) == [
        (1, "from clcoop.native.masking import _BRANCH"), (6, "emit._flags"), (6, "gen._lanes_table")]
    assert generator_uses(old) == {"_lanes_table"}


def test_generator_composes_the_parts():
    """_SubgroupGen inherits nothing, and builds each part and the lane analysis."""
    cls = class_node("subgroup.py", "_SubgroupGen")
    assert not cls.bases, f"_SubgroupGen inherits {[ast.unparse(b) for b in cls.bases]}"
    assert undefined_self_uses(cls) == []
    built = {node.func.id for node in ast.walk(cls) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name)}
    assert set(PARTS.values()) | {"LaneKinds"} <= built


def test_generator_uses_only_the_emitter_interface_it_declares():
    """Every use of the per-work-item emitter (`self.emitter.<name>`, or `emitter.<name>`
    of the constructor's parameter) is in subgroup.WORK_ITEM_USES, each a public name
    codegen._FunctionGen defines, none stale; the generator is handed the emitter, it does
    not build one (_ModuleGen.function_emitter does)."""
    cls = class_node("subgroup.py", "_SubgroupGen")
    used = received_uses(cls, "emitter")
    names = set(subgroup.WORK_ITEM_USES)
    assert used - names == set(), "used but not declared"
    assert names - used == set(), "declared but not used"
    assert names - emitter_names() == set(), "not defined by the emitter"
    assert {n for n in names if n.startswith("_")} == set(), "a private name of the emitter"
    assert "_FunctionGen" not in {n.id for n in ast.walk(module_tree("subgroup.py")) if isinstance(n, ast.Name)}


def inheriting_classes(module):
    """'module.Class(Base)' for each class of the module (imported) with a base that is
    neither object, a builtin type, an exception, nor a ctypes or llvmlite type: a base
    class of the engine's own (a mixin, a generator's base) is what it finds."""
    found = []
    for name, cls in vars(module).items():
        if not isinstance(cls, type) or cls.__module__ != module.__name__:
            continue
        for base in cls.__bases__:
            outside = base.__module__.split(".")[0] in ("builtins", "ctypes", "_ctypes", "llvmlite")
            if not (outside or issubclass(base, BaseException)):
                found.append(f"{module.__name__}.{name}({base.__name__})")
    return found


NATIVE_MODULES = sorted(p.stem for p in NATIVE.glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("name", NATIVE_MODULES)
def test_no_native_class_inherits_another(name):
    assert inheriting_classes(importlib.import_module(f"clcoop.native.{name}")) == []


def test_inheritance_rule_catches_a_base_class():
    """The rule finds the old shape (the subgroup generator a subclass of the per-work-item
    one) and lets exceptions, builtin, ctypes and llvmlite bases pass."""
    import types
    import ctypes
    from llvmlite import ir
    module = types.ModuleType("clcoop.native.fake")

    class Emitter:
        pass

    class Generator(Emitter):
        pass

    class Failure(Exception):
        pass

    class Sizes(int):
        pass

    class Struct(ctypes.Structure):
        pass

    class Half(ir.types.Type):
        pass
    for cls in (Emitter, Generator, Failure, Sizes, Struct, Half):
        cls.__module__ = module.__name__
        setattr(module, cls.__name__, cls)
    assert inheriting_classes(module) == ["clcoop.native.fake.Generator(Emitter)"]


def test_lane_analysis_takes_no_generator():
    """lane_kinds.py is plain data in, kinds out: no generator anywhere in it."""
    tree = module_tree("lane_kinds.py")
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "gen"
                or isinstance(n, ast.Attribute) and n.attr == "gen"]
    cls = class_node("lane_kinds.py", "LaneKinds")
    assert not cls.bases and undefined_self_uses(cls) == []


KINDS_IR = """
declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z12get_group_idj(i32)
define void @k(ptr addrspace(1) %p, i64 %n) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %grp = call i64 @_Z12get_group_idj(i32 0)
  %q = getelementptr inbounds float, ptr addrspace(1) %p, i64 %gid
  %row = udiv i64 %gid, 8
  %sq = mul i64 %gid, %gid
  %m = add nsw i64 %n, %grp
  %off = add nsw i64 %gid, %n
  ret void
}
"""


def _kinds(lanes, forced=frozenset()):
    f = llvm.parse_assembly(KINDS_IR).get_function("k")
    return lane_kinds.LaneKinds(lanes, {"float": 4}.get, forced).of(list(f.blocks))


def test_lane_kinds_alone():
    """The analysis runs without a generator: a lane id is 'al', a pointer indexed by it
    consecutive ('pal:4', float elements), a division by S uniform, a product of lanes
    'v', uniform arithmetic 'u', a lane plus a uniform value without wrapping 'ao'."""
    assert _kinds(8) == {"gid": "al", "grp": "u", "q": "pal:4", "row": "u", "sq": "v", "m": "u", "off": "ao"}
    assert lane_kinds.varying_names(_kinds(8)) == {"gid", "q", "sq", "off"}


def test_lane_kinds_forced_and_unaligned():
    """A forced value is 'v' whatever its operands; with S no power of two the lane rules do
    not hold, and a lane id is just 'v'."""
    assert _kinds(8, forced={"m"})["m"] == "v"
    kinds = _kinds(6)
    assert kinds["gid"] == "v" and kinds["q"] == "v" and kinds["row"] == "v"
