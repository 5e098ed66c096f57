"""The native engine's fixed IR: the .ll files of clcoop/native/ll/ (the worker pool, the
checks and fault recording every generated module links), read with importlib.resources.

A layout that Python and this IR share (the pool's control words, the launch block, the
context slots, a region-table row) is named once, in Python: the .ll text refers to it
as `${NAME}` (a number or text of the given namespace) or `${NAME.key}` (an entry of a
table there, as `${CTX.fault}`), and `load` writes the values in. A name the namespace
lacks is an error, so the text and the tables cannot drift apart silently.
"""
import re
from importlib import resources

_PLACEHOLDER = re.compile(r"\$\{(\w+)(?:\.(\w+))?\}")


def text(name):
    """The .ll file `name` as written (placeholders and all)."""
    return resources.files(__package__).joinpath("ll", name).read_text(encoding="utf-8")


def load(name, namespace):
    """The .ll file `name` with each `${NAME}` / `${NAME.key}` replaced by its value in
    `namespace` (a mapping: a module's vars(), or a dict)."""
    def value(m):
        key, entry = m.group(1), m.group(2)
        if key not in namespace:
            raise KeyError(f"clcoop/native/ll/{name}: no value for ${{{m.group(0)[2:-1]}}}")
        v = namespace[key]
        if entry is not None:
            v = v[entry]
        if not isinstance(v, (int, str)) or isinstance(v, bool):
            raise TypeError(f"clcoop/native/ll/{name}: ${{{m.group(0)[2:-1]}}} is not a number or text")
        return str(v)
    return _PLACEHOLDER.sub(value, text(name))


def placeholders(name):
    """The names (`NAME` or `NAME.key`) the .ll file `name` refers to."""
    return {m.group(0)[2:-1] for m in _PLACEHOLDER.finditer(text(name))}
