"""The repository's scripts/ as modules, for tests of their functions (they are not a package)."""
import importlib.util
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[3] / "scripts"


def load_script(filename, name=None, register=False):
    """scripts/<filename> executed as a fresh module named `name` (default: the file's stem);
    register: also put it in sys.modules under that name (a script whose dataclasses or pickled
    objects look their module up needs it)."""
    name = name or Path(filename).stem
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / filename)
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
