"""The package's import graph, and the layering rules it must keep (issue 11).

    python -m clcoop._imports            # print the graph; exit 1 on a broken rule
    python -m clcoop._imports --inside-functions   # and list every import inside a function

Rules:
- no import cycle among clcoop's modules (module-level imports; an import inside a function
  is an edge too, because it hides a cycle rather than removing it);
- inside clcoop/interp/ and clcoop/ir/, no import inside a function, except of the
  third-party modules in LAZY_THIRD_PARTY (kept lazy so that importing them stays cheap);
- no engine package (ENGINE_PACKAGES) imports another: what two engines share lives below
  them, in the IR package (clcoop/ir/) and the launch preparation (clcoop/prepare.py);
- the IR package imports no engine (it is what the engines are built on).

Each module is read with `ast`, never imported.
"""
import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = "clcoop"
ROOT = Path(__file__).resolve().parent
LAZY_PACKAGES = ("clcoop.interp", "clcoop.ir")
LAZY_THIRD_PARTY = {"llvmlite.binding": "LLVM is loaded when a module is parsed, not on import"}
ENGINE_PACKAGES = ("clcoop.interp", "clcoop.native", "clcoop.vulkan")
IR_PACKAGE = "clcoop.ir"


@dataclass
class Module:
    name: str
    path: Path                                       # relative to the package's parent
    imports: set = field(default_factory=set)        # clcoop modules imported at module level
    lazy: list = field(default_factory=list)         # (line, imported name) inside functions


def module_name(path, root=ROOT):
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(node, current, is_package):
    """The absolute names an import statement brings in (module or module.attribute)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        parts = current.split(".")
        keep = len(parts) - node.level + (1 if is_package else 0)
        base = ".".join(parts[:keep] + ([base] if base else []))
    return [f"{base}.{alias.name}" for alias in node.names]


def _clcoop_target(name, known):
    """The clcoop module `name` refers to: itself, or its parent when it is an attribute
    (`from clcoop import __version__` is an edge to the package's __init__)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


class _ImportVisitor(ast.NodeVisitor):
    def __init__(self):
        self.depth = 0
        self.found = []        # (node, inside a function)

    def _function(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Import(self, node):
        self.found.append((node, self.depth > 0))

    visit_ImportFrom = visit_Import


def read_modules(root=ROOT):
    modules = {}
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" not in path.parts:
            name = module_name(path, root)
            modules[name] = Module(name, path.relative_to(root.parent))
    for module in modules.values():
        tree = ast.parse((root.parent / module.path).read_text(), str(module.path))
        visitor = _ImportVisitor()
        visitor.visit(tree)
        is_package = module.path.name == "__init__.py"
        for node, in_function in visitor.found:
            names = _resolve(node, module.name, is_package)
            targets = {t for t in (_clcoop_target(n, modules) for n in names) if t}
            targets.discard(module.name)
            if in_function:
                imported = sorted(targets) or [names[0].rpartition(".")[0]
                                               if isinstance(node, ast.ImportFrom) else names[0]]
                module.lazy.extend((node.lineno, name) for name in imported)
            module.imports |= targets
    return modules


def find_cycle(modules):
    """One import cycle as a list of module names (first == last), or None."""
    state = {}
    stack = []

    def visit(name):
        state[name] = "open"
        stack.append(name)
        for target in sorted(modules[name].imports):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        stack.pop()
        state[name] = "done"
        return None

    for name in sorted(modules):
        if name not in state:
            cycle = visit(name)
            if cycle:
                return cycle
    return None


def lazy_import_problems(modules):
    """Imports inside functions of clcoop/interp/ and clcoop/ir/ modules (LAZY_THIRD_PARTY aside)."""
    problems = []
    for module in modules.values():
        if not any(module.name == p or module.name.startswith(p + ".") for p in LAZY_PACKAGES):
            continue
        for line, name in module.lazy:
            if name not in LAZY_THIRD_PARTY:
                problems.append(f"{module.path}:{line}: import of {name} inside a function")
    return problems


def _package_of(name):
    return next((p for p in ENGINE_PACKAGES if name == p or name.startswith(p + ".")), None)


def engine_edges(modules):
    """(importer, imported) for each import from one engine package into another."""
    edges = []
    for module in sorted(modules.values(), key=lambda m: m.name):
        here = _package_of(module.name)
        for target in sorted(module.imports):
            there = _package_of(target)
            if here and there and here != there:
                edges.append((module.name, target))
    return edges


def engine_problems(modules):
    """Imports of one engine's modules by another's, and of any engine by the IR package."""
    problems = [f"{a} imports {b}: an engine imports no other engine (shared code belongs in "
                f"{IR_PACKAGE} or clcoop.prepare)" for a, b in engine_edges(modules)]
    for module in sorted(modules.values(), key=lambda m: m.name):
        if module.name == IR_PACKAGE or module.name.startswith(IR_PACKAGE + "."):
            problems += [f"{module.name} imports {t}: the IR package imports no engine"
                         for t in sorted(module.imports) if _package_of(t)]
    return problems


def inside_functions(modules):
    """`path:line: module -> imported` for each import of a clcoop module inside a function
    (edges of the graph all the same: such an import hides a cycle, it does not remove it)."""
    lines = []
    for module in sorted(modules.values(), key=lambda m: m.name):
        for line, name in module.lazy:
            if name == PACKAGE or name.startswith(PACKAGE + "."):
                lines.append(f"{module.path}:{line}: {module.name} -> {name}")
    return lines


def format_graph(modules):
    lines = []
    for name in sorted(modules):
        targets = sorted(modules[name].imports)
        lines.append(f"{name} -> {', '.join(targets) if targets else '(none)'}")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    modules = read_modules()
    print(format_graph(modules))
    if "--inside-functions" in argv:
        lines = inside_functions(modules)
        print(f"\n{len(lines)} imports of clcoop modules inside functions:")
        print("\n".join(lines))
    status = 0
    cycle = find_cycle(modules)
    if cycle:
        print("error: import cycle: " + " -> ".join(cycle), file=sys.stderr)
        status = 1
    for problem in lazy_import_problems(modules) + engine_problems(modules):
        print("error: " + problem, file=sys.stderr)
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
