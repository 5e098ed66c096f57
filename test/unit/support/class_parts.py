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
