"""What a class of a composed part defines and uses, read from its source (the checker's and
the native subgroup generator's parts: each uses only what it defines or receives)."""
import ast
from pathlib import Path


def class_node(folder, module, name):
    """The ast.ClassDef of class `name` in folder/module."""
    tree = ast.parse((Path(folder) / module).read_text())
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)


def defined_names(cls):
    """Methods, class-level names, and attributes the class assigns to self anywhere."""
    names = set()
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(item.name)
        elif isinstance(item, ast.Assign):
            names.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id == "self":
            names.add(node.attr)
    return names


def undefined_self_uses(cls):
    """(line, name) of each `self.<name>` read that the class does not define."""
    defined = defined_names(cls)
    return sorted({(node.lineno, node.attr) for node in ast.walk(cls)
                   if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                   and node.value.id == "self" and node.attr not in defined})


def received_uses(node, holder):
    """Names read or set on the object a part received as `holder` (the generator `gen`, the
    Lowerer `lw`): `self.<holder>.<name>`, or `<holder>.<name>` where a method took
    `<holder> = self.<holder>` (or a function the parameter)."""
    def is_holder(v):
        return isinstance(v, ast.Name) and v.id == holder or \
            isinstance(v, ast.Attribute) and v.attr == holder and isinstance(v.value, ast.Name) and v.value.id == "self"
    return {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and is_holder(n.value)}
